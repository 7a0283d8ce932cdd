"""PodDisruptionBudget: golden manifests, the never-block-every-drain check, parity with upstream."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import Autoscaler, ModelServer, PodDisruptionBudget
from trainops.constructs.pod_disruption_budget import disruptions_possible
from trainops.core.cluster import Cluster


def _server(chart: Any, cluster: Cluster, **props: Any) -> ModelServer:
    return ModelServer(
        chart, "Server", cluster=cluster, name="resnet", image="tensorflow/serving:2.14.1", **props
    )


@dataclass(frozen=True)
class _Workload:
    """A minimal Disruptable (Protocol) workload: what an upstream example's PDB selects."""

    name: str
    cluster: Cluster
    selector_labels: dict[str, str]
    replicas: int | None = 3
    autoscaler: None = None
    port: int = 8080
    port_name: str = "http"


def test_defaults(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    server = _server(chart, test_cluster)
    PodDisruptionBudget(chart, "Pdb", target=server)
    docs = synth(chart)
    text = docs["PodDisruptionBudget/resnet"]
    golden("pod_disruption_budget/defaults.yaml", text)
    pdb = yaml.safe_load(text)
    # Selects exactly the Deployment's pods; drains evict one pod at a time; unhealthy pods never block.
    deployment = yaml.safe_load(docs["Deployment/resnet"])
    assert pdb["spec"]["selector"] == deployment["spec"]["selector"]
    assert pdb["spec"]["maxUnavailable"] == 1 and "minAvailable" not in pdb["spec"]
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any) -> None:
    server = _server(chart, test_cluster, replicas=4)
    PodDisruptionBudget(
        chart,
        "Pdb",
        target=server,
        min_available="50%",
        unhealthy_pod_eviction_policy="IfHealthyBudget",
        labels={"tier": "serving"},
        name="resnet-pdb",
    )
    docs = synth(chart)
    text = docs["PodDisruptionBudget/resnet-pdb"]
    golden("pod_disruption_budget/custom.yaml", text)
    pdb = yaml.safe_load(text)
    assert pdb["spec"]["minAvailable"] == "50%" and "maxUnavailable" not in pdb["spec"]
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "IfHealthyBudget"
    assert pdb["metadata"]["labels"]["tier"] == "serving"
    validate_docs(cli, tmp_path, docs)


def test_eviction_policy_left_out_before_kubernetes_1_27(
    chart: Any, synth: Any, cli: Any, tmp_path: Any
) -> None:
    old = Cluster(name="old", kubernetes_version="1.26")
    PodDisruptionBudget(chart, "Pdb", target=_server(chart, old))
    docs = synth(chart)
    assert "unhealthyPodEvictionPolicy" not in yaml.safe_load(docs["PodDisruptionBudget/resnet"])["spec"]
    validate_docs(cli, tmp_path, docs, "1.26")


def test_checked_against_autoscaler_min_replicas(chart: Any, test_cluster: Cluster) -> None:
    # replicas=5 would allow min_available=3, but the HPA may scale down to 3 pods.
    server = _server(chart, test_cluster, replicas=5)
    Autoscaler(chart, "Hpa", target=server, min_replicas=3)
    with pytest.raises(
        ValueError, match=r"^PodDisruptionBudget min_available=3: .* Autoscaler min_replicas=3"
    ):
        PodDisruptionBudget(chart, "Pdb", target=server, min_available=3)


def test_autoscaler_added_later_fails_validation(test_cluster: Cluster) -> None:
    from cdk8s import App, Chart

    app = App()
    chart = Chart(app, "late", namespace="ml-test", disable_resource_name_hashes=True)
    server = _server(chart, test_cluster, replicas=4)
    budget = PodDisruptionBudget(chart, "Pdb", target=server, min_available=2)
    assert budget.problem() is None
    Autoscaler(chart, "Hpa", target=server, min_replicas=2)
    assert budget.node.validate() == [
        "PodDisruptionBudget min_available=2: allows no eviction of 'resnet' at Autoscaler "
        "min_replicas=2; every node drain would block"
    ]
    with pytest.raises(RuntimeError, match="min_available=2: allows no eviction"):
        app.synth()


