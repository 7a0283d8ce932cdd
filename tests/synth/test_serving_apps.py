"""The bundled serving and monitoring apps reproduce their seed scenarios, wired together."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.project import Project, load_project
from trainops.synth import render_app

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project() -> Project:
    return load_project(SAMPLE)


def _objects(project: Project, app: str, cluster_name: str) -> dict[str, dict[str, Any]]:
    docs = [yaml.safe_load(t) for t in render_app(project.apps[app], project.cluster(cluster_name)).values()]
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in docs}


@pytest.mark.parametrize("cluster", ["gpu-prod", "gpu-next"])
def test_vision_serving_hpa_on_cpu_memory_and_requests_per_second(project: Project, cluster: str) -> None:
    objects = _objects(project, "vision-serving", cluster)
    hpa = objects["HorizontalPodAutoscaler/resnet-serving"]["spec"]
    deployment = objects["Deployment/resnet-serving"]
    # Seed 003: cpu 70 %, memory 80 % and Pods requests-per-second AverageValue 100, in one HPA.
    assert [
        (
            m["type"],
            m.get("resource", m.get("pods", {})).get("name", m.get("pods", {}).get("metric", {}).get("name")),
        )
        for m in hpa["metrics"]
    ] == [
        ("Resource", "cpu"),
        ("Resource", "memory"),
        ("Pods", "requests-per-second"),
    ]
    assert hpa["metrics"][2]["pods"]["target"] == {"type": "AverageValue", "averageValue": "100"}
    assert hpa["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert "replicas" not in deployment["spec"]
    requests = deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    assert {"cpu", "memory"} <= set(requests)


@pytest.mark.parametrize("cluster", ["gpu-prod", "gpu-next"])
def test_vision_serving_monitor_pdb_and_dashboard_select_the_server(project: Project, cluster: str) -> None:
    objects = _objects(project, "vision-serving", cluster)
    pod_labels = objects["Deployment/resnet-serving"]["spec"]["template"]["metadata"]["labels"]
    service = objects["Service/resnet-serving"]
    monitor = objects["ServiceMonitor/resnet-serving"]["spec"]
    assert monitor["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["endpoints"][0]["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert (
        objects["PodDisruptionBudget/resnet-serving"]["spec"]["selector"]["matchLabels"].items()
        <= pod_labels.items()
    )
    rules = objects["PrometheusRule/resnet-serving-slo"]["spec"]["groups"][0]["rules"]
    assert [r["alert"] for r in rules] == ["ServingErrorRateHigh", "ServingLatencyHigh"]
    dashboard = objects["ConfigMap/resnet-serving"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["resnet-serving.json"])["title"] == "Serving: resnet"


def test_kserve_canary_only_where_kserve_runs(project: Project) -> None:
    app = project.apps["kserve-canary"]
    assert [c.name for c in project.clusters if app.targets(c)] == ["gpu-next"]
    isvc = _objects(project, "kserve-canary", "gpu-next")["InferenceService/my-model"]["spec"]["predictor"]
    # The seed's model and bucket, 10 % to the newly rolled-out revision.
    assert isvc["model"]["storageUri"] == "gs://my-model-bucket/model"
    assert isvc["canaryTrafficPercent"] == 10


def test_seldon_legacy_splits_traffic(project: Project) -> None:
    app = project.apps["seldon-legacy"]
    assert [c.name for c in project.clusters if app.targets(c)] == ["gpu-prod"]
    seldon = _objects(project, "seldon-legacy", "gpu-prod")["SeldonDeployment/my-model"]["spec"]
    assert [(p["name"], p["replicas"], p["traffic"]) for p in seldon["predictors"]] == [
        ("default", 3, 90),
        ("canary", 1, 10),
    ]


def test_training_monitoring_selects_operator_labelled_pods(project: Project) -> None:
    objects = _objects(project, "training-monitoring", "gpu-prod")
    # The label the Training Operator v1 puts on PyTorchJob pods (GenLabels).
    assert objects["PodMonitor/pytorchjob-pods"]["spec"]["selector"] == {
        "matchLabels": {"training.kubeflow.org/operator-name": "pytorchjob-controller"}
    }
    alerts = [r["alert"] for r in objects["PrometheusRule/training-alerts"]["spec"]["groups"][0]["rules"]]
    assert {"TrainingJobFailed", "TrainingJobRestarting", "TrainingGPUIdle"} <= set(alerts)
    assert project.apps["training-monitoring"].namespace == project.apps["pytorch-ddp-multi-node"].namespace


@pytest.mark.parametrize("cluster", ["gpu-prod", "gpu-next"])
def test_team_vision_gpu_quota_limits_and_default_deny(project: Project, cluster: str) -> None:
    objects = _objects(project, "team-vision", cluster)
    quota = objects["ResourceQuota/team-quota"]["spec"]["hard"]
    assert quota["requests.nvidia.com/gpu"] == "16"
    deny = objects["NetworkPolicy/default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert any(key.startswith("LimitRange/") for key in objects)
    labels = objects["Namespace/team-vision"]["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"


def test_model_rollout_is_blue_green_with_analysis_before_promotion(project: Project) -> None:
    objects = _objects(project, "model-rollout", "gpu-prod")
    rollout = objects["Rollout/image-classifier"]
    blue_green = rollout["spec"]["strategy"]["blueGreen"]
    # Seed 003 (blue-green model updates) on a protected cluster: manual promotion after the analysis.
    assert (blue_green["activeService"], blue_green["previewService"]) == (
        "image-classifier",
        "image-classifier-preview",
    )
    assert blue_green["autoPromotionEnabled"] is False
    assert blue_green["prePromotionAnalysis"]["templates"] == [{"templateName": "image-classifier-analysis"}]
    analysis = objects["AnalysisTemplate/image-classifier-analysis"]
    waves = {
        k: int(v["metadata"]["annotations"].get("argocd.argoproj.io/sync-wave", "0"))
        for k, v in objects.items()
    }
    assert waves["AnalysisTemplate/image-classifier-analysis"] < waves["Rollout/image-classifier"]
    assert [m["name"] for m in analysis["spec"]["metrics"]] == ["error-ratio", "latency", "smoke-request"]
    hpa = objects["HorizontalPodAutoscaler/image-classifier"]["spec"]["scaleTargetRef"]
    assert (hpa["apiVersion"], hpa["kind"]) == ("argoproj.io/v1alpha1", "Rollout")
    selector = rollout["spec"]["selector"]["matchLabels"]
    for service in ("Service/image-classifier", "Service/image-classifier-preview"):
        assert objects[service]["spec"]["selector"] == selector
    assert objects["PodDisruptionBudget/image-classifier"]["spec"]["selector"]["matchLabels"] == selector


def test_model_rollout_app_is_long_lived() -> None:
    """A Rollout is no run-once object: the app is delivered by the long-lived ApplicationSet of its
    namespace (prune, self-heal), by no training one."""
    argocd = SAMPLE / "generated" / "gpu-prod" / "argocd"
    holding = sorted(
        p.name for p in argocd.glob("applicationset_*.yaml") if "/model-rollout\n" in p.read_text("utf-8")
    )
    assert holding == ["applicationset_gpu-ml-platform-long-lived-ml-serving-gpu-prod.yaml"]
