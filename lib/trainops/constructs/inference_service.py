"""``InferenceService``: a KServe (serving.kserve.io/v1beta1) model deployment."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trainops.cluster import Cluster
from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.pod import (
    container_security_context,
    env_entries,
    gpu_placement,
    guaranteed_resources,
    pod_security_context,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_env,
    require_image,
    require_labels,
    require_quantity,
    require_strings,
    require_whole,
)
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs.serving_runtime import (
    KSERVE_CONTAINER,
    PROTOCOL_VERSIONS,
    ProtocolVersion,
    ServingRuntime,
)
from trainops.naming import DNS1035_LABEL

_KIND = "InferenceService"

#: Model formats the KServe runtimes shipped in v0.20 serve (``config/runtimes``).
ModelFormatName = Literal[
    "tensorflow", "pytorch", "sklearn", "xgboost", "lightgbm", "huggingface", "triton", "onnx", "tensorrt"
]
MODEL_FORMATS: tuple[ModelFormatName, ...] = (
    "tensorflow",
    "pytorch",
    "sklearn",
    "xgboost",
    "lightgbm",
    "huggingface",
    "triton",
    "onnx",
    "tensorrt",
)
#: Storage URI schemes KServe's storage initializer accepts (kserve v0.20
#: ``pkg/apis/serving/v1beta1`` ``SupportedStorageURIPrefixList``).
STORAGE_URI_PREFIXES = (
    "gs://",
    "s3://",
    "pvc://",
    "file://",
    "https://",
    "http://",
    "hdfs://",
    "webhdfs://",
    "oci://",
    "hf://",
)
ScaleMetric = Literal["cpu", "memory", "concurrency", "rps"]
DeploymentMode = Literal["Serverless", "RawDeployment"]
#: Annotation selecting the KServe deployment mode (``constants.DeploymentMode``).
DEPLOYMENT_MODE_ANNOTATION = "serving.kserve.io/deploymentMode"
_SECRET_LIKE = re.compile(r"(?i)secret|token|password|passwd|credential|key")


class InferenceService(ObjectConstruct):
    """A serving.kserve.io/v1beta1 InferenceService with a ``predictor.model`` (the model-format
    schema KServe recommends since v0.8) and an optional ``transformer``.

    The model comes from ``storage_uri`` (object storage, ``hf://``, ``oci://``...) or from a
    ``model_volume`` as ``pvc://<claim>/<path>``; KServe's storage initializer init container
    downloads it to ``/mnt/models`` before the server starts. The predictor pod gets the trainops
    defaults: non-root, seccomp RuntimeDefault, no service-account token, a read-only root
    filesystem with an emptyDir at ``/tmp``, requests equal to limits, and GPU tolerations and
    node selector of the cluster when ``gpus`` > 0. Argo CD syncs it in wave ``0`` and skips the
    dry run while KServe's CRDs are missing.

    Canary rollout: set ``canary_traffic_percent`` when changing the model; KServe then routes that
    share of traffic to the new revision and the rest to the last ready one (Serverless mode only).

    Args:
        scope: the parent construct (a Chart; its namespace is the InferenceService's).
        id: construct id.
        cluster: target cluster; must list ``kserve``.
        name: name, a DNS-1035 label (KServe's ``IsvcNameFmt``, ``[a-z]([-a-z0-9]*[a-z0-9])?``).
        model_format: ``tensorflow``, ``pytorch``, ``sklearn``, ``xgboost``, ``lightgbm``,
            ``huggingface``, ``triton``, ``onnx`` or ``tensorrt``.
        storage_uri: where the model is, with one of :data:`STORAGE_URI_PREFIXES`. Default: none
            (give ``model_volume``).
        model_volume: a ``VolumeClaim`` or claim name holding the model. Default: none.
        model_path: path of the model inside ``model_volume``. Default: the volume's root.
        model_format_version: ``modelFormat.version``. Default: unset (any).
        runtime: a :class:`ServingRuntime`/``ClusterServingRuntime`` or the name of one; it must
            support ``model_format`` (and ``protocol_version``). Default: KServe auto-selects.
        protocol_version: ``v1``, ``v2``, ``grpc-v1`` or ``grpc-v2``. Default: the runtime's default.
        args: model container args. Default: none.
        env: model container environment, in order (no secret-like names: use Secrets). Default: none.
        cpu: cpu cores per predictor pod (requests = limits). Default: ``"1"``.
        memory: memory per predictor pod (requests = limits). Default: ``"2Gi"``.
        gpus: GPUs per predictor pod (``cluster.gpu_resource``). Default: 0.
        model_disk: ephemeral-storage of the model container (requests = limits) when the model is
            downloaded (``storage_uri``; a ``model_volume`` is mounted, not copied): KServe's storage
            initializer copies it into an emptyDir on the node's disk, counted against this limit
            (policy rule ``ephemeral-storage``). Default: ``"20Gi"``.
        min_replicas: fewest predictor pods; 0 allows scale to zero (cold starts). Default: 1.
        max_replicas: most predictor pods. Default: 3.
        scale_metric: ``cpu``, ``memory``, ``concurrency`` or ``rps``. Default: KServe's default.
        scale_target: target value of ``scale_metric`` per pod (percent for cpu/memory). Default: unset.
        canary_traffic_percent: percent of traffic for the latest revision, 0..100. Default: unset.
        deployment_mode: ``Serverless`` (Knative) or ``RawDeployment`` (Deployment + HPA), written as
            the ``serving.kserve.io/deploymentMode`` annotation. Default: the cluster's KServe default.
        transformer_image: image of a pre/post-processing transformer. Default: none.
        transformer_args: transformer container args. Default: none.
        service_account: ``serviceAccountName`` of the predictor (its Secrets give storage
            credentials). Default: the namespace default.
        labels: extra labels on the InferenceService. Default: none.

    Raises:
        ValueError: a bad prop, quoting prop and value: both or neither of ``storage_uri`` and
            ``model_volume``, an unsupported URI scheme, ``max_replicas`` < ``min_replicas``
            (KServe ``validateReplicas``), a traffic percent outside 0..100, ``scale_metric``
            without ``scale_target`` (or the other way round), concurrency/rps or a canary in
            RawDeployment mode, a runtime that lacks the model format, or a cluster without ``kserve``.

    Source: https://kserve.github.io/website/latest/reference/api/ (v1beta1 InferenceServiceSpec),
    kserve v0.20 ``pkg/apis/serving/v1beta1/inference_service_validation.go`` (name format,
    ``validateReplicas``, storage URI) and ``component.go``.
    """

    KIND = "InferenceService"
    API_VERSION = "serving.kserve.io/v1beta1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        model_format: ModelFormatName,
        storage_uri: str | None = None,
        model_volume: ClaimSource | str | None = None,
        model_path: str = "",
        model_format_version: str | None = None,
        runtime: ServingRuntime | str | None = None,
        protocol_version: ProtocolVersion | None = None,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cpu: str = "1",
        memory: str = "2Gi",
        gpus: int = 0,
        model_disk: str = "20Gi",
        min_replicas: int = 1,
        max_replicas: int = 3,
        scale_metric: ScaleMetric | None = None,
        scale_target: int | None = None,
        canary_traffic_percent: int | None = None,
        deployment_mode: DeploymentMode | None = None,
        transformer_image: str | None = None,
        transformer_args: Sequence[str] | None = None,
        service_account: str | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator("kserve"):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list kserve in operators"
            )
        self._cluster = cluster
        self._name = require_name(_KIND, "name", name, syntax=DNS1035_LABEL)
        if model_format not in MODEL_FORMATS:
            raise ValueError(
                f"{_KIND} model_format={model_format!r}: must be one of {', '.join(MODEL_FORMATS)}"
            )
        self._storage_uri = _storage_uri(storage_uri, model_volume, model_path)
        if protocol_version is not None and protocol_version not in PROTOCOL_VERSIONS:
            raise ValueError(
                f"{_KIND} protocol_version={protocol_version!r}: must be one of {', '.join(PROTOCOL_VERSIONS)}"
            )
        runtime_name = _runtime(runtime, model_format, protocol_version)
        self._min = require_whole(_KIND, "min_replicas", min_replicas, minimum=0)
        self._max = require_whole(_KIND, "max_replicas", max_replicas, minimum=1)
        if self._min > self._max:
            raise ValueError(
                f"{_KIND} min_replicas={min_replicas!r}: must not exceed max_replicas={max_replicas!r}"
            )
        if deployment_mode is not None and deployment_mode not in ("Serverless", "RawDeployment"):
            raise ValueError(
                f"{_KIND} deployment_mode={deployment_mode!r}: must be 'Serverless' or 'RawDeployment'"
            )
        raw = deployment_mode == "RawDeployment"
        model: dict[str, Any] = {"modelFormat": {"name": model_format}}
        if model_format_version is not None:
            if not isinstance(model_format_version, str) or not model_format_version:
                raise ValueError(f"{_KIND} model_format_version={model_format_version!r}: must be non-empty")
            model["modelFormat"]["version"] = model_format_version
        if runtime_name is not None:
            model["runtime"] = runtime_name
        if protocol_version is not None:
            model["protocolVersion"] = protocol_version
        model["storageUri"] = self._storage_uri
        model_args = require_strings(_KIND, "args", args)
        if model_args:
            model["args"] = list(model_args)
        user_env = require_env(_KIND, "env", env or {})
        for env_name in user_env:
            if _SECRET_LIKE.search(env_name):
                raise ValueError(
                    f"{_KIND} env: {env_name!r} looks like a secret; reference a Secret from the ServingRuntime"
                )
        if user_env:
            model["env"] = env_entries(user_env)
        gpu_count = require_whole(_KIND, "gpus", gpus)
        model["resources"] = guaranteed_resources(
            require_quantity(_KIND, "cpu", cpu),
            require_quantity(_KIND, "memory", memory, whole_bytes=True),
            {cluster.gpu_resource: gpu_count},
        )
        if not self._storage_uri.startswith("pvc://"):
            disk = require_quantity(_KIND, "model_disk", model_disk, whole_bytes=True).canonical()
            for section in ("requests", "limits"):
                model["resources"][section]["ephemeral-storage"] = disk
        model["securityContext"] = container_security_context()
        volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
        model["volumeMounts"] = mounts

        predictor: dict[str, Any] = {
            "minReplicas": self._min,
            "maxReplicas": self._max,
        }
        if (scale_metric is None) != (scale_target is None):
            raise ValueError(
                f"{_KIND} scale_metric={scale_metric!r}, scale_target={scale_target!r}: give both or neither"
            )
        if scale_metric is not None:
            if scale_metric not in ("cpu", "memory", "concurrency", "rps"):
                raise ValueError(
                    f"{_KIND} scale_metric={scale_metric!r}: must be 'cpu', 'memory', 'concurrency' or 'rps'"
                )
            target = require_whole(_KIND, "scale_target", scale_target, minimum=1)
            if scale_metric in ("cpu", "memory") and target > 100:
                raise ValueError(
                    f"{_KIND} scale_target={scale_target!r}: must be at most 100 (percent) for {scale_metric}"
                )
            if raw and scale_metric in ("concurrency", "rps"):
                raise ValueError(
                    f"{_KIND} scale_metric={scale_metric!r}: RawDeployment scales with an HPA on cpu or memory only"
                )
            predictor["scaleMetric"] = scale_metric
            predictor["scaleTarget"] = target
        if canary_traffic_percent is not None:
            percent = require_whole(_KIND, "canary_traffic_percent", canary_traffic_percent)
            if percent > 100:
                raise ValueError(
                    f"{_KIND} canary_traffic_percent={canary_traffic_percent!r}: must be at most 100"
                )
            if raw:
                raise ValueError(
                    f"{_KIND} canary_traffic_percent={canary_traffic_percent!r}: canary rollout needs Serverless mode"
                )
            predictor["canaryTrafficPercent"] = percent
        self._canary = canary_traffic_percent
        predictor.update(_pod_fields(_KIND, service_account))
        if gpu_count:
            predictor.update(gpu_placement(cluster))
        predictor["model"] = model
        predictor["volumes"] = volumes
        spec: dict[str, Any] = {"predictor": predictor}
        self._transformer = transformer_image is not None
        if transformer_image is not None:
            spec["transformer"] = _transformer(transformer_image, transformer_args)
        elif transformer_args is not None:
            raise ValueError(f"{_KIND} transformer_args={transformer_args!r}: needs a transformer_image")
        annotations = argocd_annotations(wave=0, options=[SKIP_DRY_RUN_OPTIONS])
        if deployment_mode is not None:
            annotations[DEPLOYMENT_MODE_ANNOTATION] = deployment_mode
        self._model_format = model_format
        self.emit_object(
            {"spec": spec}, labels=require_labels(_KIND, "labels", labels or {}), annotations=annotations
        )

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        return self._cluster

    @property
    def storage_uri(self) -> str:
        """The model's storage URI (``pvc://...`` for a model volume)."""
        return self._storage_uri

    @property
    def model_format(self) -> str:
        """The model format name."""
        return self._model_format

    @property
    def min_replicas(self) -> int:
        """Fewest predictor pods."""
        return self._min

    @property
    def max_replicas(self) -> int:
        """Most predictor pods."""
        return self._max

    @property
    def selector_labels(self) -> dict[str, str]:
        """Labels KServe puts on the predictor pods (``constants.InferenceServicePodLabelKey`` and
        ``KServiceComponentLabel``): select them in a PodMonitor, PDB or NetworkPolicy."""
        return {"serving.kserve.io/inferenceservice": self._name, "component": "predictor"}


def _storage_uri(storage_uri: str | None, model_volume: ClaimSource | str | None, model_path: str) -> str:
    if (storage_uri is None) == (model_volume is None):
        raise ValueError(f"{_KIND} storage_uri, model_volume: give exactly one of them")
    if model_volume is not None:
        claim = model_volume if isinstance(model_volume, str) else model_volume.claim_name
        require_name(_KIND, "model_volume", claim)
        if not isinstance(model_path, str) or model_path.startswith("/") or ".." in model_path.split("/"):
            raise ValueError(f"{_KIND} model_path={model_path!r}: must be a relative path inside the volume")
        return f"pvc://{claim}/{model_path}" if model_path else f"pvc://{claim}"
    if model_path:
        raise ValueError(
            f"{_KIND} model_path={model_path!r}: needs a model_volume (put the path in storage_uri)"
        )
    assert storage_uri is not None
    if (
        not isinstance(storage_uri, str)
        or not storage_uri.startswith(STORAGE_URI_PREFIXES)
        or any(c.isspace() for c in storage_uri)
    ):
        raise ValueError(
            f"{_KIND} storage_uri={storage_uri!r}: must start with one of {', '.join(STORAGE_URI_PREFIXES)}"
        )
    scheme, _, rest = storage_uri.partition("://")
    if not rest.strip("/"):
        raise ValueError(f"{_KIND} storage_uri={storage_uri!r}: names no bucket or path after {scheme}://")
    if "@" in rest.split("/", 1)[0] and scheme in ("http", "https", "s3", "gs"):
        raise ValueError(f"{_KIND} storage_uri={storage_uri!r}: credentials belong in a Secret, not the URI")
    return storage_uri


def _runtime(
    runtime: ServingRuntime | str | None, model_format: str, protocol_version: ProtocolVersion | None
) -> str | None:
    if runtime is None or isinstance(runtime, str):
        return None if runtime is None else require_name(_KIND, "runtime", runtime)
    if model_format not in runtime.model_formats:
        raise ValueError(
            f"{_KIND} runtime={runtime.name!r}: {runtime.kind} supports {', '.join(runtime.model_formats)}, "
            f"not {model_format!r}"
        )
    if protocol_version is not None and protocol_version not in runtime.protocol_versions:
        raise ValueError(
            f"{_KIND} protocol_version={protocol_version!r}: {runtime.kind} {runtime.name!r} speaks "
            f"{', '.join(runtime.protocol_versions)}"
        )
    return runtime.name


def _pod_fields(kind: str, service_account: str | None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "automountServiceAccountToken": False,
        "securityContext": pod_security_context(),
    }
    if service_account is not None:
        fields["serviceAccountName"] = require_name(kind, "service_account", service_account)
    return fields


def _transformer(image: str, args: Sequence[str] | None) -> dict[str, Any]:
    volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
    container: dict[str, Any] = {
        "name": KSERVE_CONTAINER,
        "image": require_image(_KIND, "transformer_image", image),
    }
    transformer_args = require_strings(_KIND, "transformer_args", args)
    if transformer_args:
        container["args"] = list(transformer_args)
    container["resources"] = guaranteed_resources(
        require_quantity(_KIND, "cpu", "500m"), require_quantity(_KIND, "memory", "1Gi"), {}
    )
    container["securityContext"] = container_security_context()
    container["volumeMounts"] = mounts
    return {**_pod_fields(_KIND, None), "containers": [container], "volumes": volumes}
