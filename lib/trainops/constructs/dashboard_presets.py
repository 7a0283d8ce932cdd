"""Ready-made dashboard panels for :class:`~trainops.constructs.grafana_dashboard.GrafanaDashboard`.

* Training: GPU utilization, framebuffer memory, power and Tensor Core activity per training pod from
  the NVIDIA DCGM exporter (``DCGM_FI_DEV_GPU_UTIL``, ``DCGM_FI_DEV_FB_USED``,
  ``DCGM_FI_DEV_POWER_USAGE``, ``DCGM_FI_PROF_PIPE_TENSOR_ACTIVE``; dcgm-exporter
  ``etc/default-counters.csv`` and ``dcp-metrics-included.csv``), job outcomes from the Training
  Operator's controller metrics and pod restarts from kube-state-metrics.
* Serving: request rate, error ratio and latency quantiles from the server's request counter and
  latency histogram (:class:`~trainops.constructs.alert_presets.ServingMetrics`).

Queries use the dashboard variables ``$namespace`` (both) and ``$model`` (serving) and Grafana's
``$__rate_interval``; give them as ``GrafanaDashboard(variables=...)``.
"""

from __future__ import annotations

from trainops.constructs.alert_presets import (
    HTTP,
    TRAINING_POD_PATTERN,
    VLLM_METRICS,
    LLMMetrics,
    ServingMetrics,
)
from trainops.constructs.grafana_dashboard import DashboardPanel, DashboardQuery

_PODS = f'namespace="$namespace", pod=~"{TRAINING_POD_PATTERN}"'


def training_panels() -> list[DashboardPanel]:
    """Training progress and GPU use for the namespace ``$namespace``."""
    return [
        DashboardPanel(
            "GPU utilization",
            [DashboardQuery(f"avg by (pod) (DCGM_FI_DEV_GPU_UTIL{{{_PODS}}})", "{{pod}}")],
            unit="percent",
            description="Share of time a kernel ran, averaged over each pod's GPUs.",
        ),
        DashboardPanel(
            "Tensor Core activity",
            [DashboardQuery(f"avg by (pod) (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{{_PODS}}})", "{{pod}}")],
            unit="percentunit",
        ),
        DashboardPanel(
            "GPU memory used",
            [DashboardQuery(f"sum by (pod) (DCGM_FI_DEV_FB_USED{{{_PODS}}})", "{{pod}}")],
            unit="decmbytes",
        ),
        DashboardPanel(
            "GPU power",
            [DashboardQuery(f"sum by (pod) (DCGM_FI_DEV_POWER_USAGE{{{_PODS}}})", "{{pod}}")],
            unit="watt",
        ),
        DashboardPanel(
            "Training jobs",
            [
                DashboardQuery(
                    'sum by (framework) (increase(training_operator_jobs_created_total{job_namespace="$namespace"}[$__range]))',
                    "created {{framework}}",
                ),
                DashboardQuery(
                    'sum by (framework) (increase(training_operator_jobs_successful_total{job_namespace="$namespace"}[$__range]))',
                    "succeeded {{framework}}",
                ),
                DashboardQuery(
                    'sum by (framework) (increase(training_operator_jobs_failed_total{job_namespace="$namespace"}[$__range]))',
                    "failed {{framework}}",
                ),
            ],
            kind="stat",
        ),
        DashboardPanel(
            "Pod restarts",
            [
                DashboardQuery(
                    f"sum by (pod) (increase(kube_pod_container_status_restarts_total{{{_PODS}}}[$__rate_interval]))",
                    "{{pod}}",
                )
            ],
        ),
    ]


def serving_panels(
    metrics: ServingMetrics = HTTP, *, model_label: str = "model_name"
) -> list[DashboardPanel]:
    """Serving throughput, errors and latency for ``model_label="$model"`` in ``$namespace``.

    Args:
        metrics: the server's metric names. Default: the HTTP conventions.
        model_label: the label naming the model or service on the server's series. Default: ``model_name``.
    """
    sel = f'namespace="$namespace", {model_label}="$model"'
    scale = "" if metrics.latency_unit_seconds == 1.0 else f" * {format(metrics.latency_unit_seconds, 'g')}"
    return [
        DashboardPanel(
            "Requests per second",
            [DashboardQuery(f"sum(rate({metrics.requests}{{{sel}}}[$__rate_interval]))", "requests")],
            unit="reqps",
        ),
        DashboardPanel(
            "Error ratio",
            [
                DashboardQuery(
                    f"sum(rate({metrics.requests}{{{sel}, {metrics.errors}}}[$__rate_interval])) / "
                    f"sum(rate({metrics.requests}{{{sel}}}[$__rate_interval]))",
                    "errors",
                )
            ],
            unit="percentunit",
        ),
        DashboardPanel(
            "Latency",
            [
                DashboardQuery(
                    f"histogram_quantile({q}, sum by (le) (rate({metrics.latency_bucket}{{{sel}}}[$__rate_interval]))){scale}",
                    f"p{int(q * 100)}",
                )
                for q in (0.5, 0.9, 0.99)
            ],
            unit="s",
            width=24,
        ),
    ]


def llm_panels(metrics: LLMMetrics = VLLM_METRICS) -> list[DashboardPanel]:
    """An LLM server's time to first token, tokens per second, queue and KV-cache use for the model
    ``$model`` in ``$namespace``.

    Args:
        metrics: the engine's metric names. Default: vLLM's (:data:`~trainops.constructs.alert_presets.VLLM_METRICS`).
    """
    sel = f'{{namespace="$namespace", {metrics.model_label}="$model"}}'
    return [
        DashboardPanel(
            "Time to first token",
            [
                DashboardQuery(
                    f"histogram_quantile({q}, sum by (le) (rate({metrics.ttft_bucket}{sel}[$__rate_interval])))",
                    f"p{int(q * 100)}",
                )
                for q in (0.5, 0.95, 0.99)
            ],
            unit="s",
            width=24,
        ),
        DashboardPanel(
            "Tokens per second",
            [DashboardQuery(f"sum(rate({metrics.generation_tokens}{sel}[$__rate_interval]))", "generated")],
        ),
        DashboardPanel(
            "Requests",
            [
                DashboardQuery(f"sum({metrics.waiting}{sel})", "waiting"),
                DashboardQuery(f"sum({metrics.running}{sel})", "running"),
            ],
        ),
        DashboardPanel(
            "KV cache in use",
            [DashboardQuery(f"max by (pod) ({metrics.kv(sel)})", "{{pod}}")],
            unit="percentunit",
        ),
        DashboardPanel(
            "Request latency",
            [
                DashboardQuery(
                    f"histogram_quantile(0.95, sum by (le) (rate({metrics.e2e_bucket}{sel}[$__rate_interval])))",
                    "p95",
                )
            ],
            unit="s",
        ),
    ]
