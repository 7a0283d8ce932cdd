"""Ready-made alerts for training and serving, as :class:`~trainops.constructs.prometheus_rule.AlertRule`
lists to put into a :class:`~trainops.constructs.prometheus_rule.RuleGroup`.

Metric sources (each preset names the exporter it needs):

* Training Operator v1 controller metrics ``training_operator_jobs_failed_total`` and
  ``training_operator_jobs_restarted_total`` (labels ``job_namespace``, ``framework``;
  kubeflow/training-operator ``pkg/common/metrics.go``);
* kube-state-metrics ``kube_pod_container_status_restarts_total`` and ``kube_pod_status_phase``;
* NVIDIA DCGM exporter ``DCGM_FI_DEV_GPU_UTIL`` (percent) with its Kubernetes pod mapping, scraped
  with ``honorLabels`` so ``namespace`` and ``pod`` are the workload's
  (https://github.com/NVIDIA/dcgm-exporter, ``etc/default-counters.csv``);
* the model server's request counter and latency histogram (:class:`ServingMetrics`).

Every expression is parsed when the PrometheusRule is built, like a hand-written one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from trainops.constructs.prometheus_rule import AlertRule

#: Pod names the Training Operator gives replicas: ``<job>-<replica type, lower-cased>-<index>``
#: (``common.GenGeneralName``).
TRAINING_POD_PATTERN = ".+-(master|worker|launcher|ps|chief|evaluator)-[0-9]+"


def _selector(matchers: Mapping[str, str], extra: str = "") -> str:
    parts = [f"{key}={json.dumps(value)}" for key, value in matchers.items()]
    if extra:
        parts.append(extra)
    return "{" + ", ".join(parts) + "}"


def _number(value: float) -> str:
    return format(value, "g")


def training_job_alerts(*, namespace: str, restart_threshold: int = 2) -> list[AlertRule]:
    """Alerts for Kubeflow training runs in ``namespace``.

    * ``TrainingJobFailed`` (critical, at once): the operator counted a failed job in the last 10 minutes.
    * ``TrainingJobRestarting`` (warning): the operator restarted a job in the last 15 minutes.
    * ``TrainingPodRestarting`` (warning, 5m): a training pod's containers restarted more than
      ``restart_threshold`` times in 15 minutes (crash loops, OOM kills).

    Args:
        namespace: the training namespace.
        restart_threshold: container restarts in 15 minutes tolerated per pod. Default: 2.
    """
    job = _selector({"job_namespace": namespace})
    pods = _selector({"namespace": namespace}, f'pod=~"{TRAINING_POD_PATTERN}"')
    return [
        AlertRule(
            alert="TrainingJobFailed",
            expr=f"sum by (job_namespace, framework) (increase(training_operator_jobs_failed_total{job}[10m])) > 0",
            for_duration=None,
            severity="critical",
            summary="A training job failed",
            description="{{ $value }} {{ $labels.framework }} job(s) failed in {{ $labels.job_namespace }}.",
        ),
        AlertRule(
            alert="TrainingJobRestarting",
            expr=f"sum by (job_namespace, framework) (increase(training_operator_jobs_restarted_total{job}[15m])) > 0",
            for_duration=None,
            severity="warning",
            summary="A training job is restarting",
            description="{{ $labels.framework }} job(s) in {{ $labels.job_namespace }} restarted.",
        ),
        AlertRule(
            alert="TrainingPodRestarting",
            expr=(
                f"sum by (namespace, pod) (increase(kube_pod_container_status_restarts_total{pods}[15m])) "
                f"> {restart_threshold}"
            ),
            for_duration="5m",
            severity="warning",
            summary="A training pod keeps restarting",
            description="{{ $labels.pod }} restarted {{ $value }} times in 15 minutes.",
        ),
    ]


def gpu_idle_alerts(
    *, namespace: str, utilization_percent: float = 5, for_duration: str = "30m"
) -> list[AlertRule]:
    """``TrainingGPUIdle`` (warning): a running training pod's GPUs averaged below
    ``utilization_percent`` for ``for_duration`` (a stuck data loader, a hung collective, a job
    waiting on a dead peer): the GPUs are paid for and idle.

    Args:
        namespace: the training namespace.
        utilization_percent: ``DCGM_FI_DEV_GPU_UTIL`` below which a GPU counts as idle. Default: 5.
        for_duration: how long the GPUs must be idle. Default: ``"30m"``.
    """
    gpus = _selector({"namespace": namespace}, f'pod=~"{TRAINING_POD_PATTERN}"')
    running = _selector({"namespace": namespace, "phase": "Running"})
    return [
        AlertRule(
            alert="TrainingGPUIdle",
            expr=(
                f"avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{gpus}) < {_number(utilization_percent)} "
                f"and on (namespace, pod) (kube_pod_status_phase{running} == 1)"
            ),
            for_duration=for_duration,
            severity="warning",
            summary="GPUs idle while a training job runs",
            description="{{ $labels.pod }} averaged {{ $value }}% GPU utilization.",
        )
    ]


@dataclass(frozen=True)
class ServingMetrics:
    """Where a model server reports requests, errors and latency.

    Args:
        requests: counter of requests, e.g. ``http_requests_total``.
        errors: label matcher that picks failed requests, e.g. ``code=~"5.."``.
        latency_bucket: the ``_bucket`` series of the latency histogram.
        latency_unit_seconds: seconds per unit of the histogram (1e-6 for microseconds).
    """

    requests: str
    errors: str
    latency_bucket: str
    latency_unit_seconds: float = 1.0


#: TensorFlow Serving's Prometheus metrics (``--monitoring_config_file`` with prometheus_config):
#: ``:tensorflow:serving:request_count{model_name,status}`` and the request latency histogram in
#: microseconds. Source: tensorflow/serving ``tensorflow_serving/servables/tensorflow/util.cc``.
TF_SERVING = ServingMetrics(
    requests=":tensorflow:serving:request_count",
    errors='status!="OK"',
    latency_bucket=":tensorflow:serving:request_latency_bucket",
    latency_unit_seconds=1e-6,
)
#: The Prometheus client libraries' HTTP conventions (``http_requests_total{code}``, seconds).
HTTP = ServingMetrics(
    requests="http_requests_total",
    errors='code=~"5.."',
    latency_bucket="http_request_duration_seconds_bucket",
)


def serving_slo_alerts(
    *,
    selector: Mapping[str, str],
    metrics: ServingMetrics = HTTP,
    error_ratio: float = 0.01,
    latency_seconds: float = 0.5,
    quantile: float = 0.99,
    for_duration: str = "10m",
) -> list[AlertRule]:
    """Serving SLO alerts for the series ``selector`` picks (e.g. ``{"namespace": "serving",
    "model_name": "resnet"}``).

    * ``ServingErrorRateHigh`` (critical): more than ``error_ratio`` of requests failed over 5 minutes.
    * ``ServingLatencyHigh`` (warning): the ``quantile`` latency over 5 minutes exceeds ``latency_seconds``.

    Args:
        selector: label matchers (equality) on the server's series; at least one.
        metrics: the server's metric names. Default: :data:`HTTP`; :data:`TF_SERVING` for TF Serving.
        error_ratio: tolerated failed share, 0 < ratio < 1. Default: 0.01.
        latency_seconds: latency objective in seconds. Default: 0.5.
        quantile: latency quantile, 0 < q < 1. Default: 0.99.
        for_duration: how long the SLO must be broken. Default: ``"10m"``.

    Raises:
        ValueError: an empty selector or a ratio/quantile outside (0, 1) or a non-positive latency.
    """
    if not selector:
        raise ValueError("serving_slo_alerts selector={}: give at least one label matcher")
    for prop, value in (("error_ratio", error_ratio), ("quantile", quantile)):
        if not 0 < value < 1:
            raise ValueError(f"serving_slo_alerts {prop}={value!r}: must be between 0 and 1 (exclusive)")
    if not latency_seconds > 0:
        raise ValueError(f"serving_slo_alerts latency_seconds={latency_seconds!r}: must be positive")
    all_requests = _selector(selector)
    failed = _selector(selector, metrics.errors)
    threshold = latency_seconds / metrics.latency_unit_seconds
    return [
        AlertRule(
            alert="ServingErrorRateHigh",
            expr=(
                f"sum(rate({metrics.requests}{failed}[5m])) / sum(rate({metrics.requests}{all_requests}[5m])) "
                f"> {_number(error_ratio)}"
            ),
            for_duration=for_duration,
            severity="critical",
            summary="Model server error rate above its SLO",
            description=f"{{{{ $value | humanizePercentage }}}} of requests failed (SLO {_number(error_ratio * 100)}%).",
        ),
        AlertRule(
            alert="ServingLatencyHigh",
            expr=(
                f"histogram_quantile({_number(quantile)}, sum by (le) (rate({metrics.latency_bucket}{all_requests}[5m]))) "
                f"> {_number(threshold)}"
            ),
            for_duration=for_duration,
            severity="warning",
            summary="Model server latency above its SLO",
            description=f"p{_number(quantile * 100)} latency above {_number(latency_seconds)} s.",
        ),
    ]


@dataclass(frozen=True)
class LLMMetrics:
    """Where an LLM server reports its queue, KV cache, time to first token and token throughput.

    Args:
        ttft_bucket: the ``_bucket`` series of the time-to-first-token histogram (seconds).
        generation_tokens: counter of generated (output) tokens.
        waiting: gauge of requests waiting in the scheduler queue.
        running: gauge of requests being decoded.
        kv_cache: gauges of the KV-cache share in use (0..1); several names are joined with ``or``
            (the engine renamed it).
        e2e_bucket: the ``_bucket`` series of the end-to-end request latency histogram (seconds).
        model_label: the label naming the served model. Default: ``model_name``.
    """

    ttft_bucket: str
    generation_tokens: str
    waiting: str
    running: str
    kv_cache: tuple[str, ...]
    e2e_bucket: str
    model_label: str = "model_name"

    def kv(self, selector: str) -> str:
        """The KV-cache usage expression for ``selector`` (``{...}``)."""
        return " or ".join(f"{name}{selector}" for name in self.kv_cache)


#: vLLM's Prometheus metrics on ``/metrics`` of its OpenAI-compatible port, labelled ``model_name``:
#: ``vllm:kv_cache_usage_perc`` (``vllm:gpu_cache_usage_perc`` before v0.10).
#: Source: vllm-project/vllm ``vllm/v1/metrics/loggers.py`` (``PrometheusStatLogger``) and
#: https://docs.vllm.ai/en/latest/usage/metrics.html
VLLM_METRICS = LLMMetrics(
    ttft_bucket="vllm:time_to_first_token_seconds_bucket",
    generation_tokens="vllm:generation_tokens_total",
    waiting="vllm:num_requests_waiting",
    running="vllm:num_requests_running",
    kv_cache=("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
    e2e_bucket="vllm:e2e_request_latency_seconds_bucket",
)
#: SGLang's metrics (``--enable-metrics``), labelled ``model_name``; ``sglang:token_usage`` is the KV
#: pool's used share. Source: sgl-project/sglang ``python/sglang/srt/metrics/collector.py``.
SGLANG_METRICS = LLMMetrics(
    ttft_bucket="sglang:time_to_first_token_seconds_bucket",
    generation_tokens="sglang:generation_tokens_total",
    waiting="sglang:num_queue_reqs",
    running="sglang:num_running_reqs",
    kv_cache=("sglang:token_usage",),
    e2e_bucket="sglang:e2e_request_latency_seconds_bucket",
)


def llm_alerts(
    *,
    selector: Mapping[str, str],
    metrics: LLMMetrics = VLLM_METRICS,
    ttft_seconds: float = 2.0,
    quantile: float = 0.95,
    queue_depth: int = 20,
    kv_cache_ratio: float = 0.95,
    for_duration: str = "10m",
) -> list[AlertRule]:
    """Alerts for an LLM server's series picked by ``selector`` (e.g. ``{"namespace": "llm",
    "model_name": "llama-70b"}``).

    * ``LLMTimeToFirstTokenHigh`` (warning): the ``quantile`` time to first token over 5 minutes
      exceeds ``ttft_seconds``.
    * ``LLMQueueDepthHigh`` (warning): more than ``queue_depth`` requests wait (summed over pods).
    * ``LLMKVCacheFull`` (warning): a pod's KV cache is more than ``kv_cache_ratio`` full (requests
      get preempted and recomputed).
    * ``LLMNoTokensGenerated`` (critical): requests are running but no token was generated in 5 minutes
      (a hung engine: tokens per second fell to zero).

    Args:
        selector: label matchers (equality) on the server's series; at least one.
        metrics: the engine's metric names. Default: :data:`VLLM_METRICS`.
        ttft_seconds: time-to-first-token objective in seconds. Default: 2.
        quantile: its quantile, 0 < q < 1. Default: 0.95.
        queue_depth: waiting requests tolerated. Default: 20.
        kv_cache_ratio: KV-cache share tolerated, 0 < r ≤ 1. Default: 0.95.
        for_duration: how long a condition must hold. Default: ``"10m"``.

    Raises:
        ValueError: an empty selector, a quantile or ratio out of range, a non-positive threshold.
    """
    if not selector:
        raise ValueError("llm_alerts selector={}: give at least one label matcher")
    if not 0 < quantile < 1:
        raise ValueError(f"llm_alerts quantile={quantile!r}: must be between 0 and 1 (exclusive)")
    if not 0 < kv_cache_ratio <= 1:
        raise ValueError(f"llm_alerts kv_cache_ratio={kv_cache_ratio!r}: must be in (0, 1]")
    if not ttft_seconds > 0 or isinstance(queue_depth, bool) or not queue_depth >= 1:
        raise ValueError(
            f"llm_alerts ttft_seconds={ttft_seconds!r}, queue_depth={queue_depth!r}: must be positive"
        )
    sel = _selector(selector)
    return [
        AlertRule(
            alert="LLMTimeToFirstTokenHigh",
            expr=(
                f"histogram_quantile({_number(quantile)}, sum by (le) (rate({metrics.ttft_bucket}{sel}[5m]))) "
                f"> {_number(ttft_seconds)}"
            ),
            for_duration=for_duration,
            severity="warning",
            summary="LLM time to first token above its objective",
            description=f"p{_number(quantile * 100)} time to first token above {_number(ttft_seconds)} s.",
        ),
        AlertRule(
            alert="LLMQueueDepthHigh",
            expr=f"sum({metrics.waiting}{sel}) > {queue_depth}",
            for_duration=for_duration,
            severity="warning",
            summary="Requests queue up in the LLM server",
            description="{{ $value }} requests are waiting: add replicas or GPUs.",
        ),
        AlertRule(
            alert="LLMKVCacheFull",
            expr=f"max({metrics.kv(sel)}) > {_number(kv_cache_ratio)}",
            for_duration=for_duration,
            severity="warning",
            summary="LLM KV cache nearly full",
            description="KV cache {{ $value | humanizePercentage }} full: requests are preempted.",
        ),
        AlertRule(
            alert="LLMNoTokensGenerated",
            expr=(
                f"sum(rate({metrics.generation_tokens}{sel}[5m])) == 0 and sum({metrics.running}{sel}) > 0"
            ),
            for_duration="5m",
            severity="critical",
            summary="LLM server generates no tokens",
            description="Requests are running but no token was generated for 5 minutes.",
        ),
    ]
