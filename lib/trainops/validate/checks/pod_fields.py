"""API-server checks of pod and container fields (rule ``api-server``), per pod template.

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors ``ValidatePodSpec`` and what it calls in k8s.io/kubernetes ``pkg/apis/core/validation/
validation.go`` (v1.36), for every pod template of :data:`trainops.core.kinds.POD_TEMPLATE_SITES` (found
with :func:`trainops.core.kinds.pod_templates`; Katib trial templates included, ``${…}`` placeholders
skipped; volumes, tolerations and node affinity are in :mod:`.pod_volumes`). Keywords and the Go
function each mirrors:

=========================  ==========================================================================
keyword                    check (Go function)
=========================  ==========================================================================
``containers-required``    at least one container (``validateContainers``: "Required value")
``image-required``         every container has an image without surrounding whitespace
                           (``validateContainerCommon``/``validateContainersOnlyForPod``); a
                           (Cluster)TrainingRuntime container may leave it out (:data:`IMAGE_SUPPLIED`)
``enum``                   imagePullPolicy (``validatePullPolicy``), port protocol
                           (``validateContainerPorts``), terminationMessagePolicy, Pod restartPolicy
                           (``validateRestartPolicy``), dnsPolicy (``validateDNSPolicy``),
                           mountPropagation (``validateMountPropagation``), hostPath type
                           (``validateHostPathType``), toleration operator/effect
                           (``validateTolerations``), topology spread ``whenUnsatisfiable``
``env``                    ``value`` and ``valueFrom`` together, ``valueFrom`` with zero or several
                           sources, names of printable ASCII without '=' (``validateEnv``,
                           ``validateEnvVarValueFrom``, ``IsEnvVarName`` relaxed)
``security-context``       runAsUser/runAsGroup/fsGroup in 0…2147483647 (``IsValidUserID``,
                           ``IsValidGroupID``); privileged with allowPrivilegeEscalation false
                           (``ValidateSecurityContext``)
``probe``                  exactly one handler (``validateProbe``/``validateHandler``), liveness and
                           startup successThreshold 1, non-negative timings; lifecycle hooks
                           need a handler (``validateLifecycle``)
``volume-source``          exactly one volume source (``validateVolumeSource``: "may not specify more
                           than 1 volume type"), claimName set, ``defaultMode`` 0…0777
``mount-subpath``          subPath relative without '..' (``validateLocalDescendingPath``)
``init-container``         probes and lifecycle hooks only on sidecar init containers
                           (``validateInitContainers``); ephemeral volumes' claim templates are
                           checked as PVCs (``validateEphemeralVolumeSource``)
``toleration``             Exists takes no value; an empty key needs Exists; tolerationSeconds
                           needs NoExecute (``validateTolerations``)
``pod-spec``               activeDeadlineSeconds ≥ 1 (``ValidatePodSpec``) and not in
                           ReplicaSet/Deployment/StatefulSet/DaemonSet templates
                           (``ValidatePodTemplateSpecForReplicaSet``…); dnsPolicy None needs
                           dnsConfig (``validatePodDNSConfig``); hostNetwork hostPort equals
                           containerPort (``validateHostNetwork``); topology spread maxSkew > 0
                           (``validateTopologySpreadConstraints``)
=========================  ==========================================================================

Each check was compared with kube-apiserver v1.36.2 (server-side dry run, strict field validation);
the server's message is quoted in tests/validate/test_api_server_parity.py.
"""

from __future__ import annotations

import re
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import POD_TEMPLATE_SITES, WORKLOADS, KindGroup, Parts, PodSite
from trainops.core.naming import DNS1123_LABEL
from trainops.validate.checks.go_helpers import (
    MAX_INT32,
    at_least,
    container_label,
    enum,
    family,
    get,
    is_int,
    issue,
    local_path_problem,
    off,
    placeholder,
    show,
)
from trainops.validate.checks.pod_volumes import (
    node_affinity_issues,
    service_account_token_issues,
    toleration_issues,
    volume_issues,
)
from trainops.validate.context import DocumentContext

