"""LLMServer: golden manifests for one node (Deployment), several nodes (LeaderWorkerSet), a modelcar
and an LLMInferenceService; what the manifests say read back by the parsers the policy rules use;
expose(), monitoring and autoscaling; one clear error per bad prop."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.constructs import (
    GrafanaDashboard,
    LLMServer,
    PrometheusRule,
    RuleGroup,
    ServiceMonitor,
    VolumeClaim,
)
from trainops.constructs.alert_presets import SGLANG_METRICS, llm_alerts
from trainops.constructs.dashboard_presets import llm_panels
from trainops.constructs.llm_server import SGLANG
from trainops.core.cluster import Cluster
from trainops.core.llm import parse_server, probe_window, startup_seconds
from trainops.validate.checks.lws_webhook import webhook_issues

IMAGE = "vllm/vllm-openai:v0.8.5"
LLAMA_70B = "hf://meta-llama/Llama-3.1-70B-Instruct"


@pytest.fixture
def cluster(test_cluster: Cluster) -> Cluster:
    """The test cluster with LeaderWorkerSet, KServe v0.20 and a Prometheus Adapter."""
    operators = {
        **test_cluster.operators,
        "lws": "v0.10.0",
        "kserve": "v0.20.0",
        "prometheus-adapter": "v0.12.0",
    }
    return dataclasses.replace(test_cluster, operators=operators)


def _server(chart: Any, cluster: Cluster, **props: Any) -> LLMServer:
    props = {"cluster": cluster, "name": "llama", "image": IMAGE, "model_uri": LLAMA_70B, **props}
    return LLMServer(chart, "Server", **props)


def _load(synth: Any, chart: Any, key: str) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[key]
    return text, yaml.safe_load(text)


def _main(pod: dict[str, Any]) -> dict[str, Any]:
    (main,) = [c for c in pod["containers"] if c["name"] == "main"]
    return main


def _gpus(pod: dict[str, Any]) -> int:
    return int(_main(pod)["resources"]["limits"].get("nvidia.com/gpu", 0))


def test_one_node_is_a_deployment(chart: Any, synth: Any, golden: Any, cluster: Cluster) -> None:
    models = VolumeClaim(
        chart, "Models", cluster=cluster, name="models", size="200Gi", access_mode="ReadOnlyMany"
    )
    server = _server(
        chart,
        cluster,
        name="qwen",
        model_uri=None,
        model_volume=models,
        model_subpath="Qwen2.5-32B-Instruct",
        model_name="qwen-32b",
        gpus_per_node=4,
        replicas=2,
        args=["--max-model-len", "8192"],
    )
    text, doc = _load(synth, chart, "Deployment/qwen")
    golden("llm_server/one_node.yaml", text)
    pod = doc["spec"]["template"]["spec"]
    main = _main(pod)
    command = parse_server(main["command"])
    # The parallelism the rules read back equals the GPUs; the model is the volume's sub-directory.
    assert command is not None and command.engine == "vllm"
    assert command.gpus == _gpus(pod) == server.gpus == 4
    assert command.model == "/models/Qwen2.5-32B-Instruct"
    assert main["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}} in pod["volumes"]
    # 32B parameters × 2 bytes: the startup probe allows what loading 64 GB needs.
    assert doc["metadata"]["annotations"]["trainops.dev/model-size"] == "64G"
    assert probe_window(main["startupProbe"]) >= startup_seconds(64 * 10**9)


def test_several_nodes_are_a_leader_worker_set(chart: Any, synth: Any, golden: Any, cluster: Cluster) -> None:
    _server(chart, cluster, gpus_per_node=8, nodes=2, hf_token_secret="hf-token")
    text, doc = _load(synth, chart, "LeaderWorkerSet/llama")
    golden("llm_server/several_nodes.yaml", text)
    template = doc["spec"]["leaderWorkerTemplate"]
    leader, worker = template["leaderTemplate"]["spec"], template["workerTemplate"]["spec"]
    command = parse_server(_main(leader)["command"], variables={"LWS_GROUP_SIZE": str(template["size"])})
    # vLLM over Ray as kubernetes-sigs/lws docs/examples/vllm: 8-way tensor × 2-way pipeline = 16 GPUs
    # = 2 pods × 8; the LWS webhook accepts the object.
    assert command is not None and (command.tensor, command.pipeline) == (8, 2)
    assert command.gpus == template["size"] * _gpus(leader) == template["size"] * _gpus(worker)
    assert "worker --ray_address=$(LWS_LEADER_ADDRESS)" in _main(worker)["command"][-1]
    assert webhook_issues(doc) == []
    # Every pod downloads the 140 GB model into a bounded emptyDir, and may take the time it needs.
    assert doc["metadata"]["annotations"]["trainops.dev/model-size"] == "140G"
    assert {"name": "model", "emptyDir": {"sizeLimit": "154G"}} in worker["volumes"]
    assert probe_window(_main(leader)["startupProbe"]) >= startup_seconds(140 * 10**9)


def test_modelcar(chart: Any, synth: Any, golden: Any, cluster: Cluster) -> None:
    _server(
        chart,
        cluster,
        model_uri=None,
        model_image="registry.example.com/models/llama-3.1-8b:1.0",
        gpus_per_node=1,
    )
    text, doc = _load(synth, chart, "Deployment/llama")
    golden("llm_server/modelcar.yaml", text)
    pod = doc["spec"]["template"]["spec"]
    # KServe's modelcar: the model image runs beside the server, sharing the process namespace.
    assert pod["shareProcessNamespace"] is True
    assert [c["name"] for c in pod["containers"]] == ["main", "modelcar"]
    assert [c["name"] for c in pod["initContainers"]] == ["modelcar-init"]
    assert parse_server(_main(pod)["command"]).model == "/mnt/models"  # type: ignore[union-attr]


def test_llm_inference_service(chart: Any, synth: Any, golden: Any, cluster: Cluster) -> None:
    _server(chart, cluster, gpus_per_node=4, nodes=2, form="LLMInferenceService")
    text, doc = _load(synth, chart, "LLMInferenceService/llama")
    golden("llm_server/llm_inference_service.yaml", text)
    assert doc["apiVersion"] == "serving.kserve.io/v1alpha2"
    assert doc["spec"]["model"] == {"uri": LLAMA_70B, "name": "llama"}
    assert doc["spec"]["parallelism"] == {"tensor": 4, "pipeline": 2}
    assert _gpus(doc["spec"]["template"]) == _gpus(doc["spec"]["worker"]) == 4


def test_sglang_on_one_node(chart: Any, synth: Any, cluster: Cluster) -> None:
    _server(
        chart,
        cluster,
        image="lmsysorg/sglang:v0.4.6.post1",
        engine=SGLANG,
        gpus_per_node=2,
        model_size="16Gi",
    )
    _, doc = _load(synth, chart, "Deployment/llama")
    main = _main(doc["spec"]["template"]["spec"])
    command = parse_server(main["command"])
    assert command is not None and command.engine == "sglang" and command.gpus == 2
    assert "--enable-metrics" in main["command"]
    assert doc["metadata"]["annotations"]["trainops.dev/model-size"] == "16Gi"


def test_sglang_on_several_nodes(chart: Any, synth: Any, cluster: Cluster) -> None:
    _server(chart, cluster, image="lmsysorg/sglang:v0.4.6.post1", engine=SGLANG, gpus_per_node=4, nodes=2)
    _, doc = _load(synth, chart, "LeaderWorkerSet/llama")
    template = doc["spec"]["leaderWorkerTemplate"]
    leader, worker = _main(template["leaderTemplate"]["spec"]), _main(template["workerTemplate"]["spec"])
    # As kubernetes-sigs/lws docs/examples/sglang: every rank runs the server; only the leader serves HTTP.
    command = parse_server(leader["command"], variables={"LWS_GROUP_SIZE": "2"})
    assert command is not None and (command.engine, command.gpus, command.nodes) == ("sglang", 8, 2)
    assert worker["command"] == leader["command"]
    assert "--node-rank" in worker["command"] and "readinessProbe" not in worker
    assert webhook_issues(doc) == []


def test_expose_monitor_and_autoscale(chart: Any, synth: Any, cluster: Cluster) -> None:
    server = _server(chart, cluster, gpus_per_node=8, nodes=2)
    service = server.expose()
    ServiceMonitor(chart, "Monitor", service=service)
    hpa = server.autoscale(chart, "Autoscaler", max_replicas=3, waiting_per_replica=5)
    out = synth(chart)
    lws = yaml.safe_load(out["LeaderWorkerSet/llama"])
    svc = yaml.safe_load(out["Service/llama"])
    scaler = yaml.safe_load(out["HorizontalPodAutoscaler/llama"])
    # The Service and its monitor select the leaders, the only pods serving the API and /metrics.
    assert (
        svc["spec"]["selector"] == lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["labels"]
    )
    assert svc["spec"]["ports"] == [{"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}]
    # The HPA owns the group count and scales on the queue depth.
    assert "replicas" not in lws["spec"] and hpa.target is server
    assert scaler["spec"]["metrics"] == [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "vllm:num_requests_waiting"},
                "target": {"type": "AverageValue", "averageValue": "5"},
            },
        }
    ]


def test_alerts_and_dashboard_build(chart: Any, synth: Any, cluster: Cluster) -> None:
    alerts = llm_alerts(selector={"namespace": "ml-test", "model_name": "llama"})
    PrometheusRule(chart, "Alerts", cluster=cluster, name="llama", groups=[RuleGroup("llama", alerts)])
    GrafanaDashboard(chart, "Dash", name="llama", title="LLM", panels=llm_panels(SGLANG_METRICS))
    rule = yaml.safe_load(synth(chart)["PrometheusRule/llama"])
    exprs = {r["alert"]: r["expr"] for r in rule["spec"]["groups"][0]["rules"]}
    assert sorted(exprs) == [
        "LLMKVCacheFull",
        "LLMNoTokensGenerated",
        "LLMQueueDepthHigh",
        "LLMTimeToFirstTokenHigh",
    ]
    assert "vllm:time_to_first_token_seconds_bucket" in exprs["LLMTimeToFirstTokenHigh"]
    assert (
        "vllm:kv_cache_usage_perc" in exprs["LLMKVCacheFull"]
        and "vllm:gpu_cache_usage_perc" in exprs["LLMKVCacheFull"]
    )


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"gpus_per_node": 8, "nodes": 2, "tensor_parallel_size": 4, "pipeline_parallel_size": 2},
            r"LLMServer tensor_parallel_size=4 × pipeline_parallel_size=2 = 8 GPUs, but gpus_per_node=8 × "
            r"nodes=2 = 16",
        ),
        (
            {"gpus_per_node": 8, "nodes": 2, "tensor_parallel_size": 4, "pipeline_parallel_size": 4},
            r"LLMServer tensor_parallel_size=4 × pipeline_parallel_size=4: tensor parallelism spans the GPUs "
            r"of a node \(gpus_per_node=8\)",
        ),
        ({"gpus_per_node": 4, "args": ["-tp", "8"]}, r"LLMServer args: '-tp' is set by the construct"),
        ({"args": ["--tensor_parallel_size=2"]}, r"'--tensor_parallel_size=2' is set by the construct"),
        ({"args": ["--port", "9000"]}, r"'--port' is set by the construct"),
        ({"model_uri": None}, r"give exactly one model source"),
        (
            {"model_image": "registry.example.com/m:1"},
            r"model_uri, model_image: give exactly one model source",
        ),
        ({"model_uri": "oci://registry.example.com/m:1"}, r"model_uri='oci://.*an OCI image is model_image"),
        ({"name": "1llama"}, r"LLMServer name='1llama'"),
        ({"gpus_per_node": 0}, r"LLMServer gpus_per_node=0: must be at least 1"),
        (
            {"args": "--max-model-len 8192"},
            r"LLMServer args='--max-model-len 8192': must be a sequence of strings",
        ),
        ({"model_size": "lots"}, r"LLMServer model_size='lots'"),
        ({"form": "InferenceService"}, r"LLMServer form='InferenceService'"),
        ({"model_credentials_secret": "s3", "model_uri": None, "model_volume": "m"}, r"needs a model_uri"),
    ],
)
def test_bad_props(chart: Any, cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _server(chart, cluster, **props)


@pytest.mark.parametrize(
    ("operators", "props", "message"),
    [
        ({}, {"nodes": 2}, r"a multi-node server is a LeaderWorkerSet, but cluster 'test' does not list lws"),
        (
            {"kserve": "v0.15.2"},
            {"form": "LLMInferenceService"},
            r"cluster 'test' does not run KServe v0.20 or later \(operators kserve='v0.15.2'\)",
        ),
    ],
)
def test_cluster_lacks_operator(
    chart: Any, test_cluster: Cluster, operators: dict[str, str], props: dict[str, Any], message: str
) -> None:
    target = dataclasses.replace(test_cluster, operators={**test_cluster.operators, **operators})
    with pytest.raises(ValueError, match=message):
        _server(chart, target, **props)


def test_autoscale_needs_a_prometheus_adapter(chart: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    with pytest.raises(ValueError, match=r"does not list prometheus-adapter in operators"):
        server.autoscale(chart, "Autoscaler")


def test_kserve_owns_services_and_scaling(chart: Any, cluster: Cluster) -> None:
    server = _server(chart, cluster, form="LLMInferenceService")
    with pytest.raises(ValueError, match=r"KServe creates the Services"):
        server.expose()
    with pytest.raises(ValueError, match=r"KServe scales an LLMInferenceService"):
        server.autoscale(chart, "Autoscaler")


def test_sample_serves_a_two_node_vllm() -> None:
    """The sample repository's ``llm-serving`` app on gpu-next: a LeaderWorkerSet of vLLM over Ray on
    2 × 8 GPUs that the LWS webhook accepts, and the ServiceMonitor scraping its leader."""
    folder = SAMPLE / "generated" / "gpu-next" / "llm-serving"
    lws = yaml.safe_load((folder / "leaderworkerset_llama-3-1-70b.yaml").read_text(encoding="utf-8"))
    monitor = yaml.safe_load((folder / "servicemonitor_llama-3-1-70b.yaml").read_text(encoding="utf-8"))
    template = lws["spec"]["leaderWorkerTemplate"]
    leader = template["leaderTemplate"]
    command = parse_server(
        _main(leader["spec"])["command"], variables={"LWS_GROUP_SIZE": str(template["size"])}
    )
    assert command is not None and (command.engine, command.tensor, command.pipeline) == ("vllm", 8, 2)
    assert template["size"] * _gpus(leader["spec"]) == 16
    assert webhook_issues(lws) == []
    assert monitor["spec"]["selector"]["matchLabels"].items() <= leader["metadata"]["labels"].items()
