"""``rollouts-controller``: what the Argo Rollouts controller rejects although the API server accepts it.

Argo Rollouts has no admission webhook: a Rollout whose spec the controller finds invalid is
accepted, synced by Argo CD, and then sits with the condition ``InvalidSpec`` (never progressing);
an AnalysisRun whose metrics are invalid ends in phase ``Error`` and aborts the rollout. This family
mirrors those checks of argoproj/argo-rollouts v1.9.1 on every document of the argoproj.io kinds:

=====================  ============================================================================
document               check (Go function, v1.9.1)
=====================  ============================================================================
Rollout                ``pkg/apis/rollouts/validation/validation.go`` ``ValidateRolloutSpec``: a
                       non-empty ``selector`` (unless ``workloadRef``) that matches the template
                       labels, no template with ``workloadRef``, the template as the API server
                       checks a ReplicaSet's (``ValidatePodTemplateSpecForReplicaSet``), history and
                       deadlines ≥ 0,
                       ``progressDeadlineSeconds`` > ``minReadySeconds``;
                       ``ValidateRolloutStrategy``: exactly one of blueGreen and canary;
                       ``ValidateRolloutStrategyBlueGreen``: active ≠ preview Service,
                       ``scaleDownDelayRevisionLimit`` ≤ ``revisionHistoryLimit``;
                       ``ValidateRolloutStrategyCanary``: maxSurge and maxUnavailable not both zero
                       (``invalidMaxSurgeMaxUnavailable``), stable ≠ canary Service, both set with
                       traffic routing (``requireCanaryStableServices``), scaleDownDelaySeconds and
                       dynamicStableScale only with traffic routing, maxTrafficWeight only with
                       Nginx or plugins, one kind per step (``hasMultipleStepsType``), a kind on every
                       step, ``setWeight`` in 0..maxTrafficWeight, a pause duration that parses,
                       setCanaryScale with traffic routing, header and mirror routes in
                       ``managedRoutes``, analysis ``fieldRef`` args on metadata the Rollout has;
                       ``ValidateRolloutStrategyAntiAffinity``
AnalysisTemplate,      ``utils/analysis/factory.go`` ``ValidateMetrics``/``ValidateMetric`` on the
ClusterAnalysisTemplate  metrics with their ``{{args.X}}`` resolved (``ResolveMetricArgs``; an arg
                       without a value gets a placeholder, as ``setArgValuePlaceHolder`` does in
                       ``validation_references.go``), ``validateAnalysisMetrics`` (no arg with both
                       value and valueFrom), ``utils/template/template.go`` ``resolve`` (every tag
                       names an argument), ``utils/analysis/helpers.go`` ``GetDryRunMetrics`` and
                       ``GetMeasurementRetentionMetrics`` (each rule matches a metric)
AnalysisRun            the same, as ``analysis/analysis.go`` ``reconcileAnalysisRun`` runs them
                       (``getResolvedMetricsWithoutSecrets``: every argument has a value or a
                       ``secretKeyRef``)
=====================  ============================================================================

Messages end with the controller's own text. Cross-object checks of the controller (Services and
AnalysisTemplates a Rollout references, ``validation_references.go``) are policy rules
(``rollout-services``, ``rollout-analysis``), since they need the whole rendered set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from trainops.core.durations import duration_seconds
from trainops.core.findings import Issue
from trainops.core.kinds import Parts
from trainops.core.rules import RuleInfo, register
from trainops.validate.checks.api_server import selector_matches, semantic_issues
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="rollouts-controller",
        level="error",
        summary="Rollouts and analyses pass the Argo Rollouts controller's spec validation.",
        rationale="Argo Rollouts has no admission webhook: an invalid Rollout is synced and then stays "
        "InvalidSpec, an invalid AnalysisRun ends in Error and aborts the rollout; only after the merge.",
        remediation="Change the field as the message says (the text after the path is the controller's).",
        source="https://github.com/argoproj/argo-rollouts/blob/v1.9.1/pkg/apis/rollouts/validation/validation.go",
    )
)

GROUP: Final = "argoproj.io"
ANALYSIS_KINDS: Final = frozenset({"AnalysisTemplate", "ClusterAnalysisTemplate", "AnalysisRun"})
#: ``utils/defaults/defaults.go``.
DEFAULT_REVISION_HISTORY_LIMIT: Final = 10
DEFAULT_PROGRESS_DEADLINE_SECONDS: Final = 600
DEFAULT_MAX_WEIGHT: Final = 100
_INT: Final = r"[-+]?\d+"
_PERCENT: Final = r"[0-9]+%"
_TAG: Final = r"(?s)\{\{(.*?)\}\}"
#: The value ``setArgValuePlaceHolder`` gives an argument without one.
_PLACEHOLDER: Final = "dummy-value"
#: The step kinds of ``hasMultipleStepsType`` and of the "Step must have one of..." check.
_ONE_OF: Final = ("setWeight", "pause", "experiment", "analysis")
_ANY_OF: Final = (
    "experiment",
    "pause",
    "setWeight",
    "analysis",
    "setCanaryScale",
    "setHeaderRoute",
    "setMirrorRoute",
    "plugin",
)
#: Fields ``fieldpath.ExtractFieldPathAsString`` can read from a Rollout's metadata.
_META_FIELDS: Final = ("metadata.name", "metadata.namespace", "metadata.uid")
_ROUTERS_NEEDING_SERVICES: Final = (
    "alb",
    "istio",
    "smi",
    "apisix",
    "ambassador",
    "nginx",
    "appMesh",
    "traefik",
)

INVALID_STEP: Final = (
    "Step must have one of the following set: experiment, setWeight, setCanaryScale, plugin or pause"
)


def check(context: DocumentContext) -> Iterator[Issue]:
    """The controller's issues for an argoproj.io Rollout or analysis document."""
    if context.api_version.partition("/")[0] != GROUP:
        return
    if context.kind == "Rollout":
        yield from rollout_issues(context.data)
    elif context.kind in ANALYSIS_KINDS:
        yield from analysis_issues(context.kind, context.data)


