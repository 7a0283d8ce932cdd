"""``RoleBinding``: grants a ``Role`` to ServiceAccounts of the same namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, chart_namespace, emit, require_name
from trainops.constructs._core.protocols import Grantable
from trainops.constructs.service_account import ServiceAccount
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.naming import DNS1123_SUBDOMAIN

_KIND = "RoleBinding"

#: A subject: a ``ServiceAccount`` construct or the name of a ServiceAccount in the namespace.
Subject = ServiceAccount | str


class RoleBinding(ObjectConstruct):
    """A rbac.authorization.k8s.io/v1 RoleBinding of a trainops ``Role`` to ServiceAccounts of the
    binding's namespace (never a ClusterRole, never another namespace's accounts). Usually made by
    ``role.bind(account)``. Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (``Role.bind`` uses the Role).
        id: construct id.
        role: the granted Role (a :class:`~trainops.constructs._core.protocols.Grantable`: its ``name``).
        subjects: ``ServiceAccount`` constructs or ServiceAccount names, at least one, no repeats.
        name: binding name, a DNS-1123 subdomain. Default: the Role's name.

    Raises:
        ValueError: no subjects, a repeated subject, a subject that is neither, a ServiceAccount of
            another namespace, a Chart without a namespace, a bad name.

    Source: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#rolebinding-and-clusterrolebinding
    """

    KIND = "RoleBinding"
    API_VERSION = "rbac.authorization.k8s.io/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        role: Grantable,
        subjects: Sequence[Subject],
        name: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(
            _KIND, "name", role.name if name is None else name, max_length=253, syntax=DNS1123_SUBDOMAIN
        )
        namespace = chart_namespace(self)
        if namespace is None:
            raise ValueError(
                f"{_KIND} {self._name!r}: the Chart has no namespace for the ServiceAccount subjects"
            )
        if not subjects:
            raise ValueError(f"{_KIND} subjects=(): give at least one ServiceAccount")
        names: list[str] = []
        for subject in subjects:
            if isinstance(subject, ServiceAccount):
                if subject.namespace not in (None, namespace):
                    raise ValueError(
                        f"{_KIND} subjects: ServiceAccount {subject.name!r} is in namespace "
                        f"{subject.namespace!r}, not {namespace!r}"
                    )
                names.append(subject.name)
            elif isinstance(subject, str):
                names.append(
                    require_name(_KIND, "subjects", subject, max_length=253, syntax=DNS1123_SUBDOMAIN)
                )
            else:
                raise ValueError(f"{_KIND} subjects: {subject!r} is not a ServiceAccount or a name")
        if len(set(names)) != len(names):
            raise ValueError(f"{_KIND} subjects={names!r}: a ServiceAccount repeats")
        self._role = role
        obj: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": self._name, "annotations": argocd_annotations(wave=PLATFORM_WAVE)},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role.name},
            "subjects": [{"kind": "ServiceAccount", "name": n, "namespace": namespace} for n in names],
        }
        emit(self, obj)

    @property
    def role(self) -> Grantable:
        """The granted Role."""
        return self._role
