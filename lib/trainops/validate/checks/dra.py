"""API-server checks of Dynamic Resource Allocation (rule ``api-server``): ``resource.k8s.io/v1``
ResourceClaim, ResourceClaimTemplate and DeviceClass, and the pod side of device claims.

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors kubernetes/kubernetes v1.36 ``pkg/apis/resource/validation/validation.go`` and, for pods,
``pkg/apis/core/validation/validation.go``:

=================  ==================================================================================
keyword            check (Go function)
=================  ==================================================================================
``dra-request``    request and subrequest names are DNS-1123 labels, unique in their list
                   (``validateDeviceClaim``, ``validateRequestName``); exactly one of ``exactly`` and
                   ``firstAvailable`` (``validateDeviceRequest``); a DeviceClass name
                   (``validateDeviceClass``); ``count`` with ``allocationMode: All`` is rejected, an
                   ``ExactCount`` count must be positive (unset or 0 is defaulted to 1 first:
                   ``SetDefaults_ExactDeviceRequest``), other modes are not supported
                   (``validateDeviceAllocationMode``); constraints and configs name requests of the
                   claim (``validateRequestNameRef``); a constraint sets ``matchAttribute`` or
                   ``distinctAttribute`` (``validateDeviceConstraint``); a config sets ``opaque``
                   (``validateDeviceConfiguration``)
``dra-selector``   every selector has ``cel`` (``validateSelector``) and its expression compiles in the
                   DRA CEL environment and evaluates to bool (``validateCELExpression``,
                   :mod:`trainops.cel.dra`); DeviceClass selectors too (``validateDeviceClassSpec``)
``pod-claims``     pod ``resourceClaims`` names are unique DNS-1123 labels naming exactly one of
                   ``resourceClaimName`` and ``resourceClaimTemplateName`` (``validatePodResourceClaims``,
                   ``validatePodResourceClaim``); every container's ``resources.claims[].name`` is one
                   of them, once (``validateResourceClaimNames``)
=================  ==================================================================================
"""

from __future__ import annotations

from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import CONTAINER_FIELDS, POD_TEMPLATE_SITES, GroupKind, KindGroup, Parts, group_of
from trainops.core.naming import DNS1123_LABEL, DNS1123_SUBDOMAIN
from trainops.validate.checks.go_helpers import family, is_int, issue, show
from trainops.validate.context import DocumentContext

_RESOURCE: Final = "resource.k8s.io"
ALLOCATION_MODES: Final = ("All", "ExactCount")


def check(context: DocumentContext) -> list[Issue]:
    """Issues of a ResourceClaim (``spec``), ResourceClaimTemplate (``spec.spec``) or DeviceClass."""
    key: GroupKind = (group_of(context.api_version), context.kind)
    data = context.data
    issues: list[Issue] = []
    if key == (_RESOURCE, "ResourceClaim"):
        claim_spec(data.get("spec"), ("spec",), issues)
    elif key == (_RESOURCE, "ResourceClaimTemplate"):
        spec = data.get("spec")
        claim_spec(spec.get("spec") if isinstance(spec, dict) else None, ("spec", "spec"), issues)
    elif key == (_RESOURCE, "DeviceClass"):
        spec = data.get("spec")
        if isinstance(spec, dict):
            _selectors(spec.get("selectors"), ("spec", "selectors"), issues)
    return issues


KINDS: Final = frozenset({"ResourceClaim", "ResourceClaimTemplate", "DeviceClass"})
FAMILY = family(check, KINDS)