PULL_POLICIES: Final = frozenset({"Always", "IfNotPresent", "Never"})
PROTOCOLS: Final = frozenset({"TCP", "UDP", "SCTP"})
RESTART_POLICIES: Final = frozenset({"Always", "OnFailure", "Never"})
DNS_POLICIES: Final = frozenset({"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"})
TERMINATION_MESSAGE_POLICIES: Final = frozenset({"File", "FallbackToLogsOnError"})
MOUNT_PROPAGATIONS: Final = frozenset({"Bidirectional", "HostToContainer", "None"})
UNSATISFIABLE: Final = frozenset({"DoNotSchedule", "ScheduleAnyway"})
#: ``IsEnvVarName`` relaxed (``RelaxedEnvironmentVariableValidation``, GA in 1.34): printable ASCII, no '='.
_ENV_NAME_BAD: Final = re.compile(r"[^ -~]|=")
#: ``core.EnvVarSource`` members; ``valueFrom`` sets exactly one.
ENV_SOURCES: Final = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
_ENV_SOURCE_SET: Final = frozenset(ENV_SOURCES)
#: ``core.ProbeHandler``/``LifecycleHandler`` members; a probe or hook sets exactly one.
PROBE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "grpc")
LIFECYCLE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "sleep")
_PROBE_HANDLER_SET: Final = frozenset(PROBE_HANDLERS)
_PROBE_TIMINGS: Final = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
)
_POD: Final = ("", "Pod")
_POD_OWNERS: Final = frozenset({_POD, ("", "PodTemplate")})
#: Kinds whose containers may have no image: a Kubeflow Trainer runtime is a template the TrainJob
#: completes (``spec.trainer.image``, the initializers' images; trainer ``pkg/runtime/framework/
#: plugins/jobset``), and the API server checks it against its CRD schema only, which does not
#: require ``image`` (kube-apiserver v1.36.2 accepts such a ClusterTrainingRuntime).
IMAGE_SUPPLIED: Final = frozenset(
    {("trainer.kubeflow.org", "TrainingRuntime"), ("trainer.kubeflow.org", "ClusterTrainingRuntime")}
)
#: Pod-spec fields :func:`_pod_level` reads: a spec with none of them is skipped at once.
_POD_LEVEL_FIELDS: Final = frozenset(
    {
        "restartPolicy",
        "dnsPolicy",
        "activeDeadlineSeconds",
        "hostname",
        "subdomain",
        "affinity",
        "securityContext",
        "topologySpreadConstraints",
    }
)


def check(context: DocumentContext) -> list[Issue]:
    """Pod-spec issues of every pod template of the document (see the module docstring)."""
    issues: list[Issue] = []
    for site in context.pod_sites():
        if site.owner in POD_TEMPLATE_SITES:  # not KServe components / TrainJob overrides
            pod_spec_issues(site, issues)
    return issues


#: Kinds with pod templates, and kinds embedding objects that have them (Katib).
KINDS: Final = KindGroup(lambda info: bool(info.templates or info.embedded))
FAMILY = family(check, KINDS)


def pod_spec_issues(site: PodSite, issues: list[Issue]) -> None:
    """Issues of one pod spec (``ValidatePodSpec``).

    Args:
        site: the pod spec and its place (:func:`trainops.core.kinds.pod_templates`).
    """
    spec, parts, templated = site.spec, site.parts, site.templated
    containers = spec.get("containers")
    if isinstance(containers, list) and not containers:
        issues.append(
            issue(
                (*parts, "containers"),
                "spec.containers is empty; a pod needs at least one container",
                "containers-required",
            )
        )
    host_network = spec.get("hostNetwork") is True
    image_supplied = site.owner in IMAGE_SUPPLIED
    for group in ("containers", "initContainers"):
        items = spec.get(group)
        if isinstance(items, list):
            for index, container in enumerate(items):
                if isinstance(container, dict):
                    item = (*parts, group, index)
                    _container(container, item, templated, host_network, image_supplied, issues)
                    if group == "initContainers":
                        _init_container(container, item, templated, issues)
    volume_issues(spec.get("volumes"), (*parts, "volumes"), templated, issues)
    if site.owner == _POD:
        service_account_token_issues(spec, parts, issues)
    _pod_level(spec, parts, site, issues)
    toleration_issues(spec.get("tolerations"), (*parts, "tolerations"), templated, issues)


