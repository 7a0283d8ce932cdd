"""``LLMServer``: a large language model behind an OpenAI-compatible API (vLLM or SGLang), as a
Deployment on one node, a LeaderWorkerSet over several, or a KServe LLMInferenceService."""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.emission import Emitted, remove_op
from trainops.constructs._core.kueue import _release as release_of
from trainops.constructs._core.pod import (
    SHM_PATH,
    SHM_VOLUME,
    TMP_PATH,
    TMP_VOLUME,
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
    require_quantity,
    require_strings,
    require_whole,
)
from trainops.constructs._core.props import shm_size as shm_size_of
from trainops.constructs._core.protocols import ClaimSource
from trainops.constructs.alert_presets import SGLANG_METRICS, VLLM_METRICS, LLMMetrics
from trainops.constructs.model_server import MODEL_URI_PREFIXES
from trainops.constructs.model_service import ModelService
from trainops.constructs.server_presets import STORAGE_INITIALIZER_IMAGE, storage_initializer
from trainops.core.cluster import Cluster
from trainops.core.llm import MODEL_SIZE_ANNOTATION, flag_field, model_bytes
from trainops.core.llm import startup_seconds as startup_window
from trainops.core.naming import DNS1035_LABEL
from trainops.core.quantity import Quantity, parse_quantity

if TYPE_CHECKING:
    from trainops.constructs.autoscaler import Autoscaler

_KIND = "LLMServer"
#: Name of the serving container (KServe's LLMInferenceService calls it ``main``).
CONTAINER_NAME = "main"
#: Name of the container port of the OpenAI-compatible API.
PORT_NAME = "http"
#: Where the model is mounted: a volume at ``/models``, a download or a modelcar at ``/mnt/models``.
VOLUME_MODEL_DIR, FETCHED_MODEL_DIR = "/models", "/mnt/models"
#: Period of the startup probe; the startup window is divided into attempts of this length.
STARTUP_PERIOD = 10
#: Ray's GCS port on the leader (``ray start --head --port``), which vLLM workers join.
RAY_PORT = 6379
#: The port of SGLang's leader that the other ranks rendezvous at (``--dist-init-addr``), as the LWS example.
SGLANG_DIST_PORT = 20000
#: The ``/dev/shm`` volume of KServe's LLMInferenceServiceConfig templates, which an override resizes.
KSERVE_SHM_VOLUME = "dshm"
#: The first KServe release serving LLMInferenceService ``v1alpha2``.
LLMISVC_SINCE: Final = (0, 20, 0)
#: The ``app.kubernetes.io/component`` label of the leader and worker pods of a LeaderWorkerSet.
COMPONENT = "app.kubernetes.io/component"
#: vLLM's multi-node helper in the ``vllm/vllm-openai`` image: ``leader`` starts the Ray head and waits
#: for the group, ``worker`` joins it. Source: vllm-project/vllm
#: ``examples/online_serving/multi-node-serving.sh``, as kubernetes-sigs/lws ``docs/examples/vllm`` runs it.
RAY_SCRIPT = "/vllm-workspace/examples/online_serving/multi-node-serving.sh"
Form = Literal["auto", "LLMInferenceService"]


@dataclass(frozen=True)
class LLMEngine:
    """An LLM serving engine: how it is started, where it reports health and metrics.

    Args:
        name: ``vllm`` or ``sglang``.
        readiness_path: HTTP path answering 200 once the model is served.
        liveness_path: HTTP path answering 200 while the engine is healthy.
        metrics: its Prometheus metric names (on ``/metrics`` of the API port).
    """

    name: Literal["vllm", "sglang"]
    readiness_path: str
    liveness_path: str
    metrics: LLMMetrics

    def command(
        self, model: str, served: str, port: int, tensor: int, pipeline: int, extra: Sequence[str]
    ) -> list[str]:
        """The server's command line (the image's entrypoint is replaced)."""
        if self.name == "vllm":
            line = ["vllm", "serve", model, "--served-model-name", served]
            parallel = ["--tensor-parallel-size", str(tensor), "--pipeline-parallel-size", str(pipeline)]
        else:
            line = [
                "python3",
                "-m",
                "sglang.launch_server",
                "--model-path",
                model,
                "--served-model-name",
                served,
            ]
            parallel = ["--tp-size", str(tensor), "--pp-size", str(pipeline), "--enable-metrics"]
        return [*line, "--host", "0.0.0.0", "--port", str(port), *parallel, *extra]


#: vLLM's OpenAI-compatible server (``vllm serve``): ``GET /health`` answers 200 while the engine
#: runs, ``GET /v1/models`` once the model is served. Source: vllm-project/vllm
#: ``vllm/entrypoints/openai/api_server.py``; https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
VLLM = LLMEngine("vllm", "/v1/models", "/health", VLLM_METRICS)
#: SGLang (``python3 -m sglang.launch_server``; across nodes ``--nnodes``/``--node-rank``). Source: sgl-project/sglang
#: ``python/sglang/srt/entrypoints/http_server.py`` (``/health``, ``/v1/models``).
SGLANG = LLMEngine("sglang", "/v1/models", "/health", SGLANG_METRICS)


