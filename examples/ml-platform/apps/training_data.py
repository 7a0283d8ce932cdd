"""``training-data``: the shared NAS volumes the training jobs read from and write to.

Seed: the NAS PersistentVolumeClaim of the distributed-training guide (``training-data``,
ReadWriteMany on ``alicloud-nas``, 500Gi) plus ``training-output`` for checkpoints and results.
Both are ReadWriteMany because every replica of a job mounts them; both are protected from
Argo CD pruning and deletion and sync before the jobs (wave -1).

The jobs in ``pytorch-ddp-single-node`` and ``pytorch-ddp-multi-node`` mount them by claim name,
so all three apps share the ``ml-training`` namespace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import VolumeClaim

if TYPE_CHECKING:
    from cdk8s import Chart

NAMESPACE = "ml-training"
#: Claim names other apps mount.
TRAINING_DATA = "training-data"
TRAINING_OUTPUT = "training-output"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the dataset and output claims."""
    VolumeClaim(
        chart,
        "TrainingData",
        cluster=cluster,
        name=TRAINING_DATA,
        size="500Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    VolumeClaim(
        chart,
        "TrainingOutput",
        cluster=cluster,
        name=TRAINING_OUTPUT,
        size="200Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )


APP = AppDef(
    name="training-data",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Shared NAS volumes for training data and outputs",
)
