"""``data-prep``: fill the ``training-data`` volume from object storage (DataPrepJob).

Seed 003 ("data preprocessing" Job before training): a batch Job that prepares the dataset on the
shared volume. Credentials come from the ``dataset-s3-readonly`` Secret by reference only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import DataPrepJob

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the data-preparation Job."""
    DataPrepJob(
        chart,
        "Fetch",
        cluster=cluster,
        name="fetch-training-data",
        image="docker.io/rclone/rclone:1.68.2",
        command=["rclone", "copy", "--transfers=16", "$(SOURCE_URI)", "$(TARGET_DIR)"],
        source="s3://ml-datasets/imagenet-1k/",
        volume=TRAINING_DATA,
        credentials_secret="dataset-s3-readonly",
        cpu="2",
        memory="4Gi",
        active_deadline_seconds=6 * 3600,
    )


APP = AppDef(
    name="data-prep",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="rclone Job filling training-data from s3://ml-datasets/imagenet-1k/",
)