def claim_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``validateResourceClaimSpec`` / ``validateDeviceClaim`` of a claim spec at ``parts``."""
    devices = spec.get("devices") if isinstance(spec, dict) else None
    if not isinstance(devices, dict):
        return
    here = (*parts, "devices")
    names: dict[str, set[str] | None] = {}
    requests = devices.get("requests")
    if isinstance(requests, list):
        for index, request in enumerate(requests):
            if isinstance(request, dict):
                _request(request, (*here, "requests", index), names, issues)
    for section, required in (("constraints", None), ("config", "opaque")):
        entries = devices.get(section)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            item = (*here, section, index)
            refs = entry.get("requests")
            if isinstance(refs, list):
                for ref_index, ref in enumerate(refs):
                    if isinstance(ref, str) and not _known(ref, names):
                        issues.append(
                            issue(
                                (*item, "requests", ref_index),
                                f"{section} names request {show(ref)}, which is not a request of the claim "
                                "(nor request/subrequest)",
                                "dra-request",
                            )
                        )
            if required is None and "matchAttribute" not in entry and "distinctAttribute" not in entry:
                issues.append(
                    issue(item, "a constraint needs matchAttribute or distinctAttribute", "dra-request")
                )
            elif required is not None and not isinstance(entry.get(required), dict):
                issues.append(issue((*item, required), f"a {section} entry needs {required}", "dra-request"))


def _known(ref: str, names: dict[str, set[str] | None]) -> bool:
    """``requestNames.Has``: ``request`` or ``request/subrequest`` of the claim."""
    segments = ref.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    subrequests = names[segments[0]]
    return len(segments) == 1 or (subrequests is not None and segments[1] in subrequests)


def _name(node: dict[str, Any], parts: Parts, seen: set[str], what: str, issues: list[Issue]) -> str | None:
    """A request or subrequest name: a DNS-1123 label, unique among its siblings."""
    name = node.get("name")
    if not isinstance(name, str) or not name:
        issues.append(issue((*parts, "name"), f"{what} needs a name", "dra-request"))
        return None
    problem = DNS1123_LABEL.problem(name)
    if problem:
        issues.append(issue((*parts, "name"), f"{what} name {show(name)} {problem}", "dra-request"))
    elif name in seen:
        issues.append(issue((*parts, "name"), f"{what} name {show(name)} is used twice", "dra-request"))
    seen.add(name)
    return name


def _request(
    request: dict[str, Any], parts: Parts, names: dict[str, set[str] | None], issues: list[Issue]
) -> None:
    """``validateDeviceRequest``: name, one of ``exactly``/``firstAvailable``, then each."""
    seen = set(names)
    name = _name(request, parts, seen, "device request", issues)
    exactly, first = request.get("exactly"), request.get("firstAvailable")
    has_first = isinstance(first, list) and bool(first)
    subrequests: set[str] | None = None
    if isinstance(exactly, dict) and has_first:
        issues.append(
            issue(
                parts,
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
                "dra-request",
            )
        )
    elif isinstance(exactly, dict):
        _exact(exactly, (*parts, "exactly"), issues)
    elif has_first:
        assert isinstance(first, list)
        subrequests = set()
        for index, sub in enumerate(first):
            if isinstance(sub, dict):
                item = (*parts, "firstAvailable", index)
                _name(sub, item, subrequests, "device subrequest", issues)
                _exact(sub, item, issues)
    else:
        issues.append(issue(parts, "exactly one of `exactly` or `firstAvailable` is required", "dra-request"))
    if name is not None:
        names[name] = subrequests


def _exact(request: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validateExactDeviceRequest`` (and a subrequest's same fields): class, selectors, mode/count."""
    device_class = request.get("deviceClassName")
    if device_class in (None, ""):
        issues.append(issue((*parts, "deviceClassName"), "deviceClassName is required", "dra-request"))
    elif isinstance(device_class, str) and (problem := DNS1123_SUBDOMAIN.problem(device_class)):
        issues.append(
            issue(
                (*parts, "deviceClassName"), f"deviceClassName {show(device_class)} {problem}", "dra-request"
            )
        )
    _selectors(request.get("selectors"), (*parts, "selectors"), issues)
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count")
    if mode == "All":
        if is_int(count) and count != 0:
            issues.append(
                issue(
                    (*parts, "count"),
                    f"count {count} must not be specified when allocationMode is 'All' (All allocates every matching device)",
                    "dra-request",
                )
            )
    elif mode == "ExactCount":
        if is_int(count) and count < 0:
            issues.append(issue((*parts, "count"), f"count {count} must be greater than zero", "dra-request"))
    elif isinstance(mode, str):
        issues.append(
            issue(
                (*parts, "allocationMode"),
                f'allocationMode {show(mode)} is not supported: "All", "ExactCount"',
                "dra-request",
            )
        )


