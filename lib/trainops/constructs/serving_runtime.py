"""``ServingRuntime``: a namespaced KServe model server template (serving.kserve.io/v1alpha1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.pod import (
    container_security_context,
    env_entries,
    guaranteed_resources,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_env,
    require_image,
    require_quantity,
    require_strings,
    require_whole,
)
from trainops.core.cluster import Cluster

#: KServe protocol versions (``constants.InferenceServiceProtocol``: v1, v2, grpc-v1, grpc-v2).
ProtocolVersion = Literal["v1", "v2", "grpc-v1", "grpc-v2"]
PROTOCOL_VERSIONS: tuple[ProtocolVersion, ...] = ("v1", "v2", "grpc-v1", "grpc-v2")
#: The container KServe merges the InferenceService's ``model`` into
#: (``constants.InferenceServiceContainerName``).
KSERVE_CONTAINER = "kserve-container"


@dataclass(frozen=True)
class ModelFormat:
    """One ``supportedModelFormats`` entry of a serving runtime.

    Args:
        name: model format, e.g. ``"tensorflow"``, ``"pytorch"``, ``"sklearn"``, ``"triton"``.
        version: format version, e.g. ``"1"``. Default: unset (any).
        auto_select: whether KServe may pick this runtime for an InferenceService that names no
            runtime. Default: ``False``.
        priority: preference among auto-selectable runtimes (higher wins), only with
            ``auto_select``. Default: unset.

    Source: kserve ``pkg/apis/serving/v1alpha1/servingruntime_types.go`` (``SupportedModelFormat``)
    and ``servingruntime_webhook.go`` (``validateModelFormatPrioritySame``: priority needs autoSelect).
    """

    name: str
    version: str | None = None
    auto_select: bool = False
    priority: int | None = None

    def spec(self, construct: str, index: int) -> dict[str, Any]:
        """The ``SupportedModelFormat`` entry; ``construct`` and ``index`` name it in messages."""
        prop = f"model_formats[{index}]"
        if not isinstance(self.name, str) or not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"{construct} {prop} name={self.name!r}: must be a non-empty word")
        out: dict[str, Any] = {"name": self.name}
        if self.version is not None:
            if not isinstance(self.version, str) or not self.version:
                raise ValueError(f"{construct} {prop} version={self.version!r}: must be a non-empty string")
            out["version"] = self.version
        if self.auto_select:
            out["autoSelect"] = True
        if self.priority is not None:
            if not self.auto_select:
                raise ValueError(f"{construct} {prop} priority={self.priority!r}: needs auto_select=True")
            out["priority"] = require_whole(construct, f"{prop} priority", self.priority, minimum=1)
        return out


class ServingRuntime(ObjectConstruct):
    """A serving.kserve.io/v1alpha1 ServingRuntime: the model server an ``InferenceService`` runs.

    One container named ``kserve-container`` (KServe merges the InferenceService's ``model``
    into it), with the trainops container defaults (non-root, no privilege escalation, read-only
    root filesystem with an emptyDir at ``/tmp``, requests equal to limits). The runtime's
    ``prometheus.kserve.io/port`` and ``/path`` pod annotations tell KServe where the server's
    metrics are. Argo CD syncs it in wave ``-1``, before the InferenceServices that use it, and
    skips the dry run while KServe's CRDs are missing.

    Args:
        scope: the parent construct (a Chart; its namespace is the runtime's).
        id: construct id.
        cluster: target cluster; must list ``kserve``.
        name: runtime name, a DNS-1123 label (what ``InferenceService(runtime=...)`` names).
        image: server image with a tag or digest.
        model_formats: the :class:`ModelFormat` entries (at least one) or plain format names.
        protocol_versions: the inference protocols the server speaks. Default: ``("v1", "v2")``.
        port: the HTTP container port. Default: 8080 (the KServe runtimes' port).
        args: container args; KServe substitutes ``{{.Name}}`` with the model name. Default: none.
        env: environment variables, in order. Default: none.
        cpu: cpu cores per server (requests = limits). Default: ``"1"``.
        memory: memory per server (requests = limits). Default: ``"2Gi"``.
        metrics_port: the port of ``prometheus.kserve.io/port``. Default: ``port``.
        metrics_path: the path of ``prometheus.kserve.io/path``. Default: ``"/metrics"``.
        multi_model: ModelMesh-style multi-model serving. Default: ``False``.

    Raises:
        ValueError: a bad prop, quoting prop and value, or a cluster without ``kserve``.

    Source: https://kserve.github.io/website/latest/modelserving/servingruntimes/ and kserve
    ``config/runtimes/*.yaml`` (the shipped runtimes' shape).
    """

    KIND = "ServingRuntime"
    API_VERSION = "serving.kserve.io/v1alpha1"
    _WAVE: ClassVar[int] = -1

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        model_formats: Sequence[ModelFormat | str],
        protocol_versions: Sequence[ProtocolVersion] = ("v1", "v2"),
        port: int = 8080,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cpu: str = "1",
        memory: str = "2Gi",
        metrics_port: int | None = None,
        metrics_path: str = "/metrics",
        multi_model: bool = False,
    ) -> None:
        super().__init__(scope, id)
        kind = self.KIND
        if not cluster.has_operator("kserve"):
            raise ValueError(
                f"{kind} cluster={cluster.name!r}: the cluster does not list kserve in operators"
            )
        self._cluster = cluster
        self._name = require_name(kind, "name", name)
        if isinstance(model_formats, str) or not model_formats:
            raise ValueError(f"{kind} model_formats={model_formats!r}: must list at least one model format")
        formats = [f if isinstance(f, ModelFormat) else ModelFormat(f) for f in model_formats]
        format_specs = [f.spec(kind, i) for i, f in enumerate(formats)]
        names = [f.name for f in formats]
        if len(set(names)) != len(names):
            raise ValueError(f"{kind} model_formats={names!r}: a format is listed twice")
        self._formats = tuple(names)
        if isinstance(protocol_versions, str) or not protocol_versions:
            raise ValueError(
                f"{kind} protocol_versions={protocol_versions!r}: must list at least one protocol"
            )
        for version in protocol_versions:
            if version not in PROTOCOL_VERSIONS:
                raise ValueError(
                    f"{kind} protocol_versions: {version!r} is not one of {', '.join(PROTOCOL_VERSIONS)}"
                )
        self._protocols = tuple(protocol_versions)
        port_number = _port(kind, "port", port)
        metrics = port_number if metrics_port is None else _port(kind, "metrics_port", metrics_port)
        if not isinstance(metrics_path, str) or not metrics_path.startswith("/"):
            raise ValueError(f"{kind} metrics_path={metrics_path!r}: must be an absolute path")
        container_args = require_strings(kind, "args", args)
        user_env = require_env(kind, "env", env or {})
        volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
        container: dict[str, Any] = {
            "name": KSERVE_CONTAINER,
            "image": require_image(kind, "image", image),
        }
        if container_args:
            container["args"] = list(container_args)
        if user_env:
            container["env"] = env_entries(user_env)
        container.update(
            {
                "ports": [{"containerPort": port_number, "protocol": "TCP"}],
                "resources": guaranteed_resources(
                    require_quantity(kind, "cpu", cpu),
                    require_quantity(kind, "memory", memory, whole_bytes=True),
                    {},
                ),
                "securityContext": container_security_context(),
                "volumeMounts": mounts,
            }
        )
        spec: dict[str, Any] = {
            "annotations": {
                "prometheus.kserve.io/port": str(metrics),
                "prometheus.kserve.io/path": metrics_path,
            },
            "supportedModelFormats": format_specs,
            "protocolVersions": list(self._protocols),
            "containers": [container],
            "volumes": volumes,
        }
        if multi_model:
            spec["multiModel"] = True
        self.emit_object(
            {"spec": spec}, annotations=argocd_annotations(wave=self._WAVE, options=[SKIP_DRY_RUN_OPTIONS])
        )

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        return self._cluster

    @property
    def model_formats(self) -> tuple[str, ...]:
        """The supported model format names."""
        return self._formats

    @property
    def protocol_versions(self) -> tuple[ProtocolVersion, ...]:
        """The supported inference protocols."""
        return self._protocols


def _port(kind: str, prop: str, value: int) -> int:
    number = require_whole(kind, prop, value, minimum=1)
    if number > 65535:
        raise ValueError(f"{kind} {prop}={value!r}: must be at most 65535")
    return number
