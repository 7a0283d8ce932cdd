"""``SeldonDeployment``: an optional Seldon Core v1 (machinelearning.seldon.io/v1) model deployment.

Prefer :class:`~trainops.constructs.inference_service.InferenceService` (KServe, Apache-2.0).
"""

from __future__ import annotations

from typing import Any, Literal

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.pod import (
    container_security_context,
    guaranteed_resources,
    pod_security_context,
)
from trainops.constructs._core.props import require_quantity, require_whole
from trainops.core.cluster import Cluster

_KIND = "SeldonDeployment"
#: Seldon Core v1 pre-packaged model servers (``PrePackedServer`` names in the operator's
#: ``seldon-config`` ConfigMap ``predictor_servers``, v1.17.1).
Implementation = Literal[
    "SKLEARN_SERVER",
    "XGBOOST_SERVER",
    "TENSORFLOW_SERVER",
    "MLFLOW_SERVER",
    "TRITON_SERVER",
    "HUGGINGFACE_SERVER",
    "TEMPO_SERVER",
]
IMPLEMENTATIONS: tuple[Implementation, ...] = (
    "SKLEARN_SERVER",
    "XGBOOST_SERVER",
    "TENSORFLOW_SERVER",
    "MLFLOW_SERVER",
    "TRITON_SERVER",
    "HUGGINGFACE_SERVER",
    "TEMPO_SERVER",
)
SeldonProtocol = Literal["seldon", "tensorflow", "v2"]
#: Object-storage schemes Seldon's rclone-based storage initializer accepts.
MODEL_URI_PREFIXES = ("gs://", "s3://", "pvc://", "https://", "http://", "file://")
_GRAPH = "model"


