"""PersistentVolumeClaims carry ``Prune=false`` and ``Delete=false`` in their Argo CD sync options.

Why: a dataset or checkpoint claim removed from Git (or an Application deleted) is otherwise pruned,
and with a Delete reclaim policy weeks of checkpoints go with it.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: checkpoints
      annotations: {argocd.argoproj.io/sync-options: "Prune=false,Delete=false"}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 1Ti}}

FAIL:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: checkpoints
      annotations: {argocd.argoproj.io/sync-options: "Prune=false"}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 1Ti}}

Remediation: Add argocd.argoproj.io/sync-options: Prune=false,Delete=false to the claim.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#no-prune-resources
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import SYNC_OPTIONS, sync_options
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "protect-data"
LEVEL: Level = "error"
KINDS = frozenset({("", "PersistentVolumeClaim")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Prune=false and Delete=false in the sync options."""
    options = sync_options(obj)
    missing = [f"{key}=false" for key in ("Prune", "Delete") if options.get(key) != "false"]
    if missing:
        yield Issue(
            ("metadata", "annotations", SYNC_OPTIONS), f"PVC sync options lack {', '.join(missing)}", ID
        )
