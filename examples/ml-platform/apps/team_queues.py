"""``team-queues``: Kueue quotas for the ML teams on ``gpu-next``.

The cluster's Kueue Topology (its GPU fabric: block, rack, host), one GPU flavor (the cluster's GPU
nodes, placed by that topology) and a CPU flavor, a ClusterQueue ``ml-research`` in the
``ml`` cohort with 32 GPUs, the ``ml-training`` LocalQueue the training apps submit to, and two
WorkloadPriorityClasses. gpu-next is a MultiKueue manager: there the ClusterQueue admits through
the MultiKueue AdmissionCheck, and its workers gpu-west and gpu-east get the same flavors and queues.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    ClusterQueue,
    FlavorQuota,
    LocalQueue,
    MultiKueue,
    ResourceFlavor,
    Topology,
    WorkloadPriorityClass,
)

if TYPE_CHECKING:
    from cdk8s import Chart

#: The LocalQueue the training apps name.
QUEUE = "ml-training"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the topology, flavors, queues and priorities (and, on the MultiKueue manager, the
    MultiKueue objects)."""
    MultiKueue(chart, "MultiKueue", cluster=cluster)
    topology = Topology(chart, "Fabric", cluster=cluster) if cluster.topology else None
    gpu = ResourceFlavor(chart, "Gpu", cluster=cluster, name="gpu", gpu=True, topology=topology)
    cpu = ResourceFlavor(chart, "Cpu", cluster=cluster, name="cpu")
    queue = ClusterQueue(
        chart,
        "Research",
        cluster=cluster,
        name="ml-research",
        cohort="ml",
        flavors=[
            FlavorQuota(gpu, cpu="512", memory="4Ti", gpus=32),
            FlavorQuota(cpu, cpu="256", memory="1Ti"),
        ],
    )
    LocalQueue(chart, "Training", cluster=cluster, name=QUEUE, cluster_queue=queue)
    WorkloadPriorityClass(
        chart, "Prod", cluster=cluster, name="production", value=1000, description="Jobs that ship"
    )
    WorkloadPriorityClass(
        chart, "Exp", cluster=cluster, name="experiment", value=100, description="Exploration"
    )


APP = AppDef(
    name="team-queues",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Kueue flavors, ClusterQueue, LocalQueue and priorities",
    clusters=("gpu-next",),
)
