"""``kserve-canary``: the seed's Seldon model deployment done the KServe way, with a canary.

Seed: the Seldon Core section of the ML workloads guide (``SeldonDeployment`` ``my-model``, 3
replicas, model from ``gs://my-model-bucket/model``, ``MODEL_NAME=mymodel``). Here a KServe
InferenceService serves the TensorFlow model with the ``kserve-tensorflow-serving`` runtime KServe
ships, 10 % of traffic going to the newly rolled-out revision (``canaryTrafficPercent``); bounded
replicas (3..6) scaled on concurrency. Only on ``gpu-next``, which runs KServe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_vision import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import InferenceService

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the InferenceService."""
    InferenceService(
        chart,
        "Model",
        cluster=cluster,
        name="my-model",
        model_format="tensorflow",
        storage_uri="gs://my-model-bucket/model",
        runtime="kserve-tensorflow-serving",
        cpu="2",
        memory="4Gi",
        min_replicas=3,
        max_replicas=6,
        scale_metric="concurrency",
        scale_target=10,
        canary_traffic_percent=10,
        deployment_mode="Serverless",
    )


APP = AppDef(
    name="kserve-canary",
    build=build,
    namespace=NAMESPACE,
    team="vision",
    description="KServe InferenceService with a 10 % canary",
    clusters=("gpu-next",),
)
