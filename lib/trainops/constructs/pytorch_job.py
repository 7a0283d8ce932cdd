"""``PyTorchJob``: a Kubeflow Training Operator v1 distributed PyTorch job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trainops.constructs._core.base import Construct
from trainops.constructs._core.props import (
    renamed_props,
    require_whole,
)
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.kubeflow import CleanPodPolicy, KubeflowJob, PodProps, RunPolicy, scratch_paths
from trainops.core.cluster import Cluster
from trainops.core.kinds import REPLICA_SPECS_FIELD, TRAINING_CONTAINER

__all__ = ["CONTAINER_NAME", "MAX_BASE_NAME", "CleanPodPolicy", "ElasticPolicy", "PyTorchJob", "RunPolicy"]

_KIND = "PyTorchJob"
#: The Training Operator finds the training container by this name (PyTorchJobDefaultContainerName).
CONTAINER_NAME = TRAINING_CONTAINER[_KIND]
#: Longest base name: the emitted name adds 7 characters (``-<hash6>``) and the operator names
#: replica Services ``<job>-worker-<i>``, which must stay within 63 characters.
MAX_BASE_NAME = 45


@dataclass(frozen=True)
class ElasticPolicy:
    """PyTorch elastic training (torchrun rendezvous) for the Worker replicas.

    Maps to ``spec.elasticPolicy`` of kubeflow.org/v1 PyTorchJob; ``rdzvBackend`` is always
    ``c10d`` (the backend the Training Operator and torchrun support without etcd).

    Args:
        min_replicas: fewest Worker pods the job runs with (torchrun ``--nnodes`` lower bound).
            Default: 1.
        max_replicas: most Worker pods (``--nnodes`` upper bound). Default: the job's ``workers``,
            so changing ``workers`` alone just works.
        max_restarts: how often torchrun restarts the worker group on failure. Default: 3.

    Raises:
        ValueError: ``min_replicas`` < 1, ``max_replicas`` < ``min_replicas`` or ``max_restarts`` < 0.

    Source: https://www.kubeflow.org/docs/components/trainer/legacy-v1/user-guides/pytorch/
    (elastic), https://pytorch.org/docs/stable/elastic/run.html
    """

    min_replicas: int = 1
    max_replicas: int | None = None
    max_restarts: int = 3

    def __post_init__(self) -> None:
        require_whole("ElasticPolicy", "min_replicas", self.min_replicas, minimum=1)
        if self.max_replicas is not None:
            require_whole("ElasticPolicy", "max_replicas", self.max_replicas, minimum=1)
        require_whole("ElasticPolicy", "max_restarts", self.max_restarts, minimum=0)
        if self.max_replicas is not None and self.max_replicas < self.min_replicas:
            raise ValueError(
                f"ElasticPolicy max_replicas={self.max_replicas!r}: "
                f"must be at least min_replicas={self.min_replicas!r}"
            )

    @property
    def rdzv_backend(self) -> str:
        """The rendezvous backend: always ``c10d``."""
        return "c10d"

    def for_workers(self, workers: int) -> ElasticPolicy:
        """This policy with ``max_replicas`` filled in from ``workers`` when unset."""
        return (
            self
            if self.max_replicas is not None
            else replace(self, max_replicas=max(workers, self.min_replicas))
        )

    def to_spec(self) -> dict[str, Any]:
        """The ``spec.elasticPolicy`` object (``max_replicas`` resolved by :meth:`for_workers`)."""
        return {
            "rdzvBackend": self.rdzv_backend,
            "minReplicas": int(self.min_replicas),
            "maxReplicas": int(self.max_replicas if self.max_replicas is not None else self.min_replicas),
            "maxRestarts": int(self.max_restarts),
        }


class PyTorchJob(KubeflowJob):
    """A distributed PyTorch training job (kubeflow.org/v1 PyTorchJob, Training Operator v1.9).

    The object is named ``<name>-<hash6>`` where the hash covers the whole spec, so a changed spec
    is a new run rather than an in-place patch of an immutable one (``name`` returns the emitted
    name; it changes with ``mount()``). Each replica runs one container called ``pytorch`` with:

    * ``resources`` with requests equal to limits: ``cpu`` cores, ``memory`` bytes,
      ``gpus_per_node`` of ``cluster.gpu_resource`` and ``rdma`` of ``cluster.rdma_resource``;
    * when GPUs are requested: tolerations of ``cluster.gpu_taints``, ``cluster.gpu_node_selector``,
      ``spec.nprocPerNode`` equal to the GPU count, and the environment defaults
      ``NCCL_DEBUG=WARN`` and ``NCCL_IB_DISABLE=0`` with RDMA (use InfiniBand/RoCE) or ``1``
      without it (sockets; no probing of HCAs the pod was not given). ``env`` overrides them;
    * a ``/dev/shm`` emptyDir with ``medium: Memory`` when the job has several GPUs or several
      pods (NCCL and DataLoader workers exchange data through shared memory; the container
      runtime's default is 64 MiB), sized half of ``memory`` unless ``shm_size`` is given;
      memory-backed emptyDir pages count against the memory limit;
    * the secure pod defaults of :mod:`trainops.constructs._core.pod`, with ``IPC_LOCK`` added when RDMA
      is requested (RDMA memory registration pins pages);
    * ``restartPolicy: OnFailure``, or ``ExitCode`` for elastic jobs (retryable exit codes restart
      the pod, permanent ones fail it, as the Kubeflow elastic guide recommends).

    ``command``, ``args`` and ``env`` are written exactly as given. The operator injects
    ``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE``, ``RANK`` and, for elastic jobs, the
    ``PET_*`` variables that ``torchrun`` (``python -m torch.distributed.run``) reads.

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the job's namespace).
        id: construct id.
        cluster: target cluster; must list ``training-operator`` in ``operators``.
        name: base name, a DNS-1035 label of at most 45 characters.
        image: training image with a tag or digest (never ``latest``).
        command: container command. Default: the image's entrypoint.
        args: container args. Default: none.
        master: add a ``Master`` replica type with one replica (rank 0). Default: ``True``.
        workers: ``Worker`` replicas. Default: 0 (a master-only, single-node job).
        gpus_per_node: whole GPUs per pod, as limits of ``cluster.gpu_resource``. Default: 0.
        cpu: cpu cores per pod as a quantity string. Default: ``"2"``.
        memory: memory per pod as a quantity string in bytes. Default: ``"8Gi"``.
        master_cpu: cpu cores of the Master pod when it differs from the workers'. Default: ``cpu``.
        master_memory: memory bytes of the Master pod when it differs. Default: ``memory``.
        rdma: RDMA HCAs per pod, as limits of ``cluster.rdma_resource``. Default: 0.
        env: environment variables, in order. Default: none.
        shm_size: size limit of the ``/dev/shm`` emptyDir (bytes); giving it always mounts
            ``/dev/shm``. Default: half of ``memory`` when needed (see above).
        nproc_per_node: ``spec.nprocPerNode``: processes per pod, an int or ``auto``/``gpu``/``cpu``.
            With GPUs it must equal ``gpus_per_node`` (or be ``auto``/``gpu``). Default: the GPU
            count when GPUs are requested, else unset (the operator's ``auto``).
        elastic: elastic training policy; requires ``master=False`` and ``workers`` within its
            bounds. Default: none.
        run_policy: ``spec.runPolicy``. Default: ``RunPolicy()`` (cleanPodPolicy Running,
            backoffLimit 3, no deadline).
        queue: Kueue LocalQueue name (the ``kueue.x-k8s.io/queue-name`` label), or ``None``. Default: ``None``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        placement: where the pods sit in the cluster topology (Kueue Topology Aware Scheduling;
            needs ``queue``), or ``None``. Default: ``None``.
        labels: extra labels on the job and its pods. Default: none.
        service_account: ``serviceAccountName`` of the pods. Default: the namespace default.
        read_only_root_filesystem: mount the root filesystem read-only (an emptyDir backs ``/tmp``).
            Default: ``True``.

    Raises:
        ValueError: a bad prop value (quoting prop and value), e.g. ``workers=0`` without a master,
            ``gpus_per_node=1.5``, ``rdma`` on a cluster without an RDMA resource, an image
            without a tag, ``shm_size`` above ``memory``, or ``workers`` outside the elastic bounds.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/pytorch_types.go,
    https://www.kubeflow.org/docs/components/trainer/legacy-v1/user-guides/pytorch/
    """

    KIND = "PyTorchJob"
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
        master: bool = True,
        workers: int = 0,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        master_cpu: str | None = None,
        master_memory: str | None = None,
        rdma: int = 0,
        env: Mapping[str, str] | None = None,
        shm_size: str | None = None,
        nproc_per_node: int | str | None = None,
        elastic: ElasticPolicy | None = None,
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
        self._master = bool(master)
        self._workers = require_whole(_KIND, "workers", workers, minimum=0 if master else 1)
        props = PodProps(
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
        )
        self._pod = props.check(_KIND, cluster, CONTAINER_NAME, pods=self.pods)
        self._master_pod = self._pod
        if master and (master_cpu is not None or master_memory is not None):
            self._master_pod = replace(props, cpu=master_cpu or cpu, memory=master_memory or memory).check(
                _KIND, cluster, CONTAINER_NAME, pods=self.pods
            )

        self._gpus = self._pod.gpus
        self._labels = dict(self._pod.labels or {})
        self._elastic = elastic.for_workers(self._workers) if elastic is not None else None
        elastic = self._elastic
        if elastic is not None:
            if self._master:
                raise ValueError(
                    f"{_KIND} master=True: elastic jobs run Worker replicas only (set master=False)"
                )
            if not elastic.min_replicas <= self._workers <= (elastic.max_replicas or self._workers):
                raise ValueError(
                    f"{_KIND} workers={workers!r}: must be within elastic min_replicas={elastic.min_replicas} "
                    f"and max_replicas={elastic.max_replicas}"
                )
        self._nproc = self._check_nproc(nproc_per_node)
        self._emit()

    # -- properties ---------------------------------------------------------------------------

    @property
    def replica_types(self) -> tuple[str, ...]:
        """The replica types emitted, ``Master`` and/or ``Worker``."""
        return (("Master",) if self._master else ()) + (("Worker",) if self._workers else ())

    @property
    def pods(self) -> int:
        """How many pods the job runs (master plus workers)."""
        return int(self._master) + self._workers

    # -- building -----------------------------------------------------------------------------

    def _check_nproc(self, nproc: int | str | None) -> str | None:
        if nproc is None:
            return str(self._gpus) if self._gpus else None
        if isinstance(nproc, str) and nproc in ("auto", "gpu", "cpu"):
            value = nproc
        elif isinstance(nproc, str) and nproc.isdigit():
            value = str(require_whole(_KIND, "nproc_per_node", int(nproc), minimum=1))
        else:
            value = str(require_whole(_KIND, "nproc_per_node", nproc, minimum=1))
        if self._gpus and value not in ("auto", "gpu", str(self._gpus)):
            raise ValueError(
                f"{_KIND} nproc_per_node={nproc!r}: must equal gpus_per_node={self._gpus} "
                "(one process per GPU) or be 'auto' or 'gpu'"
            )
        return value

    def _reserved_paths(self) -> list[str]:
        return scratch_paths(self._pod)

    def _spec(self) -> dict[str, Any]:
        restart = "ExitCode" if self._elastic is not None else "OnFailure"
        replica_specs: dict[str, Any] = {}
        if self._master:
            replica_specs["Master"] = self._master_pod.replica(1, restart, self._mounts)
        if self._workers:
            replica_specs["Worker"] = self._pod.replica(self._workers, restart, self._mounts)
        spec: dict[str, Any] = {
            REPLICA_SPECS_FIELD[_KIND]: replica_specs,
            "runPolicy": self._run_policy.to_spec(),
        }
        if self._nproc is not None:
            spec["nprocPerNode"] = self._nproc
        if self._elastic is not None:
            spec["elasticPolicy"] = self._elastic.to_spec()
        return spec