@pytest.mark.parametrize(
    ("expected", "min_available", "max_unavailable", "possible"),
    [
        (3, 2, None, True),
        (3, 3, None, False),
        (1, 1, None, False),
        (3, "60%", None, True),  # ceil(1.8) = 2 of 3
        (2, "60%", None, False),  # ceil(1.2) = 2 of 2
        (3, "100%", None, False),
        (1, None, 1, True),
        (1, None, "1%", True),  # maxUnavailable rounds up: ceil(0.01) = 1
        (4, None, 0, False),
        (4, None, "0%", False),
    ],
)
def test_disruptions_possible(
    expected: int, min_available: int | str | None, max_unavailable: int | str | None, possible: bool
) -> None:
    assert (
        disruptions_possible(expected=expected, min_available=min_available, max_unavailable=max_unavailable)
        is possible
    )


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"min_available": 1, "max_unavailable": 1},
            "PodDisruptionBudget min_available=1, max_unavailable=1: give only one of them",
        ),
        ({"min_available": 0}, "PodDisruptionBudget min_available=0: must keep at least one pod"),
        ({"min_available": "0%"}, "PodDisruptionBudget min_available='0%': must keep at least one pod"),
        (
            {"min_available": 2},
            "PodDisruptionBudget min_available=2: allows no eviction of 'resnet' at replicas=2",
        ),
        ({"min_available": "100%"}, "PodDisruptionBudget min_available='100%': allows no eviction"),
        (
            {"min_available": "half"},
            "PodDisruptionBudget min_available='half': must be a pod count or a percentage",
        ),
        ({"min_available": 1.5}, "PodDisruptionBudget min_available=1.5: must be a whole number"),
        ({"max_unavailable": 0}, "PodDisruptionBudget max_unavailable=0: allows no eviction of 'resnet'"),
        ({"max_unavailable": "0%"}, "PodDisruptionBudget max_unavailable='0%': allows no eviction"),
        ({"max_unavailable": "101%"}, "PodDisruptionBudget max_unavailable='101%': must be a pod count"),
        ({"max_unavailable": -1}, "PodDisruptionBudget max_unavailable=-1: must be at least 0"),
        (
            {"unhealthy_pod_eviction_policy": "Never"},
            "PodDisruptionBudget unhealthy_pod_eviction_policy='Never': must be AlwaysAllow or IfHealthyBudget",
        ),
        (
            {"labels": {"tier": "a b"}},
            "PodDisruptionBudget labels: label tier='a b' is not a valid label value",
        ),
        ({"name": "Resnet"}, "PodDisruptionBudget name='Resnet': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    server = _server(chart, test_cluster)  # replicas=2
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PodDisruptionBudget(chart, "Pdb", target=server, **props)


def test_parity_kubernetes_website_zookeeper(chart: Any, test_cluster: Cluster) -> None:
    expected = upstream_doc(
        "k8s-website/content/en/examples/policy/zookeeper-pod-disruption-budget-maxunavailable.yaml"
    )
    workload = _Workload("zk-pdb", test_cluster, {"app.kubernetes.io/name": "zookeeper"})
    PodDisruptionBudget(chart, "Pdb", target=workload, max_unavailable=1)
    ours = without_paths(
        raw_object(chart, "PodDisruptionBudget/zk-pdb"),
        {
            "metadata.namespace": "ml-test",  # trainops objects are always namespaced by their Chart
            "spec.unhealthyPodEvictionPolicy": "AlwaysAllow",  # crash-looping pods never block drains
        },
    )
    assert ours == expected


def test_parity_prometheus_operator_webhook(chart: Any, test_cluster: Cluster) -> None:
    expected = upstream_doc("prometheus-operator/example/admission-webhook/pod-disruption-budget.yaml")
    name = expected["metadata"]["name"]
    workload = _Workload(name, test_cluster, {"app.kubernetes.io/name": name}, replicas=2)
    PodDisruptionBudget(chart, "Pdb", target=workload, min_available=1, labels=expected["metadata"]["labels"])
    ours = without_paths(
        raw_object(chart, f"PodDisruptionBudget/{name}"),
        {"metadata.namespace": "ml-test", "spec.unhealthyPodEvictionPolicy": "AlwaysAllow"},
    )
    # Upstream deploys to namespace "default"; trainops takes the Chart's namespace.
    assert ours == without_paths(expected, {"metadata.namespace": "default"})


def test_trainops_synth_runs_the_late_check(test_cluster: Cluster) -> None:
    """``trainops synth`` renders with Chart.to_json() (no node validation): render_objects runs the
    deferred checks itself and reports the app, the cluster and the problem in one line."""
    from trainops.app import AppDef
    from trainops.core.errors import UsageError
    from trainops.synth import render_objects

    def build(chart: Any, cluster: Cluster) -> None:
        server = _server(chart, cluster, replicas=4)
        PodDisruptionBudget(chart, "Pdb", target=server, min_available=2)
        Autoscaler(chart, "Hpa", target=server, min_replicas=2)

    app = AppDef(name="serving", build=build, namespace="ml-test", team="ml")
    with pytest.raises(
        UsageError, match=r"^apps: app 'serving' on cluster 'test': PodDisruptionBudget min_available=2"
    ):
        render_objects(app, test_cluster)
