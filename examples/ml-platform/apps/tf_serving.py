"""``tf-serving``: a TensorFlow Serving model server with autoscaling and Prometheus scraping.

Seed: the model-serving section of the Kubernetes ML workloads guide: a ``tensorflow/serving``
Deployment on REST port 8501 with ``MODEL_NAME=mymodel`` and the ``model-storage`` claim, a
Service, an HPA on cpu 70 % and memory 80 %, and a ServiceMonitor. Differences from the seed, on
purpose: a pinned image; a ClusterIP Service (the seed's LoadBalancer would need an explicit
allow); named ports and probes on ``/v1/models/mymodel``; the HPA owns ``replicas`` (min 2);
a PodDisruptionBudget (the HPA runs up to 10 replicas); the ServiceMonitor scrapes the REST port
at ``/monitoring/prometheus/metrics``, which TF Serving serves when started with
``--monitoring_config_file``. The model claim is mounted read-only at
``/models`` and holds ``mymodel/<version>/`` and ``monitoring.config``
(``prometheus_config { enable: true, path: "/monitoring/prometheus/metrics" }``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    Autoscaler,
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
    """Add the model claim, the server, its Service, HPA, PodDisruptionBudget, ServiceMonitor and
    network policies."""
    models = VolumeClaim(
        chart,
        "ModelStorage",
        cluster=cluster,
        name="model-storage",
        size="20Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    server = ModelServer(
        chart,
        "Server",
        cluster=cluster,
        name="model-serving",
        image="tensorflow/serving:2.14.1",
        port=8501,
        cpu="2",
        memory="4Gi",
        model_name="mymodel",
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
    )
    PodDisruptionBudget(chart, "Budget", target=server)
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
        chart, "AllowScrape", cluster=cluster, pod_labels=server.selector_labels, ports=("http",)
    )


APP = AppDef(
    name="tf-serving",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="TF Serving with Service, HPA and ServiceMonitor",
)