def _issue(parts: Parts, message: str) -> Issue:
    return Issue(parts, message, RULE.id, "InvalidSpec")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def int_value(value: Any) -> int:
    """``intstr.IntOrString.IntValue()``: an int, or a string's ``strconv.Atoi`` (0 when it fails)."""
    if type(value) is int:
        return value
    if isinstance(value, str) and re.fullmatch(_INT, value):
        return int(value)
    return 0


def pause_seconds(duration: Any) -> float:
    """``RolloutPause.DurationSeconds`` (v1alpha1 ``types.go``): an int as is, a string as an int or
    a Go duration, -1 when it parses as neither."""
    if type(duration) is int:
        return duration
    if isinstance(duration, str):
        if re.fullmatch(_INT, duration):
            return int(duration)
        seconds = duration_seconds(duration)
        return -1 if seconds is None else int(seconds)
    return 0


def _scaled(value: Any) -> int:
    """``getIntOrPercentValue``: a percentage's number, else ``IntValue``."""
    if isinstance(value, str) and re.fullmatch(_PERCENT, value):
        return int(value[:-1])
    return int_value(value)


# --- Rollout ------------------------------------------------------------------------------------


def rollout_issues(data: dict[str, Any]) -> list[Issue]:
    """``ValidateRollout`` of a Rollout document (what makes the controller set ``InvalidSpec``)."""
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return []
    issues: list[Issue] = []
    base: Parts = ("spec",)
    selector, template = spec.get("selector"), spec.get("template")
    if spec.get("workloadRef") is None:
        if not isinstance(selector, dict):
            issues.append(_issue((*base, "selector"), "Rollout has missing field '.spec.selector'"))
        elif not selector.get("matchLabels") and not selector.get("matchExpressions"):
            issues.append(_issue((*base, "selector"), "{}: empty selector is invalid for deployment"))
        elif isinstance(template, dict):
            metadata = template.get("metadata")
            labels = metadata.get("labels") if isinstance(metadata, dict) else None
            if not selector_matches(selector, labels if isinstance(labels, dict) else {}):
                issues.append(
                    _issue(
                        (*base, "template", "metadata", "labels"),
                        "`selector` does not match template `labels`",
                    )
                )
    elif isinstance(template, dict) and template:
        issues.append(_issue((*base, "template"), "template must be empty for workload reference rollout"))
    if spec.get("workloadRef") is None and isinstance(template, dict):
        issues.extend(template_issues(data, selector, template))
    history = _int(spec.get("revisionHistoryLimit"))
    history = DEFAULT_REVISION_HISTORY_LIMIT if history is None else history
    min_ready = _int(spec.get("minReadySeconds")) or 0
    deadline = _int(spec.get("progressDeadlineSeconds"))
    deadline = DEFAULT_PROGRESS_DEADLINE_SECONDS if deadline is None else deadline
    for name, value in (("replicas", _int(spec.get("replicas"))), ("minReadySeconds", min_ready)):
        if value is not None and value < 0:
            issues.append(_issue((*base, name), f"{value}: must be greater than or equal to 0"))
    if history < 0:
        issues.append(
            _issue((*base, "revisionHistoryLimit"), f"{history}: must be greater than or equal to 0")
        )
    if deadline <= min_ready:
        issues.append(
            _issue((*base, "progressDeadlineSeconds"), f"{deadline}: must be greater than minReadySeconds")
        )
    issues.extend(_strategy(data, spec, history))
    return issues


