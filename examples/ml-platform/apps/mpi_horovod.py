"""``mpi-horovod``: Horovod training with ``mpirun`` (MPIJob).

Seed 003 ("PyTorch distributed training" as an MPIJob): a Launcher running ``mpirun -np 4`` and
four Workers with one GPU each, ``python /app/train.py``. On ``gpu-next`` (mpi-operator v0.8) it is
a kubeflow.org/v2beta1 MPIJob; on ``gpu-prod`` (Training Operator v1 only) the operator's own
kubeflow.org/v1 MPIJob. Differences on purpose: a pinned image; ``-np`` computed from workers ×
slots; no ``--allow-run-as-root`` (the pods run as non-root); requests equal to limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_queues import QUEUE
from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import MPIJob, RunPolicy, TopologyPlacement

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the MPIJob."""
    job = MPIJob(
        chart,
        "Job",
        cluster=cluster,
        name="pytorch-training",
        image="docker.io/horovod/horovod:0.28.1",
        command=["python", "/app/train.py"],
        workers=4,
        gpus_per_node=1,
        cpu="8",
        memory="32Gi",
        run_policy=RunPolicy(active_deadline_seconds=24 * 3600),
        # Gang admission: queued in Kueue where the cluster runs it (all five pods admitted at once).
        queue=QUEUE if cluster.has_operator("kueue") else None,
        placement=TopologyPlacement(preferred="rack") if cluster.topology else None,
    )
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.use_checkpoints(TRAINING_OUTPUT, "/checkpoints")


APP = AppDef(
    name="mpi-horovod",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Horovod MPIJob: 4 GPU workers, mpirun -np 4",
)
