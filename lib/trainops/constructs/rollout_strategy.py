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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from constructs import IValidation
from jsii import implements

from trainops.constructs._core.base import Construct, add_check, chart_namespace
from trainops.constructs._core.pod import (
    TMP_PATH,
    TMP_VOLUME,
    container_security_context,
    guaranteed_resources,
    pod_security_context,
)
from trainops.constructs._core.props import duration_ms, require_image, require_whole
from trainops.constructs.alert_presets import HTTP, SGLANG_METRICS, TF_SERVING, VLLM_METRICS, ServingMetrics
from trainops.constructs.analysis_template import (
    AnalysisArg,
    AnalysisMetric,
    AnalysisTemplate,
    JobMetric,
    PrometheusMetric,
)
from trainops.constructs.model_service import ModelService
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
    # LLMServer engines: the OpenAI-compatible model list (200 once the model is served).
    "vllm": "/v1/models",
    "sglang": "/v1/models",
}
#: Request and latency series of a server preset or LLM engine, by name (others:
#: :data:`~trainops.constructs.alert_presets.HTTP`).
SERVING_METRICS = {
    "tensorflow-serving": TF_SERVING,
    "vllm": VLLM_METRICS.serving,
    "sglang": SGLANG_METRICS.serving,
}


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


def check_strategy(
    strategy: object, cluster: Cluster, replicas: int, *, kind: str = _KIND
) -> RolloutStrategy:
    """Check a strategy's own props against the target cluster; ``kind`` names the server in messages.

    Raises:
        ValueError: not a BlueGreen/Canary, a cluster without ``argo-rollouts``, a weight outside
            1..100 or not increasing, a bad pause, delay or preview count.
    """
    if not isinstance(strategy, BlueGreen | Canary):
        raise ValueError(f"{kind} strategy={strategy!r}: must be BlueGreen(...) or Canary(...)")
    if not cluster.has_operator(ARGO_ROLLOUTS):
        raise ValueError(
            f"{kind} strategy={type(strategy).__name__}: cluster {cluster.name!r} does not list "
            f"{ARGO_ROLLOUTS} in operators (a Rollout needs the Argo Rollouts controller)"
        )
    if isinstance(strategy, BlueGreen):
        require_whole(kind, "BlueGreen scale_down_delay_seconds", strategy.scale_down_delay_seconds)
        if strategy.preview_replicas is not None:
            preview = require_whole(kind, "BlueGreen preview_replicas", strategy.preview_replicas, minimum=1)
            if preview > replicas:
                raise ValueError(
                    f"{kind} BlueGreen preview_replicas={preview}: must not exceed replicas={replicas}"
                )
    else:
        if isinstance(strategy.weights, str | int) or not strategy.weights:
            raise ValueError(f"{kind} Canary weights={strategy.weights!r}: give at least one percentage")
        previous = 0
        for index, weight in enumerate(strategy.weights):
            if isinstance(weight, bool) or not isinstance(weight, int) or not 0 < weight <= 100:
                # ValidateRolloutStrategyCanary: "SetWeight needs to be between 0 and 100"
                raise ValueError(
                    f"{kind} Canary weights[{index}]={weight!r}: a traffic weight must be between 1 and 100"
                )
            if weight <= previous:
                raise ValueError(f"{kind} Canary weights[{index}]={weight!r}: weights must increase")
            previous = weight
        duration_ms(kind, "Canary pause", strategy.pause)
    if strategy.analysis is not None and not isinstance(strategy.analysis, Analysis):
        raise ValueError(f"{kind} analysis={strategy.analysis!r}: must be an Analysis or None")
    return strategy


def second_service(
    strategy: RolloutStrategy, cluster: Cluster, active: str, *, kind: str = _KIND
) -> str | None:
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
            f"{kind} {type(strategy).__name__} {prop}={name!r}: is the {role} Service too; "
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
    kind: str = _KIND,
) -> list[AnalysisMetric]:
    """The metrics of a server's analysis: error ratio and latency quantile of the new pods, and a
    smoke request where the preset has a per-model endpoint and ``smoke_service`` selects new pods.

    Raises:
        ValueError: a ratio or quantile outside (0, 1), a non-positive latency, a bad duration.
    """
    for prop, value in (("error_ratio", analysis.error_ratio), ("quantile", analysis.quantile)):
        if not 0 < value < 1:
            raise ValueError(f"{kind} Analysis {prop}={value!r}: must be between 0 and 1 (exclusive)")
    if not analysis.latency_seconds > 0:
        raise ValueError(f"{kind} Analysis latency_seconds={analysis.latency_seconds!r}: must be positive")
    duration_ms(kind, "Analysis window", analysis.window)
    series = analysis.metrics or SERVING_METRICS.get(preset, HTTP)
    address = (
        analysis.prometheus_address or f"http://prometheus-operated.{cluster.prometheus_namespace}.svc:9090"
    )
    pods = f'namespace={json.dumps(namespace)}, {POD_HASH_SERIES_LABEL}="{{{{args.{POD_HASH_ARG}}}}}"'
    window = analysis.window
    errors = f"sum(rate({series.failed(pods)}[{window}])) / sum(rate({series.requests}{{{pods}}}[{window}]))"
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


