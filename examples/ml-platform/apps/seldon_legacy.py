"""``seldon-legacy``: the seed's SeldonDeployment on the cluster that still runs Seldon Core v1.17.1.

Seed: the Seldon Core section of the ML workloads guide. Differences on purpose: the seed's
``implementation: MODEL_SERVER`` is not a Seldon pre-packaged server and ``graph.env`` is not a
field of the v1 CRD, so the model is served by ``TENSORFLOW_SERVER``; a 10 % canary predictor for
the next model version. Seldon Core releases after v1.17.1 are under the Business Source License;
``kserve-canary`` is the same scenario on KServe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_vision import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import SeldonDeployment

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the SeldonDeployment."""
    SeldonDeployment(
        chart,
        "Model",
        cluster=cluster,
        name="my-model",
        implementation="TENSORFLOW_SERVER",
        model_uri="gs://my-model-bucket/model",
        replicas=3,
        protocol="tensorflow",
        canary_model_uri="gs://my-model-bucket/model-v2",
        canary_traffic_percent=10,
    )


APP = AppDef(
    name="seldon-legacy",
    build=build,
    namespace=NAMESPACE,
    team="vision",
    description="Optional SeldonDeployment (Seldon Core v1.17.1) with a canary",
    clusters=("gpu-prod",),
)