def template_issues(data: dict[str, Any], selector: Any, template: dict[str, Any]) -> list[Issue]:
    """``ValidatePodTemplateSpecForReplicaSet`` as ``ValidateRolloutSpec`` calls it: the API server's
    checks of a ReplicaSet's pod template (container names, ports, mounts, resources...), run on the
    template the Rollout's ReplicaSets will carry; the selector match is reported above."""
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name if isinstance(name, str) else "rollout"},
        "spec": {"selector": selector, "template": template},
    }
    found = semantic_issues(replica_set, "apps/v1", "ReplicaSet", namespaced=True)
    return [
        _issue(i.parts, i.message)
        for i in found
        if i.parts[:2] == ("spec", "template") and i.keyword != "selector-mismatch"
    ]


def _strategy(data: dict[str, Any], spec: dict[str, Any], history: int) -> list[Issue]:
    """``ValidateRolloutStrategy`` and the strategy's own checks."""
    strategy = spec.get("strategy")
    strategy = strategy if isinstance(strategy, dict) else {}
    parts: Parts = ("spec", "strategy")
    blue_green, canary = strategy.get("blueGreen"), strategy.get("canary")
    if blue_green is None and canary is None:
        return [
            _issue(parts, "Rollout has missing field '.spec.strategy.canary or .spec.strategy.blueGreen'")
        ]
    if blue_green is not None and canary is not None:
        return [_issue(parts, "blueGreen: true canary: true: Multiple Strategies can not be listed")]
    if isinstance(blue_green, dict):
        return _blue_green(blue_green, (*parts, "blueGreen"), history)
    if isinstance(canary, dict):
        return _canary(data, canary, (*parts, "canary"))
    return []


def _blue_green(blue_green: dict[str, Any], parts: Parts, history: int) -> list[Issue]:
    """``ValidateRolloutStrategyBlueGreen``."""
    issues: list[Issue] = []
    active, preview = blue_green.get("activeService") or "", blue_green.get("previewService") or ""
    if active == preview:
        issues.append(
            _issue(
                (*parts, "activeService"),
                f"{active!r}: This rollout uses the same service for the active and preview services, "
                "but two different services are required.",
            )
        )
    limit = _int(blue_green.get("scaleDownDelayRevisionLimit"))
    if limit is not None and history < limit:
        issues.append(
            _issue(
                (*parts, "scaleDownDelayRevisionLimit"),
                f"{limit}: This rollout's revision history limit can not be smaller than the rollout's "
                "scale down limit",
            )
        )
    issues.extend(_anti_affinity(blue_green.get("antiAffinity"), (*parts, "antiAffinity")))
    return issues


