"""``lws-webhook``: what the LeaderWorkerSet controller's validating webhooks reject although the API
server's schema accepts it.

LeaderWorkerSet (``leaderworkerset.x-k8s.io/v1``) and DisaggregatedSet
(``disaggregatedset.x-k8s.io/v1``) objects pass through the LWS controller's admission webhooks
(``failurePolicy: Fail``) after the API server has applied the CRD defaults (``replicas: 1``,
``leaderWorkerTemplate.size: 1``, ``rollingUpdateConfiguration`` ``maxUnavailable: 1``, ``maxSurge: 0``,
``partition: 0``) and the mutating webhook's (``LeaderWorkerSetWebhook.Default``: a missing
``rolloutStrategy.rollingUpdateConfiguration`` becomes ``{maxUnavailable: 1, maxSurge: 0, partition: 0}``).
A manifest the webhook refuses passes ``kubectl apply --dry-run=client`` and every schema check, and
then fails Argo CD's sync. This family mirrors, at kubernetes-sigs/lws v0.10.0 (commit 2161f38f):

==========================  =========================================================================
keyword                     check (Go function in ``pkg/webhooks/leaderworkerset_webhook.go``)
==========================  =========================================================================
``dns1035-label``           ``metadata.name`` is a DNS-1035 label: it names the headless Service
                            (``generalValidate``: ``ValidateObjectMeta`` with ``NameIsDNS1035Label``)
``size``                    ``leaderWorkerTemplate.size`` ≥ 1; ``replicas`` × ``size`` ≤ 2147483647
                            (``generalValidate``)
``rolling-update``          ``maxUnavailable``/``maxSurge`` are non-negative integers or percentages
                            of at most 100 % (``ValidatePositiveIntOrPercent``,
                            ``IsNotMoreThan100Percent``; unlike a Deployment's, ``maxSurge`` is capped
                            too); ``partition`` ≥ 0; both scaled to ``replicas`` (``maxUnavailable``
                            rounded down, ``maxSurge`` up: ``intstr.GetScaledValueFromIntOrPercent``)
                            are not both 0 unless ``replicas`` is 0 (``generalValidate``)
``subgroup``                ``subGroupPolicy.subGroupSize`` is set and ≥ 1, at most ``size``, and divides
                            ``size`` or ``size - 1`` (``size - 1`` with ``LeaderExcluded``)
                            (``validateUpdateSubGroupPolicy``); the
                            ``leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology`` annotation
                            needs a ``subGroupPolicy`` (``generalValidate``)
==========================  =========================================================================

and for a DisaggregatedSet (``pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go``,
``DisaggregatedSetWebhook.validate``, ``validatePlacement``, ``validateRoleRolloutStrategy``,
``validateRoleMaxSurgeUnavailable``): per role, ``rollingUpdateConfiguration.partition`` is 0 and
``maxUnavailable``/``maxSurge`` as above (checked only when the role has replicas); an ``External``
scaling role's scaler name ``<set>-<role>`` is at most 253 characters and ``slices`` is 1; a
``placementPolicy`` other than ``None`` names a ``topology`` and no role carries an
exclusive-topology annotation (on the role or its leader/worker templates).

Update-only checks (``ValidateUpdate``: ``subGroupSize`` immutable, ``subdomainPolicy`` not cleared)
compare two revisions and are not repeated here. Messages quote the webhook's.

Source: https://github.com/kubernetes-sigs/lws/blob/v0.10.0/pkg/webhooks/leaderworkerset_webhook.go
"""

from __future__ import annotations

import math
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import Parts, group_of
from trainops.core.naming import DNS1035_LABEL
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="lws-webhook",
        level="error",
        summary="What the LeaderWorkerSet controller's admission webhooks reject although the schema "
        "accepts it (LeaderWorkerSet and DisaggregatedSet).",
        rationale="The LWS webhooks fail closed: a LeaderWorkerSet they reject is never created, so Argo "
        "CD's sync fails after the merge although every schema check passed.",
        remediation="Change the field as the message says (see kubernetes-sigs/lws "
        "pkg/webhooks/leaderworkerset_webhook.go).",
        source="https://github.com/kubernetes-sigs/lws/blob/v0.10.0/pkg/webhooks/leaderworkerset_webhook.go",
    )
)

