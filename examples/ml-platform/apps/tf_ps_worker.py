"""``tf-ps-worker``: TensorFlow parameter-server training (TFJob PS/Worker).

Seed 003 ("TensorFlow distributed training"): three GPU Workers and two CPU parameter servers
running ``python /app/train.py`` on the shared ``training-data`` volume. Differences on purpose:
pinned images instead of ``latest``/``latest-gpu``; requests equal to limits; the code baked into
the image instead of a ConfigMap volume; the data mounted read-only. The app also holds the
PodMonitor scraping its workers' metrics port: delivery splits it into a long-lived Application
(the monitor) and a training one (the TFJob, ``-runs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import PodMonitor, RunPolicy, TFJob

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the TFJob and the PodMonitor scraping its workers."""
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
    job.expose_metrics(9090)
    # One app per workload: delivery syncs the monitor with the long-lived Application
    # gpu-prod-tf-ps-worker and the TFJob with gpu-prod-tf-ps-worker-runs.
    PodMonitor(chart, "Metrics", cluster=cluster, job=job, replica_types=["Worker"], interval="15s")


APP = AppDef(
    name="tf-ps-worker",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="TFJob with 2 parameter servers and 3 GPU workers",
    clusters=("gpu-prod",),
)