def _pod_level(spec: dict[str, Any], parts: Parts, site: PodSite, issues: list[Issue]) -> None:
    if _POD_LEVEL_FIELDS.isdisjoint(spec):
        return
    templated = site.templated
    if site.owner in _POD_OWNERS and off(spec, "restartPolicy", RESTART_POLICIES):
        issues.extend(
            enum(spec, "restartPolicy", RESTART_POLICIES, parts, "restartPolicy", "enum", templated)
        )
    if off(spec, "dnsPolicy", DNS_POLICIES):
        issues.extend(enum(spec, "dnsPolicy", DNS_POLICIES, parts, "dnsPolicy", "enum", templated))
    if spec.get("dnsPolicy") == "None" and not isinstance(spec.get("dnsConfig"), dict):
        issues.append(issue((*parts, "dnsPolicy"), 'dnsPolicy "None" needs spec.dnsConfig', "pod-spec"))
    deadline = spec.get("activeDeadlineSeconds")
    if is_int(deadline):
        if site.owner in WORKLOADS:
            issues.append(
                issue(
                    (*parts, "activeDeadlineSeconds"),
                    f"activeDeadlineSeconds is not supported in a {site.owner[1]} pod template (its pods run until replaced)",
                    "pod-spec",
                )
            )
        elif not 1 <= deadline <= MAX_INT32:
            issues.append(
                issue(
                    (*parts, "activeDeadlineSeconds"),
                    f"activeDeadlineSeconds is {deadline}; it must be between 1 and {MAX_INT32}",
                    "pod-spec",
                )
            )
    for name in ("hostname", "subdomain"):
        value = spec.get(name)
        if isinstance(value, str) and value and not placeholder(value, templated):
            problem = DNS1123_LABEL.problem(value)
            if problem:
                issues.append(issue((*parts, name), f"{name} {show(value)} {problem}", "pod-spec"))
    if "affinity" in spec:
        node_affinity_issues(
            get(spec, "affinity", "nodeAffinity"), (*parts, "affinity", "nodeAffinity"), templated, issues
        )
    context = spec.get("securityContext")
    if isinstance(context, dict):
        for name in ("runAsUser", "runAsGroup", "fsGroup"):
            value = context.get(name)
            if type(value) is int and not 0 <= value <= MAX_INT32:
                _id_range(context, name, (*parts, "securityContext"), "pod securityContext", issues)
    constraints = spec.get("topologySpreadConstraints")
    if isinstance(constraints, list):
        for index, constraint in enumerate(constraints):
            if isinstance(constraint, dict):
                item = (*parts, "topologySpreadConstraints", index)
                issues.extend(
                    at_least(constraint, "maxSkew", 1, item, "topologySpreadConstraints maxSkew", "pod-spec")
                )
                issues.extend(
                    enum(
                        constraint,
                        "whenUnsatisfiable",
                        UNSATISFIABLE,
                        item,
                        "whenUnsatisfiable",
                        "enum",
                        templated,
                    )
                )