LWS: Final = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
DISAGGREGATED: Final = ("disaggregatedset.x-k8s.io", "DisaggregatedSet")
#: ``math.MaxInt32``: the bound of ``replicas`` × ``size``.
MAX_INT32: Final = 2**31 - 1
#: ``v1.SubGroupExclusiveKeyAnnotationKey`` and ``v1.ExclusiveKeyAnnotationKey``.
SUBGROUP_EXCLUSIVE: Final = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
EXCLUSIVE: Final = "leaderworkerset.sigs.k8s.io/exclusive-topology"
#: ``utilvalidation.IsValidPercent``'s message.
_PERCENT_MESSAGE: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%', or '93%')"
)


def check(context: DocumentContext) -> list[Issue]:
    """The webhook issues of a LeaderWorkerSet or DisaggregatedSet document (none for other kinds)."""
    return webhook_issues(context.data)


def webhook_issues(data: Any) -> list[Issue]:
    """What the LWS webhooks reject in one document, in the webhook's order.

    Args:
        data: a parsed document; documents of other kinds, and fields of unexpected types (the
            schema's to report), give no issue.

    Returns:
        ``lws-webhook`` issues at the JSON paths of the offending fields.
    """
    if not isinstance(data, dict):
        return []
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    key = (group_of(api_version), kind)
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return []
    metadata = _dict(data.get("metadata"))
    issues: list[Issue] = []
    if key == LWS:
        _name(metadata, issues)
        _leader_worker_set(spec, ("spec",), _annotations(metadata), issues)
    elif key == DISAGGREGATED:
        _disaggregated_set(spec, metadata, issues)
    return issues


