"""Every namespaced object names its namespace, and not ``default``.

Why: an object without a namespace lands wherever the applying tool points (Argo CD's destination
namespace, or ``default``), so the same manifest deploys differently by context; the ``default``
namespace has no quota, network policy or RBAC boundary of its own.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml-training}
    data: {epochs: "10"}

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
    data: {epochs: "10"}

Remediation: Set metadata.namespace to the app's namespace.

Source: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import CLUSTER_SCOPED, group_kind
from trainops.policy.pods import metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "namespace-set"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A namespaced kind (anything not in the cluster-scoped list) without a namespace or in default."""
    key = group_kind(obj)
    if key is None or key in CLUSTER_SCOPED:
        return
    namespace = metadata_of(obj).get("namespace")
    if not namespace:
        yield Issue(("metadata",), f"{key[1]} sets no metadata.namespace", ID)
    elif namespace == "default":
        yield Issue(("metadata", "namespace"), f"{key[1]} is in the default namespace", ID)