def _container(
    container: dict[str, Any],
    parts: Parts,
    templated: bool,
    host_network: bool,
    image_supplied: bool,
    issues: list[Issue],
) -> None:
    """``validateContainerCommon``: image (unless ``image_supplied``, see :data:`IMAGE_SUPPLIED`), pull
    policy, ports, env, security context, probes. Cheap when nothing is wrong: messages (and the
    container's label) are built only for issues."""
    image = container.get("image")
    if image is None or image == "":
        if not image_supplied:
            issues.append(issue(parts, f"{_label(container, templated)} has no image", "image-required"))
    elif isinstance(image, str) and image.strip() != image:
        issues.append(
            issue(
                (*parts, "image"),
                f"{_label(container, templated)} image {show(image)} has leading or trailing whitespace",
                "image-required",
            )
        )
    pull = container.get("imagePullPolicy")
    if pull is not None and pull not in PULL_POLICIES:
        what = f"{_label(container, templated)} imagePullPolicy"
        issues.extend(enum(container, "imagePullPolicy", PULL_POLICIES, parts, what, "enum", templated))
    restart = container.get("restartPolicy")
    if restart is not None and restart not in RESTART_POLICIES:
        what = f"{_label(container, templated)} restartPolicy"
        issues.extend(enum(container, "restartPolicy", RESTART_POLICIES, parts, what, "enum", templated))
    message_policy = container.get("terminationMessagePolicy")
    if message_policy is not None and message_policy not in TERMINATION_MESSAGE_POLICIES:
        what = f"{_label(container, templated)} terminationMessagePolicy"
        issues.extend(
            enum(
                container,
                "terminationMessagePolicy",
                TERMINATION_MESSAGE_POLICIES,
                parts,
                what,
                "enum",
                templated,
            )
        )
    ports = container.get("ports")
    if type(ports) is list:
        for index, port in enumerate(ports):
            if type(port) is not dict:
                continue
            protocol = port.get("protocol")
            if protocol is not None and protocol not in PROTOCOLS:
                what = f"{_label(container, templated)} port protocol"
                issues.extend(
                    enum(port, "protocol", PROTOCOLS, (*parts, "ports", index), what, "enum", templated)
                )
            if host_network:
                host, number = port.get("hostPort"), port.get("containerPort")
                if is_int(host) and host != 0 and is_int(number) and host != number:
                    issues.append(
                        issue(
                            (*parts, "ports", index, "hostPort"),
                            f"{_label(container, templated)} hostPort {host} must equal containerPort {number} "
                            "when hostNetwork is true",
                            "pod-spec",
                        )
                    )
    env = container.get("env")
    if env:
        _env(env, (*parts, "env"), container, templated, issues)
    env_from = container.get("envFrom")
    if env_from:
        _env_from(env_from, (*parts, "envFrom"), _label(container, templated), issues)
    context = container.get("securityContext")
    if isinstance(context, dict):
        _container_security(context, (*parts, "securityContext"), container, templated, issues)
    for probe_name in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(probe_name)
        if isinstance(probe, dict) and _probe_suspect(probe, probe_name):
            _probe(probe, probe_name, (*parts, probe_name), _label(container, templated), issues)
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            handler = lifecycle.get(hook)
            if isinstance(handler, dict) and _handler_count(handler, LIFECYCLE_HANDLERS) != 1:
                what = f"{_label(container, templated)} {hook} hook"
                _handler(handler, LIFECYCLE_HANDLERS, (*parts, "lifecycle", hook), what, issues)
    mounts = container.get("volumeMounts")
    if isinstance(mounts, list):
        for index, mount in enumerate(mounts):
            if isinstance(mount, dict) and (
                "subPath" in mount or off(mount, "mountPropagation", MOUNT_PROPAGATIONS)
            ):
                _mount(
                    mount, (*parts, "volumeMounts", index), _label(container, templated), templated, issues
                )


def _init_container(container: dict[str, Any], parts: Parts, templated: bool, issues: list[Issue]) -> None:
    """``validateInitContainers``: probes and lifecycle hooks only on sidecars (``restartPolicy:
    Always``)."""
    if container.get("restartPolicy") == "Always":
        return
    for name in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
        if container.get(name) is not None:
            issues.append(
                issue(
                    (*parts, name),
                    f"init {_label(container, templated)} sets {name}, which only a sidecar (an init "
                    "container with restartPolicy: Always) may",
                    "init-container",
                )
            )


