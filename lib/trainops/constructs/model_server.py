"""``ModelServer``: a model-serving Deployment (TensorFlow Serving by default)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cdk8s import ApiObject, JsonPatch

from trainops.cluster import Cluster
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.pod import (
    TMP_PATH,
    Mount,
    check_access,
    container_security_context,
    env_entries,
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
from trainops.constructs.model_service import ModelService

if TYPE_CHECKING:
    from trainops.constructs.autoscaler import Autoscaler

_KIND = "ModelServer"
#: Name of the serving container.
CONTAINER_NAME = "server"
#: Name of the container port the Service, probes and ServiceMonitor refer to.
PORT_NAME = "http"
#: Period of the startup probe in seconds; ``startup_seconds`` is divided into attempts of this length.
STARTUP_PERIOD = 10


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

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the Deployment's namespace).
        id: construct id.
        cluster: target cluster (its Kubernetes minor picks the ``preStop`` form).
        name: Deployment name, a DNS-1123 label; also the selector label value.
        image: server image with a tag or digest (never ``latest``).
        port: container port of the HTTP (REST) API. Default: 8501 (TF Serving REST).
        replicas: pods when no Autoscaler targets the server. Default: 2.
        cpu: cpu cores per pod as a quantity string (requests = limits). Default: ``"1"``.
        memory: memory per pod in bytes as a quantity string (requests = limits). Default: ``"2Gi"``.
        model_name: model name: ``MODEL_NAME`` env default, probe path and mount path default.
            Default: ``name``.
        model_volume: a ``DataVolume`` or claim name holding the model, mounted read-only.
            Default: none (the model is in the image).
        model_path: where ``model_volume`` is mounted. Default: ``/models/<model_name>``.
        probe_path: HTTP path of the probes. Default: ``/v1/models/<model_name>``.
        startup_seconds: how long the model may take to load before the startup probe fails.
            Default: 300.
        args: container args (appended to the image entrypoint). Default: none.
        env: environment variables, in order; ``MODEL_NAME`` is added unless given. Default: none.
        labels: extra labels on the Deployment and its pods (not in the selector). Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.
        termination_grace_seconds: ``terminationGracePeriodSeconds``. Default: 30.
        pre_stop_seconds: seconds the ``preStop`` hook sleeps (less than the grace period); 0 for no
            hook. Default: 5.

    Raises:
        ValueError: a bad prop value, quoting prop and value (e.g. ``port=70000``, ``replicas=0``,
            an image without a tag, a ReadWriteOnce ``model_volume`` with several replicas).

    Source: https://www.tensorflow.org/tfx/serving/docker,
    https://www.tensorflow.org/tfx/serving/api_rest#model_status_api,
    https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
    """

    KIND = "Deployment"
    API_VERSION = "apps/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        port: int = 8501,
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
    ) -> None:
        super().__init__(scope, id)
        self._cluster = cluster
        self._name = require_name(_KIND, "name", name)
        self._image = require_image(_KIND, "image", image)
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
        probe = require_path(_KIND, "probe_path", probe_path or f"/v1/models/{self._model_name}")
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
        if model_volume is not None:
            self._mount = resolve_mount(
                _KIND,
                "model_volume",
                model_volume,
                model_path or f"/models/{self._model_name}",
                read_only=True,
                pods=self._replicas,
                reserved_paths=[TMP_PATH],
            )
        elif model_path is not None:
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
        http_get = {"path": probe, "port": PORT_NAME}
        container: dict[str, Any] = {
            "name": CONTAINER_NAME,
            "image": self._image,
            "env": env_entries(user_env, {"MODEL_NAME": self._model_name}),
            "ports": [{"name": PORT_NAME, "containerPort": self._port, "protocol": "TCP"}],
            "resources": guaranteed_resources(cpu_q, memory_q, {}),
            "securityContext": container_security_context(),
            "readinessProbe": {
                "httpGet": http_get,
                "periodSeconds": 10,
                "timeoutSeconds": 5,
                "failureThreshold": 3,
            },
            "livenessProbe": {
                "httpGet": http_get,
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
        if account is not None:
            pod_spec["serviceAccountName"] = account
        self._object: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": self._name, "labels": dict(pod_labels)},
            "spec": {
                "replicas": self._replicas,
                "selector": {"matchLabels": dict(self._selector)},
                "strategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0},
                },
                "template": {"metadata": {"labels": pod_labels}, "spec": pod_spec},
            },
        }
        self._api_object: ApiObject = emit(self, self._object)

    # -- properties ---------------------------------------------------------------------------

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
    def autoscaler(self) -> Autoscaler | None:
        """The Autoscaler targeting this server, if any."""
        return self._autoscaler

    @property
    def service(self) -> ModelService | None:
        """The Service made by ``expose()``, if any."""
        return self._service

    # -- integration --------------------------------------------------------------------------

    def expose(
        self, *, port: int | None = None, name: str | None = None, labels: Mapping[str, str] | None = None
    ) -> ModelService:
        """Expose the server in-cluster with a ClusterIP Service.

        Args:
            port: Service port. Default: the server's ``port``.
            name: Service name. Default: the server's ``name``.
            labels: extra labels on the Service. Default: none.

        Returns:
            The new :class:`ModelService` (a child construct ``Service`` of this server).

        Raises:
            ValueError: the server is already exposed, or a bad port or name.
        """
        if self._service is not None:
            raise ValueError(f"{_KIND} {self._name!r}: already exposed by Service {self._service.name!r}")
        self._service = ModelService(self, "Service", server=self, port=port, name=name, labels=labels)
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
        self._api_object.add_json_patch(JsonPatch.remove("/spec/replicas"))

    def _pre_stop(self, seconds: int) -> dict[str, Any]:
        # The sleep action is on by default since Kubernetes 1.30 (PodLifecycleSleepAction beta)
        # and needs no shell in the image; older clusters exec the image's sleep binary.
        if self._cluster.kubernetes_minor >= 30:
            return {"sleep": {"seconds": seconds}}
        return {"exec": {"command": ["sleep", str(seconds)]}}
