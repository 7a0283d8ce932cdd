"""``Role``: a least-privilege namespaced RBAC Role, bound with ``role.bind(account)``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.role_binding import RoleBinding, Subject
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.naming import DNS1123_SUBDOMAIN

_KIND = "Role"

#: The resource verbs a trainops Role may grant (kube-apiserver request verbs).
#: Source: https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb
VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
#: Verbs that let a subject gain permissions it does not hold; never granted.
#: Source: https://kubernetes.io/docs/concepts/security/rbac-good-practices/#escalate-verb
ESCALATING_VERBS = frozenset({"escalate", "bind", "impersonate"})
#: Verbs that reveal every Secret value in the namespace.
#: Source: https://kubernetes.io/docs/concepts/security/rbac-good-practices/#listing-secrets
_SECRET_SWEEPING_VERBS = frozenset({"list", "watch"})


@dataclass(frozen=True)
class PolicyRule:
    """One rbac.authorization.k8s.io/v1 PolicyRule, without wildcards.

    Args:
        api_groups: API groups, ``""`` for the core group, e.g. ``("kubeflow.org",)``.
        resources: resources (plural, optionally ``/subresource``), e.g. ``("pytorchjobs",)``.
        verbs: verbs from :data:`VERBS`.
        resource_names: restrict to these object names. Default: every object.

    Raises:
        ValueError: an empty list; a ``*`` anywhere; an unknown or escalating verb; Secrets that
            are not named in ``resource_names`` or that may be listed or watched.
    """

    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    resource_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for prop in ("api_groups", "resources", "verbs", "resource_names"):
            values = getattr(self, prop)
            if isinstance(values, str) or not all(isinstance(v, str) for v in values):
                raise ValueError(f"Role PolicyRule {prop}={values!r}: must be a tuple of strings")
            if prop != "resource_names" and not values:
                raise ValueError(f"Role PolicyRule {prop}=(): must not be empty")
            if any("*" in v for v in values):
                raise ValueError(
                    f"Role PolicyRule {prop}={list(values)!r}: wildcards are not least privilege"
                )
        for verb in self.verbs:
            if verb in ESCALATING_VERBS:
                raise ValueError(f"Role PolicyRule verbs: {verb!r} lets the subject escalate its privileges")
            if verb not in VERBS:
                raise ValueError(f"Role PolicyRule verbs: {verb!r} is not one of {', '.join(VERBS)}")
        if "" in self.api_groups and "secrets" in self.resources:
            sweeping = sorted(_SECRET_SWEEPING_VERBS & set(self.verbs))
            if sweeping:
                raise ValueError(
                    f"Role PolicyRule verbs: {sweeping[0]!r} on secrets reveals every Secret value"
                )
            if not self.resource_names:
                raise ValueError("Role PolicyRule resources: secrets must be named in resource_names")

    def to_spec(self) -> dict[str, Any]:
        """The PolicyRule as the API spells it."""
        rule: dict[str, Any] = {
            "apiGroups": list(self.api_groups),
            "resources": list(self.resources),
            "verbs": list(self.verbs),
        }
        if self.resource_names:
            rule["resourceNames"] = list(self.resource_names)
        return rule


class Role(ObjectConstruct):
    """A rbac.authorization.k8s.io/v1 Role of explicit, wildcard-free rules (no ``escalate``, ``bind``
    or ``impersonate``; Secrets only by name and never listed). :meth:`training_submitter` is the
    Role a CI or notebook identity needs to run Kubeflow training jobs and read their pods' logs.
    Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (a Chart; its namespace is the Role's).
        id: construct id.
        name: Role name, a DNS-1123 subdomain.
        rules: the permissions, at least one :class:`PolicyRule`.
        labels: extra labels. Default: none.

    Raises:
        ValueError: no rules, a rule that is not a :class:`PolicyRule`, a bad name or label.

    Source: https://kubernetes.io/docs/reference/access-authn-authz/rbac/,
    https://kubernetes.io/docs/concepts/security/rbac-good-practices/
    """

    KIND = "Role"
    API_VERSION = "rbac.authorization.k8s.io/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        rules: Sequence[PolicyRule],
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name, max_length=253, syntax=DNS1123_SUBDOMAIN)
        if not rules:
            raise ValueError(f"{_KIND} rules=[]: give at least one PolicyRule")
        for rule in rules:
            if not isinstance(rule, PolicyRule):
                raise ValueError(f"{_KIND} rules: {rule!r} is not a PolicyRule")
        self._rules = tuple(rules)
        self._bindings = 0
        self.emit_object(
            {"rules": [r.to_spec() for r in self._rules]},
            labels=require_labels(_KIND, "labels", labels or {}),
            annotations=argocd_annotations(wave=PLATFORM_WAVE),
        )

    @property
    def rules(self) -> tuple[PolicyRule, ...]:
        """The granted rules."""
        return self._rules

    @classmethod
    def training_submitter(
        cls,
        scope: Construct,
        id: str,
        *,
        name: str = "training-submitter",
        kinds: Sequence[str] = ("pytorchjobs",),
    ) -> Role:
        """A Role to submit, watch and delete Kubeflow v1 training jobs and read their pods and logs.

        Args:
            name: Role name. Default: ``training-submitter``.
            kinds: kubeflow.org resources (plural), e.g. ``("pytorchjobs", "tfjobs")``.
                Default: ``("pytorchjobs",)``.
        """
        return cls(
            scope,
            id,
            name=name,
            rules=[
                PolicyRule(("kubeflow.org",), tuple(kinds), ("get", "list", "watch", "create", "delete")),
                PolicyRule(("",), ("pods", "pods/log", "events"), ("get", "list", "watch")),
            ],
        )

    def bind(self, *subjects: Subject, name: str | None = None) -> RoleBinding:
        """Grant this Role to ServiceAccounts with a RoleBinding (a child construct of the Role).

        Args:
            subjects: ``ServiceAccount`` constructs or names of ServiceAccounts in the namespace.
            name: RoleBinding name. Default: the Role's name, then ``-2``, ``-3``... for later bindings.

        Returns:
            The new :class:`~trainops.constructs.role_binding.RoleBinding`.
        """
        self._bindings += 1
        suffix = "" if self._bindings == 1 else f"-{self._bindings}"
        return RoleBinding(
            self, f"Binding{suffix}", role=self, subjects=subjects, name=name or f"{self._name}{suffix}"
        )
