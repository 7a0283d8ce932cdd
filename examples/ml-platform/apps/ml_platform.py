"""``ml-platform``: the namespaces of the ML platform team's apps, created before any of them syncs.

Every Argo CD Application needs its destination namespace to exist. This platform app creates
``ml-training`` (training jobs, their volumes, queues and monitors; opted into Katib's
metrics-collector injection where Katib runs) and ``ml-serving`` (model servers), each enforcing
the restricted Pod Security Standard. Delivery syncs an app that creates namespaces in an earlier
wave of the cluster's root Application than every other app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.tf_serving import NAMESPACE as SERVING
from apps.training_data import NAMESPACE as TRAINING
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import TeamNamespace

if TYPE_CHECKING:
    from cdk8s import Chart


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the training and serving namespaces."""
    TeamNamespace(chart, "Training", cluster=cluster, name=TRAINING, katib=cluster.has_operator("katib"))
    TeamNamespace(chart, "Serving", cluster=cluster, name=SERVING)


APP = AppDef(
    name="ml-platform",
    build=build,
    namespace=TRAINING,
    team="ml-platform",
    description="Namespaces of the ML platform team: ml-training and ml-serving",
)
