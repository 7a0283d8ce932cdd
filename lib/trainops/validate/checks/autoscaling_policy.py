"""API-server checks of autoscaling, disruption, priority and quota objects (rule ``api-server``).

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors k8s.io/kubernetes v1.36: ``pkg/apis/autoscaling/validation/validation.go``,
``pkg/apis/policy/validation/validation.go``, ``pkg/apis/scheduling/validation/validation.go`` and
``pkg/apis/core/validation/validation.go`` (ResourceQuota, LimitRange).

=================  ==================================================================================
keyword            check (Go function)
=================  ==================================================================================
``hpa``            minReplicas ≥ 1, maxReplicas ≥ 1 and ≥ minReplicas, scaleTargetRef kind and name
                   (``ValidateHorizontalPodAutoscalerSpec``, ``ValidateCrossVersionObjectReference``);
                   metric sources and targets (``validateMetrics``, ``validateMetricTarget``, and per
                   source ``validateResourceSource``… : which target fields it takes);
                   behavior windows and policies (``validateBehavior``, ``validateScalingRules``)
``pdb``            minAvailable and maxUnavailable not both set, each a non-negative int or a
                   percentage ≤ 100 % (``ValidatePodDisruptionBudgetSpec``)
``priority-class`` user-defined value ≤ 1000000000, ``system-`` names reserved
                   (``ValidatePriorityClass``)
``quota``          ResourceQuota resource names, non-negative (integer) quantities, scopes and scope
                   selectors (``ValidateResourceQuotaSpec``, ``validateResourceQuotaResourceName``,
                   ``validateResourceQuotaScopes``, ``validateScopeSelector``)
``limit-range``    LimitRange types, min ≤ default request ≤ default ≤ max, ratio ≥ 1, no defaults
                   for type Pod (``ValidateLimitRange``)
``enum``           HPA metric type, policy type, selectPolicy; PDB unhealthyPodEvictionPolicy;
                   PriorityClass preemptionPolicy
=================  ==================================================================================
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import GroupKind, Parts, group_of
from trainops.core.naming import DNS1123_LABEL, PATH_SEGMENT, qualified_name_problem
from trainops.validate.checks.api_server import quantity_value
from trainops.validate.checks.go_helpers import (
    at_least,
    enum,
    family,
    get,
    int_or_percent_problem,
    is_int,
    issue,
    label_selector,
    show,
)
from trainops.validate.context import DocumentContext

METRIC_TYPES: Final = {
    "ContainerResource": "containerResource",
    "External": "external",
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
}
TARGET_TYPES: Final = frozenset({"Utilization", "Value", "AverageValue"})
SCALING_POLICIES: Final = frozenset({"Pods", "Percent"})
SELECT_POLICIES: Final = frozenset({"Max", "Min", "Disabled"})
#: ``MaxStabilizationWindowSeconds`` and ``MaxPeriodSeconds`` (autoscaling validation).
MAX_WINDOW: Final = 3600
MAX_PERIOD: Final = 1800
EVICTION_POLICIES: Final = frozenset({"IfHealthyBudget", "AlwaysAllow"})
PREEMPTION: Final = frozenset({"PreemptLowerPriority", "Never"})
#: ``HighestUserDefinablePriority`` (``pkg/apis/scheduling/types.go``).
MAX_USER_PRIORITY: Final = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: Final = frozenset({"system-node-critical", "system-cluster-critical"})
#: ``standardQuotaResources`` (``pkg/apis/core/helper/helpers.go``).
QUOTA_RESOURCES: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
#: ``IsIntegerResourceName``: object counts.
INTEGER_RESOURCES: Final = frozenset(
    {
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
QUOTA_SCOPES: Final = frozenset(
    {
        "Terminating",
        "NotTerminating",
        "BestEffort",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
        "VolumeAttributesClass",
    }
)
SCOPE_OPERATORS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
LIMIT_TYPES: Final = frozenset({"Pod", "Container", "PersistentVolumeClaim"})
_HUGEPAGES: Final = ("hugepages-", "requests.hugepages-")
_LIMIT_FIELDS: Final = ("min", "max", "default", "defaultRequest", "maxLimitRequestRatio")
_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_PVC_RESOURCES: Final = frozenset({"storage"})


def check(context: DocumentContext) -> list[Issue]:
    """Issues of HPAs, PDBs, PriorityClasses, ResourceQuotas and LimitRanges."""
    data = context.data
    key: GroupKind = (group_of(context.api_version), context.kind)
    issues: list[Issue] = []
    if key == ("autoscaling", "HorizontalPodAutoscaler"):
        hpa_spec(data.get("spec"), ("spec",), issues, v1=context.api_version == "autoscaling/v1")
    elif key == ("policy", "PodDisruptionBudget"):
        pdb_spec(data.get("spec"), ("spec",), issues)
    elif key == ("scheduling.k8s.io", "PriorityClass"):
        priority_class(data, issues)
    elif key == ("", "ResourceQuota"):
        quota_spec(data.get("spec"), ("spec",), issues)
    elif key == ("", "LimitRange"):
        limit_range_spec(data.get("spec"), ("spec",), issues)
    return issues


#: Kinds this family checks.
KINDS: Final = frozenset(
    {"HorizontalPodAutoscaler", "PodDisruptionBudget", "PriorityClass", "ResourceQuota", "LimitRange"}
)
FAMILY = family(check, KINDS)


# --- HorizontalPodAutoscaler --------------------------------------------------------------------


def hpa_spec(spec: Any, parts: Parts, issues: list[Issue], *, v1: bool) -> None:
    """``ValidateHorizontalPodAutoscalerSpec`` (v2, and v1 after conversion: its
    ``targetCPUUtilizationPercentage`` becomes a Resource metric's averageUtilization)."""
    if not isinstance(spec, dict):
        return
    low, high = spec.get("minReplicas", 1), spec.get("maxReplicas")
    if is_int(low) and low < 1:
        issues.append(
            issue(
                (*parts, "minReplicas"),
                f"minReplicas is {low}; it must be at least 1 (scale to zero needs the HPAScaleToZero feature gate)",
                "hpa",
            )
        )
    if is_int(high) and high < 1:
        issues.append(issue((*parts, "maxReplicas"), f"maxReplicas is {high}; it must be at least 1", "hpa"))
    elif is_int(high) and is_int(low) and high < low:
        issues.append(
            issue((*parts, "maxReplicas"), f"maxReplicas {high} is less than minReplicas {low}", "hpa")
        )
    ref = spec.get("scaleTargetRef")
    if isinstance(ref, dict):
        for name in ("kind", "name"):
            value = ref.get(name)
            if value in (None, ""):
                issues.append(issue((*parts, "scaleTargetRef"), f"scaleTargetRef.{name} is required", "hpa"))
            elif isinstance(value, str):
                problem = PATH_SEGMENT.problem(value)
                if problem:
                    issues.append(
                        issue(
                            (*parts, "scaleTargetRef", name),
                            f"scaleTargetRef.{name} {show(value)} {problem}",
                            "hpa",
                        )
                    )
    if v1:
        issues.extend(
            at_least(
                spec, "targetCPUUtilizationPercentage", 1, parts, "targetCPUUtilizationPercentage", "hpa"
            )
        )
        return
    metrics = spec.get("metrics")
    if isinstance(metrics, list):
        for index, metric in enumerate(metrics):
            if isinstance(metric, dict):
                _metric(metric, (*parts, "metrics", index), issues)
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for direction in ("scaleUp", "scaleDown"):
            rules = behavior.get(direction)
            if isinstance(rules, dict):
                _scaling_rules(rules, (*parts, "behavior", direction), f"behavior.{direction}", issues)


#: Per metric source (``validateResourceSource``, ``validateContainerResourceSource``,
#: ``validateObjectSource``, ``validateExternalSource``, ``validatePodsSource``): the target fields of
#: which one must be set, and whether setting two of them is forbidden. A Resource metric takes
#: ``averageUtilization`` or ``averageValue`` only: ``target.type: Value`` with ``value`` is rejected.
SOURCE_TARGETS: Final[dict[str, tuple[tuple[str, ...], bool]]] = {
    "resource": (("averageUtilization", "averageValue"), True),
    "containerResource": (("averageUtilization", "averageValue"), True),
    "object": (("value", "averageValue"), False),
    "external": (("value", "averageValue"), True),
    "pods": (("averageValue",), False),
}


def _metric(metric: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validateMetricSpec`` and the source's own function: a known type, its source set, a resource
    or metric name, a container (ContainerResource), a valid target with the fields the source takes."""
    kind = metric.get("type")
    issues.extend(enum(metric, "type", METRIC_TYPES, parts, "metric type", "enum"))
    if not isinstance(kind, str) or kind not in METRIC_TYPES:
        return
    source_field = METRIC_TYPES[kind]
    source = metric.get(source_field)
    if not isinstance(source, dict):
        issues.append(issue(parts, f"a {kind} metric needs spec.metrics[].{source_field}", "hpa"))
        return
    here = (*parts, source_field)
    if source_field in ("resource", "containerResource") and source.get("name") in (None, ""):
        issues.append(issue(here, f"the {kind} metric needs a resource name", "hpa"))
    if source_field == "containerResource":
        container = source.get("container")
        if container in (None, ""):
            issues.append(issue(here, "the ContainerResource metric needs a container name", "hpa"))
        elif isinstance(container, str) and (problem := DNS1123_LABEL.problem(container)):
            issues.append(issue((*here, "container"), f"metric container {show(container)} {problem}", "hpa"))
    if source_field in ("object", "external", "pods"):
        _metric_identifier(source.get("metric"), (*here, "metric"), kind, issues)
    target = source.get("target")
    if isinstance(target, dict):
        _target(target, (*here, "target"), kind, source_field, issues)


def _metric_identifier(identifier: Any, parts: Parts, kind: str, issues: list[Issue]) -> None:
    """``validateMetricIdentifier``: a metric name that is a valid path segment."""
    name = identifier.get("name") if isinstance(identifier, dict) else None
    if name in (None, ""):
        issues.append(issue(parts, f"the {kind} metric needs metric.name", "hpa"))
    elif isinstance(name, str) and (problem := PATH_SEGMENT.problem(name)):
        issues.append(issue((*parts, "name"), f"metric name {show(name)} {problem}", "hpa"))


def _target(target: dict[str, Any], parts: Parts, kind: str, source_field: str, issues: list[Issue]) -> None:
    """``validateMetricTarget``, then the source's rule on which target fields it takes
    (:data:`SOURCE_TARGETS`)."""
    target_type = target.get("type")
    if isinstance(target_type, str) and target_type not in TARGET_TYPES:
        issues.append(
            issue(
                (*parts, "type"),
                f"metric target type {show(target_type)} must be Utilization, Value or AverageValue",
                "hpa",
            )
        )
    utilization = target.get("averageUtilization")
    if is_int(utilization) and utilization <= 0:
        issues.append(
            issue(
                (*parts, "averageUtilization"),
                f"averageUtilization is {utilization}; it must be positive",
                "hpa",
            )
        )
    for name in ("value", "averageValue"):
        raw = target.get(name)
        if isinstance(raw, str | int | float) and not isinstance(raw, bool):
            value = quantity_value(raw)
            if value is not None and value <= 0:
                issues.append(
                    issue((*parts, name), f"metric target {name} {show(raw)} must be positive", "hpa")
                )
    accepted, exclusive = SOURCE_TARGETS[source_field]
    present = [name for name in accepted if target.get(name) is not None]
    if not present:
        refused = [name for name in ("value", "averageValue") if name not in accepted and name in target]
        but = f" ({refused[0]} does not count for a {kind} metric)" if refused else ""
        issues.append(issue(parts, f"a {kind} metric target needs {' or '.join(accepted)}{but}", "hpa"))
    elif exclusive and len(present) > 1:
        both = " and ".join(present)
        issues.append(issue((*parts, present[-1]), f"a {kind} metric target may not set both {both}", "hpa"))


def _scaling_rules(rules: dict[str, Any], parts: Parts, what: str, issues: list[Issue]) -> None:
    """``validateScalingRules``: window 0…3600 s, selectPolicy, policies (type, value > 0, period
    1…1800 s), tolerance ≥ 0."""
    window = rules.get("stabilizationWindowSeconds")
    if is_int(window) and not 0 <= window <= MAX_WINDOW:
        issues.append(
            issue(
                (*parts, "stabilizationWindowSeconds"),
                f"{what}.stabilizationWindowSeconds is {window}; it must be between 0 and {MAX_WINDOW}",
                "hpa",
            )
        )
    issues.extend(enum(rules, "selectPolicy", SELECT_POLICIES, parts, f"{what}.selectPolicy", "enum"))
    policies = rules.get("policies")
    if policies == []:
        issues.append(
            issue(
                (*parts, "policies"), f"{what}.policies is empty; give at least one policy or omit it", "hpa"
            )
        )
    elif isinstance(policies, list):
        for index, policy in enumerate(policies):
            if not isinstance(policy, dict):
                continue
            item = (*parts, "policies", index)
            issues.extend(enum(policy, "type", SCALING_POLICIES, item, f"{what} policy type", "enum"))
            issues.extend(at_least(policy, "value", 1, item, f"{what}.policies[{index}].value", "hpa"))
            period = policy.get("periodSeconds")
            if is_int(period) and not 1 <= period <= MAX_PERIOD:
                issues.append(
                    issue(
                        (*item, "periodSeconds"),
                        f"{what}.policies[{index}].periodSeconds is {period}; it must be between 1 and {MAX_PERIOD}",
                        "hpa",
                    )
                )
    tolerance = rules.get("tolerance")
    if isinstance(tolerance, str | int | float) and not isinstance(tolerance, bool):
        value = quantity_value(tolerance)
        if value is not None and value < 0:
            issues.append(
                issue((*parts, "tolerance"), f"{what}.tolerance {show(tolerance)} is negative", "hpa")
            )


# --- PodDisruptionBudget, PriorityClass ---------------------------------------------------------


def pdb_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidatePodDisruptionBudgetSpec``."""
    if not isinstance(spec, dict):
        return
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        issues.append(issue(parts, "minAvailable and maxUnavailable cannot both be set", "pdb"))
    for name in ("minAvailable", "maxUnavailable"):
        value = spec.get(name)
        problem = int_or_percent_problem(value)
        if problem:
            issues.append(issue((*parts, name), f"spec.{name} {show(value)} {problem}", "pdb"))
    issues.extend(
        enum(
            spec, "unhealthyPodEvictionPolicy", EVICTION_POLICIES, parts, "unhealthyPodEvictionPolicy", "enum"
        )
    )
    label_selector(spec.get("selector"), (*parts, "selector"), issues)


def priority_class(data: dict[str, Any], issues: list[Issue]) -> None:
    """``ValidatePriorityClass``: reserved ``system-`` names, the user-defined maximum, preemptionPolicy."""
    name = get(data, "metadata", "name")
    value = data.get("value")
    if isinstance(name, str) and name.startswith("system-"):
        if name not in SYSTEM_PRIORITY_CLASSES:
            issues.append(
                issue(
                    ("metadata", "name"),
                    f"PriorityClass name {show(name)}: the 'system-' prefix is reserved for "
                    f"{', '.join(sorted(SYSTEM_PRIORITY_CLASSES))}",
                    "priority-class",
                )
            )
    elif is_int(value) and value > MAX_USER_PRIORITY:
        issues.append(
            issue(
                ("value",),
                f"PriorityClass value {value} is more than {MAX_USER_PRIORITY}, the maximum of a user-defined priority",
                "priority-class",
            )
        )
    issues.extend(enum(data, "preemptionPolicy", PREEMPTION, (), "preemptionPolicy", "enum"))


# --- ResourceQuota, LimitRange -------------------------------------------------------------------


def quota_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateResourceQuotaSpec``: resource names and values, scopes, scope selector."""
    if not isinstance(spec, dict):
        return
    hard = spec.get("hard")
    if isinstance(hard, dict):
        for name, raw in hard.items():
            if not isinstance(name, str):
                continue
            entry = (*parts, "hard", name)
            problem = _quota_name_problem(name)
            if problem:
                issues.append(issue(entry, f"quota resource {show(name)} {problem}", "quota"))
            value = (
                quantity_value(raw)
                if isinstance(raw, str | int | float) and not isinstance(raw, bool)
                else None
            )
            if value is None:
                continue
            if value < 0:
                issues.append(issue(entry, f"quota {show(name)} {show(raw)} is negative", "quota"))
            elif value.denominator != 1 and (name in INTEGER_RESOURCES or name.startswith("count/")):
                issues.append(
                    issue(
                        entry,
                        f"quota {show(name)} {show(raw)} must be a whole number (it counts objects)",
                        "quota",
                    )
                )
    scopes = spec.get("scopes")
    if isinstance(scopes, list):
        unknown = [s for s in scopes if isinstance(s, str) and s not in QUOTA_SCOPES]
        if unknown:
            issues.append(
                issue(
                    (*parts, "scopes"),
                    f"quota scope {show(unknown[0])} is not one of {', '.join(sorted(QUOTA_SCOPES))}",
                    "quota",
                )
            )
        elif "BestEffort" in scopes and isinstance(hard, dict) and set(hard) - {"pods"}:
            issues.append(
                issue(
                    (*parts, "scopes"),
                    "the BestEffort quota scope applies to the pods resource only",
                    "quota",
                )
            )
    expressions = get(spec, "scopeSelector", "matchExpressions")
    if isinstance(expressions, list):
        for index, expression in enumerate(expressions):
            if isinstance(expression, dict):
                _scope_requirement(expression, (*parts, "scopeSelector", "matchExpressions", index), issues)


def _quota_name_problem(name: str) -> str | None:
    """``validateResourceQuotaResourceName``: a standard quota resource, or a qualified ``a/b`` name."""
    if "/" in name:
        problem = qualified_name_problem(name)
        return f"is not a qualified name: {problem}" if problem else None
    if name in QUOTA_RESOURCES or name.startswith(_HUGEPAGES):
        return None
    return "is not a standard quota resource (cpu, memory, requests.*, limits.*, pods, ...) nor a domain-qualified name"


def _scope_requirement(expression: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validateScopedResourceSelectorRequirement``."""
    issues.extend(enum(expression, "scopeName", QUOTA_SCOPES, parts, "scopeName", "enum"))
    operator, values = expression.get("operator"), expression.get("values")
    count = len(values) if isinstance(values, list) else 0
    if isinstance(operator, str) and operator not in SCOPE_OPERATORS:
        issues.append(
            issue(
                (*parts, "operator"),
                f"scope selector operator {show(operator)} is not one of In, NotIn, Exists, DoesNotExist",
                "quota",
            )
        )
    elif operator in ("In", "NotIn") and count == 0:
        issues.append(
            issue((*parts, "values"), f"scope selector operator {operator} needs at least one value", "quota")
        )
    elif operator in ("Exists", "DoesNotExist") and count:
        issues.append(
            issue(
                (*parts, "values"),
                f"scope selector operator {operator} takes no values (got {count})",
                "quota",
            )
        )


def limit_range_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateLimitRange``: per item, the type, no defaults for Pods, and the order
    min ≤ defaultRequest ≤ default ≤ max, maxLimitRequestRatio ≥ 1."""
    limits = spec.get("limits") if isinstance(spec, dict) else None
    if not isinstance(limits, list):
        return
    for index, item in enumerate(limits):
        if not isinstance(item, dict):
            continue
        item_parts = (*parts, "limits", index)
        kind = item.get("type")
        if (
            isinstance(kind, str)
            and kind not in LIMIT_TYPES
            and ("/" not in kind or qualified_name_problem(kind))
        ):
            issues.append(
                issue(
                    (*item_parts, "type"),
                    f"LimitRange type {show(kind)} is not one of Container, PersistentVolumeClaim, Pod",
                    "limit-range",
                )
            )
        if kind == "Pod":
            for name in ("default", "defaultRequest"):
                if item.get(name) is not None:
                    issues.append(
                        issue(
                            (*item_parts, name),
                            f"{name} may not be set for LimitRange type Pod",
                            "limit-range",
                        )
                    )
        allowed = _PVC_RESOURCES if kind == "PersistentVolumeClaim" else _CONTAINER_RESOURCES
        for name in _LIMIT_FIELDS:
            mapping = item.get(name)
            if not isinstance(mapping, dict):
                continue
            for resource in mapping:
                hugepages = allowed is _CONTAINER_RESOURCES and str(resource).startswith("hugepages-")
                if (
                    isinstance(resource, str)
                    and "/" not in resource
                    and resource not in allowed
                    and not hugepages
                ):
                    issues.append(
                        issue(
                            (*item_parts, name, resource),
                            f"LimitRange {name} resource {show(resource)} is not one of {', '.join(sorted(allowed))} "
                            "nor a domain-qualified name",
                            "limit-range",
                        )
                    )
        values = {name: _quantities(item.get(name)) for name in _LIMIT_FIELDS}
        order = (
            ("min", "max"),
            ("min", "default"),
            ("min", "defaultRequest"),
            ("default", "max"),
            ("defaultRequest", "max"),
            ("defaultRequest", "default"),
        )
        for low_name, high_name in order:
            for resource, low in values[low_name].items():
                high = values[high_name].get(resource)
                if high is not None and low > high:
                    issues.append(
                        issue(
                            (*item_parts, low_name, resource),
                            f"{low_name} {resource} {_fmt(item, low_name, resource)} is more than {high_name} "
                            f"{_fmt(item, high_name, resource)}",
                            "limit-range",
                        )
                    )
        for resource, ratio in values["maxLimitRequestRatio"].items():
            if ratio < 1:
                issues.append(
                    issue(
                        (*item_parts, "maxLimitRequestRatio", resource),
                        f"maxLimitRequestRatio {resource} {_fmt(item, 'maxLimitRequestRatio', resource)} is less than 1",
                        "limit-range",
                    )
                )


def _quantities(mapping: Any) -> dict[str, Fraction]:
    if not isinstance(mapping, dict):
        return {}
    out: dict[str, Fraction] = {}
    for name, raw in mapping.items():
        if isinstance(name, str) and isinstance(raw, str | int | float) and not isinstance(raw, bool):
            value = quantity_value(raw)
            if value is not None:
                out[name] = value
    return out


def _fmt(item: dict[str, Any], field_name: str, resource: str) -> str:
    return show(get(item, field_name, resource))
