"""Checks the Kubernetes API server makes beyond the OpenAPI schema (rule ``api-server``).

A manifest can pass strict JSON Schema validation and still be rejected on ``kubectl apply``, or
accepted and then never run (a controller cannot create its pods). :func:`semantic_issues` repeats
the API server's hand-written validation for the kinds trainops deals with, offline. Every check
names its upstream source; ``keyword`` on each :class:`~trainops.validate.issues.Issue` is the
check's name:

==========================  ========================================================================
keyword                     what, and where Kubernetes does it
==========================  ========================================================================
``dns1123-subdomain``       ``metadata.name``/``generateName`` of most kinds (``NameIsDNSSubdomain``,
                            apimachinery ``pkg/api/validation/generic.go``); ≤ 253 characters
``dns1123-label``           Namespace and StatefulSet names (``NameIsDNSLabel``; StatefulSet since
                            1.26, kubernetes#114172), ``metadata.namespace``, container and volume
                            names (``pkg/apis/core/validation/validation.go``), Service port names;
                            ≤ 63 characters
``dns1035-label``           Service names (``ValidateServiceName`` = ``NameIsDNS1035Label``)
``path-segment-name``       RBAC object names (``ValidateRBACName`` = ``path.IsValidPathSegmentName``)
``name-required``           neither ``metadata.name`` nor ``generateName`` (``ValidateObjectMetaAccessor``)
``name-length``             CronJob names ≤ 52 (``ValidateCronJobCreate``: the controller appends 11
                            characters); Job names ≤ 63 unless ``manualSelector`` (the name becomes the
                            value of the ``batch.kubernetes.io/job-name`` pod label)
``label-key``,              ``metadata.labels``, template labels, ``nodeSelector``, Service selectors
``label-value``             (``ValidateLabels``: ``IsQualifiedName``, ``IsValidLabelValue``)
``annotation-key``          ``IsQualifiedName(strings.ToLower(key))`` (``ValidateAnnotations``)
``annotations-size``        keys + values ≤ 262144 bytes (``TotalAnnotationSizeLimitB``)
``duplicate-name``          container names across containers, initContainers and ephemeralContainers;
                            volume names; port names within one container; Service port names
``port-name``               container port names are IANA_SVC_NAMEs (``IsValidPortName``)
``duplicate-port-name``     (warning) the same port name in two containers of a pod
                            (``pkg/api/pod/warnings.go``: probes and Services pick the first)
``port-number``             container/host/Service ports and numeric targetPorts in 1-65535
``volume-mount-ref``        a ``volumeMounts[].name`` with no volume of that name (``validateVolumeMounts``;
                            StatefulSet ``volumeClaimTemplates`` and JobSet/Trainer
                            ``volumeClaimPolicies`` count as volumes: their controllers add them)
``duplicate-mount-path``    one mountPath twice in a container (``validateVolumeMounts``: "must be unique")
``ephemeral-containers``    not allowed in pod templates (``ValidatePodTemplateSpec``) nor on create
``resource-name``           container resource names: cpu, memory, ephemeral-storage, hugepages-*, or
                            a domain-prefixed extended resource (``validateContainerResourceName``)
``quantity``                resource quantities parse and are ≥ 0 (``ValidateResourceQuantityValue``)
``requests-exceed-limits``  requests ≤ limits (``ValidateContainerResourceRequirements``)
``extended-resource``       extended resources and hugepages are not overcommitable: whole numbers
                            (extended), requests == limits, no request without a limit
``restart-policy``          Job pods: OnFailure or Never (``validateJobSpec``; unset means Always);
                            Deployment/ReplicaSet/StatefulSet/DaemonSet pods: Always
``label-selector``          selector syntax (``ValidateLabelSelector``), empty workload selectors
``selector-mismatch``       a workload's selector must select its template's labels
                            (``ValidatePodTemplateSpecForReplicaSet``, ``ValidateDaemonSetSpec``,
                            ``ValidatePodTemplateSpecForStatefulSet``, ``validateJobSpec`` with
                            ``manualSelector``)
``service-port``            more than one Service port: every port needs a name; port/protocol pairs
                            are unique (``ValidateService``, ``validateServicePort``)
``target-port``             a Service targetPort is 1-65535 or an IANA_SVC_NAME (``ValidatePortNumOrName``)
==========================  ========================================================================

Sources: https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go,
``pkg/apis/apps/validation/validation.go``, ``pkg/apis/batch/validation/validation.go``,
``pkg/api/pod/warnings.go`` and https://github.com/kubernetes/apimachinery
(``pkg/util/validation/validation.go``, ``pkg/api/validation/objectmeta.go``,
``pkg/apis/meta/v1/validation/validation.go``).

Pod templates are found through :data:`POD_TEMPLATE_SITES`, declared once per kind. For kinds whose
pods a controller creates (StatefulSet: the API server checks only template labels; Kubeflow jobs,
JobSet, Trainer runtimes, Katib trials), a bad template is not rejected on apply but every pod
creation fails, so it is reported all the same. Inside a Katib ``trialSpec`` values holding a
``${trialParameters.…}`` placeholder are skipped: Katib substitutes them per trial.

The checks are pure and defensive: a value of an unexpected type is skipped (the schema check reports
it), nothing is copied, and every regular expression is compiled once at import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, TypeGuard

from trainops.core.findings import Issue
from trainops.core.kinds import (
    KIND_TABLE,
    KindInfo,
    Parts,
    TemplateSite,
    group_of,
    walk,
)
from trainops.core.naming import (
    ANNOTATIONS_MAX_BYTES,
    CRONJOB_NAME_MAX,
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    LABEL_VALUE_MAX,
    PATH_SEGMENT,
    PORT_NAME_MAX,
    NameSyntax,
    label_value_problem,
    qualified_name_problem,
)
from trainops.core.naming import byte_len as _byte_len
from trainops.core.naming import quoted as _q
from trainops.core.quantity import QuantityError, parse_quantity
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext, Family

RULE = register(
    RuleInfo(
        id="api-server",
        level="error",
        summary="What the Kubernetes API server validates in Go code beyond the OpenAPI schema: names, "
        "labels, annotations, pod templates (containers, ports, volumes, mounts, resources), "
        "selectors, Services; with pod_fields, security_context, workloads, services_storage, "
        "autoscaling_policy and networking_rbac: pod and container fields, security contexts and their "
        "annotations, apps/batch specs (and objects without one) and CronJob schedules, PVCs, "
        "ConfigMaps, Secrets, HPAs, PDBs, PriorityClasses, quotas, NetworkPolicies, Ingresses, RBAC.",
        rationale="A manifest can pass strict schema validation and still be rejected on apply, or be "
        "accepted and never run because its controller cannot create pods.",
        remediation="Change the field named in the message to a value the API server accepts.",
        source="https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go",
    )
)

_PORT_NAME_CHARSET = re.compile(r"[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile(r".*[a-z]")

#: (API group, kind) → syntax of ``metadata.name``; anything else is a DNS-1123 subdomain
#: (``NameIsDNSSubdomain``, also what apiextensions applies to every custom resource).
NAME_SYNTAX: Final[dict[tuple[str, str], NameSyntax]] = {
    ("", "Namespace"): DNS1123_LABEL,  # ValidateNamespaceName
    ("", "Service"): DNS1035_LABEL,  # ValidateServiceName
    ("apps", "StatefulSet"): DNS1123_LABEL,  # ValidateStatefulSetName (1.26+, kubernetes#114172)
    ("rbac.authorization.k8s.io", "Role"): PATH_SEGMENT,  # ValidateRBACName
    ("rbac.authorization.k8s.io", "ClusterRole"): PATH_SEGMENT,
    ("rbac.authorization.k8s.io", "RoleBinding"): PATH_SEGMENT,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): PATH_SEGMENT,
}

# --- resources (pkg/apis/core/helper/helpers.go) -------------------------------------------------

_STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_SELECTOR_OPERATORS: Final = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
_PROTOCOLS_DEFAULT = "TCP"


def semantic_issues(obj: Any, api_version: str, kind: str, *, namespaced: bool | None = None) -> list[Issue]:
    """API-server validation problems of one object (see the module docstring for the checks).

    Args:
        obj: the document (need not be schema-valid; odd types are skipped, a document that is not a
            mapping has no issues).
        api_version: e.g. ``apps/v1``.
        kind: e.g. ``Deployment``.
        namespaced: whether the kind is namespaced; ``None`` looks it up in the kinds table
            (:attr:`~trainops.core.kinds.KindInfo.cluster_scoped`).

    Returns:
        Issues with rule ``api-server``, in document order per check; empty when nothing is wrong.
    """
    issues: list[Issue] = []
    if not isinstance(obj, dict):
        return issues
    key = (group_of(api_version), kind)
    info = KIND_TABLE.get(key)  # looked up once: templates, selector, embedded objects, scope
    if namespaced is None:
        namespaced = info is None or not info.cluster_scoped
    _check_object_meta(obj, key, namespaced, issues)
    _check_object(obj, key, info, (), issues, templated=False)
    for path in info.embedded if info is not None else ():
        nested = _get(obj, path)
        if isinstance(nested, dict):
            nested_version, nested_kind = nested.get("apiVersion"), nested.get("kind")
            if isinstance(nested_version, str) and isinstance(nested_kind, str):
                nested_key = (group_of(nested_version), nested_kind)
                _check_object(nested, nested_key, KIND_TABLE.get(nested_key), path, issues, templated=True)
    return issues


# --- object metadata -----------------------------------------------------------------------------


def _check_object_meta(
    obj: dict[str, Any], key: tuple[str, str], namespaced: bool, issues: list[Issue]
) -> None:
    """``ValidateObjectMetaAccessor`` (apimachinery ``pkg/api/validation/objectmeta.go``) plus the
    per-kind name functions of :data:`NAME_SYNTAX` and the Job/CronJob name lengths."""
    meta = obj.get("metadata", {})  # no metadata at all still needs a name
    if not isinstance(meta, dict):
        return
    syntax = NAME_SYNTAX.get(key, DNS1123_SUBDOMAIN)
    name, generate_name = meta.get("name"), meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        problem = syntax.problem(generate_name, prefix=True)
        if problem:
            issues.append(
                _issue(
                    ("metadata", "generateName"),
                    f"metadata.generateName {_q(generate_name)} {problem}",
                    syntax.keyword,
                )
            )
    if isinstance(name, str) and name:
        problem = syntax.problem(name)
        if problem:
            issues.append(_issue(("metadata", "name"), f"metadata.name {_q(name)} {problem}", syntax.keyword))
        elif key[0] == "batch":
            _check_name_length(obj, key, name, issues)
    elif name in (None, "") and not generate_name and not key[1].endswith("List"):
        issues.append(
            _issue(("metadata",), "metadata.name is required (or metadata.generateName)", "name-required")
        )
    namespace = meta.get("namespace")
    if namespaced and isinstance(namespace, str) and namespace:
        problem = _dns1123_label_problem(namespace)
        if problem:
            issues.append(
                _issue(
                    ("metadata", "namespace"),
                    f"metadata.namespace {_q(namespace)} {problem}",
                    DNS1123_LABEL.keyword,
                )
            )
    _check_labels(meta.get("labels"), ("metadata", "labels"), "metadata.labels", issues, templated=False)
    _check_annotations(
        meta.get("annotations"), ("metadata", "annotations"), "metadata.annotations", issues, False
    )


def _check_name_length(obj: dict[str, Any], key: tuple[str, str], name: str, issues: list[Issue]) -> None:
    """CronJob: ``ValidateCronJobCreate`` (≤ 52). Job: ``generateSelector`` copies the name into the
    ``batch.kubernetes.io/job-name`` and ``job-name`` pod labels, whose values allow 63 characters
    (kubernetes#50850: "spec.template.labels: Invalid value: …: must be no more than 63 characters")."""
    size = _byte_len(name)
    if key == ("batch", "CronJob") and size > CRONJOB_NAME_MAX:
        issues.append(
            _issue(
                ("metadata", "name"),
                f"metadata.name {_q(name)} has {size} characters, more than the {CRONJOB_NAME_MAX} allowed "
                "for a CronJob (its Jobs are named <name>-<11-character timestamp>)",
                "name-length",
            )
        )
    elif (
        key == ("batch", "Job")
        and size > LABEL_VALUE_MAX
        and _get(obj, ("spec", "manualSelector")) is not True
    ):
        issues.append(
            _issue(
                ("metadata", "name"),
                f"metadata.name {_q(name)} has {size} characters, more than the {LABEL_VALUE_MAX} allowed "
                "for a Job (the name becomes the value of its pods' batch.kubernetes.io/job-name label)",
                "name-length",
            )
        )


#: Label keys and values, and annotation keys, that passed their check (labels repeat across documents:
#: a set lookup per label instead of a memoised call); cleared when large.
_GOOD_LABEL_KEYS: set[str] = set()
_GOOD_LABEL_VALUES: set[str] = set()
_GOOD_ANNOTATION_KEYS: set[str] = set()
_GOOD_MAX = 1 << 16


def _known_good(labels: dict[Any, Any]) -> bool:
    """Whether every key and value of ``labels`` passed :func:`_check_labels` before (then it finds
    nothing again: the checks depend on the strings only)."""
    try:
        return labels.keys() <= _GOOD_LABEL_KEYS and _GOOD_LABEL_VALUES.issuperset(labels.values())
    except TypeError:  # an unhashable value: checked one by one
        return False


def _check_labels(labels: Any, parts: Parts, what: str, issues: list[Issue], templated: bool) -> None:
    """``ValidateLabels`` (apimachinery ``pkg/apis/meta/v1/validation``): keys are qualified names,
    values valid label values. Also used for nodeSelector and Service selectors."""
    if not isinstance(labels, dict) or _known_good(labels):
        return
    if len(_GOOD_LABEL_KEYS) > _GOOD_MAX or len(_GOOD_LABEL_VALUES) > _GOOD_MAX:
        _GOOD_LABEL_KEYS.clear()
        _GOOD_LABEL_VALUES.clear()
    for label_key, value in labels.items():
        if not isinstance(label_key, str) or (templated and "${" in label_key):
            continue
        problem = qualified_name_problem(label_key)
        if problem:
            issues.append(_issue((*parts, label_key), f"{what} key {_q(label_key)} {problem}", "label-key"))
        else:
            _GOOD_LABEL_KEYS.add(label_key)
        if isinstance(value, str) and not (templated and "${" in value):
            problem = label_value_problem(value)
            if not problem:
                _GOOD_LABEL_VALUES.add(value)
            else:
                issues.append(
                    _issue(
                        (*parts, label_key),
                        f"{what} {_q(label_key)} value {_q(value)} {problem}",
                        "label-value",
                    )
                )


def _check_annotations(
    annotations: Any, parts: Parts, what: str, issues: list[Issue], templated: bool
) -> None:
    """``ValidateAnnotations`` (apimachinery ``pkg/api/validation/objectmeta.go``): keys are qualified
    names once lower-cased; keys and values together are at most 262144 bytes."""
    if not isinstance(annotations, dict) or _known_good_annotations(annotations):
        return
    if len(_GOOD_ANNOTATION_KEYS) > _GOOD_MAX:
        _GOOD_ANNOTATION_KEYS.clear()
    total = 0
    for annotation_key, value in annotations.items():
        if not isinstance(annotation_key, str):
            continue
        total += _byte_len(annotation_key)
        if isinstance(value, str):
            total += _byte_len(value)
        if templated and "${" in annotation_key:
            continue
        problem = qualified_name_problem(annotation_key.lower())
        if not problem:
            _GOOD_ANNOTATION_KEYS.add(annotation_key)
        else:
            issues.append(
                _issue(
                    (*parts, annotation_key), f"{what} key {_q(annotation_key)} {problem}", "annotation-key"
                )
            )
    if total > ANNOTATIONS_MAX_BYTES:
        issues.append(
            _issue(
                parts,
                f"{what} total {total} bytes (keys + values), more than the {ANNOTATIONS_MAX_BYTES}-byte limit",
                "annotations-size",
            )
        )


def _known_good_annotations(annotations: dict[Any, Any]) -> bool:
    """Whether every key of ``annotations`` passed :func:`_check_annotations` before and the keys and
    values are surely within the size limit (at most 4 UTF-8 bytes per character): then it finds nothing."""
    if not annotations.keys() <= _GOOD_ANNOTATION_KEYS:
        return False
    try:
        chars = sum(map(len, annotations)) + sum(map(len, annotations.values()))
    except TypeError:  # a value that is not a string: counted one by one
        return False
    return 4 * chars <= ANNOTATIONS_MAX_BYTES


@lru_cache(maxsize=4096)
def port_name_problem(value: str) -> str | None:
    """Why ``value`` is not an IANA_SVC_NAME (``IsValidPortName``), or ``None``: at most 15
    characters of ``[-a-z0-9]``, at least one letter, no ``--``, no leading or trailing ``-``.
    Cached: manifests repeat the same few port names (``http``, ``metrics``)."""
    reasons = []
    if len(value) > PORT_NAME_MAX:
        reasons.append(f"{len(value)} characters, more than {PORT_NAME_MAX}")
    if _PORT_NAME_CHARSET.fullmatch(value) is None:
        reasons.append("only lower-case alphanumerics and '-' are allowed")
    if _PORT_NAME_LETTER.match(value) is None:
        reasons.append("needs at least one letter")
    if "--" in value:
        reasons.append("may not contain '--'")
    if value.startswith("-") or value.endswith("-"):
        reasons.append("may not begin or end with '-'")
    if not reasons:
        return None
    return f"is not an IANA_SVC_NAME: {'; '.join(reasons)}"


# --- objects: templates, selectors, Services -----------------------------------------------------


def _check_object(
    obj: dict[str, Any],
    key: tuple[str, str],
    info: KindInfo | None,
    base: Parts,
    issues: list[Issue],
    *,
    templated: bool,
) -> None:
    """One object: its pod templates and selector (from its entry ``info`` of the kinds table, ``None``
    for a kind not in it), a Job's manual selector, a Service's ports."""
    for site in info.templates if info is not None else ():
        claims: set[str] = set()
        for path in site.claim_names:
            claims.update(name for name, _ in walk(obj, path, ()) if isinstance(name, str))
        for template, parts in walk(obj, site.path, base):
            if not isinstance(template, dict):
                continue
            if site.path:
                _check_template(template, parts, site, claims, issues, templated)
            else:  # a Pod: its metadata is the object's (checked already)
                spec = template.get("spec")
                if isinstance(spec, dict):
                    _check_pod_spec(spec, (*parts, "spec"), claims, issues, templated, in_template=False)
    if info is not None and info.selector:
        _check_workload_selector(obj, key[1], base, issues, templated)
    elif key == ("batch", "Job"):
        _check_job_selector(obj, base, issues, templated)
    elif key == ("", "Service"):
        _check_service(obj, base, issues, templated)


def _check_template(
    template: dict[str, Any],
    parts: Parts,
    site: TemplateSite,
    claims: set[str],
    issues: list[Issue],
    templated: bool,
) -> None:
    """``ValidatePodTemplateSpec``: template labels and annotations, the pod spec, no ephemeral
    containers; plus the restart policy the owning controller allows."""
    meta = template.get("metadata")
    if isinstance(meta, dict):
        labels_parts = (*parts, "metadata", "labels")
        _check_labels(meta.get("labels"), labels_parts, "template label", issues, templated)
        annotations_parts = (*parts, "metadata", "annotations")
        _check_annotations(
            meta.get("annotations"), annotations_parts, "template annotations", issues, templated
        )
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return
    spec_parts = (*parts, "spec")
    if site.restart is not None:
        policy = spec.get("restartPolicy", "")
        if isinstance(policy, str) and policy not in site.restart:
            issues.append(_restart_issue(policy, site.restart, (*spec_parts, "restartPolicy"), spec_parts))
    _check_pod_spec(spec, spec_parts, claims, issues, templated, in_template=True)


def _restart_issue(policy: str, allowed: frozenset[str], parts: Parts, spec_parts: Parts) -> Issue:
    wanted = " or ".join(f'"{p}"' for p in sorted(allowed, reverse=True) if p)
    if policy:
        return _issue(
            parts, f'restartPolicy "{policy}" is not allowed here (must be {wanted})', "restart-policy"
        )
    return _issue(
        spec_parts,
        f'restartPolicy is unset and defaults to "Always", which a Job\'s pods may not use (set {wanted})',
        "restart-policy",
    )


def _check_pod_spec(
    spec: dict[str, Any],
    parts: Parts,
    claims: set[str],
    issues: list[Issue],
    templated: bool,
    *,
    in_template: bool,
) -> None:
    """``ValidatePodSpec`` (``pkg/apis/core/validation/validation.go``): volumes (``ValidateVolumes``),
    containers of every kind (``validateContainers``, ``validateInitContainers``,
    ``validateEphemeralContainers``), ports, volume mounts, resources, nodeSelector. ``claims`` are
    the names of volumes the owning controller adds (see :attr:`TemplateSite.claim_names`)."""
    volumes = _check_volumes(spec.get("volumes"), (*parts, "volumes"), issues, templated)
    if volumes is not None:
        volumes |= claims
    container_names: dict[str, Parts] = {}
    port_names: dict[str, Parts] = {}
    for group in ("containers", "initContainers", "ephemeralContainers"):
        containers = spec.get(group)
        if not isinstance(containers, list):
            continue
        group_parts = (*parts, group)
        if group == "ephemeralContainers" and containers:
            message = (
                "ephemeral containers are not allowed in a pod template"
                if in_template
                else "ephemeral containers cannot be set when a pod is created (use kubectl debug)"
            )
            issues.append(_issue(group_parts, message, "ephemeral-containers"))
        for index, container in enumerate(containers):
            if isinstance(container, dict):
                _check_container(
                    container, (*group_parts, index), volumes, container_names, port_names, issues, templated
                )
    _check_labels(spec.get("nodeSelector"), (*parts, "nodeSelector"), "nodeSelector", issues, templated)


def _check_volumes(volumes: Any, parts: Parts, issues: list[Issue], templated: bool) -> set[str] | None:
    """``ValidateVolumes``: names are DNS-1123 labels, unique. Returns the names, or ``None`` when
    they cannot be known (so mounts are not checked against them)."""
    if volumes is None:
        return set()
    if not isinstance(volumes, list):
        return None
    names: dict[str, int] = {}  # name → index of the first volume of that name
    unknown = False
    for index, volume in enumerate(volumes):
        name = volume.get("name") if isinstance(volume, dict) else None
        if not isinstance(name, str):
            unknown = True
            continue
        if templated and "${" in name:
            unknown = True
            continue
        if name not in names and _dns1123_label_problem(name) is None:  # nothing to report
            names[name] = index
            continue
        first = f"volumes[{names[name]}]" if name in names else None
        _check_member_name("volume", name, (*parts, index, "name"), first, issues)
        if first is None:
            names[name] = index
    return None if unknown else set(names)


def _check_member_name(what: str, name: str, parts: Parts, first: str | None, issues: list[Issue]) -> None:
    """A container or volume name: a DNS-1123 label (``ValidateDNS1123Label``) and unique in the
    pod (``validateContainers``/``ValidateVolumes``: "Duplicate value"); ``first`` is where a member
    of the same name appears first, ``None`` when the name is new."""
    problem = _dns1123_label_problem(name)
    if problem:
        issues.append(_issue(parts, f"{what} name {_q(name)} {problem}", DNS1123_LABEL.keyword))
    if first is not None:
        issues.append(_issue(parts, f"{what} name {_q(name)} is already used by {first}", "duplicate-name"))


@lru_cache(maxsize=4096)
def _dns1123_label_problem(name: str) -> str | None:
    """``DNS1123_LABEL.problem(name)``, cached: pods repeat the same container and volume names, and
    documents the same namespaces."""
    return DNS1123_LABEL.problem(name)


def _check_container(
    container: dict[str, Any],
    parts: Parts,
    volumes: set[str] | None,
    container_names: dict[str, Parts],
    port_names: dict[str, Parts],
    issues: list[Issue],
    templated: bool,
) -> None:
    """One container: name (``ValidateDNS1123Label``, unique in the pod), ports
    (``validateContainerPorts``; cross-container port-name duplicates are the pod warning of
    ``pkg/api/pod/warnings.go``), volume mounts (``validateVolumeMounts``), resources
    (``ValidateContainerResourceRequirements``)."""
    name = container.get("name")
    label = "container"
    if isinstance(name, str) and not (templated and "${" in name):
        label = f"container {_q(name)}"
        if name not in container_names and _dns1123_label_problem(name) is None:  # nothing to report
            container_names[name] = parts
        else:
            first = _dotted(container_names[name]) if name in container_names else None
            _check_member_name("container", name, (*parts, "name"), first, issues)
            if first is None:
                container_names[name] = parts
    ports = container.get("ports")
    if isinstance(ports, list):
        _check_container_ports(ports, (*parts, "ports"), label, port_names, issues, templated)
    mounts = container.get("volumeMounts")
    if isinstance(mounts, list):
        _check_mounts(mounts, (*parts, "volumeMounts"), label, volumes, issues, templated)
    resources = container.get("resources")
    if isinstance(resources, dict):
        _check_resources(resources, (*parts, "resources"), label, issues, templated)


def _check_container_ports(
    ports: list[Any],
    parts: Parts,
    label: str,
    pod_names: dict[str, Parts],
    issues: list[Issue],
    templated: bool,
) -> None:
    own: set[str] = set()
    for index, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        port_parts = (*parts, index)
        name = port.get("name")
        if isinstance(name, str) and name and not (templated and "${" in name):
            problem = port_name_problem(name)
            if problem:
                issues.append(
                    _issue((*port_parts, "name"), f"{label} port name {_q(name)} {problem}", "port-name")
                )
            elif name in own:
                issues.append(
                    _issue(
                        (*port_parts, "name"), f"{label} port name {_q(name)} is used twice", "duplicate-name"
                    )
                )
            else:
                own.add(name)
                if name in pod_names:
                    first = _dotted(pod_names[name])
                    issues.append(
                        Issue(
                            (*port_parts, "name"),
                            f"{label} port name {_q(name)} is also defined by {first}; Services and probes "
                            f"that select the port by name use {first}",
                            RULE.id,
                            "duplicate-port-name",
                            "warning",
                        )
                    )
                else:
                    pod_names[name] = port_parts
        number = port.get("containerPort")
        if _is_int(number) and not 1 <= number <= 65535:
            issues.append(_port_number_issue(port_parts, "containerPort", number, label))
        number = port.get("hostPort")
        if _is_int(number) and number != 0 and not 1 <= number <= 65535:  # 0: no host port
            issues.append(_port_number_issue(port_parts, "hostPort", number, label))


def _port_number_issue(port_parts: Parts, field_name: str, number: int, label: str) -> Issue:
    return _issue(
        (*port_parts, field_name), f"{label} {field_name} {number} is not between 1 and 65535", "port-number"
    )


def _check_mounts(
    mounts: list[Any],
    parts: Parts,
    label: str,
    volumes: set[str] | None,
    issues: list[Issue],
    templated: bool,
) -> None:
    paths: dict[str, int] = {}
    for index, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        name = mount.get("name")
        if (
            volumes is not None
            and isinstance(name, str)
            and name not in volumes
            and not (templated and "${" in name)
        ):
            declared = ", ".join(sorted(volumes)) or "none"
            issues.append(
                _issue(
                    (*parts, index, "name"),
                    f"{label} mounts volume {_q(name)}, which the pod does not declare (volumes: {declared})",
                    "volume-mount-ref",
                )
            )
        path = mount.get("mountPath")
        if isinstance(path, str) and path:
            if path in paths:
                issues.append(
                    _issue(
                        (*parts, index, "mountPath"),
                        f"{label} mountPath {_q(path)} is already used by volumeMounts[{paths[path]}]",
                        "duplicate-mount-path",
                    )
                )
            else:
                paths[path] = index


def _check_resources(
    resources: dict[str, Any], parts: Parts, label: str, issues: list[Issue], templated: bool
) -> None:
    """``ValidateContainerResourceRequirements``: names (``validateContainerResourceName``), values
    (``ValidateResourceQuantityValue``: ≥ 0, integers for extended resources), requests ≤ limits,
    and for non-overcommitable resources (``IsOvercommitAllowed`` is false: extended resources and
    hugepages) requests == limits and no request without a limit."""
    limits = resources.get("limits")
    requests = resources.get("requests")
    parsed_limits: dict[str, Fraction | int] = {}
    if isinstance(limits, dict):
        for name, raw in limits.items():
            # Fast path: an entry seen before with nothing to report (same result as the slow path).
            facts = _clean_entry(name, raw) if type(name) is str and type(raw) in _PLAIN else None
            if facts is not None:
                parsed_limits[name] = facts[0]
                continue
            parsed = _check_resource_entry(name, raw, (*parts, "limits"), "limits", label, issues, templated)
            if parsed is not None:
                parsed_limits[name] = parsed
    if not isinstance(requests, dict) or (limits is not None and not isinstance(limits, dict)):
        return
    limit_names: dict[str, Any] = limits or {}
    for name, raw in requests.items():
        facts = _clean_entry(name, raw) if type(name) is str and type(raw) in _PLAIN else None
        value: Fraction | int | None
        if facts is not None:
            value, overcommit = facts
        else:
            value = _check_resource_entry(
                name, raw, (*parts, "requests"), "requests", label, issues, templated
            )
            if not isinstance(name, str):
                continue
            overcommit = _overcommit_allowed(name)
        if name in limit_names:
            limit = parsed_limits.get(name)
            if value is None or limit is None:
                continue
            if not overcommit and value != limit:
                issues.append(
                    _issue(
                        (*parts, "requests", name),
                        f"{label} requests {_key(name)} {_fmt(raw)}, which must equal its limit "
                        f"{_fmt(limit_names[name])} ({name} cannot be overcommitted)",
                        "extended-resource",
                    )
                )
            elif value > limit:
                issues.append(
                    _issue(
                        (*parts, "requests", name),
                        f"{label} requests {_key(name)} {_fmt(raw)}, more than its limit {_fmt(limit_names[name])}",
                        "requests-exceed-limits",
                    )
                )
        elif not overcommit and not (isinstance(raw, str) and templated and "${" in raw):
            issues.append(
                _issue(
                    (*parts, "requests", name),
                    f"{label} requests {_key(name)} {_fmt(raw)} without a limit; {name} cannot be "
                    "overcommitted, so limits must be set (a limit alone also sets the request)",
                    "extended-resource",
                )
            )


def _check_resource_entry(
    name: Any, raw: Any, parts: Parts, which: str, label: str, issues: list[Issue], templated: bool
) -> Fraction | None:
    """Check one ``limits``/``requests`` entry; the parsed value, or ``None`` when unusable."""
    if not isinstance(name, str):
        return None
    entry_parts = (*parts, name)
    problem = _resource_name_problem(name)
    if problem:
        issues.append(_issue(entry_parts, f"{label} {which} {_q(name)}: {problem}", "resource-name"))
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        return None  # the schema reports the type
    if isinstance(raw, str) and templated and "${" in raw:
        return None
    value = quantity_value(raw)
    if value is None:
        issues.append(
            _issue(
                entry_parts,
                f"{label} {which} {_key(name)} {_fmt(raw)} is not a quantity (e.g. '500m', '16Gi', '4')",
                "quantity",
            )
        )
        return None
    if value < 0:
        issues.append(
            _issue(entry_parts, f"{label} {which} {_key(name)} {_fmt(raw)} is negative", "quantity")
        )
    elif value.denominator != 1 and _is_extended(name):
        issues.append(
            _issue(
                entry_parts,
                f"{label} {which} {_key(name)} {_fmt(raw)} is not a whole number "
                "(extended resources are counted in whole units)",
                "extended-resource",
            )
        )
    return value


_PLAIN: Final = frozenset({str, int, float})


@lru_cache(maxsize=8192, typed=True)
def _clean_entry(name: str, raw: str | int | float) -> tuple[Fraction | int, bool] | None:
    """``(value, overcommit allowed)`` of a ``limits``/``requests`` entry for which
    :func:`_check_resource_entry` reports nothing (whatever the label, side or templating: a
    templated ``${...}`` value is never a quantity), else ``None`` (then the caller takes the slow
    path). The value is an ``int`` when whole (cheap exact comparisons), else the ``Fraction``.
    Pure, so cached: manifests repeat the same few entries ("cpu": "500m", "memory": "2Gi")."""
    if _resource_name_problem(name) is not None:
        return None
    value = quantity_value(raw)
    if value is None or value < 0:
        return None
    if value.denominator != 1:
        if _is_extended(name):
            return None
        return value, _overcommit_allowed(name)
    return int(value), _overcommit_allowed(name)


@lru_cache(maxsize=4096)
def quantity_value(raw: str | int | float) -> Fraction | None:
    """The exact value of a quantity (:func:`trainops.core.quantity.parse_quantity`), or ``None`` when it
    is not one. Cached: manifests repeat the same few quantities."""
    try:
        return parse_quantity(raw).value
    except QuantityError:
        return None


def _resource_name_problem(name: str) -> str | None:
    """``validateContainerResourceName`` (``pkg/apis/core/validation/validation.go``)."""
    problem = qualified_name_problem(name)
    if problem:
        return f"the resource name {problem}"
    if "/" not in name:
        if name in _STANDARD_CONTAINER_RESOURCES or name.startswith("hugepages-"):
            return None
        return "not a standard container resource (cpu, memory, ephemeral-storage, hugepages-<size>)"
    if not _is_native(name) and not _is_extended(name):
        return "does not follow the extended resource name standard (<domain>/<name>)"
    return None


def _is_native(name: str) -> bool:
    """``IsNativeResource``: no domain, or under ``kubernetes.io/``."""
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: not native, not ``requests.``-prefixed, and ``requests.<name>`` is
    a qualified name (``pkg/apis/core/helper/helpers.go``)."""
    if _is_native(name) or name.startswith("requests."):
        return False
    return qualified_name_problem("requests." + name) is None


def _overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: native and not hugepages."""
    return _is_native(name) and not name.startswith("hugepages-")


# --- selectors -----------------------------------------------------------------------------------


def _check_workload_selector(
    obj: dict[str, Any], kind: str, base: Parts, issues: list[Issue], templated: bool
) -> None:
    """``ValidateDeploymentSpec``/``ValidateReplicaSetSpec``/``ValidateStatefulSetSpec``/
    ``ValidateDaemonSetSpec``: the selector is valid, not empty, and selects the template's labels."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return  # required: the schema reports a missing selector
    selector_parts = (*base, "spec", "selector")
    if not _check_label_selector(selector, selector_parts, issues, templated):
        return
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        issues.append(
            _issue(selector_parts, f"spec.selector is empty, which is invalid for a {kind}", "label-selector")
        )
        return
    _check_selector_match(selector, _get(spec, ("template", "metadata", "labels")), base, issues, templated)


def _check_job_selector(obj: dict[str, Any], base: Parts, issues: list[Issue], templated: bool) -> None:
    """``validateJobSpec`` with ``manualSelector: true``: a selector is required and must select the
    template's labels (otherwise the API server generates it from the Job's uid)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict) or spec.get("manualSelector") is not True:
        return
    selector = spec.get("selector")
    if selector is None:
        issues.append(
            _issue(
                (*base, "spec"),
                "spec.selector is required when spec.manualSelector is true",
                "label-selector",
            )
        )
        return
    if isinstance(selector, dict) and _check_label_selector(
        selector, (*base, "spec", "selector"), issues, templated
    ):
        _check_selector_match(
            selector, _get(spec, ("template", "metadata", "labels")), base, issues, templated
        )


