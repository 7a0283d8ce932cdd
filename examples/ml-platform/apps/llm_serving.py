"""``llm-serving``: Llama 3.1 70B on two 8-GPU nodes with vLLM, as a LeaderWorkerSet.

Issue 34 ("Serving for the LLM era"): a 70B model in bf16 (140 GB of weights plus KV cache) does not
fit one 8-GPU node with room to serve, so it is split over two: 8-way tensor parallelism inside each
node, 2-way pipeline parallelism across them (vLLM over Ray, the shape of kubernetes-sigs/lws
``docs/examples/vllm``). The weights are on the shared NAS volume (downloaded once, read by every
pod); the startup probe allows loading 140 GB. Prometheus scrapes the leader's ``/metrics``;
alerts on time to first token, queue depth, KV cache and a stalled engine, and a dashboard.
Only on ``gpu-next``, which runs the LeaderWorkerSet controller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.team_vision import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import (
    GrafanaDashboard,
    LLMServer,
    NetworkPolicy,
    PrometheusRule,
    RuleGroup,
    ServiceMonitor,
    VolumeClaim,
)
from trainops.constructs.alert_presets import llm_alerts
from trainops.constructs.dashboard_presets import llm_panels

if TYPE_CHECKING:
    from cdk8s import Chart

MODEL = "llama-3-1-70b"


def build(chart: Chart, cluster: Cluster) -> None:
    """Add the model volume, the LLM server, its Service, monitor, alerts and dashboard."""
    models = VolumeClaim(
        chart,
        "Models",
        cluster=cluster,
        name="llm-models",
        size="500Gi",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    server = LLMServer(
        chart,
        "Server",
        cluster=cluster,
        name=MODEL,
        image="vllm/vllm-openai:v0.8.5",
        gpus_per_node=8,
        nodes=2,
        replicas=1,  # one 16-GPU instance: the team's whole GPU quota
        cpu="32",
        memory="256Gi",
        model_volume=models,
        model_subpath="meta-llama/Llama-3.1-70B-Instruct",
        model_size="140G",
        args=["--max-model-len", "32768"],
    )
    service = server.expose()
    NetworkPolicy.allow_serving(chart, "Ingress", target=server)
    ServiceMonitor(chart, "Monitor", service=service, labels=cluster.prometheus_labels)
    PrometheusRule(
        chart,
        "Alerts",
        cluster=cluster,
        name=f"{MODEL}-slo",
        groups=[
            RuleGroup(f"{MODEL}-slo", llm_alerts(selector={"namespace": NAMESPACE, "model_name": MODEL}))
        ],
    )
    GrafanaDashboard(
        chart,
        "Dashboard",
        name=MODEL,
        title=f"LLM: {MODEL}",
        panels=llm_panels(),
        variables={"namespace": NAMESPACE, "model": MODEL},
        folder="Serving",
    )


APP = AppDef(
    name="llm-serving",
    build=build,
    namespace=NAMESPACE,
    team="vision",
    description="vLLM on 2 nodes × 8 GPUs (LeaderWorkerSet): Llama 3.1 70B, ServiceMonitor, alerts, dashboard",
    clusters=("gpu-next",),
)
