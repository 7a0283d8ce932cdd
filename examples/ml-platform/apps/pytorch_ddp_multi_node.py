"""``pytorch-ddp-multi-node``: multi-node elastic DDP training over RDMA.

Seed: the multi-node PyTorchJob of the distributed-training guide: 4 Workers with 4 GPUs and one
RDMA HCA each, ``elasticPolicy`` c10d between 1 and 4 workers, ``NCCL_DEBUG=INFO``, the GPU taint
tolerated, ``/dev/shm`` as a memory emptyDir and ``training-data`` at ``/data``.

Differences from the seed, on purpose: the command runs ``python -m torch.distributed.run``
(torchrun) because an elastic job's rendezvous settings reach the pods as ``PET_*`` variables that
only torchrun reads; ``restartPolicy: ExitCode`` as Kubeflow recommends for elastic jobs; a pinned
image; ``IPC_LOCK`` for RDMA memory registration; ``/dev/shm`` sized half the memory limit;
``training-output`` mounted at ``/output`` for checkpoints (an elastic job restarts from them);
``maxRestarts`` 3 and a 72 h deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import ElasticPolicy, PyTorchJob, RunPolicy

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the elastic PyTorchJob and mount the shared volumes."""
    job = PyTorchJob(
        chart,
        "Job",
        cluster=cluster,
        name="pytorch-ddp-multi-node",
        image="registry.example.com/ml/pytorch-train:2.2.0-cuda12.1",
        command=["python", "-m", "torch.distributed.run", "train.py", "--epochs=100", "--batch-size=1024"],
        master=False,
        workers=4,
        gpus_per_node=4,
        rdma=1,
        cpu="32",
        memory="128Gi",
        env={"NCCL_DEBUG": "INFO"},
        elastic=ElasticPolicy(min_replicas=1, max_restarts=3),  # up to `workers` pods
        run_policy=RunPolicy(active_deadline_seconds=72 * 3600),
    )
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.mount(TRAINING_OUTPUT, "/output")
    job.expose_metrics(9090)  # scraped by the training-monitoring PodMonitor


APP = AppDef(
    name="pytorch-ddp-multi-node",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Elastic 4x4-GPU DDP PyTorchJob over RDMA",
    clusters=("gpu-prod",),
)