def _check_label_selector(
    selector: dict[str, Any], parts: Parts, issues: list[Issue], templated: bool
) -> bool:
    """``ValidateLabelSelector`` (strict: selector values must be valid label values). Returns whether
    the selector is usable for matching."""
    count = len(issues)
    _check_labels(
        selector.get("matchLabels"), (*parts, "matchLabels"), "selector matchLabels", issues, templated
    )
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        for index, expression in enumerate(expressions):
            if isinstance(expression, dict):
                _check_requirement(expression, (*parts, "matchExpressions", index), issues, templated)
    return len(issues) == count and _selector_shape_ok(selector)


def _check_requirement(
    expression: dict[str, Any], parts: Parts, issues: list[Issue], templated: bool
) -> None:
    """``ValidateLabelSelectorRequirement``."""
    operator, values, key = expression.get("operator"), expression.get("values"), expression.get("key")
    if isinstance(key, str) and not (templated and "${" in key):
        problem = qualified_name_problem(key)
        if problem:
            issues.append(_issue((*parts, "key"), f"selector key {_q(key)} {problem}", "label-selector"))
    if not isinstance(operator, str):
        return
    count = len(values) if isinstance(values, list) else 0
    if operator in ("In", "NotIn") and count == 0:
        issues.append(
            _issue(
                (*parts, "values"), f"selector operator {operator} needs at least one value", "label-selector"
            )
        )
    elif operator in ("Exists", "DoesNotExist") and count:
        issues.append(
            _issue(
                (*parts, "values"),
                f"selector operator {operator} takes no values (got {count})",
                "label-selector",
            )
        )
    elif operator not in _SELECTOR_OPERATORS:
        issues.append(
            _issue(
                (*parts, "operator"),
                f'selector operator "{operator}" is not one of In, NotIn, Exists, DoesNotExist',
                "label-selector",
            )
        )
    if isinstance(values, list):
        for index, value in enumerate(values):
            if isinstance(value, str) and not (templated and "${" in value):
                problem = label_value_problem(value)
                if problem:
                    issues.append(
                        _issue(
                            (*parts, "values", index),
                            f"selector value {_q(value)} {problem}",
                            "label-selector",
                        )
                    )


