"""``pytorch-ddp-single-node``: single-node multi-GPU DDP training.

Seed: the single-node PyTorchJob of the distributed-training guide: a Master with one replica and
4 GPUs running ``torch.distributed.run --nproc_per_node=4``, mounting ``training-data`` at
``/data`` and ``training-output`` at ``/output``. Differences from the seed, on purpose: a pinned
image instead of ``latest``; cpu/memory set with requests equal to limits; ``/data`` mounted
read-only; a ``/dev/shm`` memory emptyDir for the 4 processes (half the memory limit); GPU
toleration and node selector from the cluster; a 24 h deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import PyTorchJob, RunPolicy

if TYPE_CHECKING:
    from cdk8s import Chart

GPUS = 4


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the PyTorchJob and mount the shared volumes."""
    job = PyTorchJob(
        chart,
        "Job",
        cluster=cluster,
        name="pytorch-ddp-single-node",
        image="registry.example.com/ml/pytorch-train:2.2.0-cuda12.1",
        command=[
            "python",
            "-m",
            "torch.distributed.run",
            f"--nproc_per_node={GPUS}",
            "train.py",
            "--epochs=10",
            "--batch-size=256",
        ],
        master=True,
        workers=0,
        gpus_per_node=GPUS,
        cpu="16",
        memory="64Gi",
        run_policy=RunPolicy(active_deadline_seconds=24 * 3600),
    )
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.mount(TRAINING_OUTPUT, "/output")
    job.expose_metrics(9090)  # scraped by the training-monitoring PodMonitor


APP = AppDef(
    name="pytorch-ddp-single-node",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Single-node 4-GPU DDP PyTorchJob",
    clusters=("gpu-prod",),
)