@dataclass(frozen=True)
class _Model:
    """Where the model comes from and how the pods get it."""

    arg: str
    volumes: list[dict[str, Any]]
    mounts: list[dict[str, Any]]
    init: list[dict[str, Any]]
    sidecars: list[dict[str, Any]]
    uri: str
    ephemeral: Quantity | None


class LLMServer(ObjectConstruct):
    """A large language model served by vLLM (or SGLang) on an OpenAI-compatible API (port 8000).

    The model is sharded over ``gpus_per_node`` × ``nodes`` GPUs: tensor parallelism within a node
    (``--tensor-parallel-size gpus_per_node``), pipeline parallelism across nodes
    (``--pipeline-parallel-size nodes``). What it emits depends on ``nodes`` and the cluster:

    * one node: an apps/v1 Deployment of ``replicas`` pods (as :class:`ModelServer` does: rolling
      update with ``maxUnavailable: 0``, spread over nodes, ``preStop`` sleep);
    * several nodes: a ``leaderworkerset.x-k8s.io/v1`` LeaderWorkerSet of ``replicas`` groups of
      ``nodes`` pods; with vLLM the leader starts a Ray head and ``vllm serve``, the workers join it
      (the shape of kubernetes-sigs/lws ``docs/examples/vllm/GPU/lws.yaml``), with SGLang every pod runs
      the server with its rank (``docs/examples/sglang/lws.yaml``); a group is recreated when any pod of it
      restarts (``RecreateGroupOnPodRestart``); the cluster must list ``lws`` in ``operators``;
    * ``form="LLMInferenceService"``: a ``serving.kserve.io/v1alpha2`` LLMInferenceService (KServe
      v0.20 or later) with ``spec.model``, ``spec.parallelism``, the ``main`` container's resources and
      probes, and a ``worker`` pod spec for several nodes; KServe supplies the engine command.

    Every pod gets the GPUs, a ``/dev/shm`` memory emptyDir (NCCL), ``/tmp`` and ``HOME=/tmp`` (the root
    filesystem is read-only), the secure pod defaults of :mod:`trainops.constructs._core.pod` and the
    cluster's GPU tolerations and node selector. The serving container ``main`` exposes port ``http``
    and has a startup probe whose window is long enough to load the model
    (:func:`trainops.core.llm.startup_seconds` of its size: 180 s + 4 s per GB, the rule
    ``llm-startup-probe`` checks), then readiness on ``/v1/models`` and liveness on ``/health``. The
    object carries the ``trainops.dev/model-size`` annotation when the size is known.

    Args:
        scope: the parent construct (a Chart; its namespace is the server's).
        id: construct id.
        cluster: target cluster.
        name: object name, a DNS-1035 label (a LeaderWorkerSet names its headless Service after it);
            also the selector label value.
        image: engine image with a tag or digest, e.g. ``vllm/vllm-openai:v0.8.5``.
        engine: :data:`VLLM` or :data:`SGLANG`. Default: :data:`VLLM`.
        gpus_per_node: GPUs per pod (``cluster.gpu_resource``), the tensor-parallel size. Default: 1.
        nodes: pods per model instance, the pipeline-parallel size. Default: 1.
        replicas: model instances (pods, or LeaderWorkerSet groups) when no Autoscaler targets the
            server; two survive the loss of one (the ``high-availability`` rule). Default: 2.
        model_name: the served model name (the OpenAI ``model`` field, ``--served-model-name``).
            Default: ``name``.
        model_volume: a ``VolumeClaim`` or claim name holding the model, mounted read-only at
            ``/models``. Default: none.
        model_subpath: the model's directory inside ``model_volume``. Default: its root.
        model_uri: fetch the model from object storage (``s3://``, ``gs://``, ``hf://``...) with KServe's
            storage initializer into an emptyDir at ``/mnt/models``. Default: none.
        model_image: an OCI image holding the model under ``/models`` (a KServe "modelcar"): it runs as
            a sidecar sharing the pod's process namespace and links its ``/models`` to ``/mnt/models``;
            an init container of the same image pulls it before the server starts. Default: none.
        model_credentials_secret: Secret whose keys become the storage initializer's environment.
            Default: none.
        model_size: the weights' size in bytes as a quantity, e.g. ``"140Gi"``; scales the startup
            probe and sizes the download emptyDir. Default: guessed from the model's URI, image,
            subpath or name (its parameter count × 2 bytes, :func:`trainops.core.llm.model_bytes`), else
            unknown.
        startup_seconds: the startup window. Default: from the model size.
        cpu: cpu cores per pod (requests = limits). Default: ``"8"``.
        memory: memory per pod (requests = limits). Default: ``"64Gi"``.
        shm_size: ``/dev/shm`` size. Default: half of ``memory``.
        tensor_parallel_size: must equal ``gpus_per_node`` when given. Default: ``gpus_per_node``.
        pipeline_parallel_size: must equal ``nodes`` when given. Default: ``nodes``.
        args: further engine arguments (e.g. ``["--max-model-len", "8192"]``); not the parallelism,
            host or port flags. Default: none.
        env: environment variables of the serving container(s). Default: none.
        hf_token_secret: a Secret with key ``token`` read into ``HF_TOKEN`` (gated Hugging Face
            models). Default: none.
        labels: extra labels on the object and its pods (not in the selector). Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.
        form: ``"auto"`` (Deployment or LeaderWorkerSet) or ``"LLMInferenceService"``. Default: ``"auto"``.
        max_surge: LeaderWorkerSet groups (Deployment pods) created above ``replicas`` during an
            update: 1 keeps serving while a new group starts but needs its GPUs free; 0 replaces one
            group at a time. Default: 1.
        termination_grace_seconds: ``terminationGracePeriodSeconds``. Default: 60.
        pre_stop_seconds: seconds the ``preStop`` hook sleeps. Default: 10.
        storage_initializer_image: the storage initializer image. Default: KServe v0.20.0's.

    Raises:
        ValueError: a bad prop, quoting prop and value: no model source or several, parallel sizes
            that do not match the GPUs (``LLMServer tensor_parallel_size=4 × pipeline_parallel_size=2
            = 8 GPUs, but gpus_per_node=8 × nodes=2 = 16``), parallelism flags in ``args``, several
            nodes on a cluster without ``lws``, an LLMInferenceService on a cluster
            without KServe 0.20.

    Source: https://docs.vllm.ai/en/latest/serving/distributed_serving.html,
    https://github.com/kubernetes-sigs/lws/tree/v0.10.0/docs/examples/vllm,
    https://kserve.github.io/website/docs/model-serving/generative-inference/llmisvc/llmisvc-overview
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        engine: LLMEngine = VLLM,
        gpus_per_node: int = 1,
        nodes: int = 1,
        replicas: int = 2,
        model_name: str | None = None,
        model_volume: ClaimSource | str | None = None,
        model_subpath: str | None = None,
        model_uri: str | None = None,
        model_image: str | None = None,
        model_credentials_secret: str | None = None,
        model_size: str | None = None,
        startup_seconds: int | None = None,
        cpu: str = "8",
        memory: str = "64Gi",
        shm_size: str | None = None,
        tensor_parallel_size: int | None = None,
        pipeline_parallel_size: int | None = None,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        hf_token_secret: str | None = None,
        labels: Mapping[str, str] | None = None,
        service_account: str | None = None,
        form: Form = "auto",
        max_surge: int = 1,
        termination_grace_seconds: int = 60,
        pre_stop_seconds: int = 10,
        storage_initializer_image: str = STORAGE_INITIALIZER_IMAGE,
    ) -> None:
        super().__init__(scope, id)
        self._cluster = cluster
        self._name = require_name(_KIND, "name", name, syntax=DNS1035_LABEL)
        self._image = require_image(_KIND, "image", image)
        if not isinstance(engine, LLMEngine):
            raise ValueError(f"{_KIND} engine={engine!r}: must be VLLM or SGLANG")
        self._engine = engine
        self._gpus = require_whole(_KIND, "gpus_per_node", gpus_per_node, minimum=1)
        self._nodes = require_whole(_KIND, "nodes", nodes, minimum=1)
        self._replicas = require_whole(_KIND, "replicas", replicas, minimum=1)
        self._parallelism(tensor_parallel_size, pipeline_parallel_size)
        if form not in ("auto", "LLMInferenceService"):
            raise ValueError(f"{_KIND} form={form!r}: must be 'auto' or 'LLMInferenceService'")
        self._form = self._pick_form(form)
        self._model_name = name if model_name is None else model_name
        if (
            not isinstance(self._model_name, str)
            or not self._model_name
            or any(c.isspace() for c in self._model_name)
        ):
            raise ValueError(f"{_KIND} model_name={model_name!r}: must be a non-empty name without spaces")
        extra = require_strings(_KIND, "args", args) or ()
        for word in extra:
            if word.partition("=")[0] == "--host" or flag_field(engine.name, word) is not None:
                raise ValueError(
                    f"{_KIND} args: {word!r} is set by the construct (gpus_per_node, nodes, port); "
                    "remove it from args"
                )
        cpu_q = require_quantity(_KIND, "cpu", cpu)
        memory_q = require_quantity(_KIND, "memory", memory, whole_bytes=True)
        shm = shm_size_of(_KIND, shm_size, memory_q, needed=True)
        user_env = require_env(_KIND, "env", env or {})
        self._labels = require_labels(_KIND, "labels", labels or {})
        account = None if service_account is None else require_name(_KIND, "service_account", service_account)
        secret = (
            None
            if hf_token_secret is None
            else require_name(_KIND, "hf_token_secret", hf_token_secret, max_length=253)
        )
        self._max_surge = require_whole(_KIND, "max_surge", max_surge)
        grace = require_whole(_KIND, "termination_grace_seconds", termination_grace_seconds, minimum=1)
        pre_stop = require_whole(_KIND, "pre_stop_seconds", pre_stop_seconds)
        if pre_stop >= grace:
            raise ValueError(
                f"{_KIND} pre_stop_seconds={pre_stop_seconds!r}: must be less than termination_grace_seconds={grace}"
            )
        self._size = self._model_size(model_size, model_uri, model_image, model_subpath)
        startup = (
            require_whole(_KIND, "startup_seconds", startup_seconds, minimum=STARTUP_PERIOD)
            if startup_seconds is not None
            else startup_window(self._size)
        )
        self._volume_source: ClaimSource | str | None = model_volume
        model = self._model(
            model_volume,
            model_subpath,
            model_uri,
            model_image,
            model_credentials_secret,
            storage_initializer_image,
        )
        self._model_uri = model.uri

        self._selector = {"app.kubernetes.io/name": self._name, "app.kubernetes.io/instance": self._name}
        if self._nodes > 1 and self._form != "LLMInferenceService":
            self._selector[COMPONENT] = "leader"
        clash = sorted(set(self._labels) & {*self._selector, COMPONENT})
        if clash:
            raise ValueError(f"{_KIND} labels: {clash[0]!r} is a selector label set from name")
        self._autoscaler: Autoscaler | None = None
        self._service: ModelService | None = None

        env_list: list[dict[str, Any]] = [*env_entries(user_env, {"HOME": TMP_PATH})]
        if secret is not None:
            env_list.append(
                {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": secret, "key": "token"}}}
            )
        volumes, mounts = scratch_volumes(shm_size=shm, tmp=True)
        volumes += model.volumes
        mounts += model.mounts
        resources = guaranteed_resources(cpu_q, memory_q, {cluster.gpu_resource: self._gpus})
        if model.ephemeral is not None:
            for section in ("requests", "limits"):
                resources[section]["ephemeral-storage"] = model.ephemeral.canonical()
        serve = engine.command(model.arg, self._model_name, self.port, self._gpus, self._nodes, extra)
        main: dict[str, Any] = {
            "name": CONTAINER_NAME,
            "image": self._image,
            "env": env_list,
            "ports": [{"name": PORT_NAME, "containerPort": self.port, "protocol": "TCP"}],
            "resources": resources,
            "securityContext": container_security_context(),
            "readinessProbe": _http(engine.readiness_path, period=10, timeout=5, failures=3),
            "livenessProbe": _http(engine.liveness_path, period=20, timeout=10, failures=3),
            "startupProbe": _http(
                engine.liveness_path,
                period=STARTUP_PERIOD,
                timeout=5,
                failures=math.ceil(startup / STARTUP_PERIOD),
            ),
            "volumeMounts": mounts,
        }
        if pre_stop:
            # The sleep action needs no shell in the image (PodLifecycleSleepAction, on since 1.30).
            hook = (
                {"sleep": {"seconds": pre_stop}}
                if cluster.kubernetes_minor >= 30
                else {"exec": {"command": ["sleep", str(pre_stop)]}}
            )
            main["lifecycle"] = {"preStop": hook}
        pod: dict[str, Any] = {
            "automountServiceAccountToken": False,
            "securityContext": pod_security_context(),
            "terminationGracePeriodSeconds": grace,
            "containers": [main, *model.sidecars],
            "volumes": volumes,
            **gpu_placement(cluster),
        }
        if model.init:
            pod["initContainers"] = model.init
        if model.sidecars:
            pod["shareProcessNamespace"] = True
        if account is not None:
            pod["serviceAccountName"] = account
        annotations: dict[str, str] = {}
        if self._size is not None:
            annotations[MODEL_SIZE_ANNOTATION] = model_size if model_size is not None else _bytes(self._size)
        if self._form == "LLMInferenceService":
            self._object = self._llmisvc(main, pod, annotations)
        elif self._nodes == 1:
            main["command"] = serve
            self._object = self._deployment(pod, annotations)
        else:
            self._object = self._leader_worker_set(main, pod, serve, annotations)
        self._api_object: Emitted = emit(self, self._object)

    # -- building --------------------------------------------------------------------------------

    def _parallelism(self, tensor: int | None, pipeline: int | None) -> None:
        tp = self._gpus if tensor is None else require_whole(_KIND, "tensor_parallel_size", tensor, minimum=1)
        pp = (
            self._nodes
            if pipeline is None
            else require_whole(_KIND, "pipeline_parallel_size", pipeline, minimum=1)
        )
        if (tp, pp) != (self._gpus, self._nodes) and tp * pp == self._gpus * self._nodes:
            raise ValueError(
                f"{_KIND} tensor_parallel_size={tp} × pipeline_parallel_size={pp}: tensor parallelism spans "
                f"the GPUs of a node (gpus_per_node={self._gpus}), pipeline parallelism the nodes "
                f"(nodes={self._nodes})"
            )
        if (tp, pp) != (self._gpus, self._nodes):
            raise ValueError(
                f"{_KIND} tensor_parallel_size={tp} × pipeline_parallel_size={pp} = {tp * pp} GPUs, but "
                f"gpus_per_node={self._gpus} × nodes={self._nodes} = {self._gpus * self._nodes}: tensor "
                "parallelism spans the GPUs of a node, pipeline parallelism the nodes"
            )

    def _pick_form(self, form: Form) -> str:
        cluster = self._cluster
        if form == "LLMInferenceService":
            version = cluster.operators.get("kserve")
            if version is None or release_of(version) < LLMISVC_SINCE:
                raise ValueError(
                    f"{_KIND} form='LLMInferenceService': cluster {cluster.name!r} does not run KServe "
                    f"v0.20 or later (operators kserve={version!r})"
                )
            return form
        if self._nodes == 1:
            return "Deployment"
        if not cluster.has_operator("lws"):
            raise ValueError(
                f"{_KIND} nodes={self._nodes}: a multi-node server is a LeaderWorkerSet, but cluster "
                f"{cluster.name!r} does not list lws in operators"
            )
        return "LeaderWorkerSet"

    def _model_size(
        self, size: str | None, uri: str | None, image: str | None, subpath: str | None
    ) -> int | None:
        if size is not None:
            quantity = require_quantity(_KIND, "model_size", size, whole_bytes=True)
            return int(quantity.value)
        for source in (uri, image, subpath, self._model_name):
            if isinstance(source, str) and (guess := model_bytes(source.rstrip("/"))) is not None:
                return guess
        return None

    def _model(
        self,
        volume: ClaimSource | str | None,
        subpath: str | None,
        uri: str | None,
        image: str | None,
        credentials: str | None,
        initializer: str,
    ) -> _Model:
        given = [
            p
            for p, v in (("model_volume", volume), ("model_uri", uri), ("model_image", image))
            if v is not None
        ]
        if len(given) != 1:
            raise ValueError(
                f"{_KIND} {', '.join(given) or 'model_volume, model_uri, model_image'}: give exactly one "
                "model source"
            )
        if credentials is not None and uri is None:
            raise ValueError(f"{_KIND} model_credentials_secret={credentials!r}: needs a model_uri")
        if subpath is not None and volume is None:
            raise ValueError(f"{_KIND} model_subpath={subpath!r}: needs a model_volume")
        if volume is not None:
            pods = self._replicas * self._nodes
            mount: Mount = resolve_mount(
                _KIND,
                "model_volume",
                volume,
                VOLUME_MODEL_DIR,
                read_only=True,
                pods=pods,
                reserved_paths=[TMP_PATH, SHM_PATH],
            )
            if subpath is not None and (
                not isinstance(subpath, str)
                or not subpath.strip("/")
                or ".." in subpath.split("/")
                or any(c.isspace() for c in subpath)
            ):
                raise ValueError(
                    f"{_KIND} model_subpath={subpath!r}: must be a relative path without '..' or spaces"
                )
            arg = VOLUME_MODEL_DIR if subpath is None else f"{VOLUME_MODEL_DIR}/{subpath.strip('/')}"
            claim = volume if isinstance(volume, str) else volume.claim_name
            suffix = "" if subpath is None else f"/{subpath.strip('/')}"
            return _Model(
                arg, [mount.volume()], [mount.volume_mount()], [], [], f"pvc://{claim}{suffix}", None
            )
        ephemeral = None if self._size is None else _gigabytes(self._size * 1.1)
        if uri is not None:
            if (
                not isinstance(uri, str)
                or not uri.startswith(MODEL_URI_PREFIXES)
                or uri.startswith("oci://")
                or any(c.isspace() for c in uri)
                or not uri.partition("://")[2].strip("/")
            ):
                raise ValueError(
                    f"{_KIND} model_uri={uri!r}: must be <scheme>://<bucket or path> with a scheme of "
                    f"{', '.join(p for p in MODEL_URI_PREFIXES if p != 'oci://')} (an OCI image is model_image)"
                )
            if "@" in uri.partition("://")[2].split("/", 1)[0]:
                raise ValueError(f"{_KIND} model_uri={uri!r}: credentials belong in model_credentials_secret")
            secret = (
                None
                if credentials is None
                else require_name(_KIND, "model_credentials_secret", credentials, max_length=253)
            )
            init, volume_spec = storage_initializer(_KIND, uri, image=initializer, credentials_secret=secret)
            if ephemeral is not None:
                volume_spec["emptyDir"] = {"sizeLimit": ephemeral.canonical()}
            mount_spec = {"name": volume_spec["name"], "mountPath": FETCHED_MODEL_DIR, "readOnly": True}
            return _Model(FETCHED_MODEL_DIR, [volume_spec], [mount_spec], [init], [], uri, ephemeral)
        assert image is not None
        image = require_image(_KIND, "model_image", image)
        return _Model(
            FETCHED_MODEL_DIR,
            [{"name": "model", "emptyDir": {}}],
            [{"name": "model", "mountPath": FETCHED_MODEL_DIR.rsplit("/", 1)[0]}],
            [_modelcar(image, init=True)],
            [_modelcar(image, init=False)],
            f"oci://{image}",
            None,
        )

    def _metadata(self, labels: Mapping[str, str], annotations: Mapping[str, str]) -> dict[str, Any]:
        metadata: dict[str, Any] = {"name": self._name, "labels": dict(labels)}
        if annotations:
            metadata["annotations"] = dict(annotations)
        return metadata

    def _deployment(self, pod: dict[str, Any], annotations: Mapping[str, str]) -> dict[str, Any]:
        self._kind, self._api = "Deployment", "apps/v1"
        labels = {**self._selector, **self._labels}
        pod["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": dict(self._selector)},
            }
        ]
        return {
            "apiVersion": self._api,
            "kind": self._kind,
            "metadata": self._metadata(labels, annotations),
            "spec": {
                "replicas": self._replicas,
                "selector": {"matchLabels": dict(self._selector)},
                "strategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {
                        "maxSurge": self._max_surge,
                        "maxUnavailable": 0 if self._max_surge else 1,
                    },
                },
                "template": {"metadata": {"labels": labels}, "spec": pod},
            },
        }

    def _leader_worker_set(
        self, main: dict[str, Any], pod: dict[str, Any], serve: list[str], annotations: Mapping[str, str]
    ) -> dict[str, Any]:
        """The LWS of kubernetes-sigs/lws ``docs/examples/vllm/GPU/lws.yaml``: the leader starts the Ray
        head, waits for the group (``LWS_GROUP_SIZE``) and serves; each worker joins the leader's Ray
        head. SGLang as ``docs/examples/sglang/lws.yaml``: every pod runs the server with its rank
        (``LWS_WORKER_INDEX``) and the leader's address; only the leader serves HTTP."""
        self._kind, self._api = "LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1"
        base = {k: v for k, v in self._selector.items() if k != COMPONENT}
        leader_labels = {**self._selector, **self._labels}
        worker_labels = {**base, COMPONENT: "worker", **self._labels}
        worker = {
            key: value
            for key, value in main.items()
            if key not in ("ports", "readinessProbe", "livenessProbe", "startupProbe", "lifecycle")
        }
        if self._engine.name == "sglang":
            group = [
                "--dist-init-addr",
                f"$(LWS_LEADER_ADDRESS):{SGLANG_DIST_PORT}",
                "--nnodes",
                "$(LWS_GROUP_SIZE)",
                "--node-rank",
                "$(LWS_WORKER_INDEX)",
            ]
            dist_port = {"name": "dist", "containerPort": SGLANG_DIST_PORT, "protocol": "TCP"}
            leader = {**main, "command": [*serve, *group], "ports": [*main["ports"], dist_port]}
            worker["command"] = [*serve, *group]
        else:
            ray_port = {"name": "ray", "containerPort": RAY_PORT, "protocol": "TCP"}
            head = f"bash {RAY_SCRIPT} leader --ray_cluster_size=$(LWS_GROUP_SIZE) && exec " + shlex.join(
                [*serve, "--distributed-executor-backend", "ray"]
            )
            leader = {**main, "command": ["sh", "-c", head], "ports": [*main["ports"], ray_port]}
            join = f"bash {RAY_SCRIPT} worker --ray_address=$(LWS_LEADER_ADDRESS)"
            ray_check = ["sh", "-c", f'ray health-check --address "$LWS_LEADER_ADDRESS:{RAY_PORT}"']
            worker["command"] = ["sh", "-c", join]
            worker["readinessProbe"] = {
                "exec": {"command": ray_check},
                "periodSeconds": 10,
                "timeoutSeconds": 5,
                "failureThreshold": 3,
            }
            worker["livenessProbe"] = {
                "exec": {"command": ray_check},
                "periodSeconds": 30,
                "timeoutSeconds": 10,
                "failureThreshold": 3,
            }
        leader_pod = {**pod, "containers": [leader, *pod["containers"][1:]]}
        worker_pod = {**pod, "containers": [worker, *pod["containers"][1:]]}
        return {
            "apiVersion": self._api,
            "kind": self._kind,
            "metadata": self._metadata({**base, **self._labels}, annotations),
            "spec": {
                "replicas": self._replicas,
                "startupPolicy": "LeaderCreated",
                "rolloutStrategy": {
                    "type": "RollingUpdate",
                    "rollingUpdateConfiguration": {
                        "maxSurge": self._max_surge,
                        "maxUnavailable": 0 if self._max_surge else 1,
                    },
                },
                "leaderWorkerTemplate": {
                    "size": self._nodes,
                    "restartPolicy": "RecreateGroupOnPodRestart",
                    "leaderTemplate": {"metadata": {"labels": leader_labels}, "spec": leader_pod},
                    "workerTemplate": {"metadata": {"labels": worker_labels}, "spec": worker_pod},
                },
            },
        }

    def _llmisvc(
        self, main: dict[str, Any], pod: dict[str, Any], annotations: Mapping[str, str]
    ) -> dict[str, Any]:
        """KServe builds the pods from its well-known LLMInferenceServiceConfig
        (``config/llmisvcconfig/config-llm-template.yaml``) and fetches the model itself; the spec gives
        the model, the parallelism and what the ``main`` container and its pod override: resources,
        probes, security, and the config's ``dshm`` memory emptyDir at ``/dev/shm`` (1 GiB there,
        resized here) with ``/tmp`` for the read-only root filesystem."""
        self._kind, self._api = "LLMInferenceService", "serving.kserve.io/v1alpha2"
        scratch = {SHM_VOLUME: KSERVE_SHM_VOLUME, TMP_VOLUME: TMP_VOLUME}
        container = {k: v for k, v in main.items() if k not in ("image", "ports", "volumeMounts")}
        container["volumeMounts"] = [
            {**m, "name": scratch[m["name"]]} for m in main["volumeMounts"] if m["name"] in scratch
        ]
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            # KServe's vLLM serves TLS on 8000 (the upstream samples probe it with scheme HTTPS).
            container[probe] = {
                **container[probe],
                "httpGet": {**container[probe]["httpGet"], "port": self.port, "scheme": "HTTPS"},
            }
        template = {
            k: v
            for k, v in pod.items()
            if k not in ("volumes", "initContainers", "containers", "shareProcessNamespace")
        }
        template["containers"] = [container]
        template["volumes"] = [
            {**v, "name": scratch[v["name"]]} for v in pod["volumes"] if v["name"] in scratch
        ]
        spec: dict[str, Any] = {
            "model": {"uri": self._model_uri, "name": self._model_name},
            "replicas": self._replicas,
            "parallelism": {"tensor": self._gpus},
            "router": {"route": {}},
            "template": template,
        }
        if self._nodes > 1:
            spec["parallelism"]["pipeline"] = self._nodes
            worker = {k: v for k, v in container.items() if not k.endswith("Probe") and k != "lifecycle"}
            spec["worker"] = {**template, "containers": [worker]}
        return {
            "apiVersion": self._api,
            "kind": self._kind,
            "metadata": self._metadata({**self._selector, **self._labels}, annotations),
            "spec": spec,
        }

    # -- properties ------------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """``Deployment``, ``LeaderWorkerSet`` or ``LLMInferenceService``."""
        return self._kind

    @property
    def api_version(self) -> str:
        """The emitted object's apiVersion."""
        return self._api

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        return self._cluster

    @property
    def engine(self) -> LLMEngine:
        """The serving engine."""
        return self._engine

    @property
    def port(self) -> int:
        """The OpenAI-compatible API port: 8000."""
        return 8000

    @property
    def port_name(self) -> str:
        """``http``."""
        return PORT_NAME

    @property
    def model_name(self) -> str:
        """The served model name."""
        return self._model_name

    @property
    def model_size(self) -> int | None:
        """The model's size in bytes, if known."""
        return self._size

    @property
    def gpus(self) -> int:
        """GPUs of one model instance: ``gpus_per_node`` × ``nodes``."""
        return self._gpus * self._nodes

    @property
    def selector_labels(self) -> dict[str, str]:
        """Labels that select the pods serving the API (the leaders of a LeaderWorkerSet); a copy."""
        return dict(self._selector)

    @property
    def replicas(self) -> int | None:
        """Model instances, or ``None`` when an Autoscaler owns them."""
        return None if self._autoscaler is not None else self._replicas

    @property
    def requested_resources(self) -> frozenset[str]:
        """Resources every serving container requests: cpu and memory (requests equal limits)."""
        return frozenset({"cpu", "memory"})

    @property
    def autoscaler(self) -> Autoscaler | None:
        """The Autoscaler targeting this server, if any."""
        return self._autoscaler

    @property
    def service(self) -> ModelService | None:
        """The Service made by ``expose()``, if any."""
        return self._service

    # -- integration -----------------------------------------------------------------------------

    def expose(self, *, name: str | None = None, labels: Mapping[str, str] | None = None) -> ModelService:
        """A ClusterIP Service on port 8000 selecting the pods that serve the API (a LeaderWorkerSet's
        leaders). Not for an LLMInferenceService, whose Services KServe makes.

        Raises:
            ValueError: already exposed, or an LLMInferenceService.
        """
        if self._form == "LLMInferenceService":
            raise ValueError(f"{_KIND} {self._name!r}: KServe creates the Services of an LLMInferenceService")
        if self._service is not None:
            raise ValueError(f"{_KIND} {self._name!r}: already exposed by Service {self._service.name!r}")
        self._service = ModelService(self, "Service", server=self, name=name, labels=labels)
        return self._service

    def autoscale(
        self,
        scope: Construct,
        id: str,
        *,
        min_replicas: int = 1,
        max_replicas: int = 4,
        waiting_per_replica: int = 10,
    ) -> Autoscaler:
        """An HPA on the engine's queue depth (``vllm:num_requests_waiting``, SGLang
        ``sglang:num_queue_reqs``) averaged over the serving pods, as the cluster's Prometheus Adapter
        serves it from the custom metrics API (``Pods`` metric, ``AverageValue``). A LeaderWorkerSet
        scales by groups (its ``scale`` subresource selects the leaders, which report the queue).

        Args:
            scope: where to add the Autoscaler (the server's Chart).
            id: construct id.
            min_replicas: fewest model instances. Default: 1.
            max_replicas: most model instances. Default: 4.
            waiting_per_replica: target waiting requests per instance. Default: 10.

        Raises:
            ValueError: the cluster does not list ``prometheus-adapter`` in ``operators``, or the server
                is an LLMInferenceService (KServe scales it with ``spec.scaling``).
        """
        from trainops.constructs.autoscaler import Autoscaler, PodsMetric

        if not self._cluster.has_operator("prometheus-adapter"):
            raise ValueError(
                f"{_KIND} {self._name!r} autoscale: cluster {self._cluster.name!r} does not list "
                "prometheus-adapter in operators (the HPA reads the queue depth from the custom metrics API)"
            )
        count = require_whole(_KIND, "waiting_per_replica", waiting_per_replica, minimum=1)
        return Autoscaler(
            scope,
            id,
            target=self,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            cpu_utilization=None,
            memory_utilization=None,
            metrics=[PodsMetric(self._engine.metrics.waiting, str(count))],
        )

    def mark_autoscaled(self, autoscaler: object, *, max_replicas: int) -> None:
        """Called by :class:`Autoscaler`: drop ``spec.replicas`` (the HPA owns it).

        Raises:
            ValueError: another Autoscaler targets the server, an LLMInferenceService, or a model
                volume the pods cannot share.
        """
        if self._form == "LLMInferenceService":
            raise ValueError(f"{_KIND} {self._name!r}: KServe scales an LLMInferenceService (spec.scaling)")
        if self._autoscaler is not None:
            raise ValueError(
                f"{_KIND} {self._name!r}: already targeted by Autoscaler {self._autoscaler.name!r}"
            )
        if self._volume_source is not None and not isinstance(self._volume_source, str):
            check_access(
                "Autoscaler",
                "target model_volume",
                self._volume_source,
                pods=max_replicas * self._nodes,
                read_only=True,
            )
        self._autoscaler = cast("Autoscaler", autoscaler)
        del self._object["spec"]["replicas"]
        self._api_object.patch(remove_op("/spec/replicas"))