def _selectors(selectors: Any, parts: Parts, issues: list[Issue]) -> None:
    """``validateSelectorSlice``: each selector has ``cel`` whose expression compiles."""
    if not isinstance(selectors, list):
        return
    for index, selector in enumerate(selectors):
        if not isinstance(selector, dict):
            continue
        cel = selector.get("cel")
        if not isinstance(cel, dict):
            issues.append(issue((*parts, index, "cel"), "a device selector needs cel", "dra-selector"))
            continue
        expression = cel.get("expression")
        if isinstance(expression, str):
            from trainops.cel.dra import selector_problem  # cel-expr-python: only for a device selector

            problem = selector_problem(expression)
            if problem:
                issues.append(
                    issue(
                        (*parts, index, "cel", "expression"),
                        f"device selector {show(expression)}: {problem}",
                        "dra-selector",
                    )
                )


# --- the pod side ---------------------------------------------------------------------------------


def check_pods(context: DocumentContext) -> list[Issue]:
    """Device-claim issues of every pod template of the document whose pod or containers claim."""
    issues: list[Issue] = []
    for site in context.pod_sites():
        if site.owner in POD_TEMPLATE_SITES and _claims_something(site.spec):
            pod_claims(site.spec, site.parts, issues)
    return issues


def _claims_something(spec: dict[str, Any]) -> bool:
    if "resourceClaims" in spec:
        return True
    for field in CONTAINER_FIELDS:
        containers = spec.get(field)
        if not isinstance(containers, list):
            continue
        for container in containers:
            resources = container.get("resources") if isinstance(container, dict) else None
            if isinstance(resources, dict) and "claims" in resources:
                return True
    return False


POD_KINDS: Final = KindGroup(lambda info: bool(info.templates or info.embedded))
POD_FAMILY = family(check_pods, POD_KINDS)


def pod_claims(spec: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validatePodResourceClaims`` and each container's ``validateResourceClaimNames``."""
    declared: set[str] = set()
    claims = spec.get("resourceClaims")
    if isinstance(claims, list):
        for index, claim in enumerate(claims):
            if isinstance(claim, dict):
                _pod_claim(claim, (*parts, "resourceClaims", index), declared, issues)
    for field in CONTAINER_FIELDS:
        containers = spec.get(field)
        if not isinstance(containers, list):
            continue
        for index, container in enumerate(containers):
            resources = container.get("resources") if isinstance(container, dict) else None
            used = resources.get("claims") if isinstance(resources, dict) else None
            if not isinstance(used, list):
                continue
            label = f"container {show(container.get('name'))}"
            seen: set[str] = set()
            for claim_index, entry in enumerate(used):
                name = entry.get("name") if isinstance(entry, dict) else None
                where = (*parts, field, index, "resources", "claims", claim_index)
                if not isinstance(name, str) or not name:
                    issues.append(issue(where, f"{label} resources.claims entry needs a name", "pod-claims"))
                    continue
                key = f"{name}/{entry.get('request') or ''}"
                if key in seen:
                    issues.append(issue((*where, "name"), f"{label} claims {show(name)} twice", "pod-claims"))
                seen.add(key)
                if name not in declared:
                    issues.append(
                        issue(
                            (*where, "name"),
                            f"{label} claims {show(name)}, which is not one of the names in pod.spec.resourceClaims"
                            f" ({', '.join(sorted(declared)) or 'none'})",
                            "pod-claims",
                        )
                    )


def _pod_claim(claim: dict[str, Any], parts: Parts, declared: set[str], issues: list[Issue]) -> None:
    """``validatePodResourceClaim``: a unique DNS-1123 label name, one source of a valid name."""
    name = claim.get("name")
    if not isinstance(name, str) or not name:
        issues.append(issue((*parts, "name"), "a pod resource claim needs a name", "pod-claims"))
    elif problem := DNS1123_LABEL.problem(name):
        issues.append(
            issue((*parts, "name"), f"pod resource claim name {show(name)} {problem}", "pod-claims")
        )
    elif name in declared:
        issues.append(
            issue((*parts, "name"), f"pod resource claim {show(name)} is declared twice", "pod-claims")
        )
    else:
        declared.add(name)
    sources = [key for key in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(key)]
    if len(sources) != 1:
        issues.append(
            issue(
                parts,
                "a pod resource claim must specify exactly one of resourceClaimName and resourceClaimTemplateName"
                + (" (both are set)" if sources else ""),
                "pod-claims",
            )
        )
        return
    value = claim[sources[0]]
    if isinstance(value, str) and (problem := DNS1123_SUBDOMAIN.problem(value)):
        issues.append(issue((*parts, sources[0]), f"{sources[0]} {show(value)} {problem}", "pod-claims"))
