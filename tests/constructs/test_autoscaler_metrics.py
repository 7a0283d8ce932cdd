"""Autoscaler: Pods/Object/External metrics, typed behavior, utilization needing requests, parity."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import (
    Autoscaler,
    ExternalMetric,
    ModelServer,
    ObjectMetric,
    PodsMetric,
    ScalingPolicy,
    ScalingRules,
)
from trainops.core.cluster import Cluster


def _server(chart: Any, cluster: Cluster, **props: Any) -> ModelServer:
    return ModelServer(
        chart, "Server", cluster=cluster, name="resnet", image="tensorflow/serving:2.14.1", **props
    )


class _NoMemoryRequests:
    """A Scalable whose containers request cpu only (e.g. a hand-written Deployment)."""

    name, kind, api_version = "legacy", "Deployment", "apps/v1"
    requested_resources = frozenset({"cpu"})

    def mark_autoscaled(self, autoscaler: object, *, max_replicas: int) -> None:
        self.marked = max_replicas


def test_requests_per_second(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    # Seed 003's custom-metric HPA: Pods metric requests-per-second, AverageValue 100.
    server = _server(chart, test_cluster)
    Autoscaler(
        chart,
        "Hpa",
        target=server,
        min_replicas=1,
        cpu_utilization=None,
        memory_utilization=None,
        metrics=[PodsMetric("requests-per-second", "100")],
        name="resnet-rps",
    )
    docs = synth(chart)
    text = docs["HorizontalPodAutoscaler/resnet-rps"]
    golden("autoscaler/requests_per_second.yaml", text)
    assert yaml.safe_load(text)["spec"]["metrics"] == [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "requests-per-second"},
                "target": {"type": "AverageValue", "averageValue": "100"},
            },
        }
    ]
    validate_docs(cli, tmp_path, docs)


def test_all_metric_types_and_behavior(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    server = _server(chart, test_cluster)
    Autoscaler(
        chart,
        "Hpa",
        target=server,
        max_replicas=20,
        memory_utilization=None,
        metrics=[
            PodsMetric("inference_queue_depth", "500m", selector={"model": "resnet"}),
            ObjectMetric(
                "requests-per-second",
                api_version="networking.k8s.io/v1",
                kind="Ingress",
                object_name="resnet",
                value="2k",
            ),
            ExternalMetric("queue_messages_ready", average_value="30", selector={"queue": "resnet"}),
        ],
        scale_up=ScalingRules(
            policies=[ScalingPolicy("Percent", 100, 15), ScalingPolicy("Pods", 4, 15)], select_policy="Max"
        ),
        scale_down=ScalingRules(policies=[ScalingPolicy("Pods", 1, 60)], stabilization_seconds=600),
    )
    docs = synth(chart)
    text = docs["HorizontalPodAutoscaler/resnet"]
    golden("autoscaler/all_metrics.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    # Utilization first (backward compatible order), then the custom metrics in the order given.
    assert [m["type"] for m in spec["metrics"]] == ["Resource", "Pods", "Object", "External"]
    assert spec["metrics"][2]["object"]["target"] == {"type": "Value", "value": "2k"}
    assert spec["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 600,
        "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
    }
    validate_docs(cli, tmp_path, docs)


def test_ignore_differences_names_the_target_replicas(chart: Any, test_cluster: Cluster) -> None:
    hpa = Autoscaler(chart, "Hpa", target=_server(chart, test_cluster))
    assert hpa.ignore_differences == {
        "group": "apps",
        "kind": "Deployment",
        "name": "resnet",
        "jsonPointers": ["/spec/replicas"],
    }


def test_model_server_requests_cpu_and_memory(chart: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    requests = raw_object(chart, "Deployment/resnet")["spec"]["template"]["spec"]["containers"][0]
    assert server.requested_resources == frozenset(requests["resources"]["requests"]) == {"cpu", "memory"}


def test_utilization_without_requests_is_refused(chart: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"^Autoscaler memory_utilization=80: Deployment 'legacy' has a container without a memory request",
    ):
        Autoscaler(chart, "Hpa", target=_NoMemoryRequests())


def test_utilization_with_requests_is_accepted(chart: Any, synth: Any) -> None:
    target = _NoMemoryRequests()
    Autoscaler(chart, "Hpa", target=target, memory_utilization=None, max_replicas=4)
    assert target.marked == 4
    assert "HorizontalPodAutoscaler/legacy" in synth(chart)


_RULES = ScalingRules(policies=[ScalingPolicy("Pods", 1, 60)])


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"metrics": "rps"}, "Autoscaler metrics='rps': must be a sequence of metrics"),
        ({"metrics": [{"type": "Pods"}]}, "Autoscaler metrics[0]={'type': 'Pods'}: must be a PodsMetric"),
        ({"metrics": [PodsMetric("a/b", "1")]}, "Autoscaler metrics[0] name='a/b': must be a metric name"),
        ({"metrics": [PodsMetric("", "1")]}, "Autoscaler metrics[0] name='': must be a metric name"),
        ({"metrics": [PodsMetric("rps", "0")]}, "Autoscaler metrics[0] average_value='0': must be greater"),
        ({"metrics": [PodsMetric("rps", "x")]}, "Autoscaler metrics[0] average_value='x':"),
        (
            {"metrics": [PodsMetric("rps", "1", selector={"a": "b c"})]},
            "Autoscaler metrics[0] selector: label a='b c' is not a valid label value",
        ),
        (
            {"metrics": [ExternalMetric("q")]},
            "Autoscaler metrics[0] value, average_value: give exactly one of them",
        ),
        (
            {"metrics": [ExternalMetric("q", value="1", average_value="1")]},
            "Autoscaler metrics[0] value, average_value: give exactly one of them",
        ),
        (
            {"metrics": [ObjectMetric("rps", "networking.k8s.io/v1", "Ingress", "Main", value="1")]},
            "Autoscaler metrics[0] object_name='Main': must be a DNS-1123 subdomain",
        ),
        (
            {"metrics": [ObjectMetric("rps", "", "Ingress", "main", value="1")]},
            "Autoscaler metrics[0] api_version='': must be a non-empty word",
        ),
        (
            {"behavior": {"scaleUp": {}}, "scale_up": _RULES},
            "Autoscaler behavior: give either behavior or scale_up/scale_down, not both",
        ),
        ({"scale_up": {"policies": []}}, "Autoscaler scale_up={'policies': []}: must be a ScalingRules"),
        (
            {"scale_down": ScalingRules(policies=[])},
            "Autoscaler scale_down policies=[]: must list at least one ScalingPolicy",
        ),
        (
            {"scale_down": ScalingRules(policies=[ScalingPolicy("Pods", 1, 60)], stabilization_seconds=3601)},
            "Autoscaler scale_down stabilization_seconds=3601: must be at most 3600",
        ),
        (
            {"scale_up": ScalingRules(policies=[ScalingPolicy("Pods", 1, 1801)])},
            "Autoscaler scale_up policies[0] period_seconds=1801: must be at most 1800",
        ),
        (
            {"scale_up": ScalingRules(policies=[ScalingPolicy("Pods", 0, 60)])},
            "Autoscaler scale_up policies[0] value=0: must be at least 1",
        ),
        (
            {"scale_up": ScalingRules(policies=[ScalingPolicy("Replicas", 1, 60)])},  # type: ignore[arg-type]
            "Autoscaler scale_up policies[0] type='Replicas': must be 'Pods' or 'Percent'",
        ),
        (
            {"scale_up": ScalingRules(policies=[ScalingPolicy("Pods", 1, 60)], select_policy="First")},  # type: ignore[arg-type]
            "Autoscaler scale_up select_policy='First': must be 'Max', 'Min' or 'Disabled'",
        ),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    server = _server(chart, test_cluster)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        Autoscaler(chart, "Hpa", target=server, **props)


def test_parity_kubernetes_website_php_apache(chart: Any, test_cluster: Cluster) -> None:
    expected = upstream_doc("k8s-website/content/en/examples/application/hpa/php-apache.yaml")
    server = ModelServer(
        chart, "Server", cluster=test_cluster, name="php-apache", image="registry.k8s.io/hpa-example:1.0"
    )
    spec = expected["spec"]
    (metric,) = spec["metrics"]
    Autoscaler(
        chart,
        "Hpa",
        target=server,
        min_replicas=spec["minReplicas"],
        max_replicas=spec["maxReplicas"],
        cpu_utilization=metric["resource"]["target"]["averageUtilization"],
        memory_utilization=None,
        name=expected["metadata"]["name"],
    )
    ours = without_paths(
        raw_object(chart, "HorizontalPodAutoscaler/php-apache"),
        {
            "metadata.namespace": "ml-test",  # trainops objects are namespaced by their Chart
            "metadata.annotations.argocd.argoproj.io/sync-wave": "1",  # after the Deployment
        },
    )
    assert ours == expected
