"""``MPIJob``: an MPI (mpirun/Horovod) job of mpi-operator (kubeflow.org/v2beta1)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trainops.constructs._core.base import Construct, waiver
from trainops.constructs._core.props import renamed_props, require_strings, require_whole
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.kubeflow import KubeflowJob, PodProps, RunPolicy, max_base_name, scratch_paths
from trainops.core.cluster import Cluster
from trainops.core.kinds import KIND_TABLE, REPLICA_SPECS_FIELD

_KIND = "MPIJob"
#: Container names of mpi-operator's examples (the operator itself needs none in particular).
LAUNCHER_CONTAINER, WORKER_CONTAINER = "mpi-launcher", "mpi-worker"
#: Where the operator mounts the SSH keys; mpi-operator's non-root images use ``mpiuser``.
SSH_AUTH_MOUNT_PATH = "/home/mpiuser/.ssh"
MAX_BASE_NAME = max_base_name("Launcher", "Worker")

MpiImplementation = Literal["OpenMPI", "Intel", "MPICH"]
LauncherCreationPolicy = Literal["AtStartup", "WaitForWorkersReady"]

#: ``mpirun`` options per implementation: OpenMPI as Horovod's docs run it (bind-to none, map-by
#: slot, forward PATH/LD_LIBRARY_PATH/NCCL_*); Intel MPI and MPICH take ``-n`` and ``-genvall``.
_MPIRUN: dict[str, tuple[str, ...]] = {
    "OpenMPI": (
        "-bind-to",
        "none",
        "-map-by",
        "slot",
        "-x",
        "PATH",
        "-x",
        "LD_LIBRARY_PATH",
        "-x",
        "NCCL_DEBUG",
    ),
    "Intel": ("-genvall",),
    "MPICH": ("-genvall",),
}


class MPIJob(KubeflowJob):
    """An mpi-operator v2 MPIJob: one ``Launcher`` running ``mpirun`` and ``workers`` ``Worker`` pods
    that the launcher reaches over SSH, ``slots_per_worker`` MPI ranks each.

    The launcher command is ``mpirun -np <workers × slots> <implementation options> <command>``
    (OpenMPI: ``-np``; Intel MPI and MPICH: ``-n``), so ``-np`` always matches the workers; a custom
    ``launcher_command`` is checked for the same count. The launcher requests no GPUs (it only runs
    ``mpirun``); workers get GPUs, ``/dev/shm`` and NCCL defaults like every trainops job. Workers run
    the image's entrypoint unless ``worker_command`` is given (mpi-operator images start ``sshd``).
    The root filesystem stays writable by default because ``sshd`` writes its pid and host keys.

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target; ``mpi-operator`` in ``operators`` gives kubeflow.org/v2beta1; a cluster with
            only ``training-operator`` gets that operator's kubeflow.org/v1 MPIJob (no
            ``mpiImplementation``, ``launcherCreationPolicy`` or ``sshAuthMountPath``).
        name: base name, a DNS-1035 label of at most 43 characters (replica Services are
            ``<job>-launcher-<i>``).
        image: image with MPI and the program, with a tag or digest.
        command: the program every rank runs, e.g. ``["python", "train.py"]``.
        workers: Worker pods. Default: 1.
        slots_per_worker: MPI ranks per worker; default: the GPU count, else 1.
        gpus_per_node: whole GPUs per worker. Default: 0.
        cpu: cpu cores per worker. Default: ``"2"``.
        memory: memory bytes per worker. Default: ``"8Gi"``.
        launcher_cpu: cpu cores of the launcher. Default: ``"1"``.
        launcher_memory: memory bytes of the launcher. Default: ``"1Gi"``.
        launcher_command: the whole launcher command instead of the generated ``mpirun`` line; its
            ``-np``/``-n`` must equal workers × slots. Default: generated.
        worker_command: the workers' command. Default: the image's (``sshd``).
        mpi_implementation: ``OpenMPI`` | ``Intel`` | ``MPICH``. Default: ``OpenMPI``.
        launcher_creation_policy: ``AtStartup`` | ``WaitForWorkersReady``. Default: ``WaitForWorkersReady``
            (the launcher does not fail while workers are still pulling images).
        env: environment variables of every pod. Default: none.
        run_policy: ``spec.runPolicy``. Default: ``RunPolicy()``.
        queue: Kueue LocalQueue name (the ``kueue.x-k8s.io/queue-name`` label), or ``None``. Default: ``None``.
        priority: Kueue WorkloadPriorityClass name (needs ``queue``), or ``None``. Default: ``None``.
        placement: where the pods sit in the cluster topology (Kueue Topology Aware Scheduling;
            needs ``queue``), or ``None``. Default: ``None``.
        labels: extra labels on the job and its pods. Default: none.
        read_only_root_filesystem: read-only root filesystem. Default: ``False`` (sshd).

    Raises:
        ValueError: a bad prop (quoting prop and value), or an ``-np`` that does not match.

    Source: https://github.com/kubeflow/mpi-operator/blob/v0.8.0/pkg/apis/kubeflow/v2beta1/types.go,
    ``pkg/apis/kubeflow/validation/validation.go``
    """

    KIND = "MPIJob"
    API_VERSION = "kubeflow.org/v2beta1"
    OPERATOR = KIND_TABLE[("kubeflow.org", _KIND)].operators[0]
    #: The Training Operator v1's own MPIJob, used only on a cluster without mpi-operator.
    V1_API_VERSION = "kubeflow.org/v1"

    @renamed_props(_KIND, gpus_per_worker="gpus_per_node")
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        command: Sequence[str] | None = None,
        workers: int = 1,
        slots_per_worker: int | None = None,
        gpus_per_node: int = 0,
        cpu: str = "2",
        memory: str = "8Gi",
        launcher_cpu: str = "1",
        launcher_memory: str = "1Gi",
        launcher_command: Sequence[str] | None = None,
        worker_command: Sequence[str] | None = None,
        mpi_implementation: MpiImplementation = "OpenMPI",
        launcher_creation_policy: LauncherCreationPolicy = "WaitForWorkersReady",
        env: Mapping[str, str] | None = None,
        run_policy: RunPolicy | None = None,
        queue: str | None = None,
        priority: str | None = None,
        placement: TopologyPlacement | None = None,
        labels: Mapping[str, str] | None = None,
        read_only_root_filesystem: bool = False,
    ) -> None:
        super().__init__(scope, id)
        self._v1 = not cluster.has_operator(self.OPERATOR) and cluster.has_operator(KubeflowJob.OPERATOR)
        if self._v1 and (
            mpi_implementation != "OpenMPI" or launcher_creation_policy != "WaitForWorkersReady"
        ):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the Training Operator's kubeflow.org/v1 MPIJob has no "
                "mpiImplementation or launcherCreationPolicy (install mpi-operator for them)"
            )
        operator = KubeflowJob.OPERATOR if self._v1 else self.OPERATOR
        self._setup(
            cluster,
            name,
            max_base_name=MAX_BASE_NAME,
            run_policy=run_policy,
            operator=operator,
            queue=queue,
            priority=priority,
            placement=placement,
        )
        self._workers = require_whole(_KIND, "workers", workers, minimum=1)
        if mpi_implementation not in _MPIRUN:
            raise ValueError(
                f"{_KIND} mpi_implementation={mpi_implementation!r}: must be OpenMPI, Intel or MPICH"
            )
        if launcher_creation_policy not in ("AtStartup", "WaitForWorkersReady"):
            raise ValueError(
                f"{_KIND} launcher_creation_policy={launcher_creation_policy!r}: must be AtStartup or WaitForWorkersReady"
            )
        self._worker = PodProps(
            image=image,
            command=worker_command,
            args=None,
            gpus=gpus_per_node,
            cpu=cpu,
            memory=memory,
            rdma=0,
            env=env,
            shm_size=None,
            labels=labels,
            service_account=None,
            read_only_root=read_only_root_filesystem,
        ).check(_KIND, cluster, WORKER_CONTAINER, pods=self._workers)
        default_slots = self._worker.gpus or 1
        slots = default_slots if slots_per_worker is None else slots_per_worker
        self._slots = require_whole(_KIND, "slots_per_worker", slots, minimum=1)
        ranks = self._workers * self._slots
        flag = "-np" if mpi_implementation == "OpenMPI" else "-n"
        if launcher_command is not None:
            launch = require_strings(_KIND, "launcher_command", launcher_command) or ()
            _check_ranks(launch, ranks)
        else:
            program = require_strings(_KIND, "command", command)
            if not program:
                raise ValueError(
                    f"{_KIND} command={command!r}: give the program every rank runs (or launcher_command)"
                )
            launch = ("mpirun", flag, str(ranks), *_MPIRUN[mpi_implementation], *program)
        self._launcher = PodProps(
            image=image,
            command=launch,
            args=None,
            gpus=0,
            cpu=launcher_cpu,
            memory=launcher_memory,
            rdma=0,
            env=env,
            shm_size=None,
            labels=labels,
            service_account=None,
            read_only_root=read_only_root_filesystem,
        ).check(_KIND, cluster, LAUNCHER_CONTAINER, pods=1)
        self._labels = dict(self._worker.labels or {})
        self._implementation = mpi_implementation
        self._creation = launcher_creation_policy
        self._emit()

    @property
    def api_version(self) -> str:
        """``kubeflow.org/v2beta1`` (mpi-operator), or ``kubeflow.org/v1`` on a cluster that runs only
        the Training Operator v1."""
        return self.V1_API_VERSION if self._v1 else self.API_VERSION

    @property
    def pods(self) -> int:
        """Launcher plus workers."""
        return 1 + self._workers

    def _waivers(self) -> dict[str, str]:
        if self._launcher.read_only_root:
            return {}
        return waiver("read-only-root-fs", "sshd writes its pid file and host keys (mpi-operator workers)")

    @property
    def ranks(self) -> int:
        """MPI ranks: workers × slots per worker (the ``-np`` of ``mpirun``)."""
        return self._workers * self._slots

    def _reserved_paths(self) -> list[str]:
        return scratch_paths(self._worker)

    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "slotsPerWorker": self._slots,
            "runPolicy": self._run_policy.to_spec(),
            REPLICA_SPECS_FIELD[_KIND]: {
                "Launcher": self._launcher.replica(1, "OnFailure", self._mounts),
                "Worker": self._worker.replica(self._workers, "OnFailure", self._mounts),
            },
        }
        if not self._v1:
            spec["mpiImplementation"] = self._implementation
            spec["launcherCreationPolicy"] = self._creation
            spec["sshAuthMountPath"] = SSH_AUTH_MOUNT_PATH
        return spec


def _check_ranks(command: Sequence[str], ranks: int) -> None:
    """A custom launcher command's ``-np``/``-n``/``--np`` must equal ``ranks``."""
    for flag, value in itertools.pairwise(command):
        if flag in ("-np", "-n", "--np", "--n") and value != str(ranks):
            raise ValueError(
                f"{_KIND} launcher_command: {flag} {value} does not match workers × slots_per_worker = {ranks}"
            )