def _selector_shape_ok(selector: dict[str, Any]) -> bool:
    match_labels = selector.get("matchLabels")
    if match_labels is not None and not (
        isinstance(match_labels, dict) and all(isinstance(v, str) for v in match_labels.values())
    ):
        return False
    expressions = selector.get("matchExpressions")
    if expressions is None:
        return True
    if not isinstance(expressions, list):
        return False
    for expression in expressions:
        if not isinstance(expression, dict) or not isinstance(expression.get("key"), str):
            return False
        values = expression.get("values")
        if values is not None and not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            return False
    return True


def selector_matches(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """Whether a well-formed LabelSelector selects ``labels`` (``labels.Selector.Matches``: NotIn and
    DoesNotExist match an absent key)."""
    match_labels = selector.get("matchLabels") or {}
    for label_key, value in match_labels.items():
        if labels.get(label_key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        label_key, operator = expression["key"], expression.get("operator")
        values = expression.get("values") or ()
        present = label_key in labels
        if operator == "In":
            ok = present and labels[label_key] in values
        elif operator == "NotIn":
            ok = not present or labels[label_key] not in values
        elif operator == "Exists":
            ok = present
        else:
            ok = not present
        if not ok:
            return False
    return True


def _check_selector_match(
    selector: dict[str, Any], labels: Any, base: Parts, issues: list[Issue], templated: bool
) -> None:
    labels = labels if isinstance(labels, dict) else {}
    if templated and any(isinstance(v, str) and "${" in v for v in labels.values()):
        return
    if not selector_matches(selector, labels):
        issues.append(
            _issue(
                (*base, "spec", "template", "metadata", "labels"),
                f"selector does not match template labels: selector {_render_selector(selector)}, "
                f"template labels {_render_map(labels)}",
                "selector-mismatch",
            )
        )


# --- Service -------------------------------------------------------------------------------------


def _check_service(obj: dict[str, Any], base: Parts, issues: list[Issue], templated: bool) -> None:
    """``ValidateService``/``validateServicePort`` (``pkg/apis/core/validation/validation.go``):
    port names are DNS-1123 labels, unique, and required when there is more than one port; a
    port/protocol pair appears once; ports are 1-65535; targetPort is 1-65535 or an IANA_SVC_NAME
    (0 or unset defaults to the port); the selector is a label map."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec_parts = (*base, "spec")
    _check_labels(spec.get("selector"), (*spec_parts, "selector"), "spec.selector", issues, templated)
    ports = spec.get("ports")
    if not isinstance(ports, list):
        return
    require_name = len(ports) > 1
    names: dict[str, int] = {}
    pairs: dict[tuple[int, str], int] = {}
    for index, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        port_parts = (*spec_parts, "ports", index)
        name = port.get("name")
        if isinstance(name, str) and name:
            problem = DNS1123_LABEL.problem(name)
            if problem:
                issues.append(
                    _issue((*port_parts, "name"), f"port name {_q(name)} {problem}", DNS1123_LABEL.keyword)
                )
            if name in names:
                issues.append(
                    _issue(
                        (*port_parts, "name"),
                        f"port name {_q(name)} is already used by spec.ports[{names[name]}]",
                        "duplicate-name",
                    )
                )
            else:
                names[name] = index
        elif require_name and (name is None or name == ""):
            issues.append(
                _issue(
                    port_parts,
                    f"spec.ports[{index}] has no name; every port of a Service with {len(ports)} ports needs one",
                    "service-port",
                )
            )
        number = port.get("port")
        if _is_int(number):
            if not 1 <= number <= 65535:
                issues.append(
                    _issue((*port_parts, "port"), f"port {number} is not between 1 and 65535", "port-number")
                )
            protocol = port.get("protocol") or _PROTOCOLS_DEFAULT
            if isinstance(protocol, str):
                pair = (number, protocol)
                if pair in pairs:
                    issues.append(
                        _issue(
                            port_parts,
                            f"port {number}/{protocol} is already defined by spec.ports[{pairs[pair]}]",
                            "service-port",
                        )
                    )
                else:
                    pairs[pair] = index
        target = port.get("targetPort")
        if _is_int(target):
            if target != 0 and not 1 <= target <= 65535:
                issues.append(
                    _issue(
                        (*port_parts, "targetPort"),
                        f"targetPort {target} is not between 1 and 65535",
                        "target-port",
                    )
                )
        elif isinstance(target, str) and target and not (templated and "${" in target):
            problem = port_name_problem(target)
            if problem:
                issues.append(
                    _issue((*port_parts, "targetPort"), f"targetPort {_q(target)} {problem}", "target-port")
                )


# --- helpers -------------------------------------------------------------------------------------


def _issue(parts: Parts, message: str, keyword: str) -> Issue:
    return Issue(parts, message, RULE.id, keyword)


def _get(node: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        if not isinstance(node, dict):
            return None
        node = node.get(step)
    return node


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _fmt(raw: Any) -> str:
    return _q(raw) if isinstance(raw, str) else str(raw)


def _key(name: str) -> str:
    return name if name.replace("-", "").isalnum() else _q(name)


@lru_cache(maxsize=4096)
def _dotted(parts: Parts) -> str:
    """``parts`` as a dotted path (``spec.containers[0]``); cached: documents repeat the same paths."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _render_map(values: dict[str, Any], limit: int = 120) -> str:
    text = "{" + ", ".join(f"{k}: {v}" for k, v in values.items()) + "}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render_selector(selector: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or ():
        values = expression.get("values") or []
        operator = expression.get("operator")
        key = expression["key"]
        if operator in ("In", "NotIn"):
            parts.append(f"{key} {operator.lower()} ({', '.join(values)})")
        elif operator == "Exists":
            parts.append(key)
        else:
            parts.append(f"!{key}")
    text = "{" + ", ".join(parts) + "}"
    return text if len(text) <= 120 else text[:119] + "…"


def check_with(families: Sequence[Family]) -> Check:
    """The ``api-server`` check: :func:`semantic_issues` of the document, then the issues of each of
    ``families`` (in order) that checks the document's kind, minus paths the schema family already
    rejected (a wrong type is reported once). The kind is tested against every family in this one
    check, not by a check per family: once per kind, while its entry of the kinds table stays the
    same (a family's kinds follow the table).

    Args:
        families: the other API-server modules (:data:`trainops.validate.checks.API_SERVER_FAMILIES`).
    """
    chosen: dict[tuple[str, str], tuple[object, tuple[Family, ...]]] = {}

    def check(context: DocumentContext) -> list[Issue]:
        issues = semantic_issues(
            context.data, context.api_version, context.kind, namespaced=context.schema.namespaced
        )
        key = (group_of(context.api_version), context.kind)
        info = KIND_TABLE.get(key)
        known = chosen.get(key)
        if known is None or known[0] is not info:
            known = chosen[key] = (info, tuple(f for f in families if f.checks(*key)))
        for family in known[1]:
            issues += family.run(context)
        if not issues:
            return issues
        at_fault = {issue.parts for issue in context.found_by("schema")}
        return [issue for issue in issues if issue.parts not in at_fault]

    return Check(RULE, check)