class SeldonDeployment(ObjectConstruct):
    """A machinelearning.seldon.io/v1 SeldonDeployment serving one pre-packaged model server,
    optionally with a canary predictor that gets ``canary_traffic_percent`` of the traffic.

    **Licence**: Seldon Core v1.17.1 (the CRD version trainops pins) is the last Apache-2.0
    release; from January 2024 Seldon Core (v1 releases after 1.17.1 and Core 2) is distributed
    under the Business Source License 1.1, which restricts production use without a commercial
    licence. This construct is therefore optional: it targets clusters that already run Seldon
    Core v1 and lists ``seldon-core`` in ``operators``; new serving should use
    :class:`~trainops.constructs.inference_service.InferenceService` (KServe, Apache-2.0).

    Each predictor's model container (named like the graph node, ``model``) gets the trainops
    defaults: non-root pod, no privilege escalation, capabilities dropped, requests equal to
    limits. Storage credentials come from a Secret by name (``envSecretRefName``). Argo CD syncs it
    in wave ``0`` and skips the dry run while the CRD is missing.

    Args:
        scope: the parent construct (a Chart; its namespace is the deployment's).
        id: construct id.
        cluster: target cluster; must list ``seldon-core``.
        name: name, a DNS-1123 label.
        implementation: the pre-packaged server, e.g. ``"TENSORFLOW_SERVER"``, ``"SKLEARN_SERVER"``.
        model_uri: the model's URI (``gs://``, ``s3://``, ``pvc://``...).
        replicas: pods of the main predictor. Default: 2.
        cpu: cpu cores per model container (requests = limits). Default: ``"1"``.
        memory: memory per model container (requests = limits). Default: ``"2Gi"``.
        protocol: ``seldon``, ``tensorflow`` or ``v2``. Default: ``"seldon"`` (Seldon's default).
        credentials_secret: Secret with the storage credentials (``envSecretRefName``). Default: none.
        canary_model_uri: a second predictor ``canary`` serving this model. Default: none.
        canary_traffic_percent: its share of traffic, 1..99 (the main predictor gets the rest:
            Seldon's webhook requires the predictors' traffic to sum to 100). Default: 10.
        canary_replicas: pods of the canary predictor. Default: 1.

    Raises:
        ValueError: a bad prop, quoting prop and value, or a cluster without ``seldon-core``.

    Source: https://docs.seldon.io/projects/seldon-core/en/v1.17.1/reference/seldon-deployment.html,
    SeldonIO/seldon-core v1.17.1 ``operator/apis/machinelearning.seldon.io/v1/seldondeployment_webhook.go``
    (traffic sum, prepackaged servers need a modelUri), licence change:
    https://github.com/SeldonIO/seldon-core/blob/master/LICENSE (BSL 1.1 from January 2024).
    """

    KIND = "SeldonDeployment"
    API_VERSION = "machinelearning.seldon.io/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        implementation: Implementation,
        model_uri: str,
        replicas: int = 2,
        cpu: str = "1",
        memory: str = "2Gi",
        protocol: SeldonProtocol = "seldon",
        credentials_secret: str | None = None,
        canary_model_uri: str | None = None,
        canary_traffic_percent: int = 10,
        canary_replicas: int = 1,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator("seldon-core"):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list seldon-core in operators"
            )
        self._name = require_name(_KIND, "name", name)
        if implementation not in IMPLEMENTATIONS:
            raise ValueError(
                f"{_KIND} implementation={implementation!r}: must be one of {', '.join(IMPLEMENTATIONS)}"
            )
        if protocol not in ("seldon", "tensorflow", "v2"):
            raise ValueError(f"{_KIND} protocol={protocol!r}: must be 'seldon', 'tensorflow' or 'v2'")
        secret = (
            None
            if credentials_secret is None
            else require_name(_KIND, "credentials_secret", credentials_secret, max_length=253)
        )
        resources = guaranteed_resources(
            require_quantity(_KIND, "cpu", cpu),
            require_quantity(_KIND, "memory", memory, whole_bytes=True),
            {},
        )
        main = _predictor(
            "default",
            implementation,
            _uri("model_uri", model_uri),
            require_whole(_KIND, "replicas", replicas, minimum=1),
            resources,
            secret,
        )
        predictors = [main]
        if canary_model_uri is not None:
            percent = require_whole(_KIND, "canary_traffic_percent", canary_traffic_percent, minimum=1)
            if percent > 99:
                raise ValueError(
                    f"{_KIND} canary_traffic_percent={canary_traffic_percent!r}: must be at most 99 "
                    "(the main predictor keeps the rest)"
                )
            canary = _predictor(
                "canary",
                implementation,
                _uri("canary_model_uri", canary_model_uri),
                require_whole(_KIND, "canary_replicas", canary_replicas, minimum=1),
                resources,
                secret,
            )
            main["traffic"], canary["traffic"] = 100 - percent, percent
            predictors.append(canary)
        self._predictors = tuple(p["name"] for p in predictors)
        self.emit_object(
            {"spec": {"protocol": protocol, "predictors": predictors}},
            annotations=argocd_annotations(wave=0, options=[SKIP_DRY_RUN_OPTIONS]),
        )

    @property
    def predictors(self) -> tuple[str, ...]:
        """Predictor names (``default`` and, with a canary, ``canary``)."""
        return self._predictors


def _uri(prop: str, value: str) -> str:
    if (
        not isinstance(value, str)
        or not value.startswith(MODEL_URI_PREFIXES)
        or any(c.isspace() for c in value)
    ):
        raise ValueError(f"{_KIND} {prop}={value!r}: must start with one of {', '.join(MODEL_URI_PREFIXES)}")
    if not value.partition("://")[2].strip("/"):
        raise ValueError(f"{_KIND} {prop}={value!r}: names no bucket or path")
    return value


def _predictor(
    name: str,
    implementation: str,
    uri: str,
    replicas: int,
    resources: dict[str, Any],
    secret: str | None,
) -> dict[str, Any]:
    graph: dict[str, Any] = {"name": _GRAPH, "implementation": implementation, "modelUri": uri}
    if secret is not None:
        graph["envSecretRefName"] = secret
    container = {"name": _GRAPH, "resources": resources, "securityContext": container_security_context()}
    return {
        "name": name,
        "replicas": replicas,
        "graph": graph,
        "componentSpecs": [
            {
                "spec": {
                    "automountServiceAccountToken": False,
                    "securityContext": pod_security_context(),
                    "containers": [container],
                }
            }
        ],
    }
