"""API-server checks of the security annotations of pods and pod templates (rule ``api-server``),
for :mod:`.security_context`.

Mirrors k8s.io/kubernetes ``pkg/apis/core/validation/validation.go`` (v1.36):
``ValidatePodSpecificAnnotations`` (``ValidateAppArmorPodAnnotations``,
``ValidateSeccompPodAnnotations``, the mirror-pod and pod-deletion-cost annotations), called by
``ValidatePodTemplateSpec`` and ``ValidatePodCreate``, and the agreement of deprecated annotations with
the fields (``validateAppArmorAnnotationsAndFieldsMatchOnCreate``,
``validateSeccompAnnotationsAndFields``). A Pod's AppArmor annotation is first copied to a container
that sets no profile (``applyAppArmorVersionSkew``, ``pkg/registry/core/pod/strategy.go``), so a
Pod's annotation disagrees only with a container's own field; a template's is compared with the
container's profile or, failing that, the pod's.

Keywords: ``apparmor-annotation`` (a profile that is not ``runtime/default``, ``unconfined`` or
``localhost/<name>``, a container that does not exist, annotation and field disagreeing),
``seccomp-annotation`` (likewise for seccomp), ``annotation`` (mirror pod, deletion cost).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import CONTAINER_FIELDS, Parts, PodSite
from trainops.validate.checks.go_helpers import MAX_INT32, issue, local_path_problem, placeholder, show

APPARMOR_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_POD: Final = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_PREFIX: Final = "container.seccomp.security.alpha.kubernetes.io/"
MIRROR_POD: Final = "kubernetes.io/config.mirror"
DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
#: AppArmor annotation value of each ``appArmorProfile.type`` (Localhost: ``localhost/<profile>``).
APPARMOR_VALUES: Final = {
    "RuntimeDefault": frozenset({"runtime/default"}),
    "Unconfined": frozenset({"unconfined"}),
}
#: Seccomp annotation values of each ``seccompProfile.type`` (``docker/default`` is the old name).
SECCOMP_VALUES: Final = {
    "RuntimeDefault": frozenset({"runtime/default", "docker/default"}),
    "Unconfined": frozenset({"unconfined"}),
}
_POD: Final = ("", "Pod")


def annotation_issues(site: PodSite, data: dict[str, Any], issues: list[Issue]) -> None:
    """Issues of the annotations of the pod or template whose spec is ``site`` (in ``data``, the
    document): ``ValidatePodSpecificAnnotations`` and the annotation/field agreement checks."""
    meta_parts: Parts = (*site.parts[:-1], "metadata")
    meta = _at(data, meta_parts)
    annotations = meta.get("annotations") if type(meta) is dict else None
    if type(annotations) is not dict or not annotations:
        return
    parts = (*meta_parts, "annotations")
    spec, templated = site.spec, site.templated
    names = {container.get("name") for container, _ in containers(spec, ())}
    for key, value in annotations.items():
        if type(key) is not str or type(value) is not str or placeholder(value, templated):
            continue
        if key.startswith(APPARMOR_PREFIX):
            container = key[len(APPARMOR_PREFIX) :]
            if container not in names and not placeholder(container, templated):
                issues.append(
                    issue(
                        (*parts, key),
                        f"annotation {show(key)} names container {show(container)}, which the pod does not have",
                        "apparmor-annotation",
                    )
                )
            if value not in ("", "runtime/default", "unconfined") and not value.startswith("localhost/"):
                issues.append(
                    issue(
                        (*parts, key),
                        f"annotation {show(key)} value {show(value)} is not an AppArmor profile "
                        "(runtime/default, unconfined or localhost/<profile>)",
                        "apparmor-annotation",
                    )
                )
        elif key == SECCOMP_POD or key.startswith(SECCOMP_PREFIX):
            problem = seccomp_annotation_problem(value)
            if problem:
                issues.append(
                    issue(
                        (*parts, key),
                        f"annotation {show(key)} value {show(value)} {problem}",
                        "seccomp-annotation",
                    )
                )
        elif key == MIRROR_POD and not spec.get("nodeName"):
            issues.append(
                issue(
                    (*parts, key),
                    f"annotation {show(key)} needs spec.nodeName (a mirror pod is bound)",
                    "annotation",
                )
            )
        elif key == DELETION_COST and not _int32(value):
            issues.append(
                issue(
                    (*parts, key),
                    f"annotation {show(key)} value {show(value)} must be a 32-bit integer",
                    "annotation",
                )
            )
    _apparmor_agreement(annotations, parts, site, issues)
    _seccomp_agreement(annotations, parts, site, issues)


def seccomp_annotation_problem(value: str) -> str | None:
    """``ValidateSeccompProfile``: why ``value`` is not a seccomp profile annotation, or ``None``."""
    if value in ("runtime/default", "docker/default", "unconfined"):
        return None
    if value.startswith("localhost/"):
        problem = local_path_problem(value[len("localhost/") :])
        return f"names a localhost profile that {problem}" if problem else None
    return "is not a seccomp profile (runtime/default, unconfined or localhost/<path>)"


def _apparmor_agreement(
    annotations: dict[Any, Any], parts: Parts, site: PodSite, issues: list[Issue]
) -> None:
    """``validateAppArmorAnnotationsAndFieldsMatchOnCreate`` (not for Windows pods)."""
    spec = site.spec
    os_node = spec.get("os")
    if type(os_node) is dict and os_node.get("name") == "windows":
        return
    pod_profile = _profile(spec.get("securityContext"), "appArmorProfile")
    for container, item in containers(spec, site.parts):
        annotation = annotations.get(f"{APPARMOR_PREFIX}{container.get('name')}")
        if type(annotation) is not str:
            continue
        own = _profile(container.get("securityContext"), "appArmorProfile")
        if own is None and site.owner == _POD and _syncable(annotation):
            continue  # applyAppArmorVersionSkew copies the annotation into the container's field
        profile = own if own is not None else pod_profile
        if profile is None:
            continue
        where = (*item, "securityContext", "appArmorProfile")
        _compare(annotation, profile, where, "apparmor", APPARMOR_VALUES, issues)


def _syncable(annotation: str) -> bool:
    """Whether ``ApparmorFieldForAnnotation`` turns the annotation into a valid field."""
    if annotation in ("runtime/default", "unconfined"):
        return True
    local = annotation[len("localhost/") :] if annotation.startswith("localhost/") else ""
    return bool(local) and local == local.strip() and len(local.encode()) <= 4095


def _seccomp_agreement(annotations: dict[Any, Any], parts: Parts, site: PodSite, issues: list[Issue]) -> None:
    """``validateSeccompAnnotationsAndFields``: the pod annotation against the pod's field, each
    container annotation against the container's own field."""
    spec = site.spec
    pairs: list[tuple[Any, dict[str, Any] | None, Parts]] = [
        (
            annotations.get(SECCOMP_POD),
            _profile(spec.get("securityContext"), "seccompProfile"),
            (*site.parts, "securityContext", "seccompProfile"),
        )
    ]
    for container, item in containers(spec, site.parts):
        pairs.append(
            (
                annotations.get(f"{SECCOMP_PREFIX}{container.get('name')}"),
                _profile(container.get("securityContext"), "seccompProfile"),
                (*item, "securityContext", "seccompProfile"),
            )
        )
    for annotation, profile, where in pairs:
        if type(annotation) is str and profile is not None:
            _compare(annotation, profile, where, "seccomp", SECCOMP_VALUES, issues)


