"""ServiceMonitor: golden manifests, selection of its Service, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.constructs import ModelServer, ModelService, ServiceMonitor
from trainops.core.cluster import Cluster


def _service(chart: Any, cluster: Cluster) -> ModelService:
    server = ModelServer(chart, "Server", cluster=cluster, name="resnet", image="tensorflow/serving:2.14.1")
    return server.expose()


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    service = _service(chart, test_cluster)
    ServiceMonitor(chart, "Monitor", service=service)
    text = synth(chart)["ServiceMonitor/resnet"]
    golden("service_monitor/defaults.yaml", text)
    doc = yaml.safe_load(text)
    # Selects the Service by its labels in its own namespace, scrapes the named port, syncs in wave 1.
    svc = yaml.safe_load(synth(chart)["Service/resnet"])
    assert doc["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    assert doc["spec"]["namespaceSelector"] == {"matchNames": ["ml-test"]}
    assert doc["spec"]["endpoints"][0]["port"] in [p["name"] for p in svc["spec"]["ports"]]
    assert doc["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "1"


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    service = _service(chart, test_cluster)
    ServiceMonitor(
        chart,
        "Monitor",
        service=service,
        port="http",
        path="/monitoring/prometheus/metrics",
        interval="1m30s",
        scrape_timeout="10s",
        labels={"release": "kube-prometheus-stack"},
        name="resnet-metrics",
    )
    text = synth(chart)["ServiceMonitor/resnet-metrics"]
    golden("service_monitor/custom.yaml", text)
    doc = yaml.safe_load(text)
    assert doc["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert doc["spec"]["endpoints"] == [
        {
            "interval": "1m30s",
            "path": "/monitoring/prometheus/metrics",
            "port": "http",
            "scheme": "http",
            "scrapeTimeout": "10s",
        }
    ]


def test_cluster_without_prometheus_operator_is_refused(chart: Any) -> None:
    service = _service(chart, Cluster(name="bare", kubernetes_version="1.34"))
    with pytest.raises(
        ValueError, match=r"^ServiceMonitor service='resnet': cluster 'bare' does not list prometheus"
    ):
        ServiceMonitor(chart, "Monitor", service=service)


def test_service_without_namespace_is_refused(test_cluster: Cluster) -> None:
    from cdk8s import App, Chart

    chart = Chart(App(), "nons", disable_resource_name_hashes=True)
    service = _service(chart, test_cluster)
    with pytest.raises(
        ValueError, match=r"^ServiceMonitor service='resnet': the Service's Chart has no namespace"
    ):
        ServiceMonitor(chart, "Monitor", service=service)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"port": "metrics"}, "ServiceMonitor port='metrics': Service 'resnet' names only http"),
        ({"path": "metrics"}, "ServiceMonitor path='metrics': must be an absolute path"),
        ({"interval": "30"}, "ServiceMonitor interval='30': not a Prometheus duration"),
        ({"interval": "1.5m"}, "ServiceMonitor interval='1.5m': not a Prometheus duration"),
        ({"interval": ""}, "ServiceMonitor interval='': not a Prometheus duration"),
        ({"interval": "0s"}, "ServiceMonitor interval='0s': must be greater than zero"),
        ({"scrape_timeout": "1m"}, "ServiceMonitor scrape_timeout='1m': must not exceed interval='30s'"),
        (
            {"labels": {"release": "a b"}},
            "ServiceMonitor labels: label release='a b' is not a valid label value",
        ),
        ({"name": "Resnet"}, "ServiceMonitor name='Resnet': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    service = _service(chart, test_cluster)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        ServiceMonitor(chart, "Monitor", service=service, **props)
