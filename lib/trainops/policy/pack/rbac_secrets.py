"""Roles do not read Secrets wholesale: no get, list or watch on secrets in a ClusterRole, and in a
Role only ``get`` on named secrets.

Why: reading every Secret of a namespace, or of the cluster, hands over every credential stored
there (registry pulls, object-store keys, service account tokens of older clusters); ``list`` and
``watch`` return the values too. A workload needs the few secrets it mounts, which the kubelet
fetches for it.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: registry-reader, namespace: team-vision}
    rules:
    - apiGroups: [""]
      resources: [secrets]
      resourceNames: [registry-credentials]
      verbs: [get]

FAIL:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata: {name: secret-reader}
    rules:
    - apiGroups: [""]
      resources: [secrets]
      verbs: [get, list, watch]

Remediation: Grant get on the named secrets the subject needs, in a Role of their namespace.

Source: https://kubernetes.io/docs/concepts/security/rbac-good-practices/#listing-secrets
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.rbac import CLUSTER_ROLE, READ_VERBS, ROLES, role_rules
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "rbac-secrets"
LEVEL: Level = "warning"
KINDS = ROLES
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each rule reading core-group secrets: in a ClusterRole any read; in a Role list, watch, or
    get without resourceNames."""
    cluster = group_kind(obj) == CLUSTER_ROLE
    for rule in role_rules(obj):
        if not rule.grants(READ_VERBS, "", "secrets"):
            continue
        if cluster:
            yield Issue(
                (*rule.parts, "resources"),
                "ClusterRole rule reads secrets (get/list/watch) across namespaces",
                ID,
            )
        elif rule.verb({"list", "watch"}):
            yield Issue((*rule.parts, "verbs"), "rule lists or watches every secret of the namespace", ID)
        elif not rule.resource_names:
            yield Issue(
                (*rule.parts, "resourceNames"),
                "rule gets every secret of the namespace (no resourceNames)",
                ID,
            )
