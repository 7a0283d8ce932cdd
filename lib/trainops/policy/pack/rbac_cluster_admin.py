"""No binding grants cluster-admin: no RoleBinding or ClusterRoleBinding to the ``cluster-admin``
ClusterRole, or to a rendered role granting every verb on every resource (``*``, or get, list,
watch, create, update, patch and delete spelled out, on ``*`` resources of ``*`` groups).

A ClusterRole is found whatever ``metadata.namespace`` it carries (the API server drops the
namespace of cluster-scoped objects); a Role in the binding's namespace. Bindings named
``system:…`` are judged like any other (Polaris skips them as the cluster's defaults: a repository
rendering one grants what it binds all the same).

Why: cluster-admin is every permission on every object of every namespace, secrets and RBAC
included; a compromised subject owns the cluster. A controller's or a team's role lists what it
needs.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: {name: training-submitter, namespace: team-vision}
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: training-submitter}
    subjects:
    - {kind: Group, apiGroup: rbac.authorization.k8s.io, name: team-vision}

FAIL:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRoleBinding
    metadata: {name: vision-admin}
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
    subjects:
    - {kind: ServiceAccount, name: trainer, namespace: team-vision}

Remediation: Bind a role that lists the verbs and resources the subject needs instead of cluster-admin.

Source: Polaris clusterrolebindingClusterAdmin and rolebindingClusterAdminClusterRole; https://kubernetes.io/docs/concepts/security/rbac-good-practices/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex
from trainops.policy.pods import as_str, dig, metadata_of
from trainops.policy.rbac import BINDINGS, CLUSTER_ROLE, ROLE_BINDING, role_rules
from trainops.policy.rule import Context, describe

ID = "rbac-cluster-admin"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each binding whose roleRef is ``cluster-admin`` or a rendered role with a rule granting
    every verb (:attr:`~trainops.policy.rbac.PolicyRule.admin`) on ``*`` resources of ``*`` groups
    (a RoleBinding's Role in its own namespace; a ClusterRole wherever its stray namespace says)."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, binding in enumerate(objects):
        key = group_kind(binding)
        if key not in BINDINGS:
            continue
        kind, name = as_str(dig(binding, "roleRef", "kind")), as_str(dig(binding, "roleRef", "name"))
        if kind is None or name is None:
            continue
        if kind == CLUSTER_ROLE[1] and name == "cluster-admin":
            yield index, Issue(("roleRef", "name"), "binds the cluster-admin ClusterRole", ID)
            continue
        namespace = metadata_of(binding).get("namespace") if kind == "Role" and key == ROLE_BINDING else None
        role = index_.first(kind, name, namespace)
        if role is not None and any(rule.admin for rule in role_rules(role)):
            yield (
                index,
                Issue(
                    ("roleRef", "name"),
                    f'binds {kind} "{name}", which grants every verb on every resource',
                    ID,
                ),
            )
