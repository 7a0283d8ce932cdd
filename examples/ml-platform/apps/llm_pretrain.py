"""``llm-pretrain``: pretraining a large model on 4 nodes x 8 GPUs over InfiniBand, on ``gpu-next``.

A JobSet of one replicated job ``node``: 4 Indexed Jobs of one pod each, 8 GPUs and one InfiniBand
HCA (``rdma/ib``) per pod. The image's ``launch-torchrun.sh`` runs ``torchrun`` with ``NNODES`` and
``NPROC_PER_NODE`` from the environment and the rank-0 pod (``<jobset>-node-0-0``, its hostname with
the last two indexes set to 0) as the c10d rendezvous endpoint, reached through JobSet's headless
Service (``enableDNSHostnames``). Kueue admits the 32 GPUs all or nothing from the ``ml-training`` queue
(gang admission) and places the four pods inside one rack of the ``gpu-fabric`` Topology (required
rack-level placement), so the all-reduce never crosses the spine. A failed node restarts the whole
set from the last checkpoint, up to 3 times; a Job that hits its deadline fails it at once. The eight
GPUs of each pod are claimed through Dynamic Resource Allocation (gpu-next's ``gpu.nvidia.com``
DeviceClass: H100s with 80 GiB each), not as an extended resource count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_queues import QUEUE
from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    DeviceClaim,
    FailurePolicy,
    FailureRule,
    JobSet,
    ReplicatedJob,
    TopologyPlacement,
)

if TYPE_CHECKING:
    from cdk8s import Chart

NODES = 4
GPUS_PER_NODE = 8


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the JobSet and mount the shared volumes."""
    job = JobSet(
        chart,
        "Pretrain",
        cluster=cluster,
        name="llm-pretrain",
        replicated_jobs=[
            ReplicatedJob(
                "node",
                image="registry.example.com/ml/llm-pretrain:0.4.0-cuda12.4",
                command=["./launch-torchrun.sh", "pretrain.py", "--config=configs/7b.yaml"],
                replicas=NODES,
                gpus=GPUS_PER_NODE,
                rdma=1,
                cpu="96",
                memory="1536Gi",
                env={"NNODES": str(NODES), "NPROC_PER_NODE": str(GPUS_PER_NODE), "NCCL_IB_HCA": "mlx5"},
            )
        ],
        failure_policy=FailurePolicy(
            max_restarts=3,
            rules=(FailureRule("deadline", "FailJobSet", on_job_failure_reasons=("DeadlineExceeded",)),),
        ),
        placement=TopologyPlacement(required="rack"),
        queue=QUEUE,
        priority="production",
    )
    job.claim_devices(DeviceClaim("gpu.nvidia.com", product="NVIDIA H100 80GB HBM3", min_memory="80Gi"))
    job.mount(TRAINING_DATA, "/data", read_only=True)
    job.mount(TRAINING_OUTPUT, "/checkpoints")


APP = AppDef(
    name="llm-pretrain",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="JobSet: 4x8-GPU pretraining over InfiniBand, DRA GPU claims, rack placement, Kueue gang admission",
    clusters=("gpu-next",),
)
