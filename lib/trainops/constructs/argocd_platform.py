"""``PlatformApplication``: an Argo CD Application that installs one platform component (an
operator, its CRDs, the GPU stack, Prometheus) from its upstream release at the declared version.

Platform components are long-lived, with the safety Argo CD users learned for operators:

- **sources from the upstream release**, never copied into git: a Helm chart (``repoURL`` +
  ``chart`` + ``targetRevision``, values in ``helm.valuesObject``), an OCI Helm chart (Argo CD v3
  ``oci://`` source with ``path: .``) or a kustomization at a git tag (with ``kustomize.images``
  overrides) - :class:`trainops.core.platform.Source`;
- **no pruning and no cascading delete**: ``automated.prune: false`` and no resources finalizer.
  Deleting a CRD deletes every object of its kind, so neither an upgrade that drops a CRD nor a
  deleted Application may remove one (a dropped object is listed as "requires pruning" for a person
  to review); self-heal stays on;
- ``ServerSideApply=true`` when a CRD of the release exceeds the 256 KiB client-side apply limit
  (the catalog records the size); ``CreateNamespace=true`` for the component's namespace;
- ``ignoreDifferences`` (with ``RespectIgnoreDifferences=true``) for what operators and
  cert-manager rewrite after install: webhook ``clientConfig.caBundle`` and the CRD conversion
  webhook's ``caBundle`` (Argo CD diffing.md; the cert injector fills them);
- a **sync wave** under the root Application, so CRDs come before their operators, operators
  before the components that need them, and all of them before the apps (the root waits for each
  wave's Applications to be Healthy, which requires the Application health check that ``trainops
  argocd health-checks`` writes; a component's Application is Healthy once its controller
  Deployment is available, Argo CD's built-in Deployment health).

Sources: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/ (Server-Side Apply,
Create Namespace, Respect ignore differences), .../user-guide/diffing/, .../user-guide/oci/,
.../user-guide/helm/ (``valuesObject``, ``releaseName``), .../user-guide/kustomize/ (``images``),
.../user-guide/app_deletion/ and the Application CRD ``argoproj.io/v1alpha1`` of Argo CD v3.5.1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainops.constructs._core.argocd import COMPARE_OPTIONS, SYNC_WAVE
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.argocd_application import (
    API_VERSION,
    CLASS_LABEL,
    RETRY_BACKOFF,
    RETRY_LIMIT,
    SERVER_SIDE_DIFF,
    WAIVER_PREFIX,
    IgnoreDifference,
    merge_ignores,
)
from trainops.core.platform import COMPONENT_LABEL, VERSION_LABEL, PlatformApp

#: The class label value of platform Applications.
PLATFORM_CLASS = "platform"
#: Fields that operators and cert-manager's CA injector write after install.
REWRITTEN: tuple[IgnoreDifference, ...] = (
    IgnoreDifference(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        jq_path_expressions=(".webhooks[]?.clientConfig.caBundle",),
    ),
    IgnoreDifference(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        jq_path_expressions=(".webhooks[]?.clientConfig.caBundle",),
    ),
    IgnoreDifference(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        json_pointers=("/spec/conversion/webhook/clientConfig/caBundle",),
    ),
)
#: Why a platform Application carries no resources finalizer (the ``app-finalizer`` waiver).
NO_CASCADE = (
    "deleting a platform Application must not delete its CRDs and with them every object of their kinds"
)


def platform_source(app: PlatformApp) -> dict[str, Any]:
    """``spec.source`` installing ``app.source`` (see the module docstring), values included."""
    src = app.source
    out: dict[str, Any] = {"repoURL": src.repo, "targetRevision": src.version}
    if src.kind == "helm":
        out["chart"] = src.chart
    elif src.kind == "oci":
        out["path"] = "."
    else:
        out["path"] = src.path
        if src.images:
            out["kustomize"] = {"images": list(src.images)}
        return out
    helm: dict[str, Any] = {"releaseName": src.release or app.component}
    if app.values:
        helm["valuesObject"] = dict(app.values)
    out["helm"] = helm
    return out


def sync_options(app: PlatformApp) -> list[str]:
    """``CreateNamespace=true``, ``ServerSideApply=true`` when the release's CRDs need it, and
    ``RespectIgnoreDifferences=true``."""
    options = ["CreateNamespace=true"]
    if app.server_side_apply:
        options.append("ServerSideApply=true")
    options.append("RespectIgnoreDifferences=true")
    return options


class PlatformApplication(ObjectConstruct):
    """An Argo CD Application installing one source of a platform component on one cluster.

    Args:
        scope: the parent construct (a Chart whose namespace is Argo CD's).
        id: construct id.
        app: what to install (:func:`trainops.core.platform.platform_apps`).
        project: the platform AppProject.
        destination_server: the cluster's API server URL.
        wave: the sync wave under the root Application.
        labels: extra labels. Default: none.

    Raises:
        ValueError: a bad name, project, server, wave or label.
    """

    KIND = "Application"
    API_VERSION = API_VERSION

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        app: PlatformApp,
        project: str,
        destination_server: str,
        wave: int,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        kind = self.KIND
        self._name = require_name(kind, "name", app.name)
        require_name(kind, "project", project)
        if not destination_server.startswith("https://"):
            raise ValueError(f"{kind} destination_server={destination_server!r}: must be an https:// URL")
        if isinstance(wave, bool) or not isinstance(wave, int):
            raise ValueError(f"{kind} wave={wave!r}: must be an integer")
        metadata: dict[str, Any] = {
            "name": self._name,
            "labels": {
                **require_labels(kind, "labels", labels or {}),
                CLASS_LABEL: PLATFORM_CLASS,
                COMPONENT_LABEL: app.component,
                VERSION_LABEL: app.version,
            },
            "annotations": {
                COMPARE_OPTIONS: SERVER_SIDE_DIFF,
                SYNC_WAVE: str(wave),
                f"{WAIVER_PREFIX}app-finalizer": NO_CASCADE,
            },
        }
        info = [
            {"name": "trainops class", "value": f"platform: {app.title} {app.version} ({app.source.layer})"}
        ]
        if app.deployment is not None:
            info.append(
                {"name": "healthy when", "value": f"Deployment {app.namespace}/{app.deployment} is available"}
            )
        spec: dict[str, Any] = {
            "project": project,
            "source": platform_source(app),
            "destination": {"server": destination_server, "namespace": app.namespace},
            "syncPolicy": {
                "automated": {"prune": False, "selfHeal": True},
                "retry": {"limit": RETRY_LIMIT["long-lived"], "backoff": dict(RETRY_BACKOFF)},
                "syncOptions": sync_options(app),
            },
            "ignoreDifferences": [entry.to_dict() for entry in merge_ignores(REWRITTEN)],
            "info": info,
        }
        emit(self, {"apiVersion": self.api_version, "kind": kind, "metadata": metadata, "spec": spec})
