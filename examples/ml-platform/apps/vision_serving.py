"""``vision-serving``: TF Serving with an HPA on cpu, memory and requests per second, a PDB, a
ServiceMonitor, SLO alerts and a Grafana dashboard.

Seed: the model-serving and autoscaling sections of the ML workloads guide: a ``tensorflow/serving``
Deployment (REST 8501, ``MODEL_NAME``), an HPA on cpu 70 % / memory 80 % and one on the custom
metric ``requests-per-second`` (``Pods``, ``AverageValue`` 100), and ServiceMonitors. Differences
on purpose: one HPA with all three metrics (two HPAs on one Deployment fight; the controller takes
the largest recommendation of the metrics); scale-down limited to one pod a minute after a
5-minute window; the gRPC port too (``TF_SERVING`` preset); a PDB that lets drains evict one pod at
a time; the ``requests-per-second`` metric must be served by a Prometheus Adapter rule from
``:tensorflow:serving:request_count``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_vision import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    Autoscaler,
    GrafanaDashboard,
    ModelServer,
    NetworkPolicy,
    PodDisruptionBudget,
    PodsMetric,
    PrometheusRule,
    RuleGroup,
    ScalingPolicy,
    ScalingRules,
    ServiceMonitor,
    VolumeClaim,
)
from trainops.constructs.alert_presets import TF_SERVING, serving_slo_alerts
from trainops.constructs.dashboard_presets import serving_panels
from trainops.constructs.server_presets import TF_SERVING as TF_SERVING_PRESET

if TYPE_CHECKING:
    from cdk8s import Chart

MODEL = "resnet"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the model volume, server, Service, HPA, PDB, monitor, alerts and dashboard."""
    models = VolumeClaim(
        chart,
        "Models",
        cluster=cluster,
        name="vision-models",
        size="50Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    server = ModelServer(
        chart,
        "Server",
        cluster=cluster,
        name="resnet-serving",
        image="tensorflow/serving:2.14.1",
        preset=TF_SERVING_PRESET,
        cpu="2",
        memory="4Gi",
        model_name=MODEL,
        model_volume=models,
        model_path="/models",
        args=["--monitoring_config_file=/models/monitoring.config"],
    )
    service = server.expose()
    Autoscaler(
        chart,
        "Autoscaler",
        target=server,
        min_replicas=2,
        max_replicas=10,
        cpu_utilization=70,
        memory_utilization=80,
        metrics=[PodsMetric("requests-per-second", "100")],
        scale_down=ScalingRules(policies=[ScalingPolicy("Pods", 1, 60)], stabilization_seconds=300),
    )
    PodDisruptionBudget(chart, "Budget", target=server)
    NetworkPolicy.allow_serving(chart, "Ingress", target=server)
    ServiceMonitor(
        chart,
        "Monitor",
        service=service,
        port="http",
        path=TF_SERVING_PRESET.metrics_path,
        labels=cluster.prometheus_labels,
    )
    PrometheusRule(
        chart,
        "Alerts",
        cluster=cluster,
        name="resnet-serving-slo",
        groups=[
            RuleGroup(
                "resnet-serving-slo",
                serving_slo_alerts(
                    selector={"namespace": NAMESPACE, "model_name": MODEL}, metrics=TF_SERVING
                ),
            )
        ],
    )
    GrafanaDashboard(
        chart,
        "Dashboard",
        name="resnet-serving",
        title="Serving: resnet",
        panels=serving_panels(TF_SERVING),
        variables={"namespace": NAMESPACE, "model": MODEL},
        folder="Serving",
    )


APP = AppDef(
    name="vision-serving",
    build=build,
    namespace=NAMESPACE,
    team="vision",
    description="TF Serving: HPA on cpu/memory/requests-per-second, PDB, ServiceMonitor, SLO alerts, dashboard",
)
