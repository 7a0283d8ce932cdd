"""API-server checks of workload specs (rule ``api-server``): apps and batch.

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors k8s.io/kubernetes ``pkg/apis/apps/validation/validation.go`` and
``pkg/apis/batch/validation/validation.go`` (v1.36); pod templates are :mod:`.pod_fields`'.

=====================  ============================================================================
keyword                check (Go function)
=====================  ============================================================================
``replicas``           replicas ≥ 0 (``ValidateNonnegativeField`` in ``ValidateDeploymentSpec``,
                       ``ValidateReplicaSetSpec``, ``ValidateStatefulSetSpec``,
                       ``ValidateReplicationControllerSpec``)
``workload-spec``      minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds ≥ 0 and
                       progressDeadlineSeconds > minReadySeconds (``ValidateDeploymentSpec``);
                       StatefulSet podManagementPolicy, partition, PVC retention policy
                       (``ValidateStatefulSetSpec``); Job counts and deadlines
                       (``validateJobSpec``); CronJob deadlines and history limits
                       (``validateCronJobSpec``)
``strategy``           Deployment strategy type, no ``rollingUpdate`` with Recreate, maxSurge/
                       maxUnavailable (``ValidateDeploymentStrategy``,
                       ``ValidateRollingUpdateDeployment``); StatefulSet and DaemonSet update
                       strategies (``ValidateStatefulSetUpdateStrategy``,
                       ``ValidateDaemonSetUpdateStrategy``)
``enum``               Job completionMode, podReplacementPolicy; CronJob concurrencyPolicy
``cron-schedule``      CronJob schedule (``validateScheduleFormat`` → robfig/cron ``ParseStandard``,
                       :mod:`trainops.validate.cron`) and timeZone (``validateTimeZone``)
=====================  ============================================================================
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import EMBEDDED_OBJECTS, GroupKind, Parts, group_of, walk
from trainops.validate.checks.go_helpers import (
    at_least,
    enum,
    family,
    int_or_percent_problem,
    is_int,
    issue,
    percent_value,
    placeholder,
    show,
)
from trainops.validate.context import DocumentContext

DEPLOYMENT_STRATEGIES: Final = frozenset({"Recreate", "RollingUpdate"})
UPDATE_STRATEGIES: Final = frozenset({"RollingUpdate", "OnDelete"})
POD_MANAGEMENT: Final = frozenset({"OrderedReady", "Parallel"})
RETENTION: Final = frozenset({"Retain", "Delete"})
COMPLETION_MODES: Final = frozenset({"NonIndexed", "Indexed"})
POD_REPLACEMENT: Final = frozenset({"Failed", "TerminatingOrFailed"})
CONCURRENCY: Final = frozenset({"Allow", "Forbid", "Replace"})
_TZ_PART: Final = r"[A-Za-z.\-_0-9+]{1,14}"
_REPLICATED: Final = frozenset(
    {("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"), ("", "ReplicationController")}
)


def check(context: DocumentContext) -> list[Issue]:
    """Workload-spec issues of the document and of embedded objects (Katib trial templates)."""
    issues: list[Issue] = []
    if not any(issue.parts == () and issue.keyword == "required" for issue in context.found_by("schema")):
        missing_spec_issues(context.data, (), issues)  # a schema requiring spec reported it already
    _object(context.data, (), issues, templated=False)
    key = (group_of(context.api_version), context.kind)
    for path in EMBEDDED_OBJECTS.get(key, ()):
        for nested, parts in walk(context.data, path):
            if isinstance(nested, dict):
                _object(nested, parts, issues, templated=True)
    return issues


#: Kinds this family checks (embedded Katib trial objects are reached through their owner).
KINDS: Final = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController", "DaemonSet", "Job", "CronJob"}
    | {"Pod", "PodTemplate"}
    | {kind for _, kind in EMBEDDED_OBJECTS}
)
FAMILY = family(check, KINDS)


def _object(obj: dict[str, Any], base: Parts, issues: list[Issue], *, templated: bool) -> None:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    spec = obj.get("spec")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not isinstance(spec, dict):
        return
    key: GroupKind = (group_of(api_version), kind)
    parts = (*base, "spec")
    if key in _REPLICATED:
        issues.extend(at_least(spec, "replicas", 0, parts, f"{kind} spec.replicas", "replicas"))
    if key in _REPLICATED or key == ("apps", "DaemonSet"):
        issues.extend(at_least(spec, "minReadySeconds", 0, parts, "spec.minReadySeconds", "workload-spec"))
    if key == ("apps", "Deployment"):
        deployment_spec(spec, parts, issues)
    elif key == ("apps", "StatefulSet"):
        stateful_set_spec(spec, parts, issues)
    elif key == ("apps", "DaemonSet"):
        daemon_set_spec(spec, parts, issues)
    elif key == ("batch", "Job"):
        job_spec(spec, parts, templated, issues)
    elif key == ("batch", "CronJob"):
        cron_job_spec(spec, parts, templated, issues)


#: What the API server requires of an object of each built-in kind that has no ``spec`` (no
#: ``template`` for a PodTemplate), after defaulting: ``(parts, message, keyword)`` per error, in the
#: order it reports them. Deployment and ReplicaSet: ``ValidateDeploymentSpec``/``ValidateReplicaSetSpec``
#: (a nil selector is required and selects nothing, so it matches no template labels) and
#: ``ValidatePodTemplateSpecForReplicaSet`` → ``validateContainers``; StatefulSet: ``ValidateStatefulSetSpec``
#: (its template is checked as every pod template here); DaemonSet: ``ValidateDaemonSetSpec`` (the
#: selector is not required, but nothing matches); ReplicationController: ``ValidateNonEmptySelector``
#: and ``ValidatePodTemplateSpecForRC`` (nothing to default the selector from); Job: ``validateJobSpec``
#: (the selector and its labels are generated; the pod's restartPolicy defaults to Always, which a Job
#: refuses); CronJob: ``validateCronJobSpec``; Pod and PodTemplate: ``validateContainers``.
_SELECTOR: Final = (("spec", "selector"), "spec.selector is required", "label-selector")
_NO_MATCH: Final = (
    ("spec", "template", "metadata", "labels"),
    "no selector selects the template labels (spec.template.metadata.labels)",
    "selector-mismatch",
)
_CONTAINERS: Final = "containers is required: a pod needs at least one container"
_RESTART: Final = (
    'restartPolicy defaults to "Always", which a Job\'s pods may not use (set "OnFailure" or "Never")'
)
_TEMPLATE_CONTAINERS: Final = (
    ("spec", "template", "spec", "containers"),
    f"spec.template.spec.{_CONTAINERS}",
    "containers-required",
)
MISSING_SPEC: Final[dict[GroupKind, tuple[tuple[Parts, str, str], ...]]] = {
    ("apps", "Deployment"): (_SELECTOR, _NO_MATCH, _TEMPLATE_CONTAINERS),
    ("apps", "ReplicaSet"): (_SELECTOR, _NO_MATCH, _TEMPLATE_CONTAINERS),
    ("apps", "StatefulSet"): (_SELECTOR, _NO_MATCH, _TEMPLATE_CONTAINERS),
    ("apps", "DaemonSet"): (_NO_MATCH, _TEMPLATE_CONTAINERS),
    ("", "ReplicationController"): (
        (
            ("spec", "selector"),
            "spec.selector is required (no template labels to default it from)",
            "label-selector",
        ),
        (("spec", "template"), "spec.template is required", "pod-template"),
    ),
    ("batch", "Job"): (
        _TEMPLATE_CONTAINERS,
        (("spec", "template", "spec", "restartPolicy"), f"spec.template.spec.{_RESTART}", "restart-policy"),
    ),
    ("batch", "CronJob"): (
        (("spec", "schedule"), "spec.schedule is required", "cron-schedule"),
        (
            ("spec", "jobTemplate", "spec", "template", "spec", "containers"),
            f"spec.jobTemplate.spec.template.spec.{_CONTAINERS}",
            "containers-required",
        ),
        (
            ("spec", "jobTemplate", "spec", "template", "spec", "restartPolicy"),
            f"spec.jobTemplate.spec.template.spec.{_RESTART}",
            "restart-policy",
        ),
    ),
    ("", "Pod"): ((("spec", "containers"), f"spec.{_CONTAINERS}", "containers-required"),),
    ("", "PodTemplate"): (
        (("template", "spec", "containers"), f"template.spec.{_CONTAINERS}", "containers-required"),
    ),
}


def missing_spec_issues(obj: dict[str, Any], base: Parts, issues: list[Issue]) -> None:
    """What the API server reports for a built-in object without ``spec`` (``template`` for a
    PodTemplate), or with a null one: :data:`MISSING_SPEC`. Nothing for other kinds or when the field
    is there (the schema and the other checks judge it then)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return
    key: GroupKind = (group_of(api_version), kind)
    errors = MISSING_SPEC.get(key)
    field = "template" if key == ("", "PodTemplate") else "spec"
    if errors is None or obj.get(field) is not None:
        return
    for parts, message, keyword in errors:
        issues.append(issue((*base, *parts), f"{kind} has no {field}: {message}", keyword))


