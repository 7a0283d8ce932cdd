"""``XGBoostJob``: a Kubeflow Training Operator v1 distributed XGBoost job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

__all__ = ["CONTAINER_NAME", "MAX_BASE_NAME", "PORT_NAME", "REPLICA_TYPES", "XGBoostJob"]

_KIND = "XGBoostJob"
#: The Training Operator finds the training container by this name (``XGBoostJobDefaultContainerName``);
#: its webhook refuses a replica without it (``validateXGBReplicaSpecs``).
CONTAINER_NAME = TRAINING_CONTAINER[_KIND]
#: The container port the operator reads the tracker port from (``XGBoostJobDefaultPortName``;
#: default port 9999).
PORT_NAME = "xgboostjob-port"
#: Replica types (``XGBoostJobReplicaTypeMaster``/``Worker``); the webhook allows no others.
REPLICA_TYPES = ("Master", "Worker")
#: Longest base name: replica Services ``<job>-worker-<i>`` stay within 63 characters (45).
MAX_BASE_NAME = max_base_name(*REPLICA_TYPES)


class XGBoostJob(KubeflowJob):
    """A distributed XGBoost training job (kubeflow.org/v1 XGBoostJob, Training Operator v1.9).

    The object is named ``<name>-<hash6>`` where the hash covers the whole spec, so a changed spec
    is a new run rather than an in-place patch of an immutable one (``name`` returns the emitted
    name; it changes with ``mount()``). ``spec.xgbReplicaSpecs`` always has one ``Master`` (the
    operator's webhook requires exactly one: it runs the Rabit tracker and trains as rank 0) and
    ``workers`` ``Worker`` replicas. The operator injects ``MASTER_ADDR``, ``MASTER_PORT``,
    ``WORLD_SIZE`` and ``RANK``.

    Each replica runs one container called ``xgboost`` with the pod defaults of ``PyTorchJob``:
    guaranteed resources, GPU tolerations, node selector and NCCL environment defaults with GPUs
    (``env`` overrides them), a ``/dev/shm`` memory emptyDir of half ``memory`` with several GPUs or
    several pods (``shm_size`` overrides), the secure pod defaults, and ``restartPolicy: OnFailure``
    (the operator's default is ``Never``).

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the job's namespace).
        id: construct id.
        cluster: target cluster; must list ``training-operator`` in ``operators``.
        name: base name, a DNS-1035 label of at most 45 characters.
        image: training image with a tag or digest (never ``latest``).
        command: container command. Default: the image's entrypoint.
        args: container args. Default: none.
        workers: ``Worker`` replicas besides the Master. Default: 0 (a single-pod job).
        gpus_per_node: whole GPUs per pod (``device=cuda``). Default: 0.
        cpu: cpu cores per pod as a quantity string. Default: ``"2"``.
        memory: memory per pod as a quantity string in bytes. Default: ``"8Gi"``.
        rdma: RDMA HCAs per pod. Default: 0.
        env: environment variables, in order. Default: none.
        shm_size: size limit of the ``/dev/shm`` emptyDir (bytes). Default: half of ``memory`` when
            needed (see above).
        port: the ``xgboostjob-port`` container port the tracker listens on. Default: unset (the
            operator adds 9999).
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
        ValueError: a bad prop value (quoting prop and value), e.g. ``workers=-1``, ``port=0``, or
            any pod prop ``PyTorchJob`` refuses.

    Source: https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/apis/kubeflow.org/v1/xgboost_types.go,
    https://github.com/kubeflow/trainer/blob/v1.9.4/pkg/webhooks/xgboost/xgboostjob_webhook.go
    (``validateXGBReplicaSpecs``: only Master and Worker, a container named ``xgboost``, Master
    present with ``replicas`` 1).
    """

    KIND = "XGBoostJob"
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
        workers: int = 0,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        rdma: int = 0,
        env: Mapping[str, str] | None = None,
        shm_size: str | None = None,
        port: int | None = None,
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
        self._workers = require_whole(_KIND, "workers", workers, minimum=0)
        self._port = require_port(_KIND, "port", port)
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
        self._emit()

    @property
    def replica_types(self) -> tuple[str, ...]:
        """The replica types emitted: ``Master`` and, with workers, ``Worker``."""
        return ("Master",) + (("Worker",) if self._workers else ())

    @property
    def pods(self) -> int:
        """How many pods the job runs (the master plus workers)."""
        return 1 + self._workers

    def _reserved_paths(self) -> list[str]:
        return scratch_paths(self._pod)

    def _spec(self) -> dict[str, Any]:
        replica_specs: dict[str, Any] = {
            "Master": with_port(self._pod.replica(1, "OnFailure", self._mounts), PORT_NAME, self._port)
        }
        if self._workers:
            replica_specs["Worker"] = with_port(
                self._pod.replica(self._workers, "OnFailure", self._mounts), PORT_NAME, self._port
            )
        return {REPLICA_SPECS_FIELD[_KIND]: replica_specs, "runPolicy": self._run_policy.to_spec()}
