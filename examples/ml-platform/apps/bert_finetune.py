"""``bert-finetune``: one framework-neutral TrainingJob, emitted as the target runs it.

On ``gpu-next`` (Kubeflow Trainer v2, Kueue) it is a TrainJob on the ``torch-distributed`` runtime,
queued in ``ml-training``; on ``gpu-prod`` (Training Operator v1) a PyTorchJob with a Master and
three Workers. Same image, command, resources and volumes in both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_queues import QUEUE
from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import TopologyPlacement, TrainingJob

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the TrainingJob and mount the shared volumes."""
    job = TrainingJob(
        chart,
        "Job",
        cluster=cluster,
        name="bert-finetune",
        image="registry.example.com/ml/bert-finetune:2.1.0",
        command=["torchrun", "finetune.py", "--epochs=3"],
        num_nodes=4,
        gpus_per_node=8,
        cpu="64",
        memory="512Gi",
        active_deadline_seconds=48 * 3600,
        queue=QUEUE if cluster.has_operator("kueue") else None,
        # Where Kueue places by topology: all four nodes in one InfiniBand block if one has room.
        placement=TopologyPlacement(preferred="block") if cluster.topology else None,
    )
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.mount(TRAINING_OUTPUT, "/output")


APP = AppDef(
    name="bert-finetune",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="TrainingJob: TrainJob on Trainer v2, PyTorchJob on Training Operator v1",
)