def _canary(data: dict[str, Any], canary: dict[str, Any], parts: Parts) -> list[Issue]:
    """``ValidateRolloutStrategyCanary``."""
    issues: list[Issue] = []
    surge = canary.get("maxSurge", "25")
    unavailable = canary.get("maxUnavailable", "25")
    if _scaled(surge) == 0 and _scaled(unavailable) == 0:
        issues.append(
            _issue((*parts, "maxSurge"), f"{surge!r}: MaxSurge and MaxUnavailable both can not be zero")
        )
    stable, canary_service = canary.get("stableService") or "", canary.get("canaryService") or ""
    if stable and canary_service and stable == canary_service:
        issues.append(
            _issue(
                (*parts, "stableService"),
                f"{stable!r}: This rollout uses the same service for the stable and canary services, "
                "but two different services are required.",
            )
        )
    routing = canary.get("trafficRouting")
    routing = routing if isinstance(routing, dict) else None
    ping_pong = canary.get("pingPong")
    issues.extend(_ping_pong(ping_pong, routing, parts))
    if routing is not None and _needs_services(routing, ping_pong):
        for name, value in (("stableService", stable), ("canaryService", canary_service)):
            if not value:
                issues.append(
                    _issue(
                        (*parts, name),
                        '"": Canary service and Stable service must to be set to use Traffic Routing',
                    )
                )
    if routing is None:
        if canary.get("scaleDownDelaySeconds") is not None:
            issues.append(
                _issue(
                    (*parts, "scaleDownDelaySeconds"),
                    "Canary scaleDownDelaySeconds can only be used with traffic routing",
                )
            )
        if canary.get("dynamicStableScale") is True:
            issues.append(
                _issue(
                    (*parts, "dynamicStableScale"),
                    "Canary dynamicStableScale can only be used with traffic routing",
                )
            )
    else:
        if canary.get("scaleDownDelaySeconds") is not None and canary.get("dynamicStableScale") is True:
            issues.append(
                _issue(
                    (*parts, "dynamicStableScale"),
                    "Canary dynamicStableScale cannot be used with scaleDownDelaySeconds",
                )
            )
        if (
            routing.get("maxTrafficWeight") is not None
            and routing.get("nginx") is None
            and not routing.get("plugins")
        ):
            issues.append(
                _issue(
                    (*parts, "trafficRouting", "maxTrafficWeight"),
                    "Canary maxTrafficWeight in traffic routing only supported in Nginx and Plugins",
                )
            )
    steps = canary.get("steps")
    if isinstance(steps, list):
        for index, step in enumerate(steps):
            if isinstance(step, dict):
                issues.extend(_step(data, step, routing, (*parts, "steps", index), parts))
    issues.extend(_anti_affinity(canary.get("antiAffinity"), (*parts, "antiAffinity")))
    return issues


def _needs_services(routing: dict[str, Any], ping_pong: Any) -> bool:
    """``requireCanaryStableServices``."""
    for router in _ROUTERS_NEEDING_SERVICES:
        if routing.get(router) is None:
            continue
        if router == "alb" and ping_pong is not None:
            continue
        if router == "istio":
            istio = routing["istio"]
            if ping_pong is not None or (
                isinstance(istio, dict) and istio.get("destinationRule") is not None
            ):
                continue
        return True
    return False


def _ping_pong(ping_pong: Any, routing: dict[str, Any] | None, parts: Parts) -> list[Issue]:
    if not isinstance(ping_pong, dict):
        return []
    issues: list[Issue] = []
    if routing is not None and routing.get("alb") is None and routing.get("istio") is None:
        issues.append(
            _issue(
                (*parts, "trafficRouting", "alb"),
                "Ping-pong feature works with the ALB and Istio traffic routers only",
            )
        )
    ping, pong = ping_pong.get("pingService") or "", ping_pong.get("pongService") or ""
    for name, value in (("pingService", ping), ("pongService", pong)):
        if not value:
            issues.append(
                _issue(
                    (*parts, "pingPong", name),
                    "Ping service and Pong service must to be set to use Ping-Pong feature",
                )
            )
    if ping == pong:
        issues.append(
            _issue(
                (*parts, "pingPong", "pingService"),
                f"{ping!r}: This rollout uses the same service for the ping and pong services, but two different "
                "services are required.",
            )
        )
    alb = routing.get("alb") if routing is not None else None
    if isinstance(alb, dict) and not alb.get("rootService"):
        issues.append(
            _issue(
                (*parts, "trafficRouting", "alb", "rootService"),
                "Root service field is required for the configuration with ALB and ping-pong feature enabled",
            )
        )
    return issues


