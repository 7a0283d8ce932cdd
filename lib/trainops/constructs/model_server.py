"""``ModelServer``: a model-serving Deployment (TensorFlow Serving by default), or an Argo Rollouts
``Rollout`` with a blue-green or canary strategy."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from constructs import IValidation
from jsii import implements

from trainops.constructs._core.base import (
    Construct,
    ObjectConstruct,
    add_check,
    chart_namespace,
    emit,
    require_name,
)
from trainops.constructs._core.emission import Emitted, remove_op
from trainops.constructs._core.pod import (
    TMP_PATH,
    Mount,
    check_access,
    container_security_context,
    env_entries,
    gpu_placement,
    guaranteed_resources,
    pod_security_context,
    resolve_mount,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_env,
    require_image,
    require_labels,
    require_path,
    require_quantity,
    require_whole,
)
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs.analysis_template import AnalysisTemplate
from trainops.constructs.model_service import ModelService
from trainops.constructs.rollout_strategy import (
    POD_HASH_LABEL,
    BlueGreen,
    RolloutStrategy,
    analysis_args,
    analysis_metrics,
    check_strategy,
    second_service,
    strategy_spec,
)
from trainops.constructs.server_presets import (
    STORAGE_INITIALIZER_IMAGE,
    TF_SERVING,
    ServerPreset,
    storage_initializer,
)
from trainops.core.cluster import Cluster

if TYPE_CHECKING:
    from trainops.constructs.autoscaler import Autoscaler

_KIND = "ModelServer"
#: Name of the serving container.
CONTAINER_NAME = "server"
#: Name of the container port the Service, probes and ServiceMonitor refer to.
PORT_NAME = "http"
#: Period of the startup probe in seconds; ``startup_seconds`` is divided into attempts of this length.
STARTUP_PERIOD = 10
#: ``preset=None``: TensorFlow Serving with its REST port only (the shape before presets existed).
_TF_SERVING_REST = dataclasses.replace(TF_SERVING, extra_ports={})
#: Object-storage URI schemes a ``model_uri`` may use (KServe's storage initializer; no ``pvc://``:
#: give a ``model_volume`` instead).
MODEL_URI_PREFIXES = ("gs://", "s3://", "https://", "http://", "hdfs://", "webhdfs://", "oci://", "hf://")


class ModelServer(ObjectConstruct):
    """A long-running model server as an apps/v1 Deployment, TensorFlow Serving flavoured.

    Defaults follow the ``tensorflow/serving`` image: REST API on port 8501, the model named by
    the ``MODEL_NAME`` environment variable and loaded from ``/models/<model_name>``, and the model
    status endpoint ``GET /v1/models/<model_name>`` (200 once a version is available) used by the
    readiness, liveness and startup probes. The container port is named ``http``.

    The pods carry the selector labels ``app.kubernetes.io/name`` and ``app.kubernetes.io/instance``
    (both ``name``; never hashes, since a Deployment selector is immutable), spread over nodes
    (topology spread on ``kubernetes.io/hostname``, best effort), roll with ``maxUnavailable: 0``,
    and sleep ``pre_stop_seconds`` in ``preStop`` so endpoints drop the pod before it stops.
    Resources, security context and ``/tmp`` follow :mod:`trainops.constructs._core.pod`.

    When an ``Autoscaler`` targets the server, ``spec.replicas`` is left out: the HPA owns it and
    Argo CD must not reset it on every sync.

    With a ``strategy`` (:class:`~trainops.constructs.rollout_strategy.BlueGreen` or
    :class:`~trainops.constructs.rollout_strategy.Canary`) the server is an argoproj.io/v1alpha1
    ``Rollout`` with the same selector and pod template (the cluster must list ``argo-rollouts``), and
    a child :class:`~trainops.constructs.analysis_template.AnalysisTemplate` ``<name>-analysis`` holds
    the strategy's analysis. ``expose()`` then makes two Services: the active (stable) one named like
    the server and the preview (canary) one; both carry ``podTargetLabels`` for their monitors.
    A blue-green server, and a canary one on a cluster with a ``traffic_router``, must be exposed
    (checked at synth). The HPA, PodDisruptionBudget and monitors target the Rollout as they would
    the Deployment.

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the Deployment's namespace).
        id: construct id.
        cluster: target cluster (its Kubernetes minor picks the ``preStop`` form).
        name: Deployment name, a DNS-1123 label; also the selector label value.
        image: server image with a tag or digest (never ``latest``).
        port: container port of the HTTP (REST) API. Default: the preset's (8501, TF Serving REST).
        replicas: pods when no Autoscaler targets the server. Default: 2.
        cpu: cpu cores per pod as a quantity string (requests = limits). Default: ``"1"``.
        memory: memory per pod in bytes as a quantity string (requests = limits). Default: ``"2Gi"``.
        model_name: model name: ``MODEL_NAME`` env default, probe path and mount path default.
            Default: ``name``.
        model_volume: a ``VolumeClaim`` or claim name holding the model, mounted read-only.
            Default: none (the model is in the image).
        model_path: where ``model_volume`` (or the ``model_uri`` download) is mounted. Default: the
            preset's model directory (``/models/<model_name>`` for TF Serving).
        probe_path: HTTP path of all three probes. Default: the preset's readiness path for the
            readiness and startup probes and its liveness path for the liveness probe
            (``/v1/models/<model_name>`` for TF Serving).
        startup_seconds: how long the model may take to load before the startup probe fails.
            Default: 300.
        args: container args (appended to the image entrypoint). Default: none.
        env: environment variables, in order; ``MODEL_NAME`` is added unless given. Default: none.
        labels: extra labels on the Deployment and its pods (not in the selector). Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.
        termination_grace_seconds: ``terminationGracePeriodSeconds``. Default: 30.
        pre_stop_seconds: seconds the ``preStop`` hook sleeps (less than the grace period); 0 for no
            hook. Default: 5.
        preset: the server's ports, probes, model directory and command line:
            :data:`~trainops.constructs.server_presets.TF_SERVING` (REST 8501 + gRPC 8500),
            :data:`~trainops.constructs.server_presets.TORCHSERVE` or
            :data:`~trainops.constructs.server_presets.TRITON`. Default: TF Serving, REST port only.
        model_uri: fetch the model from object storage (``s3://``, ``gs://``, ``hf://``...) with
            KServe's storage-initializer init container into an emptyDir mounted read-only at the
            model path. Default: none.
        model_credentials_secret: Secret whose keys become the initializer's environment (storage
            credentials). Default: none.
        storage_initializer_image: the initializer image. Default: ``kserve/storage-initializer:v0.20.0``.
        gpus: GPUs per pod (``cluster.gpu_resource``; adds the cluster's GPU tolerations and node
            selector). Default: 0.
        strategy: ``BlueGreen(...)`` or ``Canary(...)`` for a progressive rollout with analysis, or
            ``None`` for a Deployment's rolling update. Default: ``None``.

    Raises:
        ValueError: a bad prop value, quoting prop and value (e.g. ``port=70000``, ``replicas=0``,
            an image without a tag, a ReadWriteOnce ``model_volume`` with several replicas, both
            ``model_uri`` and ``model_volume``, a ``model_uri`` scheme the storage initializer does
            not know or with credentials in it; a strategy on a cluster without argo-rollouts, a
            canary weight outside 1..100, a preview Service named like the active one).

    Source: https://www.tensorflow.org/tfx/serving/docker,
    https://www.tensorflow.org/tfx/serving/api_rest#model_status_api,
    https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
    """

    KIND = "Deployment"
    API_VERSION = "apps/v1"
    _strategy: RolloutStrategy | None = None

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        port: int | None = None,
        replicas: int = 2,
        cpu: str = "1",
        memory: str = "2Gi",
        model_name: str | None = None,
        model_volume: ClaimSource | str | None = None,
        model_path: str | None = None,
        probe_path: str | None = None,
        startup_seconds: int = 300,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
        service_account: str | None = None,
        termination_grace_seconds: int = 30,
        pre_stop_seconds: int = 5,
        preset: ServerPreset | None = None,
        model_uri: str | None = None,
        model_credentials_secret: str | None = None,
        storage_initializer_image: str = STORAGE_INITIALIZER_IMAGE,
        gpus: int = 0,
        strategy: RolloutStrategy | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._cluster = cluster
        self._name = require_name(_KIND, "name", name)
        self._image = require_image(_KIND, "image", image)
        if preset is not None and not isinstance(preset, ServerPreset):
            raise ValueError(f"{_KIND} preset={preset!r}: must be a ServerPreset")
        self._preset = _TF_SERVING_REST if preset is None else preset
        port = self._preset.http_port if port is None else port
        self._port = require_whole(_KIND, "port", port, minimum=1)
        if self._port > 65535:
            raise ValueError(f"{_KIND} port={port!r}: must be at most 65535")
        self._replicas = require_whole(_KIND, "replicas", replicas, minimum=1)
        cpu_q = require_quantity(_KIND, "cpu", cpu)
        memory_q = require_quantity(_KIND, "memory", memory, whole_bytes=True)
        self._model_name = name if model_name is None else model_name
        if not self._model_name or "/" in self._model_name or any(c.isspace() for c in self._model_name):
            raise ValueError(
                f"{_KIND} model_name={model_name!r}: must be a non-empty name without '/' or spaces"
            )
        fill = self._preset.fill
        probe = require_path(
            _KIND, "probe_path", probe_path or fill(self._preset.readiness_path, self._model_name)
        )
        live = (
            probe
            if probe_path
            else require_path(_KIND, "probe_path", fill(self._preset.liveness_path, self._model_name))
        )
        self._extra_ports = {
            n: require_whole(_KIND, f"preset port {n}", p, minimum=1)
            for n, p in self._preset.extra_ports.items()
        }
        gpu_count = require_whole(_KIND, "gpus", gpus)
        startup = require_whole(_KIND, "startup_seconds", startup_seconds, minimum=STARTUP_PERIOD)
        grace = require_whole(_KIND, "termination_grace_seconds", termination_grace_seconds, minimum=1)
        pre_stop = require_whole(_KIND, "pre_stop_seconds", pre_stop_seconds, minimum=0)
        if pre_stop >= grace:
            raise ValueError(
                f"{_KIND} pre_stop_seconds={pre_stop_seconds!r}: must be less than "
                f"termination_grace_seconds={grace}"
            )
        if args is not None and (isinstance(args, str) or not all(isinstance(a, str) for a in args)):
            raise ValueError(f"{_KIND} args={args!r}: must be a sequence of strings")
        user_env = require_env(_KIND, "env", env or {})
        extra_labels = require_labels(_KIND, "labels", labels or {})
        account = None if service_account is None else require_name(_KIND, "service_account", service_account)
        self._model_volume: ClaimSource | str | None = model_volume
        self._mount: Mount | None = None
        default_model_path = fill(self._preset.model_dir, self._model_name)
        init: tuple[dict[str, Any], dict[str, Any]] | None = None
        if model_uri is not None:
            if model_volume is not None:
                raise ValueError(f"{_KIND} model_uri={model_uri!r}: give either model_uri or model_volume")
            init = storage_initializer(
                _KIND,
                _model_uri(model_uri),
                image=storage_initializer_image,
                credentials_secret=None
                if model_credentials_secret is None
                else require_name(
                    _KIND, "model_credentials_secret", model_credentials_secret, max_length=253
                ),
            )
            require_path(_KIND, "model_path", model_path or default_model_path)
        elif model_credentials_secret is not None:
            raise ValueError(
                f"{_KIND} model_credentials_secret={model_credentials_secret!r}: needs a model_uri"
            )
        if model_volume is not None:
            self._mount = resolve_mount(
                _KIND,
                "model_volume",
                model_volume,
                model_path or default_model_path,
                read_only=True,
                pods=self._replicas,
                reserved_paths=[TMP_PATH],
            )
        elif model_path is not None and init is None:
            raise ValueError(f"{_KIND} model_path={model_path!r}: needs a model_volume")

        self._selector = {"app.kubernetes.io/name": self._name, "app.kubernetes.io/instance": self._name}
        clash = sorted(set(extra_labels) & set(self._selector))
        if clash:
            raise ValueError(f"{_KIND} labels: {clash[0]!r} is a selector label set from name")
        pod_labels = {**self._selector, **extra_labels}
        self._autoscaler: Autoscaler | None = None
        self._service: ModelService | None = None

        volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
        if self._mount is not None:
            volumes.append(self._mount.volume())
            mounts.append(self._mount.volume_mount())
        if init is not None:
            volumes.append(init[1])
            mounts.append(
                {"name": init[1]["name"], "mountPath": model_path or default_model_path, "readOnly": True}
            )
        if args is None and self._preset.args:
            args = [fill(a, self._model_name) for a in self._preset.args]
        preset_env = {k: fill(v, self._model_name) for k, v in self._preset.env.items()}
        http_get = {"path": probe, "port": PORT_NAME}
        live_get = {"path": live, "port": PORT_NAME}
        container: dict[str, Any] = {
            "name": CONTAINER_NAME,
            "image": self._image,
            "env": env_entries(user_env, preset_env),
            "ports": [
                {"name": PORT_NAME, "containerPort": self._port, "protocol": "TCP"},
                *({"name": n, "containerPort": p, "protocol": "TCP"} for n, p in self._extra_ports.items()),
            ],
            "resources": guaranteed_resources(cpu_q, memory_q, {cluster.gpu_resource: gpu_count}),
            "securityContext": container_security_context(),
            "readinessProbe": {
                "httpGet": http_get,
                "periodSeconds": 10,
                "timeoutSeconds": 5,
                "failureThreshold": 3,
            },
            "livenessProbe": {
                "httpGet": live_get,
                "periodSeconds": 20,
                "timeoutSeconds": 5,
                "failureThreshold": 3,
            },
            "startupProbe": {
                "httpGet": http_get,
                "periodSeconds": STARTUP_PERIOD,
                "timeoutSeconds": 5,
                "failureThreshold": math.ceil(startup / STARTUP_PERIOD),
            },
            "volumeMounts": mounts,
        }
        if pre_stop:
            container["lifecycle"] = {"preStop": self._pre_stop(pre_stop)}
        if args is not None:
            container["args"] = list(args)
        if not container["env"]:
            del container["env"]
        pod_spec: dict[str, Any] = {
            "automountServiceAccountToken": False,
            "securityContext": pod_security_context(),
            "terminationGracePeriodSeconds": grace,
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": dict(self._selector)},
                }
            ],
            "containers": [container],
            "volumes": volumes,
        }
        if init is not None:
            pod_spec["initContainers"] = [init[0]]
        if gpu_count:
            pod_spec.update(gpu_placement(cluster))
        if account is not None:
            pod_spec["serviceAccountName"] = account
        self._strategy: RolloutStrategy | None = None
        self._second_service: str | None = None
        self._second: ModelService | None = None
        rollout: dict[str, Any] = {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0},
        }
        if strategy is not None:
            self._strategy = check_strategy(strategy, cluster, self._replicas)
            self._second_service = second_service(self._strategy, cluster, self._name)
            template = self._analysis(self._strategy) if self._strategy.analysis is not None else None
            rollout = strategy_spec(
                self._strategy,
                cluster,
                server=self._name,
                active=self._name,
                second=self._second_service,
                template=template,
            )
            if self._second_service is not None:
                add_check(self, _ExposedValidation(self))
        self._object: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": self._name, "labels": dict(pod_labels)},
            "spec": {
                "replicas": self._replicas,
                "selector": {"matchLabels": dict(self._selector)},
                "strategy": rollout,
                "template": {"metadata": {"labels": pod_labels}, "spec": pod_spec},
            },
        }
        self._api_object: Emitted = emit(self, self._object)

    def _analysis(self, strategy: RolloutStrategy) -> str:
        """Create the child AnalysisTemplate ``<name>-analysis`` of ``strategy``; return its name."""
        assert strategy.analysis is not None
        namespace = chart_namespace(self)
        if namespace is None:
            raise ValueError(f"{_KIND} {self._name!r} strategy: the analysis needs the Chart's namespace")
        metrics = analysis_metrics(
            strategy.analysis,
            self._cluster,
            preset=self._preset.name,
            model=self._model_name,
            namespace=namespace,
            port=self._port,
            smoke_service=self._second_service,
        )
        template = AnalysisTemplate(
            self, "Analysis", name=f"{self._name[:54]}-analysis", metrics=metrics, args=analysis_args()
        )
        return template.name

    # -- properties ---------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """``Rollout`` with a strategy, else ``Deployment``."""
        return "Deployment" if self._strategy is None else "Rollout"

    @property
    def api_version(self) -> str:
        """``argoproj.io/v1alpha1`` with a strategy, else ``apps/v1``."""
        return "apps/v1" if self._strategy is None else "argoproj.io/v1alpha1"

    @property
    def strategy(self) -> RolloutStrategy | None:
        """The rollout strategy, if any."""
        return self._strategy

    @property
    def second_service(self) -> ModelService | None:
        """The preview (blue-green) or canary Service ``expose()`` made, if any."""
        return self._second

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        return self._cluster

    @property
    def port(self) -> int:
        """The container port named ``http``."""
        return self._port

    @property
    def port_name(self) -> str:
        """``http``."""
        return PORT_NAME

    @property
    def preset(self) -> ServerPreset:
        """The server preset (TF Serving, REST only, when none was given)."""
        return self._preset

    @property
    def extra_ports(self) -> dict[str, int]:
        """Container ports beyond ``http``, by name (e.g. ``grpc``, ``metrics``); a copy."""
        return dict(self._extra_ports)

    @property
    def model_name(self) -> str:
        """The served model's name."""
        return self._model_name

    @property
    def selector_labels(self) -> dict[str, str]:
        """The Deployment's (immutable) selector labels; a copy."""
        return dict(self._selector)

    @property
    def replicas(self) -> int | None:
        """``spec.replicas``, or ``None`` when an Autoscaler owns it."""
        return None if self._autoscaler is not None else self._replicas

    @property
    def requested_resources(self) -> frozenset[str]:
        """Resources every serving container requests (cpu and memory: requests equal limits)."""
        containers = self._object["spec"]["template"]["spec"]["containers"]
        sets = [frozenset(c.get("resources", {}).get("requests", {})) for c in containers]
        return frozenset.intersection(*sets)

    @property
    def autoscaler(self) -> Autoscaler | None:
        """The Autoscaler targeting this server, if any."""
        return self._autoscaler

    @property
    def service(self) -> ModelService | None:
        """The Service made by ``expose()``, if any."""
        return self._service

    # -- integration --------------------------------------------------------------------------

    def expose(
        self,
        *,
        port: int | None = None,
        name: str | None = None,
        labels: Mapping[str, str] | None = None,
        type: Literal["ClusterIP", "LoadBalancer", "NodePort"] = "ClusterIP",
        allow_exposure: str | None = None,
    ) -> ModelService:
        """Expose the server with a Service: in-cluster (ClusterIP) unless explicitly opted out.

        Args:
            port: Service port. Default: the server's ``port``.
            name: Service name. Default: the server's ``name``.
            labels: extra labels on the Service. Default: none.
            type: ``ClusterIP``, or ``LoadBalancer``/``NodePort`` to reach it from outside the
                cluster (bypassing the ingress, its TLS and authentication). Default: ``ClusterIP``.
            allow_exposure: the reason for a LoadBalancer or NodePort, required with them and
                written as the ``trainops.dev/exposed`` annotation the ``exposed-service`` policy
                checks. Default: none.

        Returns:
            The new :class:`ModelService` (a child construct ``Service`` of this server).

        Raises:
            ValueError: the server is already exposed, a bad port or name, or an external type
                without ``allow_exposure``.
        """
        if self._service is not None:
            raise ValueError(f"{_KIND} {self._name!r}: already exposed by Service {self._service.name!r}")
        pod_labels = () if self._strategy is None else (POD_HASH_LABEL,)
        if self._strategy is not None and name not in (None, self._name):
            raise ValueError(
                f"{_KIND} {self._name!r} expose name={name!r}: the Rollout's active Service is named like "
                "the server"
            )
        self._service = ModelService(
            self,
            "Service",
            server=self,
            port=port,
            name=name,
            labels=labels,
            type=type,
            allow_exposure=allow_exposure,
            pod_target_labels=pod_labels,
        )
        if self._second_service is not None:
            self._second = ModelService(
                self,
                "PreviewService" if isinstance(self._strategy, BlueGreen) else "CanaryService",
                server=self,
                port=port,
                name=self._second_service,
                labels=labels,
                pod_target_labels=pod_labels,
            )
        return self._service

    def mark_autoscaled(self, autoscaler: Autoscaler, *, max_replicas: int) -> None:
        """Called by :class:`Autoscaler`: drop ``spec.replicas`` (the HPA owns it).

        Args:
            autoscaler: the HPA construct targeting this server.
            max_replicas: the HPA's maximum, to check the model volume's access mode.

        Raises:
            ValueError: another Autoscaler already targets the server, or the model volume cannot
                be shared by ``max_replicas`` pods.
        """
        if self._autoscaler is not None:
            raise ValueError(
                f"{_KIND} {self._name!r}: already targeted by Autoscaler {self._autoscaler.name!r}"
            )
        if self._model_volume is not None and not isinstance(self._model_volume, str):
            check_access(
                "Autoscaler", "target model_volume", self._model_volume, pods=max_replicas, read_only=True
            )
        self._autoscaler = autoscaler
        del self._object["spec"]["replicas"]
        self._api_object.patch(remove_op("/spec/replicas"))

    def _pre_stop(self, seconds: int) -> dict[str, Any]:
        # The sleep action is on by default since Kubernetes 1.30 (PodLifecycleSleepAction beta)
        # and needs no shell in the image; older clusters exec the image's sleep binary.
        if self._cluster.kubernetes_minor >= 30:
            return {"sleep": {"seconds": seconds}}
        return {"exec": {"command": ["sleep", str(seconds)]}}


@implements(IValidation)
class _ExposedValidation:
    """A blue-green (or traffic-routed canary) server's Rollout names Services only ``expose()`` makes."""

    def __init__(self, server: ModelServer) -> None:
        self._server = server

    def validate(self) -> list[str]:
        if self._server.service is not None:
            return []
        strategy = type(self._server.strategy).__name__
        return [
            f"{_KIND} {self._server.name!r} strategy={strategy}: call expose(); the Rollout names Services "
            "that only expose() creates"
        ]


def _model_uri(uri: str) -> str:
    if (
        not isinstance(uri, str)
        or not uri.startswith(MODEL_URI_PREFIXES)
        or any(c.isspace() for c in uri)
        or not uri.partition("://")[2].strip("/")
    ):
        raise ValueError(
            f"{_KIND} model_uri={uri!r}: must be <scheme>://<bucket or path> with a scheme of "
            f"{', '.join(MODEL_URI_PREFIXES)}"
        )
    if "@" in uri.partition("://")[2].split("/", 1)[0]:
        raise ValueError(f"{_KIND} model_uri={uri!r}: credentials belong in model_credentials_secret")
    return uri
