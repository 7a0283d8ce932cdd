"""Helpers for the RBAC rules: the policy rules of Roles and ClusterRoles, and what each grants.

Semantics follow the RBAC authorizer (kubernetes ``pkg/apis/rbac/v1/evaluation_helpers.go``:
``VerbMatches``, ``APIGroupMatches``, ``ResourceMatches``): ``*`` matches every verb, group or
resource; ``<resource>/*`` every subresource of a resource.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from trainops.core.kinds import GroupKind, Parts, group_kind
from trainops.policy.pods import as_list

RBAC: Final = "rbac.authorization.k8s.io"
ROLE: Final[GroupKind] = (RBAC, "Role")
CLUSTER_ROLE: Final[GroupKind] = (RBAC, "ClusterRole")
ROLE_BINDING: Final[GroupKind] = (RBAC, "RoleBinding")
CLUSTER_ROLE_BINDING: Final[GroupKind] = (RBAC, "ClusterRoleBinding")
#: Objects holding policy rules.
ROLES: Final[frozenset[GroupKind]] = frozenset({ROLE, CLUSTER_ROLE})
#: Objects binding a role to subjects.
BINDINGS: Final[frozenset[GroupKind]] = frozenset({ROLE_BINDING, CLUSTER_ROLE_BINDING})
#: Verbs that change objects.
WRITE_VERBS: Final = frozenset({"create", "update", "patch", "delete", "deletecollection"})
#: Verbs that read objects.
READ_VERBS: Final = frozenset({"get", "list", "watch"})
#: The verbs that, spelled out on every resource of every group, amount to cluster-admin: reading
#: and writing any object (Polaris ``pkg/config/checks/clusterrolebindingClusterAdmin.yaml`` at
#: FairwindsOps/polaris main: a ``verbs`` list with these seven counts as ``*``).
ADMIN_VERBS: Final = READ_VERBS | {"create", "update", "patch", "delete"}


@dataclass(frozen=True)
class PolicyRule:
    """One entry of a role's ``rules``.

    Args:
        parts: path of the rule, e.g. ``("rules", 0)``.
        verbs, api_groups, resources, resource_names: its lists (strings only; others dropped).
    """

    parts: Parts
    verbs: frozenset[str]
    api_groups: frozenset[str]
    resources: frozenset[str]
    resource_names: frozenset[str]

    def verb(self, verbs: Iterable[str]) -> bool:
        """Whether the rule allows any of ``verbs`` (``VerbMatches``)."""
        return "*" in self.verbs or not self.verbs.isdisjoint(verbs)

    def group(self, group: str) -> bool:
        """Whether the rule covers API group ``group`` (``APIGroupMatches``)."""
        return "*" in self.api_groups or group in self.api_groups

    def resource(self, resource: str) -> bool:
        """Whether the rule covers ``resource`` (``ResourceMatches``: ``*``, the name, ``<name>/*``)."""
        if "*" in self.resources or resource in self.resources:
            return True
        main, slash, _ = resource.partition("/")
        return bool(slash) and f"{main}/*" in self.resources

    def grants(self, verbs: Iterable[str], group: str, resource: str) -> bool:
        """Whether the rule allows one of ``verbs`` on ``resource`` of ``group`` (any object name)."""
        return self.verb(verbs) and self.group(group) and self.resource(resource)

    @property
    def everything(self) -> bool:
        """Every verb on every resource of every group: what ``cluster-admin`` grants."""
        return "*" in self.verbs and "*" in self.api_groups and "*" in self.resources

    @property
    def admin(self) -> bool:
        """What ``cluster-admin`` amounts to: every resource of every group, with ``*`` or every
        verb of :data:`ADMIN_VERBS` spelled out (read and write any object, Secrets and RBAC
        objects included)."""
        return (
            "*" in self.api_groups
            and "*" in self.resources
            and ("*" in self.verbs or self.verbs >= ADMIN_VERBS)
        )


def _strings(value: Any) -> frozenset[str]:
    return frozenset(item for item in as_list(value) if isinstance(item, str))


def role_rules(obj: dict[str, Any]) -> list[PolicyRule]:
    """The policy rules of a Role or ClusterRole (``[]`` for other kinds, and for an aggregated
    ClusterRole, whose rules the controller manager fills from the roles it selects)."""
    key = group_kind(obj)
    if key not in ROLES or (key == CLUSTER_ROLE and obj.get("aggregationRule") is not None):
        return []
    found = []
    for index, rule in enumerate(as_list(obj.get("rules"))):
        if isinstance(rule, dict):
            found.append(
                PolicyRule(
                    ("rules", index),
                    _strings(rule.get("verbs")),
                    _strings(rule.get("apiGroups")),
                    _strings(rule.get("resources")),
                    _strings(rule.get("resourceNames")),
                )
            )
    return found
