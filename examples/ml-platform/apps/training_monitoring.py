"""``training-monitoring``: scraping, alerts and a dashboard for the training apps.

Seed: the monitoring section of the ML workloads guide (ServiceMonitors for training jobs with
15 s scrapes). Training pods have no Service, so a PodMonitor selects them by the label the
Training Operator v1 puts on every PyTorchJob pod (``training.kubeflow.org/operator-name``);
training images serve their metrics on a container port named ``metrics``. Alerts: a failed or
restarting job (Training Operator metrics), crash-looping pods (kube-state-metrics) and GPUs idle
while a job runs (DCGM exporter). A Grafana dashboard shows GPU use and job outcomes. Only on
``gpu-prod``, which runs the Training Operator v1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.training_data import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import GrafanaDashboard, PodMonitor, PrometheusRule, RuleGroup
from trainops.constructs.alert_presets import gpu_idle_alerts, training_job_alerts
from trainops.constructs.dashboard_presets import training_panels

if TYPE_CHECKING:
    from cdk8s import Chart

#: Label the Training Operator v1 sets on the pods of every PyTorchJob (``JobController.GenLabels``).
OPERATOR_LABEL = {"training.kubeflow.org/operator-name": "pytorchjob-controller"}


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the PodMonitor, the PrometheusRule and the dashboard."""
    PodMonitor(
        chart,
        "Pods",
        cluster=cluster,
        pod_labels=OPERATOR_LABEL,
        port="metrics",
        interval="15s",
        name="pytorchjob-pods",
    )
    PrometheusRule(
        chart,
        "Alerts",
        cluster=cluster,
        name="training-alerts",
        groups=[
            RuleGroup(
                "training",
                [*training_job_alerts(namespace=NAMESPACE), *gpu_idle_alerts(namespace=NAMESPACE)],
            )
        ],
    )
    GrafanaDashboard(
        chart,
        "Dashboard",
        name="training-gpus",
        title="Training: GPUs and jobs",
        panels=training_panels(),
        variables={"namespace": NAMESPACE},
        folder="Training",
    )


APP = AppDef(
    name="training-monitoring",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="PodMonitor, training alerts and GPU dashboard for the training apps",
    clusters=("gpu-prod",),
)