def _http(path: str, *, period: int, timeout: int, failures: int) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": PORT_NAME},
        "periodSeconds": period,
        "timeoutSeconds": timeout,
        "failureThreshold": failures,
    }


def _modelcar(image: str, *, init: bool) -> dict[str, Any]:
    """KServe's modelcar containers (kserve v0.20 ``pkg/utils/storage.go`` ``CreateModelcarContainer``,
    ``CreateModelcarInitContainer``): the sidecar links its ``/models`` into the shared emptyDir through
    ``/proc/<pid>/root`` (``$$$$`` is ``$$`` after Kubernetes' ``$(VAR)`` escaping, the shell's PID);
    the init container fails when the image has no ``/models``."""
    if init:
        script = (
            '[ -d /models ] && [ "$$(ls -A /models)" ] || (echo "no /models in the model image" && exit 1)'
        )
        name, mounts = "modelcar-init", [{"name": "tmp", "mountPath": TMP_PATH}]
    else:
        script = f"ln -sf /proc/$$$$/root/models {FETCHED_MODEL_DIR} && sleep infinity"
        name, mounts = "modelcar", [{"name": "model", "mountPath": FETCHED_MODEL_DIR.rsplit("/", 1)[0]}]
    container: dict[str, Any] = {
        "name": name,
        "image": image,
        "command": ["sh", "-c", script],
        "resources": guaranteed_resources(parse_quantity("10m"), parse_quantity("16Mi"), {}),
        "securityContext": container_security_context(),
        "volumeMounts": mounts,
    }
    if not init:  # the link stays in place while the sidecar lives
        check = {"exec": {"command": ["test", "-d", f"{FETCHED_MODEL_DIR}/"]}, "timeoutSeconds": 5}
        container["readinessProbe"] = {**check, "periodSeconds": 10}
        container["livenessProbe"] = {**check, "periodSeconds": 30}
    return container


def _bytes(size: int) -> str:
    return Quantity(Fraction(size), "DecimalSI").canonical()


def _gigabytes(size: float) -> Quantity:
    """``size`` bytes rounded up to whole gigabytes (``154G``)."""
    return Quantity(Fraction(math.ceil(size / 1e9) * 10**9), "DecimalSI")