def _container_security(
    context: dict[str, Any], parts: Parts, container: dict[str, Any], templated: bool, issues: list[Issue]
) -> None:
    """``ValidateSecurityContext``: user and group ids, privileged vs allowPrivilegeEscalation."""
    for name in ("runAsUser", "runAsGroup"):
        value = context.get(name)
        if is_int(value) and not 0 <= value <= MAX_INT32:
            _id_range(context, name, parts, f"{_label(container, templated)} securityContext", issues)
    if context.get("privileged") is True and context.get("allowPrivilegeEscalation") is False:
        issues.append(
            issue(
                (*parts, "allowPrivilegeEscalation"),
                f"{_label(container, templated)} securityContext sets privileged: true and "
                "allowPrivilegeEscalation: false, which contradict each other",
                "security-context",
            )
        )


def _probe_suspect(probe: dict[str, Any], name: str) -> bool:
    """Whether :func:`_probe` could find anything: not exactly one handler, a negative timing (the
    only integers at a probe's top level), or a liveness/startup successThreshold other than 1."""
    handlers = _PROBE_HANDLER_SET.intersection(probe)
    if len(handlers) != 1 or probe[next(iter(handlers))] is None:
        return True
    for value in probe.values():
        if type(value) is int and value < 0:
            return True
    return name != "readinessProbe" and probe.get("successThreshold", 1) != 1


def _handler_count(node: dict[str, Any], handlers: tuple[str, ...]) -> int:
    return sum(1 for key in handlers if node.get(key) is not None)


_label = container_label


def _env(env: Any, parts: Parts, container: dict[str, Any], templated: bool, issues: list[Issue]) -> None:
    """``validateEnv`` and ``validateEnvVarValueFrom``: a fast test per variable, the full check
    (:func:`_env_var`) only for a suspect one."""
    if not isinstance(env, list):
        return
    for index, var in enumerate(env):
        if type(var) is not dict:
            continue
        name = var.get("name")
        if type(name) is str and not _env_name_ok(name):
            _env_var(var, (*parts, index), index, _label(container, templated), templated, issues)
            continue
        source = var.get("valueFrom")
        if source is None:
            continue
        if type(source) is dict and len(source) == 1 and not var.get("value"):
            key, value = next(iter(source.items()))
            if key in _ENV_SOURCE_SET and value is not None:
                continue
        _env_var(var, (*parts, index), index, _label(container, templated), templated, issues)


def _env_name_ok(name: str) -> bool:
    """A non-empty name that :data:`_ENV_NAME_BAD` does not match (printable ASCII, space to ``~``, and no
    ``=``), tested with string methods: a regular expression search per variable cost more."""
    return bool(name) and name.isascii() and name.isprintable() and "=" not in name


def _env_var(
    var: dict[str, Any], item: Parts, index: int, label: str, templated: bool, issues: list[Issue]
) -> None:
    """One environment variable: its name, ``value`` xor ``valueFrom``, exactly one source."""
    name = var.get("name")
    if isinstance(name, str) and not (templated and placeholder(name, templated)):
        if not name:
            issues.append(issue((*item, "name"), f"{label} env[{index}] has no name", "env"))
        elif _ENV_NAME_BAD.search(name):
            issues.append(
                issue(
                    (*item, "name"),
                    f"{label} env name {_shown(name)} must consist of printable ASCII characters other than '='",
                    "env",
                )
            )
    source = var.get("valueFrom")
    if not isinstance(source, dict):
        return
    value = var.get("value")
    if isinstance(value, str) and value:
        issues.append(
            issue(
                (*item, "valueFrom"),
                f"{label} env {_shown(name)} sets both value and valueFrom; use one",
                "env",
            )
        )
    present = [key for key, value in source.items() if key in _ENV_SOURCE_SET and value is not None]
    if not present:
        issues.append(
            issue(
                (*item, "valueFrom"),
                f"{label} env {_shown(name)} valueFrom names no source (one of {', '.join(ENV_SOURCES)})",
                "env",
            )
        )
    elif len(present) > 1:
        issues.append(
            issue(
                (*item, "valueFrom"),
                f"{label} env {_shown(name)} valueFrom sets {len(present)} sources ({', '.join(present)}); "
                "only one is allowed",
                "env",
            )
        )


