"""``ServiceAccount``: a workload identity without an auto-mounted API token."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, chart_namespace, emit, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.naming import DNS1123_SUBDOMAIN, require

_KIND = "ServiceAccount"


class ServiceAccount(ObjectConstruct):
    """A v1 ServiceAccount. Its API token is not mounted into pods unless asked for
    (``automount_token``), and image pull Secrets are referenced by name only: trainops never
    generates Secret values (DESIGN.md decision 9). Grant it permissions with ``Role.bind(account)``.
    Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (a Chart; its namespace is the account's).
        id: construct id.
        name: account name, a DNS-1123 subdomain of at most 253 characters.
        automount_token: ``automountServiceAccountToken``. Default: ``False``.
        image_pull_secrets: names of existing Secrets of type ``kubernetes.io/dockerconfigjson``
            in the namespace. Default: none.
        labels: extra labels. Default: none.

    Raises:
        ValueError: a bad name, Secret name (or a repeated one) or label.

    Source: https://kubernetes.io/docs/concepts/security/service-accounts/,
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting
    """

    KIND = "ServiceAccount"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        automount_token: bool = False,
        image_pull_secrets: Sequence[str] = (),
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require(DNS1123_SUBDOMAIN, _KIND, "name", name, max_length=253)
        if not isinstance(automount_token, bool):
            raise ValueError(f"{_KIND} automount_token={automount_token!r}: must be True or False")
        if isinstance(image_pull_secrets, str):
            raise ValueError(
                f"{_KIND} image_pull_secrets={image_pull_secrets!r}: must be a sequence of names"
            )
        secrets = [
            require_name(_KIND, "image_pull_secrets", s, max_length=253, syntax=DNS1123_SUBDOMAIN)
            for s in image_pull_secrets
        ]
        if len(set(secrets)) != len(secrets):
            raise ValueError(f"{_KIND} image_pull_secrets={secrets!r}: names repeat")
        self._namespace: str | None = chart_namespace(self)
        metadata: dict[str, Any] = {"name": self._name, "annotations": argocd_annotations(wave=PLATFORM_WAVE)}
        meta_labels = require_labels(_KIND, "labels", labels or {})
        if meta_labels:
            metadata["labels"] = meta_labels
        obj: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": metadata,
            "automountServiceAccountToken": automount_token,
        }
        if secrets:
            obj["imagePullSecrets"] = [{"name": s} for s in secrets]
        emit(self, obj)

    @property
    def namespace(self) -> str | None:
        """The account's namespace (its Chart's), or ``None``."""
        return self._namespace