class _Exposable(Protocol):
    """A server whose Rollout names Services its ``expose()`` makes."""

    @property
    def name(self) -> str: ...

    @property
    def service(self) -> ModelService | None: ...


@dataclass(frozen=True)
class Progressive:
    """A server's checked strategy, second Service name and ``spec.strategy`` (see :func:`progressive`).

    Args:
        strategy: the checked strategy.
        second: the preview (blue-green) or canary Service's name, or ``None``.
        spec: the Rollout's ``spec.strategy``.
    """

    strategy: RolloutStrategy
    second: str | None
    spec: dict[str, Any]


def progressive(
    server: Construct,
    strategy: object,
    cluster: Cluster,
    *,
    kind: str,
    name: str,
    replicas: int,
    preset: str,
    model: str,
    port: int,
) -> Progressive:
    """Make ``server`` (a ``ModelServer`` or ``LLMServer``) progressive: check ``strategy``, name the
    second Service, add the child AnalysisTemplate ``<name>-analysis`` (``Analysis``) and a synth check
    that ``expose()`` was called when the Rollout names a second Service.

    Args:
        server: the server construct (has ``name`` and ``service``); parent of the template.
        strategy: ``BlueGreen(...)`` or ``Canary(...)``.
        cluster: the target cluster.
        kind: the server's construct kind, in messages.
        name: the Rollout's (and active Service's) name.
        replicas: the server's replicas (bounds ``preview_replicas``).
        preset: server preset or LLM engine name: picks the metric names and smoke path.
        model: the served model's name (smoke path).
        port: the HTTP port the smoke request targets.

    Raises:
        ValueError: see :func:`check_strategy`, :func:`second_service`, :func:`analysis_metrics`;
            also a server outside a Chart with a namespace when the strategy has an analysis.
    """
    checked = check_strategy(strategy, cluster, replicas, kind=kind)
    second = second_service(checked, cluster, name, kind=kind)
    template = None
    if checked.analysis is not None:
        namespace = chart_namespace(server)
        if namespace is None:
            raise ValueError(f"{kind} {name!r} strategy: the analysis needs the Chart's namespace")
        metrics = analysis_metrics(
            checked.analysis,
            cluster,
            preset=preset,
            model=model,
            namespace=namespace,
            port=port,
            smoke_service=second,
            kind=kind,
        )
        template = AnalysisTemplate(
            server, "Analysis", name=f"{name[:54]}-analysis", metrics=metrics, args=analysis_args()
        ).name
    spec = strategy_spec(checked, cluster, server=name, active=name, second=second, template=template)
    if second is not None:
        add_check(server, _ExposedValidation(cast(_Exposable, server), kind, checked))
    return Progressive(checked, second, spec)


def expose_services(
    server: Any,
    rollout: Progressive | None,
    *,
    kind: str,
    port: int | None,
    name: str | None,
    labels: Mapping[str, str] | None,
    **service: Any,
) -> tuple[ModelService, ModelService | None]:
    """The Service(s) of a server's ``expose()``: the active one (child ``Service``) and, for a
    Rollout with a second Service, the preview (``PreviewService``) or canary (``CanaryService``)
    one; a Rollout's Services copy the pod-template hash onto their monitors' series.

    Args:
        server: the server (a :class:`~trainops.constructs._core.protocols.Selectable` construct).
        rollout: :func:`progressive`'s result, or ``None`` for a Deployment.
        kind: the server's construct kind, in messages.
        port: Service port, or ``None`` for the server's.
        name: the active Service's name, or ``None`` for the server's.
        labels: extra Service labels.
        service: further :class:`ModelService` arguments of the active Service (``type``...).

    Raises:
        ValueError: a Rollout's active Service not named like the server, or a bad Service prop.
    """
    pod_labels = () if rollout is None else (POD_HASH_LABEL,)
    if rollout is not None and name not in (None, server.name):
        raise ValueError(
            f"{kind} {server.name!r} expose name={name!r}: the Rollout's active Service is named like "
            "the server"
        )
    active = ModelService(
        server,
        "Service",
        server=server,
        port=port,
        name=name,
        labels=labels,
        pod_target_labels=pod_labels,
        **service,
    )
    second = None
    if rollout is not None and rollout.second is not None:
        second = ModelService(
            server,
            "PreviewService" if isinstance(rollout.strategy, BlueGreen) else "CanaryService",
            server=server,
            port=port,
            name=rollout.second,
            labels=labels,
            pod_target_labels=pod_labels,
        )
    return active, second


@implements(IValidation)
class _ExposedValidation:
    """A blue-green (or traffic-routed canary) server's Rollout names Services only ``expose()`` makes."""

    def __init__(self, server: _Exposable, kind: str, strategy: RolloutStrategy) -> None:
        self._server, self._kind, self._strategy = server, kind, strategy

    def validate(self) -> list[str]:
        if self._server.service is not None:
            return []
        return [
            f"{self._kind} {self._server.name!r} strategy={type(self._strategy).__name__}: call expose(); "
            "the Rollout names Services that only expose() creates"
        ]