def _issue(parts: Parts, message: str, keyword: str) -> Issue:
    return Issue(parts, message, RULE.id, keyword)


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _annotations(node: Any) -> dict[str, Any]:
    annotations = node.get("annotations") if isinstance(node, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def _name(metadata: dict[str, Any], issues: list[Issue]) -> None:
    """``ValidateObjectMeta`` with ``NameIsDNS1035Label`` (the name becomes the headless Service's)."""
    for field, prefix in (("name", False), ("generateName", True)):
        value = metadata.get(field)
        if isinstance(value, str) and value:
            problem = DNS1035_LABEL.problem(value, prefix=prefix)
            if problem:
                issues.append(
                    _issue(
                        ("metadata", field),
                        f'metadata.{field} "{value}" {problem}: the LeaderWorkerSet names its headless '
                        "Service after it",
                        "dns1035-label",
                    )
                )


def _leader_worker_set(
    spec: dict[str, Any], parts: Parts, annotations: dict[str, Any], issues: list[Issue]
) -> None:
    """``generalValidate`` on the defaulted spec."""
    replicas = _int(spec.get("replicas", 1))
    template = spec.get("leaderWorkerTemplate")
    template = template if isinstance(template, dict) else {}
    template_parts = (*parts, "leaderWorkerTemplate")
    size = _int(template.get("size", 1))
    if size is not None and size < 1:
        issues.append(
            _issue((*template_parts, "size"), f"size {size} must be equal or greater than 1", "size")
        )
    if replicas is not None and size is not None and replicas * size > MAX_INT32:
        issues.append(
            _issue(
                (*parts, "replicas"),
                f"replicas {replicas} × size {size}: the product of replicas and worker replicas must "
                f"not exceed {MAX_INT32}",
                "size",
            )
        )
    _rolling_update(
        spec.get("rolloutStrategy"), (*parts, "rolloutStrategy"), replicas, issues, disaggregated=False
    )
    policy = template.get("subGroupPolicy")
    if isinstance(policy, dict):
        _subgroup(policy, (*template_parts, "subGroupPolicy"), size, issues)
    elif SUBGROUP_EXCLUSIVE in annotations:
        issues.append(
            _issue(
                ("metadata", "annotations", SUBGROUP_EXCLUSIVE),
                f"annotation {SUBGROUP_EXCLUSIVE}: cannot have subgroup-exclusive-topology without "
                "subGroupSize set",
                "subgroup",
            )
        )


def _configuration(strategy: Any) -> dict[str, Any] | None:
    """The defaulted ``rollingUpdateConfiguration`` (CRD defaults, or the mutating webhook's when absent)."""
    configuration = strategy.get("rollingUpdateConfiguration") if isinstance(strategy, dict) else None
    if configuration is None:
        return {"maxUnavailable": 1, "maxSurge": 0, "partition": 0}
    if not isinstance(configuration, dict):
        return None
    return {"maxUnavailable": 1, "maxSurge": 0, "partition": 0, **configuration}


def _int_or_percent(value: Any, parts: Parts, name: str, issues: list[Issue]) -> bool:
    """``ValidatePositiveIntOrPercent`` + ``IsNotMoreThan100Percent``; ``True`` when it found nothing."""
    before = len(issues)
    if isinstance(value, str):
        digits = value[:-1] if value.endswith("%") else ""
        if not digits.isdigit() or not digits.isascii():
            issues.append(_issue(parts, f'{name} "{value}": {_PERCENT_MESSAGE}', "rolling-update"))
        elif int(digits) > 100:
            issues.append(_issue(parts, f'{name} "{value}" must not be greater than 100%', "rolling-update"))
    elif type(value) is int and value < 0:
        issues.append(_issue(parts, f"{name} {value} must be greater than or equal to 0", "rolling-update"))
    return len(issues) == before


def _scaled(value: Any, total: int, *, round_up: bool) -> int | None:
    """``intstr.GetScaledValueFromIntOrPercent``: ``None`` where it returns an error."""
    if type(value) is int:
        return value
    if not isinstance(value, str) or not value.endswith("%"):
        return None
    try:
        percent = int(value[:-1], 10)  # strconv.Atoi: a sign is allowed
    except ValueError:
        return None
    share = percent * total / 100
    return math.ceil(share) if round_up else math.floor(share)


def _rolling_update(
    strategy: Any, parts: Parts, replicas: int | None, issues: list[Issue], *, disaggregated: bool
) -> None:
    """The LWS (``generalValidate``) or DisaggregatedSet role (``validateRoleRolloutStrategy``) checks."""
    configuration = _configuration(strategy)
    if configuration is None or replicas is None:
        return
    if disaggregated and isinstance(strategy, dict) and strategy.get("rollingUpdateConfiguration") is None:
        return  # a role without a configuration is not checked
    config_parts = (*parts, "rollingUpdateConfiguration")
    unavailable, surge = configuration["maxUnavailable"], configuration["maxSurge"]
    partition = configuration["partition"]
    if disaggregated:
        if type(partition) is int and partition != 0:
            issues.append(
                _issue(
                    (*config_parts, "partition"),
                    f"partition {partition}: partition is not supported by DisaggregatedSet; rolling "
                    "updates are managed across roles by the DisaggregatedSet controller",
                    "rolling-update",
                )
            )
        if replicas == 0:
            return
    fine = _int_or_percent(unavailable, (*config_parts, "maxUnavailable"), "maxUnavailable", issues)
    fine &= _int_or_percent(surge, (*config_parts, "maxSurge"), "maxSurge", issues)
    if not disaggregated and type(partition) is int and partition < 0:
        issues.append(
            _issue(
                (*config_parts, "partition"),
                f"partition {partition} must be greater than or equal to 0",
                "rolling-update",
            )
        )
    if disaggregated and not fine:
        return
    low = _scaled(unavailable, replicas, round_up=False)
    high = _scaled(surge, replicas, round_up=True)
    for value, scaled, name in ((unavailable, low, "maxUnavailable"), (surge, high, "maxSurge")):
        if scaled is None and (isinstance(value, str) or type(value) is int):
            issues.append(_issue((*config_parts, name), f"{name} {value!r}: invalid value", "rolling-update"))
            if disaggregated:
                return
    if (low or 0) == 0 and (high or 0) == 0 and replicas != 0:
        issues.append(
            _issue(
                (*config_parts, "maxUnavailable"),
                f"maxUnavailable {unavailable!r} and maxSurge {surge!r} are both 0 for {replicas} "
                "replicas: maxUnavailable must not be 0 when `maxSurge` is 0",
                "rolling-update",
            )
        )


def _subgroup(policy: dict[str, Any], parts: Parts, size: int | None, issues: list[Issue]) -> None:
    """``validateUpdateSubGroupPolicy``; a missing or zero ``subGroupSize`` makes the Go code fail (nil
    dereference, division by zero), which the webhook reports as a refusal."""
    sub = policy.get("subGroupSize")
    path = (*parts, "subGroupSize")
    if sub is None:
        issues.append(_issue(path, "subGroupSize is required when subGroupPolicy is set", "subgroup"))
        return
    if type(sub) is not int or size is None:
        return
    if sub < 1:
        issues.append(_issue(path, f"subGroupSize {sub} must be equal or greater than 1", "subgroup"))
        return
    if size % sub != 0 and (size - 1) % sub != 0:
        issues.append(
            _issue(
                path,
                f"subGroupSize {sub}: size {size} or size - 1 must be divisible by subGroupSize",
                "subgroup",
            )
        )
    if size < sub:
        issues.append(_issue(path, f"subGroupSize {sub} cannot be larger than size {size}", "subgroup"))
    if policy.get("subGroupPolicyType") == "LeaderExcluded" and (size - 1) % sub != 0:
        issues.append(
            _issue(
                path,
                f"subGroupSize {sub}: size-1 ({size - 1}) must be divisible by subGroupSize when using "
                "LeaderExcluded",
                "subgroup",
            )
        )


def _disaggregated_set(spec: dict[str, Any], metadata: dict[str, Any], issues: list[Issue]) -> None:
    """``DisaggregatedSetWebhook.validate`` and ``validatePlacement``."""
    roles = spec.get("roles")
    roles = roles if isinstance(roles, list) else []
    name = metadata.get("name") if isinstance(metadata.get("name"), str) else ""
    external = False
    for index, role in enumerate(roles):
        if not isinstance(role, dict):
            continue
        role_parts: Parts = ("spec", "roles", index)
        role_spec = _dict(role.get("spec"))
        _rolling_update(
            role_spec.get("rolloutStrategy"),
            (*role_parts, "spec", "rolloutStrategy"),
            _int(role_spec.get("replicas", 1)),
            issues,
            disaggregated=True,
        )
        scaling = role.get("scaling")
        if not isinstance(scaling, dict) or scaling.get("mode", "Static") != "External":
            continue
        external = True
        role_name = role.get("name") if isinstance(role.get("name"), str) else ""
        scaler = f"{name}-{role_name}"
        if len(scaler) > 253:
            issues.append(
                _issue(
                    (*role_parts, "name"),
                    f"role name {role_name!r} would produce scaler name of {len(scaler)} characters, "
                    "exceeding 253",
                    "scaling",
                )
            )
    slices = _int(spec.get("slices", 1))
    if external and slices is not None and slices > 1:
        issues.append(
            _issue(
                ("spec", "slices"),
                f"slices {slices}: spec.slices > 1 is not supported while any role has scaling.mode: "
                "External (alpha restriction)",
                "scaling",
            )
        )
    policy = spec.get("placementPolicy")
    kind = policy.get("type", "None") if isinstance(policy, dict) else "None"
    if not isinstance(policy, dict) or kind in ("None", ""):
        return
    if not policy.get("topology"):
        issues.append(
            _issue(
                ("spec", "placementPolicy", "topology"),
                f"topology is required when placementPolicy.type is {kind} (not None)",
                "placement",
            )
        )
    for index, role in enumerate(roles):
        key = _exclusive_annotation(role)
        if key is not None:
            issues.append(
                _issue(
                    ("spec", "roles", index),
                    f'the "{key}" annotation must not be combined with a non-None '
                    f"spec.placementPolicy.type ({kind})",
                    "placement",
                )
            )


def _exclusive_annotation(role: Any) -> str | None:
    """``roleExclusiveTopologyAnnotation``: the first exclusive-topology key on the role or its templates."""
    if not isinstance(role, dict):
        return None
    spec = _dict(role.get("spec"))
    template = _dict(spec.get("leaderWorkerTemplate"))
    holders = [
        _annotations(role.get("metadata")),
        _annotations(_metadata_of(template.get("leaderTemplate"))),
        _annotations(_metadata_of(template.get("workerTemplate"))),
    ]
    for key in (EXCLUSIVE, SUBGROUP_EXCLUSIVE):
        if any(key in holder for holder in holders):
            return key
    return None


def _metadata_of(template: Any) -> Any:
    return template.get("metadata") if isinstance(template, dict) else None


CHECK = Check(RULE, check)