def _step(
    data: dict[str, Any],
    step: dict[str, Any],
    routing: dict[str, Any] | None,
    parts: Parts,
    canary_parts: Parts,
) -> list[Issue]:
    """One canary step's checks in ``ValidateRolloutStrategyCanary``."""
    issues: list[Issue] = []
    if sum(step.get(k) is not None for k in _ONE_OF) > 1:
        issues.append(_issue(parts, f"more than one of {', '.join(_ONE_OF)}: {INVALID_STEP}"))
    if all(step.get(k) is None for k in _ANY_OF):
        issues.append(_issue(parts, INVALID_STEP))
    weight = step.get("setWeight")
    max_weight = _int(routing.get("maxTrafficWeight")) if routing is not None else None
    max_weight = DEFAULT_MAX_WEIGHT if max_weight is None else max_weight
    if type(weight) is int and not 0 <= weight <= max_weight:
        issues.append(
            _issue((*parts, "setWeight"), f"{weight}: SetWeight needs to be between 0 and {max_weight}")
        )
    pause = step.get("pause")
    if isinstance(pause, dict) and pause_seconds(pause.get("duration")) < 0:
        issues.append(
            _issue(
                (*parts, "pause", "duration"),
                f"{pause.get('duration')!r}: Duration needs to be greater than 0",
            )
        )
    if step.get("setCanaryScale") is not None and routing is None:
        issues.append(
            _issue((*canary_parts, "trafficRouting"), "SetCanaryScale requires TrafficRouting to be set")
        )
    issues.extend(_routes(step, routing, parts, canary_parts))
    issues.extend(_analysis_args(data, step, parts))
    return issues


def _routes(
    step: dict[str, Any], routing: dict[str, Any] | None, parts: Parts, canary_parts: Parts
) -> list[Issue]:
    """Header and mirror route steps: the router supports them and ``managedRoutes`` names them."""
    issues: list[Issue] = []
    header, mirror = step.get("setHeaderRoute"), step.get("setMirrorRoute")
    if header is not None and (
        routing is None
        or (all(routing.get(r) is None for r in ("istio", "alb", "apisix")) and not routing.get("plugins"))
    ):
        issues.append(
            _issue(
                (*parts, "setHeaderRoute"),
                "SetHeaderRoute requires TrafficRouting, supports Istio and ALB and Apisix",
            )
        )
    if mirror is not None and (routing is None or routing.get("istio") is None):
        issues.append(
            _issue((*parts, "setMirrorRoute"), "SetMirrorRoute requires TrafficRouting, supports Istio only")
        )
    if routing is None or (header is None and mirror is None):
        return issues
    managed = routing.get("managedRoutes")
    if managed is None:
        issues.append(
            _issue(
                (*canary_parts, "trafficRouting", "managedRoutes"),
                "Rollout has missing field 'spec.strategy.canary.trafficRouting.managedRoutes'",
            )
        )
        return issues
    names = {r.get("name") for r in managed if isinstance(r, dict)} if isinstance(managed, list) else set()
    for key, route in (("setHeaderRoute", header), ("setMirrorRoute", mirror)):
        if isinstance(route, dict) and route.get("name") not in names:
            issues.append(
                _issue(
                    (*parts, key),
                    f"{route.get('name')!r}: Steps define a route that does not exist in "
                    "spec.strategy.canary.trafficRouting.managedRoutes",
                )
            )
    return issues


