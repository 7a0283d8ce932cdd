"""Argo CD Application destinations give exactly one of ``server`` and ``name``, and a namespace.

Why: Argo CD rejects a destination with both server and name; without a namespace, namespaced
objects without their own land in the Application controller's default, which for a shared cluster
is never what was meant.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: training, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {name: gpu-prod, namespace: ml-training}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: training, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {name: gpu-prod, server: https://kubernetes.default.svc}

Remediation: Set exactly one of destination.server and destination.name, and destination.namespace.

Source: https://argo-cd.readthedocs.io/en/stable/operator-manual/declarative-setup/#applications
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import APPLICATION_KINDS, app_spec
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "app-destination"
LEVEL: Level = "error"
KINDS = APPLICATION_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The destination's server/name exclusivity and namespace."""
    found = app_spec(obj)
    if found is None:
        return
    parts, spec = found
    destination = spec.get("destination")
    where = (*parts, "destination")
    if not isinstance(destination, dict):
        yield Issue(where, "Application has no destination", ID)
        return
    given = [k for k in ("server", "name") if destination.get(k)]
    if len(given) != 1:
        yield Issue(
            where, f"destination sets {' and '.join(given) or 'neither server nor name'}; set exactly one", ID
        )
    if not destination.get("namespace"):
        yield Issue((*where, "namespace"), "destination sets no namespace", ID)
