"""ModelServer with a rollout strategy: a Rollout (blue-green, canary) with its AnalysisTemplate,
Services, HPA, budget and monitor following it; golden manifests and prop errors."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
import yaml

from trainops.constructs import (
    Analysis,
    Autoscaler,
    BlueGreen,
    Canary,
    ModelServer,
    PodDisruptionBudget,
    ServiceMonitor,
)
from trainops.constructs._core.base import run_checks
from trainops.constructs.server_presets import TRITON
from trainops.core.cluster import Cluster

IMAGE = "tensorflow/serving:2.14.1"


@pytest.fixture
def rollouts_cluster(test_cluster: Cluster) -> Cluster:
    """The test cluster running Argo Rollouts v1.9.1, protected (pinned revision)."""
    return dataclasses.replace(
        test_cluster,
        operators={**test_cluster.operators, "argo-rollouts": "v1.9.1"},
        protected=True,
        target_revision="v1.0.0",
    )


def _server(chart: Any, cluster: Cluster, **props: Any) -> ModelServer:
    props = {"cluster": cluster, "name": "resnet", "image": IMAGE, **props}
    return ModelServer(chart, "Server", **props)


def test_blue_green_defaults(chart: Any, synth: Any, golden: Any, rollouts_cluster: Cluster) -> None:
    server = _server(chart, rollouts_cluster, strategy=BlueGreen())
    server.expose()
    docs = synth(chart)
    golden("rollout_strategy/blue_green.yaml", docs["Rollout/resnet"])
    golden("rollout_strategy/blue_green_analysis.yaml", docs["AnalysisTemplate/resnet-analysis"])
    rollout = yaml.safe_load(docs["Rollout/resnet"])
    blue_green = rollout["spec"]["strategy"]["blueGreen"]
    # Protected cluster: manual promotion after the pre-promotion analysis on the preview pods.
    assert blue_green["activeService"] == "resnet" and blue_green["previewService"] == "resnet-preview"
    assert blue_green["autoPromotionEnabled"] is False
    assert blue_green["prePromotionAnalysis"]["templates"] == [{"templateName": "resnet-analysis"}]
    assert {"Service/resnet", "Service/resnet-preview"} <= set(docs)
    analysis = yaml.safe_load(docs["AnalysisTemplate/resnet-analysis"])
    smoke = analysis["spec"]["metrics"][2]["provider"]["job"]["spec"]["template"]["spec"]["containers"][0]
    assert smoke["args"][-1] == "http://resnet-preview.ml-test.svc:8501/v1/models/resnet"
    assert analysis["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-1"


def test_blue_green_followers_target_the_rollout(chart: Any, synth: Any, rollouts_cluster: Cluster) -> None:
    server = _server(chart, rollouts_cluster, strategy=BlueGreen(scale_down_delay_seconds=60))
    service = server.expose()
    ServiceMonitor(chart, "Monitor", service=service)
    hpa = Autoscaler(chart, "Scaler", target=server)
    PodDisruptionBudget(chart, "Budget", target=server)
    docs = {k: yaml.safe_load(v) for k, v in synth(chart).items()}
    assert docs["HorizontalPodAutoscaler/resnet"]["spec"]["scaleTargetRef"] == {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Rollout",
        "name": "resnet",
    }
    assert hpa.ignore_differences["group"] == "argoproj.io" and hpa.ignore_differences["kind"] == "Rollout"
    assert "replicas" not in docs["Rollout/resnet"]["spec"]
    assert docs["ServiceMonitor/resnet"]["spec"]["podTargetLabels"] == ["rollouts-pod-template-hash"]
    selector = docs["Rollout/resnet"]["spec"]["selector"]["matchLabels"]
    assert docs["PodDisruptionBudget/resnet"]["spec"]["selector"]["matchLabels"] == selector
    assert docs["Service/resnet-preview"]["spec"]["selector"] == selector


def test_canary_replica_based(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    cluster = dataclasses.replace(test_cluster, operators={"argo-rollouts": "v1.9.1"})
    _server(chart, cluster, preset=TRITON, strategy=Canary(weights=(20, 50), pause="10m"))
    docs = synth(chart)
    golden("rollout_strategy/canary.yaml", docs["Rollout/resnet"])
    canary = yaml.safe_load(docs["Rollout/resnet"])["spec"]["strategy"]["canary"]
    # Unprotected cluster without a traffic router: weights by pod counts, no final manual pause.
    assert "trafficRouting" not in canary and "canaryService" not in canary
    assert [s for s in canary["steps"] if "setWeight" in s] == [{"setWeight": 20}, {"setWeight": 50}]
    assert canary["steps"][-1] == {"analysis": canary["steps"][2]["analysis"]}
    analysis = yaml.safe_load(docs["AnalysisTemplate/resnet-analysis"])
    # No canary Service to send a smoke request to: Prometheus metrics only.
    assert [m["name"] for m in analysis["spec"]["metrics"]] == ["error-ratio", "latency"]


@pytest.mark.parametrize(
    ("router", "routing"),
    [
        ("istio", {"istio": {"virtualService": {"name": "resnet-route"}}}),
        ("gateway-api", {"plugins": {"argoproj-labs/gatewayAPI": {"httpRoute": "resnet-route"}}}),
    ],
)
def test_canary_traffic_routing(
    chart: Any, synth: Any, rollouts_cluster: Cluster, router: str, routing: dict[str, Any]
) -> None:
    cluster = dataclasses.replace(rollouts_cluster, traffic_router=router)
    server = _server(chart, cluster, strategy=Canary(route="resnet-route", analysis=None))
    server.expose()
    docs = {k: yaml.safe_load(v) for k, v in synth(chart).items()}
    canary = docs["Rollout/resnet"]["spec"]["strategy"]["canary"]
    assert canary["trafficRouting"] == routing
    assert (canary["stableService"], canary["canaryService"]) == ("resnet", "resnet-canary")
    assert "Service/resnet-canary" in docs and "AnalysisTemplate/resnet-analysis" not in docs
    # Protected: the last step waits for `trainops argocd promote`.
    assert canary["steps"][-1] == {"pause": {}}


def test_blue_green_must_be_exposed(chart: Any, rollouts_cluster: Cluster) -> None:
    run_checks()
    _server(chart, rollouts_cluster, strategy=BlueGreen())
    assert run_checks() == [
        "ModelServer 'resnet' strategy=BlueGreen: call expose(); the Rollout names Services that only "
        "expose() creates"
    ]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"strategy": Canary(weights=(10, 150))},
            "ModelServer Canary weights[1]=150: a traffic weight must be between 1 and 100",
        ),
        ({"strategy": Canary(weights=(50, 20))}, "ModelServer Canary weights[1]=20: weights must increase"),
        ({"strategy": Canary(weights=())}, "ModelServer Canary weights=(): give at least one percentage"),
        ({"strategy": Canary(pause="5 minutes")}, "ModelServer Canary pause='5 minutes'"),
        (
            {"strategy": BlueGreen(preview_service="resnet")},
            "ModelServer BlueGreen preview_service='resnet': is the active Service too",
        ),
        (
            {"strategy": BlueGreen(preview_replicas=3)},
            "ModelServer BlueGreen preview_replicas=3: must not exceed replicas=2",
        ),
        (
            {"strategy": "blue-green"},
            "ModelServer strategy='blue-green': must be BlueGreen(...) or Canary(...)",
        ),
        (
            {"strategy": BlueGreen(analysis=Analysis(error_ratio=5))},
            "ModelServer Analysis error_ratio=5: must be between 0 and 1",
        ),
        (
            {"strategy": BlueGreen(analysis=Analysis(count=1, failure_limit=2))},
            "AnalysisTemplate 'resnet-analysis' metrics[0] count=1: must be at least failure_limit=2",
        ),
    ],
)
def test_bad_strategy(chart: Any, rollouts_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _server(chart, rollouts_cluster, **props)


def test_cluster_without_argo_rollouts_is_refused(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        ValueError,
        match=r"^ModelServer strategy=BlueGreen: cluster 'test' does not list argo-rollouts in operators",
    ):
        _server(chart, test_cluster, strategy=BlueGreen())


def test_rollout_active_service_is_named_like_the_server(chart: Any, rollouts_cluster: Cluster) -> None:
    server = _server(chart, rollouts_cluster, strategy=BlueGreen())
    with pytest.raises(ValueError, match=r"^ModelServer 'resnet' expose name='api': the Rollout's active"):
        server.expose(name="api")