def _shown(name: Any) -> str:
    return show(name) if isinstance(name, str) else "?"


def _env_from(env_from: Any, parts: Parts, label: str, issues: list[Issue]) -> None:
    """``validateEnvFrom``: a ConfigMap or Secret reference names its object."""
    if not isinstance(env_from, list):
        return
    for index, source in enumerate(env_from):
        if not isinstance(source, dict):
            continue
        for ref in ("configMapRef", "secretRef"):
            node = source.get(ref)
            if isinstance(node, dict) and node.get("name") in (None, ""):
                issues.append(
                    issue((*parts, index, ref), f"{label} envFrom[{index}] {ref} has no name", "env")
                )


def _id_range(context: dict[str, Any], name: str, parts: Parts, what: str, issues: list[Issue]) -> None:
    """``IsValidUserID``/``IsValidGroupID``: 0 ≤ id ≤ 2147483647."""
    value = context.get(name)
    if is_int(value) and not 0 <= value <= MAX_INT32:
        issues.append(
            issue(
                (*parts, name),
                f"{what} {name} is {value}; it must be between 0 and {MAX_INT32}",
                "security-context",
            )
        )


def _probe(probe: dict[str, Any], name: str, parts: Parts, label: str, issues: list[Issue]) -> None:
    """``validateProbe``: one handler, non-negative timings, successThreshold 1 for liveness and
    startup probes."""
    _handler(probe, PROBE_HANDLERS, parts, f"{label} {name}", issues)
    for timing in _PROBE_TIMINGS:
        issues.extend(at_least(probe, timing, 0, parts, f"{label} {name} {timing}", "probe"))
    threshold = probe.get("successThreshold")
    if name != "readinessProbe" and is_int(threshold) and threshold != 1:
        issues.append(
            issue(
                (*parts, "successThreshold"),
                f"{label} {name} successThreshold is {threshold}; it must be 1 for a {name}",
                "probe",
            )
        )


def _handler(
    node: dict[str, Any], handlers: tuple[str, ...], parts: Parts, what: str, issues: list[Issue]
) -> None:
    """``validateHandler``: exactly one handler type."""
    present = [key for key in handlers if node.get(key) is not None]
    if not present:
        issues.append(issue(parts, f"{what} has no handler (one of {', '.join(handlers)})", "probe"))
    elif len(present) > 1:
        issues.append(
            issue(
                (*parts, present[1]),
                f"{what} sets {len(present)} handlers ({', '.join(present)}); only one is allowed",
                "probe",
            )
        )


def _mount(mount: dict[str, Any], parts: Parts, label: str, templated: bool, issues: list[Issue]) -> None:
    """``validateVolumeMounts``: mountPropagation, subPath (``validateLocalDescendingPath``)."""
    issues.extend(
        enum(
            mount,
            "mountPropagation",
            MOUNT_PROPAGATIONS,
            parts,
            f"{label} mountPropagation",
            "enum",
            templated,
        )
    )
    sub_path = mount.get("subPath")
    if isinstance(sub_path, str) and sub_path and not placeholder(sub_path, templated):
        problem = local_path_problem(sub_path)
        if problem:
            issues.append(
                issue((*parts, "subPath"), f"{label} subPath {show(sub_path)} {problem}", "mount-subpath")
            )
