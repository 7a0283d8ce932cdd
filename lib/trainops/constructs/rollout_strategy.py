"""Rollout strategies of a :class:`~trainops.constructs.model_server.ModelServer` (DESIGN.md decision 12):
:class:`BlueGreen` and :class:`Canary` make the server an Argo Rollouts ``Rollout`` (argoproj.io/v1alpha1,
Argo Rollouts v1.9) instead of a Deployment, checked by a generated :class:`~trainops.constructs.
analysis_template.AnalysisTemplate` built from :class:`Analysis` thresholds on the server's own
Prometheus metrics before the new version takes all traffic.

How the analysis tells the new version from the old one: every pod of a Rollout carries the label
``rollouts-pod-template-hash`` of its ReplicaSet; the server's ServiceMonitors copy it onto the scraped
series (``podTargetLabels``, as ``rollouts_pod_template_hash``), and the Rollout passes the new
ReplicaSet's hash as the argument ``pod-hash`` (``valueFrom.podTemplateHashValue: Latest``). The smoke
request runs against the preview (blue-green) or canary Service, which only select new pods.

Checks mirror the Rollouts controller's spec validation (argoproj/argo-rollouts v1.9.1
``pkg/apis/rollouts/validation/validation.go``): a ``setWeight`` between 0 and 100
(``ValidateRolloutStrategyCanary``, ``InvalidSetWeightMessage``), different active and preview Services
(``ValidateRolloutStrategyBlueGreen``, ``DuplicatedServicesBlueGreenMessage``) and different stable and
canary Services.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trainops.constructs._core.pod import (
    TMP_PATH,
    TMP_VOLUME,
    container_security_context,
    guaranteed_resources,
    pod_security_context,
)
from trainops.constructs._core.props import duration_ms, require_image, require_whole
from trainops.constructs.alert_presets import HTTP, TF_SERVING, ServingMetrics
from trainops.constructs.analysis_template import AnalysisArg, AnalysisMetric, JobMetric, PrometheusMetric
from trainops.core.cluster import Cluster
from trainops.core.quantity import parse_quantity

#: The operator name a Cluster lists when it runs the Argo Rollouts controller.
ARGO_ROLLOUTS = "argo-rollouts"
#: Label the Rollouts controller puts on every pod and ReplicaSet it makes, and into the selectors of
#: the Services it manages (``v1alpha1.DefaultRolloutUniqueLabelKey``).
POD_HASH_LABEL = "rollouts-pod-template-hash"
#: The same label on Prometheus series (label names are sanitised: ``-`` becomes ``_``).
POD_HASH_SERIES_LABEL = "rollouts_pod_template_hash"
#: The Gateway API traffic router plugin's name in ``trafficRouting.plugins``
#: (https://github.com/argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi).
GATEWAY_API_PLUGIN = "argoproj-labs/gatewayAPI"
#: Image of the smoke-request Job (curl, pinned).
SMOKE_IMAGE = "curlimages/curl:8.11.1"
#: The argument carrying the new ReplicaSet's pod-template hash.
POD_HASH_ARG = "pod-hash"
_KIND = "ModelServer"

#: Per-model HTTP paths that answer 200 once the model is loaded and served, by server preset name
#: (TF Serving model status, Triton model readiness (KServe v2), TorchServe's model description).
SMOKE_PATHS = {
    "tensorflow-serving": "/v1/models/{model}",
    "triton": "/v2/models/{model}/ready",
    "torchserve": "/ping",
}
#: Request and latency series of a server preset, by name (others: :data:`~trainops.constructs.
#: alert_presets.HTTP`).
SERVING_METRICS = {"tensorflow-serving": TF_SERVING}


@dataclass(frozen=True)
class Analysis:
    """Thresholds of the analysis a new version must pass (on its own pods' series).

    Args:
        error_ratio: largest share of failed requests, 0 < ratio < 1. Default: 0.01.
        latency_seconds: largest ``quantile`` latency in seconds. Default: 1.0.
        quantile: latency quantile, 0 < q < 1. Default: 0.99.
        window: PromQL range of the rates, a duration. Default: ``"2m"``.
        interval: time between measurements. Default: ``"1m"``.
        count: measurements per metric. Default: 5.
        failure_limit: failed measurements tolerated per metric. Default: 1.
        metrics: the server's request and latency series. Default: by preset (TF Serving's own,
            else the HTTP conventions ``http_requests_total``/``http_request_duration_seconds``).
        smoke_test: also run a Job that requests the new version's model endpoint once (where the
            preset has a known per-model endpoint and a preview or canary Service exists).
            Default: ``True``.
        prometheus_address: Prometheus base URL. Default: the prometheus-operator Service
            ``http://prometheus-operated.<cluster.prometheus_namespace>.svc:9090``.
        smoke_image: the smoke Job's image (needs ``curl``). Default: ``curlimages/curl:8.11.1``.
    """

    error_ratio: float = 0.01
    latency_seconds: float = 1.0
    quantile: float = 0.99
    window: str = "2m"
    interval: str = "1m"
    count: int = 5
    failure_limit: int = 1
    metrics: ServingMetrics | None = None
    smoke_test: bool = True
    prometheus_address: str | None = None
    smoke_image: str = SMOKE_IMAGE


@dataclass(frozen=True)
class BlueGreen:
    """Blue-green: the new version starts beside the old one behind a preview Service, is analysed,
    then the active Service switches to it; the old pods stay ``scale_down_delay_seconds`` longer.

    Args:
        analysis: pre-promotion analysis thresholds, or ``None`` for none. Default: :class:`Analysis`.
        auto_promote: switch once the analysis passes; ``False`` waits for ``trainops argocd
            promote``. Default: ``False`` on protected clusters, ``True`` elsewhere.
        scale_down_delay_seconds: how long the old version keeps running after the switch. Default: 30.
        preview_replicas: pods of the new version before promotion. Default: all (``replicas``).
        preview_service: name of the preview Service. Default: ``<service>-preview``.
    """

    analysis: Analysis | None = Analysis()
    auto_promote: bool | None = None
    scale_down_delay_seconds: int = 30
    preview_replicas: int | None = None
    preview_service: str | None = None


@dataclass(frozen=True)
class Canary:
    """Canary: the new version takes a growing share of traffic, step by step, each share held for
    ``pause`` and then analysed. With the cluster's ``traffic_router`` the share is routed by the
    mesh or gateway (stable and canary Services); without, by the ratio of pod counts.

    Args:
        weights: the traffic percentages in order, each 1..100. Default: ``(10, 25, 50)``.
        pause: how long each share holds before its analysis, a duration. Default: ``"5m"``.
        analysis: thresholds checked after each pause, or ``None``. Default: :class:`Analysis`.
        auto_promote: go to 100 % after the last step; ``False`` pauses until ``trainops argocd
            promote``. Default: ``False`` on protected clusters, ``True`` elsewhere.
        route: the Istio VirtualService or Gateway API HTTPRoute (same namespace, yours) that routes
            to the stable and canary Services. Default: the server's name.
        canary_service: name of the canary Service (traffic routing only). Default: ``<service>-canary``.
    """

    weights: Sequence[int] = (10, 25, 50)
    pause: str = "5m"
    analysis: Analysis | None = Analysis()
    auto_promote: bool | None = None
    route: str | None = None
    canary_service: str | None = None


#: A server's rollout strategy.
RolloutStrategy = BlueGreen | Canary


def check_strategy(strategy: object, cluster: Cluster, replicas: int) -> RolloutStrategy:
    """Check a strategy's own props against the target cluster.

    Raises:
        ValueError: not a BlueGreen/Canary, a cluster without ``argo-rollouts``, a weight outside
            1..100 or not increasing, a bad pause, delay or preview count.
    """
    if not isinstance(strategy, BlueGreen | Canary):
        raise ValueError(f"{_KIND} strategy={strategy!r}: must be BlueGreen(...) or Canary(...)")
    if not cluster.has_operator(ARGO_ROLLOUTS):
        raise ValueError(
            f"{_KIND} strategy={type(strategy).__name__}: cluster {cluster.name!r} does not list "
            f"{ARGO_ROLLOUTS} in operators (a Rollout needs the Argo Rollouts controller)"
        )
    if isinstance(strategy, BlueGreen):
        require_whole(_KIND, "BlueGreen scale_down_delay_seconds", strategy.scale_down_delay_seconds)
        if strategy.preview_replicas is not None:
            preview = require_whole(_KIND, "BlueGreen preview_replicas", strategy.preview_replicas, minimum=1)
            if preview > replicas:
                raise ValueError(
                    f"{_KIND} BlueGreen preview_replicas={preview}: must not exceed replicas={replicas}"
                )
    else:
        if isinstance(strategy.weights, str | int) or not strategy.weights:
            raise ValueError(f"{_KIND} Canary weights={strategy.weights!r}: give at least one percentage")
        previous = 0
        for index, weight in enumerate(strategy.weights):
            if isinstance(weight, bool) or not isinstance(weight, int) or not 0 < weight <= 100:
                # ValidateRolloutStrategyCanary: "SetWeight needs to be between 0 and 100"
                raise ValueError(
                    f"{_KIND} Canary weights[{index}]={weight!r}: a traffic weight must be between 1 and 100"
                )
            if weight <= previous:
                raise ValueError(f"{_KIND} Canary weights[{index}]={weight!r}: weights must increase")
            previous = weight
        duration_ms(_KIND, "Canary pause", strategy.pause)
    if strategy.analysis is not None and not isinstance(strategy.analysis, Analysis):
        raise ValueError(f"{_KIND} analysis={strategy.analysis!r}: must be an Analysis or None")
    return strategy


def second_service(strategy: RolloutStrategy, cluster: Cluster, active: str) -> str | None:
    """The preview (blue-green) or canary (traffic-routed canary) Service's name, or ``None``.

    Raises:
        ValueError: it equals the active (stable) Service's name (the Rollouts controller marks such a
            Rollout ``InvalidSpec``: ``DuplicatedServicesBlueGreenMessage``/``...CanaryMessage``).
    """
    if isinstance(strategy, BlueGreen):
        name, prop, role = strategy.preview_service or f"{active}-preview", "preview_service", "active"
    elif cluster.traffic_router is not None:
        name, prop, role = strategy.canary_service or f"{active}-canary", "canary_service", "stable"
    else:
        return None
    if name == active:
        raise ValueError(
            f"{_KIND} {type(strategy).__name__} {prop}={name!r}: is the {role} Service too; "
            "a Rollout needs two different Services"
        )
    return name


def strategy_spec(
    strategy: RolloutStrategy,
    cluster: Cluster,
    *,
    server: str,
    active: str,
    second: str | None,
    template: str | None,
) -> dict[str, Any]:
    """``spec.strategy`` of the Rollout.

    Args:
        strategy: the checked strategy.
        cluster: the target (``protected`` picks manual promotion, ``traffic_router`` the routing).
        server: the Rollout's name (default route name).
        active: the active (blue-green) or stable (canary) Service's name.
        second: the preview or canary Service's name (:func:`second_service`).
        template: the AnalysisTemplate's name, or ``None`` without analysis.
    """
    auto = (not cluster.protected) if strategy.auto_promote is None else bool(strategy.auto_promote)
    analysis = None
    if template is not None:
        analysis = {
            "templates": [{"templateName": template}],
            "args": [{"name": POD_HASH_ARG, "valueFrom": {"podTemplateHashValue": "Latest"}}],
        }
    if isinstance(strategy, BlueGreen):
        blue_green: dict[str, Any] = {"activeService": active, "previewService": second}
        blue_green["autoPromotionEnabled"] = auto
        if strategy.preview_replicas is not None:
            blue_green["previewReplicaCount"] = strategy.preview_replicas
        if analysis is not None:
            blue_green["prePromotionAnalysis"] = analysis
        blue_green["scaleDownDelaySeconds"] = strategy.scale_down_delay_seconds
        return {"blueGreen": blue_green}
    steps: list[dict[str, Any]] = []
    for weight in strategy.weights:
        steps.append({"setWeight": weight})
        steps.append({"pause": {"duration": strategy.pause}})
        if analysis is not None:
            steps.append({"analysis": analysis})
    if not auto:
        steps.append({"pause": {}})
    canary: dict[str, Any] = {}
    if cluster.traffic_router is not None:
        route = strategy.route or server
        canary["stableService"] = active
        canary["canaryService"] = second
        if cluster.traffic_router == "istio":
            canary["trafficRouting"] = {"istio": {"virtualService": {"name": route}}}
        else:
            canary["trafficRouting"] = {"plugins": {GATEWAY_API_PLUGIN: {"httpRoute": route}}}
    canary["steps"] = steps
    return {"canary": canary}


def analysis_metrics(
    analysis: Analysis,
    cluster: Cluster,
    *,
    preset: str,
    model: str,
    namespace: str,
    port: int,
    smoke_service: str | None,
) -> list[AnalysisMetric]:
    """The metrics of a server's analysis: error ratio and latency quantile of the new pods, and a
    smoke request where the preset has a per-model endpoint and ``smoke_service`` selects new pods.

    Raises:
        ValueError: a ratio or quantile outside (0, 1), a non-positive latency, a bad duration.
    """
    for prop, value in (("error_ratio", analysis.error_ratio), ("quantile", analysis.quantile)):
        if not 0 < value < 1:
            raise ValueError(f"{_KIND} Analysis {prop}={value!r}: must be between 0 and 1 (exclusive)")
    if not analysis.latency_seconds > 0:
        raise ValueError(f"{_KIND} Analysis latency_seconds={analysis.latency_seconds!r}: must be positive")
    duration_ms(_KIND, "Analysis window", analysis.window)
    series = analysis.metrics or SERVING_METRICS.get(preset, HTTP)
    address = (
        analysis.prometheus_address or f"http://prometheus-operated.{cluster.prometheus_namespace}.svc:9090"
    )
    pods = f'namespace={json.dumps(namespace)}, {POD_HASH_SERIES_LABEL}="{{{{args.{POD_HASH_ARG}}}}}"'
    window = analysis.window
    errors = (
        f"sum(rate({series.requests}{{{pods}, {series.errors}}}[{window}])) / "
        f"sum(rate({series.requests}{{{pods}}}[{window}]))"
    )
    latency = (
        f"histogram_quantile({analysis.quantile:g}, sum by (le) "
        f"(rate({series.latency_bucket}{{{pods}}}[{window}])))"
    )
    limit = analysis.latency_seconds / series.latency_unit_seconds
    # No request in the window gives no sample or NaN: no evidence against the new version.
    metrics: list[AnalysisMetric] = [
        PrometheusMetric(
            name=name,
            query=query,
            success_condition=f"len(result) == 0 || isNaN(result[0]) || result[0] <= {bound:g}",
            address=address,
            interval=analysis.interval,
            count=analysis.count,
            failure_limit=analysis.failure_limit,
        )
        for name, query, bound in (("error-ratio", errors, analysis.error_ratio), ("latency", latency, limit))
    ]
    path = SMOKE_PATHS.get(preset)
    if analysis.smoke_test and path is not None and smoke_service is not None:
        url = f"http://{smoke_service}.{namespace}.svc:{port}{path.replace('{model}', model)}"
        metrics.append(JobMetric(name="smoke-request", pod_spec=_smoke_pod(analysis.smoke_image, url)))
    return metrics


def analysis_args() -> list[AnalysisArg]:
    """The template arguments :func:`analysis_metrics` uses (the new pods' hash)."""
    return [AnalysisArg(POD_HASH_ARG)]


def _smoke_pod(image: str, url: str) -> dict[str, Any]:
    container = {
        "name": "smoke",
        "image": require_image(_KIND, "Analysis smoke_image", image),
        "args": ["--fail", "--silent", "--show-error", "--max-time", "30", "--retry", "3", url],
        "resources": guaranteed_resources(parse_quantity("100m"), parse_quantity("64Mi"), {}),
        "securityContext": container_security_context(),
        "volumeMounts": [{"name": TMP_VOLUME, "mountPath": TMP_PATH}],
    }
    return {
        "automountServiceAccountToken": False,
        "securityContext": pod_security_context(),
        "containers": [container],
        "volumes": [{"name": TMP_VOLUME, "emptyDir": {}}],
    }