def _analysis_args(data: dict[str, Any], step: dict[str, Any], parts: Parts) -> list[Issue]:
    """Step analysis args whose ``fieldRef`` reads Rollout metadata that does not exist."""
    args: list[Any] = []
    for source in (step.get("analysis"),):
        if isinstance(source, dict) and isinstance(source.get("args"), list):
            args.extend(source["args"])
    experiment = step.get("experiment")
    if isinstance(experiment, dict) and isinstance(experiment.get("analyses"), list):
        for analysis in experiment["analyses"]:
            if isinstance(analysis, dict) and isinstance(analysis.get("args"), list):
                args.extend(analysis["args"])
    for arg in args:
        ref = arg.get("valueFrom", {}).get("fieldRef") if isinstance(arg, dict) else None
        path = ref.get("fieldPath") if isinstance(ref, dict) else None
        if isinstance(path, str) and path.startswith("metadata") and not _metadata_field(data, path):
            return [
                _issue(
                    (*parts, "analyses"),
                    f"fieldPath {path!r}: Analyses arguments must refer to valid object metadata supported by "
                    "downwardAPI",
                )
            ]
    return []


def _metadata_field(data: dict[str, Any], path: str) -> bool:
    """Whether ``fieldpath.ExtractFieldPathAsString`` reads ``path`` of the Rollout's metadata."""
    if path in _META_FIELDS:
        return True
    match = re.fullmatch(r"metadata\.(annotations|labels)(?:\['([^']*)'\])?", path)
    return match is not None


def _anti_affinity(anti_affinity: Any, parts: Parts) -> list[Issue]:
    """``ValidateRolloutStrategyAntiAffinity``."""
    if not isinstance(anti_affinity, dict):
        return []
    issues: list[Issue] = []
    preferred = anti_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    required = anti_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if (preferred is None) == (required is None):
        issues.append(_issue(parts, "AntiAffinity must have exactly one strategy listed"))
    if isinstance(preferred, dict):
        weight = preferred.get("weight", 0)
        if type(weight) is int and not 1 <= weight <= 100:
            issues.append(_issue((*parts, "weight"), f"{weight}: AntiAffinity weight must be between 1-100"))
    return issues


# --- analyses -----------------------------------------------------------------------------------


def analysis_issues(kind: str, data: dict[str, Any]) -> list[Issue]:
    """``ValidateMetrics`` of an AnalysisTemplate, ClusterAnalysisTemplate or AnalysisRun, after
    argument resolution as the controller does it (see the module table)."""
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return []
    metrics = spec.get("metrics")
    metrics = metrics if isinstance(metrics, list) else []
    args = spec.get("args")
    args = args if isinstance(args, list) else []
    values: dict[str, str] = {}
    for index, arg in enumerate(args):
        if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
            continue
        value, value_from = arg.get("value"), arg.get("valueFrom")
        if kind != "AnalysisRun" and value is not None and value_from is not None:
            return [
                _issue(("spec", "args", index), f"arg '{arg['name']}' has both Value and ValueFrom fields")
            ]
        if isinstance(value, str):
            values[arg["name"]] = value
        elif kind != "AnalysisRun" or (
            isinstance(value_from, dict) and value_from.get("secretKeyRef") is not None
        ):
            values[arg["name"]] = _PLACEHOLDER
        else:
            return [_issue(("spec", "args", index), f'argument "{arg["name"]}" was not supplied')]
    resolved: list[Any] = []
    for index, metric in enumerate(metrics):
        problem = _unresolved(metric, values)
        if problem is not None:
            return [_issue(("spec", "metrics", index), problem)]
        resolved.append(_resolve(metric, values))
    # A template that composes others (``spec.templates``, resolved by the controller) may have no
    # metrics of its own.
    composed = kind != "AnalysisRun" and isinstance(spec.get("templates"), list) and spec["templates"]
    problem = None if composed and not resolved else validate_metrics(resolved)
    if problem is not None:
        return [_issue(("spec", "metrics"), f"Analysis spec invalid: {problem}")]
    names = [m.get("name") for m in resolved if isinstance(m, dict)]
    for field_name, label in (("dryRun", "dryRun"), ("measurementRetention", "measurementRetention")):
        rules = spec.get(field_name)
        for index, rule in enumerate(rules if isinstance(rules, list) else []):
            pattern = rule.get("metricName") if isinstance(rule, dict) else None
            if isinstance(pattern, str) and not any(_search(pattern, n) for n in names if isinstance(n, str)):
                return [
                    _issue(
                        ("spec", field_name, index),
                        f"Analysis spec invalid: {label}[{index}]: Rule didn't match any metric name(s)",
                    )
                ]
    return []


