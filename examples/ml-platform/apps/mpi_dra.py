"""``mpi-dra``: an MPIJob whose workers claim H100 GPUs through Dynamic Resource Allocation.

On ``gpu-next`` (Kubernetes 1.34 with the NVIDIA DRA driver's ``gpu.nvidia.com`` DeviceClass) each of
the two workers claims one GPU of at least 80 GiB through a ResourceClaimTemplate instead of the
``nvidia.com/gpu`` extended resource; queued in ``ml-training``, where MultiKueue runs it on
``gpu-west`` or ``gpu-east`` (they get the template, not the job).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_queues import QUEUE
from apps.training_data import NAMESPACE, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import DeviceClaim, MPIJob, RunPolicy

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the MPIJob, its device claim and its checkpoint volume."""
    job = MPIJob(
        chart,
        "Job",
        cluster=cluster,
        name="mpi-dra",
        image="docker.io/horovod/horovod:0.28.1",
        command=["python", "/app/train.py"],
        workers=2,
        gpus_per_node=1,
        cpu="8",
        memory="32Gi",
        run_policy=RunPolicy(active_deadline_seconds=6 * 3600),
        queue=QUEUE,
    )
    job.claim_devices(DeviceClaim("gpu.nvidia.com", min_memory="80Gi"))
    job.use_checkpoints(TRAINING_OUTPUT, "/checkpoints")


APP = AppDef(
    name="mpi-dra",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="MPIJob claiming GPUs through DRA, dispatched by MultiKueue",
    clusters=("gpu-next",),
)
