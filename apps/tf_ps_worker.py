"""``tf-ps-worker``: TensorFlow parameter-server training (TFJob PS/Worker).

Seed 003 ("TensorFlow distributed training"): three GPU Workers and two CPU parameter servers
running ``python /app/train.py`` on the shared ``training-data`` volume. Differences on purpose:
pinned images instead of ``latest``/``latest-gpu``; requests equal to limits; the code baked into
the image instead of a ConfigMap volume; the data mounted read-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import RunPolicy, TFJob

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the TFJob."""
    job = TFJob(
        chart,
        "Job",
        cluster=cluster,
        name="tensorflow-training",
        image="docker.io/tensorflow/tensorflow:2.16.1-gpu",
        command=["python", "/app/train.py"],
        workers=3,
        ps=2,
        gpus_per_node=1,
        cpu="4",
        memory="16Gi",
        ps_cpu="1",
        ps_memory="4Gi",
        run_policy=RunPolicy(active_deadline_seconds=12 * 3600),
    )
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.use_checkpoints(TRAINING_OUTPUT, "/checkpoints")


APP = AppDef(
    name="tf-ps-worker",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="TFJob with 2 parameter servers and 3 GPU workers",
    clusters=("gpu-prod",),
)
