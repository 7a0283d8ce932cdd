"""``model-rollout``: a new model version reaches production blue-green, after an analysis of its
own metrics, and only when someone promotes it.

Seed 003: "使用Deployment便于水平扩缩容 ... 实现蓝绿部署无缝更新模型" (scale out, and update the
model blue-green without downtime). The TF Serving server of ``tf-serving`` with a ``BlueGreen``
strategy: an Argo Rollouts Rollout instead of a Deployment, on ``gpu-prod`` (which runs Argo
Rollouts v1.9.1). A new image or model version starts beside the serving one behind the preview
Service ``image-classifier-preview``; the AnalysisTemplate ``image-classifier-analysis`` checks the
new pods' error ratio and p99 latency in Prometheus (5 measurements a minute apart) and sends a
smoke request to the preview Service; gpu-prod is protected, so the switch of the active Service
waits for ``trainops argocd promote model-rollout`` (``trainops argocd abort model-rollout`` goes
back). The old pods stay 60 seconds after the switch. The HPA scales the Rollout; the budget,
Services, monitor and network policies select its pods as they would a Deployment's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    Analysis,
    Autoscaler,
    BlueGreen,
    ModelServer,
    NetworkPolicy,
    PodDisruptionBudget,
    ServiceMonitor,
    VolumeClaim,
)

if TYPE_CHECKING:
    from cdk8s import Chart


#: The namespace of the serving apps (created by ``ml-platform``).
NAMESPACE = "ml-serving"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the model claim, the blue-green server with its analysis, Services, HPA, budget,
    ServiceMonitor and network policies."""
    models = VolumeClaim(
        chart,
        "Models",
        cluster=cluster,
        name="classifier-models",
        size="20Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    server = ModelServer(
        chart,
        "Server",
        cluster=cluster,
        name="image-classifier",
        image="tensorflow/serving:2.14.1",
        cpu="2",
        memory="4Gi",
        model_name="classifier",
        model_volume=models,
        model_path="/models",
        args=["--monitoring_config_file=/models/monitoring.config"],
        strategy=BlueGreen(
            analysis=Analysis(error_ratio=0.01, latency_seconds=0.5, quantile=0.99),
            scale_down_delay_seconds=60,
        ),
    )
    service = server.expose()
    Autoscaler(chart, "Autoscaler", target=server, min_replicas=2, max_replicas=6)
    PodDisruptionBudget(chart, "Budget", target=server)
    # One monitor scrapes both Services (they carry the same labels): the active pods and, during
    # a rollout, the preview pods, each series labelled with its pods' rollouts-pod-template-hash.
    ServiceMonitor(
        chart,
        "Monitor",
        service=service,
        port="http",
        path="/monitoring/prometheus/metrics",
        interval="30s",
    )
    NetworkPolicy.allow_serving(chart, "AllowServing", target=server)
    NetworkPolicy.allow_scrape(
        chart,
        "AllowScrape",
        cluster=cluster,
        pod_labels=server.selector_labels,
        ports=("http",),
        name="image-classifier-allow-scrape",
    )


APP = AppDef(
    name="model-rollout",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="TF Serving rolled out blue-green with pre-promotion analysis (Argo Rollouts)",
    clusters=("gpu-prod",),
)
