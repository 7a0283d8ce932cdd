"""Autoscaler: golden manifests, marking its target, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import Autoscaler, ModelServer, VolumeClaim


def _server(chart: Any, cluster: Cluster, **props: Any) -> ModelServer:
    return ModelServer(
        chart, "Server", cluster=cluster, name="resnet", image="tensorflow/serving:2.14.1", **props
    )


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    Autoscaler(chart, "Hpa", target=server)
    docs = synth(chart)
    text = docs["HorizontalPodAutoscaler/resnet"]
    golden("autoscaler/defaults.yaml", text)
    hpa = yaml.safe_load(text)
    # The HPA owns replicas: the targeted Deployment omits them; the HPA syncs after it (wave 1).
    assert "replicas" not in yaml.safe_load(docs["Deployment/resnet"])["spec"] and server.replicas is None
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "resnet"}
    assert [m["resource"]["target"]["averageUtilization"] for m in hpa["spec"]["metrics"]] == [70, 80]


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster, replicas=1)
    behavior = {
        "scaleDown": {
            "stabilizationWindowSeconds": 600,
            "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
        }
    }
    Autoscaler(
        chart,
        "Hpa",
        target=server,
        min_replicas=3,
        max_replicas=30,
        cpu_utilization=60,
        memory_utilization=None,
        behavior=behavior,
        name="resnet-hpa",
    )
    text = synth(chart)["HorizontalPodAutoscaler/resnet-hpa"]
    golden("autoscaler/custom.yaml", text)
    hpa = yaml.safe_load(text)
    # Only the cpu metric; behavior passed through as the API spells it.
    assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
    assert hpa["spec"]["behavior"] == behavior
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (3, 30)


def test_unscaled_server_keeps_replicas(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _server(chart, test_cluster, replicas=3)
    assert yaml.safe_load(synth(chart)["Deployment/resnet"])["spec"]["replicas"] == 3


def test_second_autoscaler_is_refused(chart: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    Autoscaler(chart, "Hpa", target=server)
    with pytest.raises(ValueError, match=r"^ModelServer 'resnet': already targeted by Autoscaler 'resnet'"):
        Autoscaler(chart, "Hpa2", target=server, name="other")


def test_rwo_model_volume_cannot_be_autoscaled(chart: Any, test_cluster: Cluster) -> None:
    models = VolumeClaim(chart, "Models", cluster=test_cluster, name="models", size="1Gi")
    server = _server(chart, test_cluster, replicas=1, model_volume=models)
    with pytest.raises(
        ValueError, match=r"^Autoscaler target model_volume volume='models': access mode ReadWriteOnce"
    ):
        Autoscaler(chart, "Hpa", target=server, min_replicas=1)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"min_replicas": 0}, "Autoscaler min_replicas=0: must be at least 1"),
        ({"min_replicas": 5, "max_replicas": 4}, "Autoscaler min_replicas=5: must not exceed max_replicas=4"),
        ({"cpu_utilization": 0}, "Autoscaler cpu_utilization=0: must be at least 1"),
        ({"memory_utilization": 101}, "Autoscaler memory_utilization=101: must be at most 100"),
        ({"cpu_utilization": 50.5}, "Autoscaler cpu_utilization=50.5: must be a whole number"),
        (
            {"cpu_utilization": None, "memory_utilization": None},
            "Autoscaler cpu_utilization=None, memory_utilization=None: at least one metric is required",
        ),
        ({"behavior": ["scaleDown"]}, "Autoscaler behavior=['scaleDown']: must be a mapping"),
        ({"name": "HPA"}, "Autoscaler name='HPA': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    server = _server(chart, test_cluster)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        Autoscaler(chart, "Hpa", target=server, **props)
