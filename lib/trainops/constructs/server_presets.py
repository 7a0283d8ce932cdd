"""Model-server presets for :class:`~trainops.constructs.model_server.ModelServer` (TensorFlow Serving,
TorchServe, Triton) and the storage-initializer init container that fetches a model from object
storage before the server starts.

A preset is data: the ports each server really listens on (named, so Services and monitors refer
to them by name), the health endpoints its probes use, where it reads models from, and the command
line that makes it listen on all interfaces and load every model in that directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trainops.constructs._core.pod import (
    TMP_PATH,
    TMP_VOLUME,
    container_security_context,
    guaranteed_resources,
)
from trainops.constructs._core.props import require_image
from trainops.core.quantity import parse_quantity


@dataclass(frozen=True)
class ServerPreset:
    """How one model server listens, reports health and finds models.

    Args:
        name: the server, e.g. ``"triton"``.
        http_port: the REST/HTTP inference port (container port ``http``).
        extra_ports: further container ports by name, e.g. ``{"grpc": 8001, "metrics": 8002}``.
        readiness_path: HTTP path that answers 200 once models are loaded (``{model}`` is replaced
            by the model name).
        liveness_path: HTTP path that answers 200 while the process is healthy.
        model_dir: where the server reads models (``{model}`` is replaced by the model name).
        args: container args (``{model}`` and ``{model_dir}`` are replaced); empty for the image default.
        env: default environment (``{model}`` is replaced).
        metrics_port: the port name Prometheus scrapes. Default: ``http``.
        metrics_path: the metrics path on that port. Default: ``/metrics``.
    """

    name: str
    http_port: int
    extra_ports: Mapping[str, int]
    readiness_path: str
    liveness_path: str
    model_dir: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    metrics_port: str = "http"
    metrics_path: str = "/metrics"

    def fill(self, template: str, model: str) -> str:
        """``template`` with ``{model}`` and ``{model_dir}`` replaced."""
        return template.replace("{model_dir}", self.model_dir).replace("{model}", model)


#: TensorFlow Serving: REST on 8501, gRPC on 8500; ``GET /v1/models/<m>`` answers 200 once a version
#: is AVAILABLE; models under ``/models/<MODEL_NAME>``; Prometheus metrics on the REST port at
#: ``/monitoring/prometheus/metrics`` when started with a monitoring config.
#: Source: https://www.tensorflow.org/tfx/serving/docker and ``/api_rest#model_status_api``.
TF_SERVING = ServerPreset(
    name="tensorflow-serving",
    http_port=8501,
    extra_ports={"grpc": 8500},
    readiness_path="/v1/models/{model}",
    liveness_path="/v1/models/{model}",
    model_dir="/models/{model}",
    env={"MODEL_NAME": "{model}"},
    metrics_path="/monitoring/prometheus/metrics",
)
#: TorchServe: inference API on 8080 (``GET /ping`` answers "Healthy"), management on 8081, metrics
#: on 8082, gRPC inference on 7070; ``.mar`` archives in the model store, all loaded at start; the
#: image's ``config.properties`` binds 0.0.0.0. Token authorisation (on by default since 0.11) is left
#: to the NetworkPolicy in front of the pod.
#: Source: https://pytorch.org/serve/configuration.html, https://pytorch.org/serve/inference_api.html#health-check-api,
#: pytorch/serve ``docker/dockerd-entrypoint.sh``.
TORCHSERVE = ServerPreset(
    name="torchserve",
    http_port=8080,
    extra_ports={"management": 8081, "metrics": 8082, "grpc": 7070},
    readiness_path="/ping",
    liveness_path="/ping",
    model_dir="/home/model-server/model-store",
    args=(
        "torchserve",
        "--foreground",
        "--ts-config",
        "/home/model-server/config.properties",
        "--model-store",
        "{model_dir}",
        "--models",
        "all",
        "--disable-token-auth",
        "--ncs",
    ),
    metrics_port="metrics",
)
#: NVIDIA Triton: HTTP/REST (KServe v2 protocol) on 8000, gRPC on 8001, metrics on 8002;
#: ``/v2/health/ready`` answers 200 once the models are ready, ``/v2/health/live`` while the server
#: runs; models in a model repository directory.
#: Source: https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/user_guide/model_repository.html
#: and ``/protocol/extension_health`` (KServe v2 health endpoints).
TRITON = ServerPreset(
    name="triton",
    http_port=8000,
    extra_ports={"grpc": 8001, "metrics": 8002},
    readiness_path="/v2/health/ready",
    liveness_path="/v2/health/live",
    model_dir="/models",
    args=(
        "tritonserver",
        "--model-repository={model_dir}",
        "--http-port=8000",
        "--grpc-port=8001",
        "--metrics-port=8002",
    ),
    metrics_port="metrics",
)

#: KServe's storage initializer (same release as the pinned KServe CRDs): ``<uri> <dest>`` downloads
#: ``gs://``, ``s3://``, ``hf://``, ``https://``... to ``dest``.
#: Source: kserve ``python/storage-initializer/scripts/initializer-entrypoint``.
STORAGE_INITIALIZER_IMAGE = "kserve/storage-initializer:v0.20.0"
#: Name of the emptyDir the initializer fills and the server mounts read-only.
MODEL_VOLUME = "model"
_INITIALIZER_DEST = "/mnt/models"


def storage_initializer(
    construct: str, uri: str, *, image: str, credentials_secret: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The init container that downloads ``uri`` and the emptyDir it writes to.

    Args:
        construct: construct class name for messages.
        uri: the model's object-storage URI (already checked by the caller).
        image: initializer image with a tag or digest.
        credentials_secret: a Secret whose keys become the initializer's environment (e.g.
            ``AWS_ACCESS_KEY_ID``), or ``None``.

    Returns:
        ``(init_container, volume)``; the server mounts ``volume`` read-only at its model directory.
    """
    container: dict[str, Any] = {
        "name": "storage-initializer",
        "image": require_image(construct, "storage_initializer_image", image),
        "args": [uri, _INITIALIZER_DEST],
    }
    if credentials_secret is not None:
        container["envFrom"] = [{"secretRef": {"name": credentials_secret}}]
    container["resources"] = guaranteed_resources(parse_quantity("1"), parse_quantity("1Gi"), {})
    container["securityContext"] = container_security_context()
    container["volumeMounts"] = [
        {"name": MODEL_VOLUME, "mountPath": _INITIALIZER_DEST},
        {"name": TMP_VOLUME, "mountPath": TMP_PATH},
    ]
    return container, {"name": MODEL_VOLUME, "emptyDir": {}}