def deployment_spec(spec: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``ValidateDeploymentSpec``: history and deadlines, ``ValidateDeploymentStrategy``."""
    issues.extend(
        at_least(spec, "revisionHistoryLimit", 0, parts, "spec.revisionHistoryLimit", "workload-spec")
    )
    issues.extend(
        at_least(spec, "progressDeadlineSeconds", 0, parts, "spec.progressDeadlineSeconds", "workload-spec")
    )
    deadline, min_ready = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds")
    if is_int(deadline) and is_int(min_ready) and deadline >= 0 and deadline <= min_ready:
        issues.append(
            issue(
                (*parts, "progressDeadlineSeconds"),
                f"spec.progressDeadlineSeconds {deadline} must be greater than spec.minReadySeconds {min_ready}",
                "workload-spec",
            )
        )
    strategy = spec.get("strategy")
    if not isinstance(strategy, dict):
        return
    strategy_parts = (*parts, "strategy")
    kind = strategy.get("type", "RollingUpdate")
    rolling = strategy.get("rollingUpdate")
    if isinstance(kind, str) and kind not in DEPLOYMENT_STRATEGIES:
        issues.append(
            issue(
                (*strategy_parts, "type"),
                f'spec.strategy.type {show(kind)} is not one of "Recreate", "RollingUpdate"',
                "strategy",
            )
        )
    elif kind == "Recreate" and rolling is not None:
        issues.append(
            issue(
                (*strategy_parts, "rollingUpdate"),
                "spec.strategy.rollingUpdate may not be set when the strategy type is Recreate",
                "strategy",
            )
        )
    elif isinstance(rolling, dict):
        _rolling(rolling, (*strategy_parts, "rollingUpdate"), "spec.strategy.rollingUpdate", issues)


def _rolling(rolling: dict[str, Any], parts: Parts, what: str, issues: list[Issue]) -> None:
    """``ValidateRollingUpdateDeployment``: int-or-percent values, maxUnavailable ≤ 100 %, not both 0."""
    for name in ("maxSurge", "maxUnavailable"):
        value = rolling.get(name)
        problem = int_or_percent_problem(value)
        if problem == "is more than 100%" and name == "maxSurge":
            problem = None  # only maxUnavailable is capped (IsNotMoreThan100Percent)
        if problem:
            issues.append(issue((*parts, name), f"{what}.{name} {show(value)} {problem}", "strategy"))
    surge, unavailable = rolling.get("maxSurge"), rolling.get("maxUnavailable")
    if _zero(surge) and _zero(unavailable):
        issues.append(
            issue(
                (*parts, "maxUnavailable"),
                f"{what}.maxUnavailable and maxSurge are both 0; the rollout could never progress",
                "strategy",
            )
        )


def _zero(value: Any) -> bool:
    return (value == 0 and is_int(value)) or percent_value(value) == 0


def stateful_set_spec(spec: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``ValidateStatefulSetSpec``: podManagementPolicy, update strategy, PVC retention policy."""
    policy = spec.get("podManagementPolicy")
    if isinstance(policy, str) and policy not in POD_MANAGEMENT:
        issues.append(
            issue(
                (*parts, "podManagementPolicy"),
                f"spec.podManagementPolicy {show(policy)} must be 'OrderedReady' or 'Parallel'",
                "workload-spec",
            )
        )
    issues.extend(
        at_least(spec, "revisionHistoryLimit", 0, parts, "spec.revisionHistoryLimit", "workload-spec")
    )
    strategy = spec.get("updateStrategy")
    if isinstance(strategy, dict):
        strategy_parts = (*parts, "updateStrategy")
        kind = strategy.get("type", "RollingUpdate")
        rolling = strategy.get("rollingUpdate")
        if isinstance(kind, str) and kind not in UPDATE_STRATEGIES:
            issues.append(
                issue(
                    (*strategy_parts, "type"),
                    f"spec.updateStrategy.type {show(kind)} must be 'RollingUpdate' or 'OnDelete'",
                    "strategy",
                )
            )
        elif kind == "OnDelete" and rolling is not None:
            issues.append(
                issue(
                    (*strategy_parts, "rollingUpdate"),
                    "spec.updateStrategy.rollingUpdate is only allowed for updateStrategy 'RollingUpdate'",
                    "strategy",
                )
            )
        elif isinstance(rolling, dict):
            rolling_parts = (*strategy_parts, "rollingUpdate")
            issues.extend(
                at_least(
                    rolling,
                    "partition",
                    0,
                    rolling_parts,
                    "spec.updateStrategy.rollingUpdate.partition",
                    "strategy",
                )
            )
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        retention_parts = (*parts, "persistentVolumeClaimRetentionPolicy")
        for name in ("whenDeleted", "whenScaled"):
            issues.extend(
                enum(
                    retention,
                    name,
                    RETENTION,
                    retention_parts,
                    f"persistentVolumeClaimRetentionPolicy.{name}",
                    "enum",
                )
            )


def daemon_set_spec(spec: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``ValidateDaemonSetSpec`` → ``ValidateDaemonSetUpdateStrategy``/``ValidateRollingUpdateDaemonSet``:
    maxUnavailable defaults to 1 and maxSurge to 0; exactly one of them is non-zero."""
    issues.extend(
        at_least(spec, "revisionHistoryLimit", 0, parts, "spec.revisionHistoryLimit", "workload-spec")
    )
    strategy = spec.get("updateStrategy")
    if not isinstance(strategy, dict):
        return
    strategy_parts = (*parts, "updateStrategy")
    kind = strategy.get("type", "RollingUpdate")
    if isinstance(kind, str) and kind not in UPDATE_STRATEGIES:
        issues.append(
            issue(
                (*strategy_parts, "type"),
                f'spec.updateStrategy.type {show(kind)} is not one of "OnDelete", "RollingUpdate"',
                "strategy",
            )
        )
        return
    rolling = strategy.get("rollingUpdate")
    if kind != "RollingUpdate" or not isinstance(rolling, dict):
        return
    rolling_parts = (*strategy_parts, "rollingUpdate")
    what = "spec.updateStrategy.rollingUpdate"
    for name in ("maxSurge", "maxUnavailable"):
        value = rolling.get(name)
        problem = int_or_percent_problem(value)
        if problem:
            issues.append(issue((*rolling_parts, name), f"{what}.{name} {show(value)} {problem}", "strategy"))
            return
    surge = rolling.get("maxSurge", 0)
    unavailable = rolling.get("maxUnavailable", 1)
    if _zero(unavailable) and _zero(surge):
        issues.append(
            issue(
                (*rolling_parts, "maxUnavailable"),
                f"{what}.maxUnavailable cannot be 0 when maxSurge is 0",
                "strategy",
            )
        )
    elif not _zero(unavailable) and not _zero(surge):
        issues.append(
            issue(
                (*rolling_parts, "maxSurge"),
                f"{what}.maxSurge {show(surge)} may not be set when maxUnavailable {show(unavailable)} is non-zero",
                "strategy",
            )
        )


def job_spec(spec: dict[str, Any], parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateJobSpec``: non-negative counts and deadlines, completionMode, podReplacementPolicy,
    backoffLimitPerIndex only with Indexed completion."""
    for name in (
        "parallelism",
        "completions",
        "backoffLimit",
        "activeDeadlineSeconds",
        "ttlSecondsAfterFinished",
    ):
        if not placeholder(spec.get(name), templated):
            issues.extend(at_least(spec, name, 0, parts, f"Job spec.{name}", "workload-spec"))
    issues.extend(enum(spec, "completionMode", COMPLETION_MODES, parts, "completionMode", "enum", templated))
    issues.extend(
        enum(spec, "podReplacementPolicy", POD_REPLACEMENT, parts, "podReplacementPolicy", "enum", templated)
    )
    if is_int(spec.get("backoffLimitPerIndex")) and spec.get("completionMode") != "Indexed":
        issues.append(
            issue(
                (*parts, "backoffLimitPerIndex"),
                "backoffLimitPerIndex requires completionMode Indexed",
                "workload-spec",
            )
        )


def cron_job_spec(spec: dict[str, Any], parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateCronJobSpec``: schedule, timeZone, concurrencyPolicy, deadlines and history limits,
    and the Job spec of ``jobTemplate``."""
    from trainops.validate.cron import schedule_problem  # the cron parser is loaded for CronJobs only

    schedule = spec.get("schedule")
    if isinstance(schedule, str) and not placeholder(schedule, templated):
        problem = schedule_problem(schedule) if schedule else "is required"
        if problem:
            issues.append(
                issue((*parts, "schedule"), f"spec.schedule {show(schedule)}: {problem}", "cron-schedule")
            )
    zone = spec.get("timeZone")
    if isinstance(zone, str) and not placeholder(zone, templated):
        problem = time_zone_problem(zone)
        if problem:
            issues.append(
                issue((*parts, "timeZone"), f"spec.timeZone {show(zone)} {problem}", "cron-schedule")
            )
    issues.extend(enum(spec, "concurrencyPolicy", CONCURRENCY, parts, "concurrencyPolicy", "enum", templated))
    for name in ("startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        issues.extend(at_least(spec, name, 0, parts, f"CronJob spec.{name}", "workload-spec"))
    job = spec.get("jobTemplate")
    job_spec_node = job.get("spec") if isinstance(job, dict) else None
    if isinstance(job_spec_node, dict):
        job_spec(job_spec_node, (*parts, "jobTemplate", "spec"), templated, issues)


@lru_cache(maxsize=256)
def time_zone_problem(zone: str) -> str | None:
    """``validateTimeZone``: why ``zone`` is not an IANA time zone the server loads, or ``None``.
    ``Local`` is refused explicitly; each ``/`` part matches ``[A-Za-z.\\-_0-9+]{1,14}``."""
    if not zone:
        return "must be unset or a non-empty string"
    if zone == "Local":
        return "must be an explicit time zone as defined in https://www.iana.org/time-zones"
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or re.fullmatch(_TZ_PART, part) is None:
            return "is not an IANA time zone name"
    import zoneinfo  # here: it imports sysconfig, a few ms of every start-up otherwise

    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "is an unknown time zone"
    return None
