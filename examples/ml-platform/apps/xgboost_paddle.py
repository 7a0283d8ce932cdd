"""``xgboost-paddle``: the other Training Operator frameworks of seed 002 (XGBoostJob, PaddleJob).

Seed 002 lists XGBoost (XGBoostJob) and PaddlePaddle (PaddleJob) among the Training Operator's
frameworks without manifests; these are the smallest useful jobs of each: a rabit XGBoost job
with a Master and two Workers on CPU, and a collective PaddleJob with two GPU Workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE, TRAINING_DATA, TRAINING_OUTPUT
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import PaddleJob, RunPolicy, XGBoostJob

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the XGBoostJob and the PaddleJob."""
    xgb = XGBoostJob(
        chart,
        "XGBoost",
        cluster=cluster,
        name="xgboost-higgs",
        image="docker.io/kubeflow/xgboost-dist-iris:v1.9.0",
        command=[
            "python",
            "/opt/xgboost/main.py",
            "--job_type=Train",
            "--xgboost_parameter=objective:binary:logistic",
        ],
        workers=2,
        cpu="4",
        memory="16Gi",
        run_policy=RunPolicy(active_deadline_seconds=6 * 3600),
    )
    xgb.mount(TRAINING_DATA, "/data", read_only=True)
    xgb.use_checkpoints(TRAINING_OUTPUT, "/checkpoints")
    paddle = PaddleJob(
        chart,
        "Paddle",
        cluster=cluster,
        name="paddle-resnet",
        image="docker.io/paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6",
        command=["python", "-m", "paddle.distributed.launch", "train.py"],
        workers=2,
        gpus_per_node=2,
        cpu="8",
        memory="32Gi",
        run_policy=RunPolicy(active_deadline_seconds=24 * 3600),
    )
    paddle.mount(TRAINING_DATA, "/data", read_only=True)
    paddle.use_checkpoints(TRAINING_OUTPUT, "/checkpoints")


APP = AppDef(
    name="xgboost-paddle",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="XGBoostJob (Master + 2 Workers) and a collective PaddleJob",
    clusters=("gpu-prod",),
)
