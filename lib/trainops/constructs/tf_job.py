"""``TFJob``: a Kubeflow Training Operator v1 distributed TensorFlow job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trainops.constructs._core.base import Construct
from trainops.constructs._core.props import renamed_props, require_whole
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.kubeflow import KubeflowJob, PodProps, RunPolicy, max_base_name, scratch_paths
from trainops.core.cluster import Cluster
from trainops.core.kinds import REPLICA_SPECS_FIELD, TRAINING_CONTAINER

__all__ = ["CONTAINER_NAME", "MAX_BASE_NAME", "REPLICA_TYPES", "SuccessPolicy", "TFJob"]

_KIND = "TFJob"
#: The Training Operator finds the training container by this name (``TFJobDefaultContainerName``);
#: its webhook refuses a replica without it (``validateTFReplicaSpecs``).
CONTAINER_NAME = TRAINING_CONTAINER[_KIND]
#: The replica types this construct emits, in order (``TFJobReplicaType*`` in tensorflow_types.go;
#: ``Master`` is a backward-compatible alias of ``Chief`` and never emitted).
REPLICA_TYPES = ("Chief", "PS", "Worker", "Evaluator")
#: Longest base name: replica Services ``<job>-evaluator-<i>`` stay within 63 characters (42).
MAX_BASE_NAME = max_base_name(*REPLICA_TYPES)

#: ``spec.successPolicy``: ``AllWorkers`` waits for every Worker (``SuccessPolicyAllWorkers``).
SuccessPolicy = Literal["AllWorkers"]


class TFJob(KubeflowJob):
    """A distributed TensorFlow training job (kubeflow.org/v1 TFJob, Training Operator v1.9).

    The object is named ``<name>-<hash6>`` where the hash covers the whole spec, so a changed spec
    is a new run rather than an in-place patch of an immutable one (``name`` returns the emitted
    name; it changes with ``mount()``). The operator sets ``TF_CONFIG`` in every pod from the replica
    specs. Replica types, in ``spec.tfReplicaSpecs``:

    * ``Chief`` (one replica, when ``chief=True``): the chief worker; without it Worker 0 is chief;
    * ``PS``: parameter servers: no GPUs, RDMA or ``/dev/shm`` (they serve variables over gRPC),
      ``ps_cpu``/``ps_memory`` each;
    * ``Worker``: ``workers`` replicas;
    * ``Evaluator`` (one replica, when ``evaluator=True``): evaluates checkpoints beside training.

    Each replica runs one container called ``tensorflow`` with the pod defaults of ``PyTorchJob``:
    guaranteed resources (``cpu``, ``memory``, ``gpus_per_node`` of ``cluster.gpu_resource``,
    ``rdma`` of ``cluster.rdma_resource``), GPU tolerations and node selector, ``NCCL_DEBUG=WARN``
    and ``NCCL_IB_DISABLE`` defaults with GPUs (``env`` overrides them), a ``/dev/shm`` memory
    emptyDir of half ``memory`` with several GPUs or several pods (``shm_size`` overrides), the
    secure pod defaults, and ``restartPolicy: OnFailure`` (the operator's default is ``Never``).

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the job's namespace).
        id: construct id.
        cluster: target cluster; must list ``training-operator`` in ``operators``.
        name: base name, a DNS-1035 label of at most 42 characters.
        image: training image with a tag or digest (never ``latest``).
        command: container command. Default: the image's entrypoint.
        args: container args. Default: none.
        chief: add a ``Chief`` replica type with one replica. Default: ``False``.
        ps: ``PS`` (parameter server) replicas. Default: 0.
        workers: ``Worker`` replicas; at least 1 without a chief. Default: 1.
        evaluator: add an ``Evaluator`` replica type with one replica. Default: ``False``.
        gpus_per_node: whole GPUs per Chief, Worker and Evaluator pod. Default: 0.
        cpu: cpu cores per Chief, Worker and Evaluator pod as a quantity string. Default: ``"2"``.
        memory: memory per Chief, Worker and Evaluator pod (bytes). Default: ``"8Gi"``.
        ps_cpu: cpu cores per PS pod. Default: ``cpu``.
        ps_memory: memory per PS pod (bytes). Default: ``memory``.
        rdma: RDMA HCAs per Chief, Worker and Evaluator pod. Default: 0.
        env: environment variables, in order (every replica type). Default: none.
        shm_size: size limit of the ``/dev/shm`` emptyDir (bytes). Default: half of ``memory`` when
            needed (see above).
        success_policy: ``spec.successPolicy``: ``"AllWorkers"`` or ``None`` for the operator's
            default (the job succeeds when the Chief, or Worker 0 without one, succeeds).
            Default: ``None``.
        enable_dynamic_worker: ``spec.enableDynamicWorker`` (workers may join and leave; the
            operator then omits workers from ``TF_CONFIG``'s cluster). Default: ``False``.
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
        ValueError: a bad prop value (quoting prop and value), e.g. ``workers=0`` without a chief,
            ``ps=-1``, an unknown ``success_policy``, or any pod prop ``PyTorchJob`` refuses.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/tensorflow_types.go
    (``TFJobSpec``, replica types, ``TFJobDefaultContainerName``),
    https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/webhooks/tensorflow/tfjob_webhook.go
    (``validateTFReplicaSpecs``: a container named ``tensorflow`` in every replica, at most one
    Chief or Master replica type).
    """

    KIND = "TFJob"
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
        chief: bool = False,
        ps: int = 0,
        workers: int = 1,
        evaluator: bool = False,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        ps_cpu: str | None = None,
        ps_memory: str | None = None,
        rdma: int = 0,
        env: Mapping[str, str] | None = None,
        shm_size: str | None = None,
        success_policy: SuccessPolicy | None = None,
        enable_dynamic_worker: bool = False,
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
        self._chief = bool(chief)
        self._ps = require_whole(_KIND, "ps", ps, minimum=0)
        self._workers = require_whole(_KIND, "workers", workers, minimum=0 if chief else 1)
        self._evaluator = bool(evaluator)
        if success_policy is not None and success_policy != "AllWorkers":
            raise ValueError(f"{_KIND} success_policy={success_policy!r}: must be 'AllWorkers' or None")
        self._success_policy = success_policy
        self._dynamic = bool(enable_dynamic_worker)
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
        self._ps_pod = self._pod.without_gpus(
            _KIND, cpu_prop="ps_cpu", cpu=ps_cpu, memory_prop="ps_memory", memory=ps_memory
        )
        self._emit()

    # -- properties ---------------------------------------------------------------------------

    @property
    def replica_types(self) -> tuple[str, ...]:
        """The replica types emitted, a subsequence of ``Chief``, ``PS``, ``Worker``, ``Evaluator``."""
        counts = self._counts()
        return tuple(t for t in REPLICA_TYPES if counts[t])

    @property
    def pods(self) -> int:
        """How many pods the job runs (all replica types)."""
        return sum(self._counts().values())

    # -- building -----------------------------------------------------------------------------

    def _counts(self) -> dict[str, int]:
        return {
            "Chief": int(self._chief),
            "PS": self._ps,
            "Worker": self._workers,
            "Evaluator": int(self._evaluator),
        }

    def _reserved_paths(self) -> list[str]:
        return scratch_paths(self._pod)

    def _spec(self) -> dict[str, Any]:
        replica_specs: dict[str, Any] = {}
        for replica_type, count in self._counts().items():
            if count:
                pod = self._ps_pod if replica_type == "PS" else self._pod
                replica_specs[replica_type] = pod.replica(count, "OnFailure", self._mounts)
        spec: dict[str, Any] = {
            REPLICA_SPECS_FIELD[_KIND]: replica_specs,
            "runPolicy": self._run_policy.to_spec(),
        }
        if self._success_policy is not None:
            spec["successPolicy"] = self._success_policy
        if self._dynamic:
            spec["enableDynamicWorker"] = True
        return spec