def _search(pattern: str, name: str) -> bool:
    """Go ``regexp.MatchString`` (unanchored); a pattern Python cannot compile matches nothing."""
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


def _unresolved(value: Any, args: dict[str, str]) -> str | None:
    """``resolve``'s error for the first tag that names no argument, or ``None``."""
    if isinstance(value, str):
        if "{{" in value and "}}" not in value[value.index("{{") :]:
            return f'cannot find end tag="}}}}" in the template={value!r}'
        for tag in re.findall(_TAG, value):
            name = tag.strip()
            if not name.startswith("args.") or name[5:] not in args:
                return f"failed to resolve {{{{{tag}}}}}"
        return None
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        problem = _unresolved(child, args)
        if problem is not None:
            return problem
    return None


def _resolve(value: Any, args: dict[str, str]) -> Any:
    """``ResolveMetricArgs``: every ``{{args.X}}`` replaced by its value."""
    if isinstance(value, str):
        return re.sub(_TAG, lambda m: args[m.group(1).strip()[5:]], value)
    if isinstance(value, dict):
        return {k: _resolve(v, args) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, args) for v in value]
    return value


def validate_metrics(metrics: list[Any]) -> str | None:
    """``ValidateMetrics``: the controller's error text for resolved ``metrics``, or ``None``."""
    if not metrics:
        return "no metrics specified"
    seen: set[Any] = set()
    for index, metric in enumerate(metrics):
        if not isinstance(metric, dict):
            continue
        name = metric.get("name")
        if name in seen:
            return f"metrics[{index}]: duplicate name '{name}'"
        seen.add(name)
        problem = validate_metric(metric)
        if problem is not None:
            return f"metrics[{index}]: {problem}"
    return None


def validate_metric(metric: dict[str, Any]) -> str | None:
    """``ValidateMetric``: the controller's error text for one resolved metric, or ``None``."""
    count = int_value(metric.get("count"))
    failure = int_value(metric.get("failureLimit"))
    successes = int_value(metric.get("consecutiveSuccessLimit"))
    inconclusive = int_value(metric.get("inconclusiveLimit"))
    if successes < 0:
        return "consecutiveSuccessLimit must be >= 0"
    if failure < -1:
        return "failureLimit must be >= 0, or -1 to be disabled"
    if successes == 0 and failure == -1:
        return "failureLimit and consecutiveSuccessLimit cannot both be disabled"
    if inconclusive < 0:
        return "inconclusiveLimit must be >= 0"
    if metric.get("consecutiveErrorLimit") is not None and int_value(metric["consecutiveErrorLimit"]) < 0:
        return "consecutiveErrorLimit must be >= 0"
    if count > 0:
        if successes >= 0 and failure >= 0 and count < failure + successes:
            return (
                f"count ({count}) must be >= failureLimit + consecutiveSuccessLimit ({failure} + {successes}) "
                "if both >= 0"
            )
        if successes >= 0 and failure < 0 and count < successes:
            return "count must be >= consecutiveSuccessLimit"
        if count < inconclusive:
            return "count must be >= inconclusiveLimit"
    interval, delay = metric.get("interval") or "", metric.get("initialDelay") or ""
    if count > 1 and not interval:
        return "interval must be specified when count > 1"
    if interval and (not isinstance(interval, str) or duration_seconds(interval) is None):
        return f'invalid interval string: time: invalid duration "{interval}"'
    if delay and (not isinstance(delay, str) or duration_seconds(delay) is None):
        return f'invalid startDelay string: time: invalid duration "{delay}"'
    provider = metric.get("provider")
    provider = provider if isinstance(provider, dict) else {}
    plugins = provider.get("plugin")
    providers = sum(v is not None for k, v in provider.items() if k != "plugin")
    providers += len(plugins) if isinstance(plugins, dict) else 0
    if providers == 0:
        return "no provider specified"
    if providers > 1:
        return "multiple providers specified"
    return None


CHECK = Check(RULE, check)