def _compare(
    annotation: str,
    profile: dict[str, Any],
    where: Parts,
    what: str,
    values: dict[str, frozenset[str]],
    issues: list[Issue],
) -> None:
    """``validateSeccompAnnotationsAndFieldsMatch`` and the AppArmor switch of
    ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``: the annotation a profile ``type`` allows
    (``values``), ``localhost/<localhostProfile>`` for Localhost."""
    kind, local = profile.get("type"), profile.get("localhostProfile")
    keyword = f"{what}-annotation"
    if kind in values and annotation not in values[kind]:
        issues.append(_disagree(where, "type", what, annotation, kind, keyword))
    elif kind == "Localhost":
        if not annotation.startswith("localhost/"):
            issues.append(_disagree(where, "type", what, annotation, kind, keyword))
        elif annotation[len("localhost/") :] != local:
            issues.append(_disagree(where, "localhostProfile", what, annotation, local, keyword))


def _disagree(where: Parts, field: str, what: str, annotation: str, value: Any, keyword: str) -> Issue:
    return issue(
        (*where, field),
        f"{what} {field} {show(value)} disagrees with its annotation {show(annotation)}; annotation and "
        "field must match",
        keyword,
    )


def containers(spec: dict[str, Any], parts: Parts) -> Iterator[tuple[dict[str, Any], Parts]]:
    """Every container mapping of a pod spec with its parts, in ``VisitContainersWithPath`` order
    (``pkg/apis/core/pods/helpers.go``: init, regular, ephemeral containers)."""
    for group in CONTAINER_FIELDS:
        items = spec.get(group)
        if type(items) is list:
            for index, container in enumerate(items):
                if type(container) is dict:
                    yield container, (*parts, group, index)


def _profile(context: Any, name: str) -> dict[str, Any] | None:
    profile = context.get(name) if type(context) is dict else None
    return profile if type(profile) is dict else None


def _int32(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations`` (``pkg/apis/core/helper``): no ``+`` sign nor leading
    zero (``validFirstDigit``), then ``strconv.ParseInt(value, 10, 32)`` succeeds."""
    digits = value[1:] if value.startswith("-") else value
    if not (digits.isascii() and digits.isdigit()) or (value[0] == "0" and value != "0"):
        return False
    return -MAX_INT32 - 1 <= int(value) <= MAX_INT32


def _at(node: Any, parts: Parts) -> Any:
    for part in parts:
        if type(node) is dict:
            node = node.get(part)
        elif type(node) is list and type(part) is int and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node
