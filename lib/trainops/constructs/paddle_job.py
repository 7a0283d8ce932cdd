"""``PaddleJob``: a Kubeflow Training Operator v1 distributed PaddlePaddle job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.constructs._core.base import Construct
from trainops.constructs._core.props import renamed_props, require_whole
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.kubeflow import (
    KubeflowJob,
    PodProps,
    RunPolicy,
    max_base_name,
    require_port,
    scratch_paths,
    with_port,
)
from trainops.core.cluster import Cluster
from trainops.core.kinds import REPLICA_SPECS_FIELD, TRAINING_CONTAINER

__all__ = [
    "CONTAINER_NAME",
    "MAX_BASE_NAME",
    "PORT_NAME",
    "REPLICA_TYPES",
    "PaddleElasticPolicy",
    "PaddleJob",
]

_KIND = "PaddleJob"
#: The Training Operator finds the training container by this name (``PaddleJobDefaultContainerName``);
#: its webhook refuses a replica without it (``validateSpec`` in paddlepaddle_webhook.go).
CONTAINER_NAME = TRAINING_CONTAINER[_KIND]
#: The container port of the rendezvous endpoint ``PADDLE_MASTER`` (``PaddleJobDefaultPortName``;
#: default port 36543).
PORT_NAME = "master"
#: Replica types (``PaddleJobReplicaTypeMaster``/``Worker``); the webhook allows no others.
REPLICA_TYPES = ("Master", "Worker")
#: Longest base name: replica Services ``<job>-worker-<i>`` stay within 63 characters (45).
MAX_BASE_NAME = max_base_name(*REPLICA_TYPES)


@dataclass(frozen=True)
class PaddleElasticPolicy:
    """``spec.elasticPolicy`` of a PaddleJob: bounds of the Worker set.

    The v1.9 operator only defaults the bounds (``setPaddleElasticPolicy``: either bound from the
    other, or both from the Worker replicas) and creates no autoscaler for PaddleJob; trainops always
    writes both bounds so the stored object equals the one the operator works with. ``metrics``
    (an HPA spec) is not supported.

    Args:
        min_replicas: fewest Worker pods.
        max_replicas: most Worker pods.
        max_restarts: restarts of pods in elastic mode, or ``None`` for unset. Default: ``None``.

    Raises:
        ValueError: ``min_replicas`` < 1, ``max_replicas`` < ``min_replicas`` or ``max_restarts`` < 0.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/paddlepaddle_types.go
    (``PaddleElasticPolicy``), ``paddlepaddle_defaults.go``.
    """

    min_replicas: int
    max_replicas: int
    max_restarts: int | None = None

    def __post_init__(self) -> None:
        require_whole("PaddleElasticPolicy", "min_replicas", self.min_replicas, minimum=1)
        require_whole("PaddleElasticPolicy", "max_replicas", self.max_replicas, minimum=1)
        if self.max_restarts is not None:
            require_whole("PaddleElasticPolicy", "max_restarts", self.max_restarts, minimum=0)
        if self.max_replicas < self.min_replicas:
            raise ValueError(
                f"PaddleElasticPolicy max_replicas={self.max_replicas!r}: "
                f"must be at least min_replicas={self.min_replicas!r}"
            )

    def to_spec(self) -> dict[str, Any]:
        """The ``spec.elasticPolicy`` object."""
        spec: dict[str, Any] = {"minReplicas": int(self.min_replicas), "maxReplicas": int(self.max_replicas)}
        if self.max_restarts is not None:
            spec["maxRestarts"] = int(self.max_restarts)
        return spec


class PaddleJob(KubeflowJob):
    """A distributed PaddlePaddle training job (kubeflow.org/v1 PaddleJob, Training Operator v1.9).

    The object is named ``<name>-<hash6>`` where the hash covers the whole spec, so a changed spec
    is a new run rather than an in-place patch of an immutable one (``name`` returns the emitted
    name; it changes with ``mount()``). Two modes, as the operator decides them (``setPodEnv`` in
    ``pkg/controller.v1/paddlepaddle/envvar.go``):

    * collective (``servers=0``, the default): ``Worker`` replicas only; Worker 0 is the rendezvous
      endpoint ``PADDLE_MASTER``;
    * parameter server (``servers`` > 0): ``Master`` replicas are the parameter servers (one server
      per pod), ``Worker`` replicas the trainers; Master 0 is the endpoint. Servers get no GPUs,
      RDMA or ``/dev/shm`` and ``server_cpu``/``server_memory`` each.

    Each replica runs one container called ``paddle`` (run ``python -m paddle.distributed.launch``)
    with the pod defaults of ``PyTorchJob``: guaranteed resources, GPU tolerations, node selector
    and NCCL environment defaults with GPUs (``env`` overrides them), a ``/dev/shm`` memory emptyDir
    of half ``memory`` with several GPUs or several pods (``shm_size`` overrides), the secure pod
    defaults, and ``restartPolicy: OnFailure`` (also the operator's default).

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the job's namespace).
        id: construct id.
        cluster: target cluster; must list ``training-operator`` in ``operators``.
        name: base name, a DNS-1035 label of at most 45 characters.
        image: training image with a tag or digest (never ``latest``).
        command: container command. Default: the image's entrypoint.
        args: container args. Default: none.
        workers: ``Worker`` replicas (trainers), at least 1. Default: 1.
        servers: ``Master`` replicas (parameter servers); 0 for collective mode. Default: 0.
        gpus_per_node: whole GPUs per Worker pod. Default: 0.
        cpu: cpu cores per Worker pod as a quantity string. Default: ``"2"``.
        memory: memory per Worker pod as a quantity string in bytes. Default: ``"8Gi"``.
        server_cpu: cpu cores per server pod. Default: ``cpu``.
        server_memory: memory per server pod (bytes). Default: ``memory``.
        rdma: RDMA HCAs per Worker pod. Default: 0.
        env: environment variables, in order (every replica type). Default: none.
        shm_size: size limit of the ``/dev/shm`` emptyDir (bytes). Default: half of ``memory`` when
            needed (see above).
        port: the ``master`` container port of the rendezvous endpoint. Default: unset (the operator
            adds 36543).
        elastic: ``spec.elasticPolicy``; ``workers`` must be within its bounds. Default: none.
        run_policy: ``spec.runPolicy``. Default: ``RunPolicy()``.
        queue: Kueue LocalQueue name (the ``kueue.x-k8s.io/queue-name`` label), or ``None``. Default: ``None``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        placement: where the pods sit in the cluster topology (Kueue Topology Aware Scheduling;
            needs ``queue``), or ``None``. Default: ``None``.
        labels: extra labels on the job and its pods. Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.
        read_only_root_filesystem: mount the root filesystem read-only (an emptyDir backs ``/tmp``).
            Default: ``True``.

    Raises:
        ValueError: a bad prop value (quoting prop and value), e.g. ``workers=0``, ``servers=-1``,
            ``workers`` outside the elastic bounds, or any pod prop ``PyTorchJob`` refuses.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/paddlepaddle_types.go,
    https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go
    (``validateSpec``: only Master and Worker, a container named ``paddle`` in every replica).
    """

    KIND = "PaddleJob"
    API_VERSION = "kubeflow.org/v1"

    @renamed_props(_KIND, gpus_per_replica="gpus_per_node")
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        command: Sequence[str] | None = None,
        args: Sequence[str] | None = None,
        workers: int = 1,
        servers: int = 0,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        server_cpu: str | None = None,
        server_memory: str | None = None,
        rdma: int = 0,
        env: Mapping[str, str] | None = None,
        shm_size: str | None = None,
        port: int | None = None,
        elastic: PaddleElasticPolicy | None = None,
        run_policy: RunPolicy | None = None,
        queue: str | None = None,
        priority: str | None = None,
        placement: TopologyPlacement | None = None,
        labels: Mapping[str, str] | None = None,
        service_account: str | None = None,
        read_only_root_filesystem: bool = True,
    ) -> None:
        super().__init__(scope, id)
        self._setup(
            cluster,
            name,
            max_base_name=MAX_BASE_NAME,
            run_policy=run_policy,
            queue=queue,
            priority=priority,
            placement=placement,
        )
        self._workers = require_whole(_KIND, "workers", workers, minimum=1)
        self._servers = require_whole(_KIND, "servers", servers, minimum=0)
        self._port = require_port(_KIND, "port", port)
        self._elastic = elastic
        if elastic is not None and not elastic.min_replicas <= self._workers <= elastic.max_replicas:
            raise ValueError(
                f"{_KIND} workers={workers!r}: must be within elastic min_replicas={elastic.min_replicas} "
                f"and max_replicas={elastic.max_replicas}"
            )
        self._pod = PodProps(
            image=image,
            command=command,
            args=args,
            gpus=gpus_per_node,
            cpu=cpu,
            memory=memory,
            rdma=rdma,
            env=env,
            shm_size=shm_size,
            labels=labels,
            service_account=service_account,
            read_only_root=read_only_root_filesystem,
        ).check(_KIND, cluster, CONTAINER_NAME, pods=self.pods)
        self._labels = dict(self._pod.labels or {})
        self._server_pod = self._pod.without_gpus(
            _KIND, cpu_prop="server_cpu", cpu=server_cpu, memory_prop="server_memory", memory=server_memory
        )
        self._emit()

    @property
    def replica_types(self) -> tuple[str, ...]:
        """The replica types emitted: ``Master`` with servers, and ``Worker``."""
        return (("Master",) if self._servers else ()) + ("Worker",)

    @property
    def pods(self) -> int:
        """How many pods the job runs (servers plus workers)."""
        return self._servers + self._workers

    def _reserved_paths(self) -> list[str]:
        return scratch_paths(self._pod)

    def _spec(self) -> dict[str, Any]:
        replica_specs: dict[str, Any] = {}
        if self._servers:
            replica_specs["Master"] = with_port(
                self._server_pod.replica(self._servers, "OnFailure", self._mounts), PORT_NAME, self._port
            )
        replica_specs["Worker"] = with_port(
            self._pod.replica(self._workers, "OnFailure", self._mounts), PORT_NAME, self._port
        )
        spec: dict[str, Any] = {
            REPLICA_SPECS_FIELD[_KIND]: replica_specs,
            "runPolicy": self._run_policy.to_spec(),
        }
        if self._elastic is not None:
            spec["elasticPolicy"] = self._elastic.to_spec()
        return spec
