"""API-server checks of the security fields of pod templates (rule ``api-server``).

Each check function appends what it finds to the ``issues`` list it is given, in the order the API
server visits the fields (init containers, containers, ephemeral containers).

Mirrors k8s.io/kubernetes ``pkg/apis/core/validation/validation.go`` (v1.36; the Go functions are
named below), for every pod template of :data:`trainops.core.kinds.POD_TEMPLATE_SITES`, as
:mod:`.pod_fields` does (a StatefulSet's template, which the API server checks only for its labels
and annotations, and operator templates are checked too: every pod their controller creates would be
refused). The annotations of each template (AppArmor, seccomp) are :mod:`.pod_annotations`'.

=========================  ==========================================================================
keyword                    check (Go function)
=========================  ==========================================================================
``security-context``       container ``procMount: Unmasked`` only with ``hostUsers: false``,
                           ``allowPrivilegeEscalation: false`` with ``CAP_SYS_ADMIN`` added
                           (``ValidateSecurityContext``); seccomp ``localhostProfile`` set exactly
                           for ``type: Localhost``, a relative path (``validateSeccompProfileField``);
                           AppArmor ``localhostProfile`` likewise, unpadded, ≤ 4095 bytes
                           (``ValidateAppArmorProfileField``); ``windowsOptions``
                           (``validateWindowsSecurityContextOptions``); pod ``supplementalGroups``
                           ids, ``shareProcessNamespace`` with ``hostPID``, sysctl names, duplicates
                           and namespaced sysctls of host namespaces (``validatePodSpecSecurityContext``,
                           ``validateSysctls``, ``ValidateHostSysctl``)
``enum``                   procMount (``ValidateProcMountType``), seccomp and AppArmor profile types,
                           ``fsGroupChangePolicy``, ``supplementalGroupsPolicy``,
                           ``seLinuxChangePolicy``, ``os.name`` (``validateOS``)
``host-users``             ``hostUsers: false`` with ``hostNetwork``, ``hostPID`` or ``hostIPC``
                           (``validateHostUsers``)
``host-process``           Windows HostProcess: pod and container values agree, every container is a
                           HostProcess container once one is, and ``hostNetwork`` is true
                           (``validateWindowsHostProcessPod``)
``pod-os``                 fields a Linux pod (``windowsOptions``) or a Windows pod (SELinux,
                           seccomp, AppArmor, ids, capabilities, ...) may not set
                           (``validateLinux``, ``validateWindows``)
=========================  ==========================================================================

The API server is assumed to run with ``--allow-privileged`` (kube-apiserver v1.36.2 recorded in
../shared/ground-truth accepts privileged containers).
"""

from __future__ import annotations

import re
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import POD_TEMPLATE_SITES, Parts, PodSite
from trainops.validate.checks.go_helpers import (
    MAX_INT32,
    container_label,
    enum,
    family,
    is_int,
    issue,
    local_path_problem,
    placeholder,
    show,
)
from trainops.validate.checks.pod_annotations import annotation_issues, containers
from trainops.validate.checks.pod_fields import KINDS
from trainops.validate.context import DocumentContext

PROC_MOUNTS: Final = frozenset({"Default", "Unmasked"})
SECCOMP_TYPES: Final = frozenset({"Localhost", "RuntimeDefault", "Unconfined"})
APPARMOR_TYPES: Final = frozenset({"Localhost", "RuntimeDefault", "Unconfined"})
FS_GROUP_CHANGE_POLICIES: Final = frozenset({"OnRootMismatch", "Always"})
SUPPLEMENTAL_GROUPS_POLICIES: Final = frozenset({"Merge", "Strict"})
SELINUX_CHANGE_POLICIES: Final = frozenset({"Recursive", "MountOption"})
OS_NAMES: Final = frozenset({"linux", "windows"})
#: ``maxLocalhostProfileLength`` of ``ValidateAppArmorProfileField`` (PATH_MAX - 1).
APPARMOR_PROFILE_MAX: Final = 4095
#: ``SysctlMaxLength`` and ``SysctlContainSlashFmt``.
SYSCTL_MAX: Final = 253
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_NAME: Final = rf"({_SYSCTL_SEGMENT}[\./])*{_SYSCTL_SEGMENT}"
#: ``utilsysctl.GetNamespace`` (k8s.io/component-helpers ``node/util/sysctl``): sysctl prefixes of the
#: network and IPC namespaces, which a pod sharing that namespace with the host may not set.
_NET_PREFIXES: Final = ("net.",)
_IPC_NAMES: Final = frozenset({"kernel.sem"})
_IPC_PREFIXES: Final = ("kernel.shm", "kernel.msg", "fs.mqueue.")
#: ``validateWindowsSecurityContextOptions`` limits and patterns.
GMSA_SPEC_MAX: Final = 64 * 1024
RUN_AS_DOMAIN_MAX: Final = 256
RUN_AS_USER_MAX: Final = 104
_CONTROL = r"[\x00-\x1f\x7f]"
_NETBIOS = r'[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}'
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*"
_USER_BAD_CHARS = r'["/\\:;|=,\+\*\?<>@\[\]]'
_USER_DOTS_SPACES = r"[\. ]+"
#: Container securityContext fields a Windows pod may not set (``validateWindows``).
_WINDOWS_FORBIDDEN_CONTAINER: Final = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "capabilities",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "procMount",
    "runAsUser",
    "runAsGroup",
)
#: Pod securityContext fields a Windows pod may not set (``validateWindows``); ``hostUsers``,
#: ``hostPID``, ``hostIPC`` and ``shareProcessNamespace`` are spec fields in the v1 API.
_WINDOWS_FORBIDDEN_POD: Final = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "fsGroup",
    "fsGroupChangePolicy",
    "runAsUser",
    "runAsGroup",
    "supplementalGroups",
    "supplementalGroupsPolicy",
    "seLinuxChangePolicy",
)
#: Pod-spec fields :func:`pod_security_issues` reads: a spec without them and without container
#: security contexts has nothing to check.
_SPEC_FIELDS: Final = frozenset({"securityContext", "hostUsers", "os", "shareProcessNamespace"})


def check(context: DocumentContext) -> list[Issue]:
    """Security-field issues of every pod template of the document (see the module docstring)."""
    issues: list[Issue] = []
    for site in context.pod_sites():
        if site.owner in POD_TEMPLATE_SITES:
            pod_security_issues(site, issues)
            annotation_issues(site, context.data, issues)
    return issues


FAMILY = family(check, KINDS)


def pod_security_issues(site: PodSite, issues: list[Issue]) -> None:
    """Issues of the security fields of one pod spec: ``ValidateSecurityContext`` per container,
    ``validatePodSpecSecurityContext``, ``validateHostUsers``, ``validateWindowsHostProcessPod`` and
    ``validateOS``/``validateLinux``/``validateWindows`` of ``ValidatePodSpec``."""
    spec, parts, templated = site.spec, site.parts, site.templated
    contexts = [
        (container, item, context)
        for container, item in containers(spec, parts)
        if type(context := container.get("securityContext")) is dict
    ]
    if not contexts and _SPEC_FIELDS.isdisjoint(spec):
        return
    host_users = spec.get("hostUsers") is not False
    for container, item, context in contexts:
        _container_context(context, (*item, "securityContext"), container, host_users, templated, issues)
    pod_context = spec.get("securityContext")
    if type(pod_context) is dict:
        _pod_context(pod_context, spec, parts, templated, issues)
    if not host_users:
        for name in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(name) is True:
                issues.append(
                    issue((*parts, name), f"{name} may not be true when hostUsers is false", "host-users")
                )
    _host_process(spec, parts, contexts, issues)
    _os(spec, parts, contexts, templated, issues)


def _container_context(
    context: dict[str, Any],
    parts: Parts,
    container: dict[str, Any],
    host_users: bool,
    templated: bool,
    issues: list[Issue],
) -> None:
    """``ValidateSecurityContext`` beyond ids and privileged (:mod:`.pod_fields`)."""
    what = f"{container_label(container, templated)} securityContext"
    proc_mount = context.get("procMount")
    if isinstance(proc_mount, str) and not placeholder(proc_mount, templated):
        if proc_mount not in PROC_MOUNTS:
            issues.extend(enum(context, "procMount", PROC_MOUNTS, parts, f"{what} procMount", "enum"))
        elif proc_mount == "Unmasked" and host_users:
            issues.append(
                issue(
                    (*parts, "procMount"),
                    f'{what} procMount "Unmasked" needs spec.hostUsers: false (an unmasked /proc only '
                    "in a user namespace)",
                    "security-context",
                )
            )
    seccomp_profile_issues(context.get("seccompProfile"), (*parts, "seccompProfile"), what, templated, issues)
    if context.get("allowPrivilegeEscalation") is False:
        added = context.get("capabilities")
        added = added.get("add") if type(added) is dict else None
        if type(added) is list and "CAP_SYS_ADMIN" in added:
            issues.append(
                issue(
                    parts,
                    f'{what} adds capability "CAP_SYS_ADMIN" and sets allowPrivilegeEscalation: false, '
                    "which contradict each other",
                    "security-context",
                )
            )
    windows_options_issues(context.get("windowsOptions"), (*parts, "windowsOptions"), what, issues)
    apparmor_profile_issues(
        context.get("appArmorProfile"), (*parts, "appArmorProfile"), what, templated, issues
    )


def _pod_context(
    context: dict[str, Any], spec: dict[str, Any], parts: Parts, templated: bool, issues: list[Issue]
) -> None:
    """``validatePodSpecSecurityContext`` beyond fsGroup/runAsUser/runAsGroup (:mod:`.pod_fields`)."""
    context_parts = (*parts, "securityContext")
    what = "pod securityContext"
    groups = context.get("supplementalGroups")
    if type(groups) is list:
        for index, gid in enumerate(groups):
            if is_int(gid) and not 0 <= gid <= MAX_INT32:
                issues.append(
                    issue(
                        (*context_parts, "supplementalGroups", index),
                        f"{what} supplementalGroups[{index}] is {gid}; it must be between 0 and {MAX_INT32}",
                        "security-context",
                    )
                )
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        issues.append(
            issue(
                (*parts, "shareProcessNamespace"),
                "shareProcessNamespace and hostPID cannot both be true",
                "security-context",
            )
        )
    sysctls = context.get("sysctls")
    if type(sysctls) is list and sysctls:
        _sysctls(sysctls, (*context_parts, "sysctls"), spec, templated, issues)
    for name, allowed in (
        ("fsGroupChangePolicy", FS_GROUP_CHANGE_POLICIES),
        ("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS_POLICIES),
        ("seLinuxChangePolicy", SELINUX_CHANGE_POLICIES),
    ):
        issues.extend(enum(context, name, allowed, context_parts, f"{what} {name}", "enum", templated))
    seccomp_profile_issues(
        context.get("seccompProfile"), (*context_parts, "seccompProfile"), what, templated, issues
    )
    windows_options_issues(context.get("windowsOptions"), (*context_parts, "windowsOptions"), what, issues)
    apparmor_profile_issues(
        context.get("appArmorProfile"), (*context_parts, "appArmorProfile"), what, templated, issues
    )


def _sysctls(
    sysctls: list[Any], parts: Parts, spec: dict[str, Any], templated: bool, issues: list[Issue]
) -> None:
    """``validateSysctls`` and ``ValidateHostSysctl``."""
    seen: set[str] = set()
    for index, sysctl in enumerate(sysctls):
        name = sysctl.get("name") if type(sysctl) is dict else None
        if type(name) is not str or placeholder(name, templated):
            continue
        item = (*parts, index, "name")
        if not name:
            issues.append(issue(item, f"sysctls[{index}] has no name", "security-context"))
        elif len(name) > SYSCTL_MAX or re.fullmatch(_SYSCTL_NAME, name) is None:
            issues.append(
                issue(
                    item,
                    f"sysctl name {show(name)} must have at most {SYSCTL_MAX} characters and match "
                    f"{_SYSCTL_NAME}",
                    "security-context",
                )
            )
        elif name in seen:
            issues.append(issue(item, f"sysctl {show(name)} is set twice", "security-context"))
        namespace = _sysctl_namespace(name.replace("/", "."))
        for host, shared in (("hostNetwork", "net"), ("hostIPC", "ipc")):
            if namespace == shared and spec.get(host) is True:
                issues.append(
                    issue(
                        item,
                        f"sysctl {show(name)} is namespaced ({shared}) and may not be set when {host} is true",
                        "security-context",
                    )
                )
        seen.add(name)


def _sysctl_namespace(name: str) -> str | None:
    """``utilsysctl.GetNamespace``: ``net``, ``ipc`` or ``None`` (a namespace no host option shares)."""
    if name.startswith(_NET_PREFIXES):
        return "net"
    if name in _IPC_NAMES or name.startswith(_IPC_PREFIXES):
        return "ipc"
    return None


def seccomp_profile_issues(
    profile: Any, parts: Parts, what: str, templated: bool, issues: list[Issue]
) -> None:
    """``validateSeccompProfileField``: a type (``validateSeccompProfileType``), a relative
    ``localhostProfile`` exactly when the type is Localhost."""
    if type(profile) is not dict:
        return
    kind = profile.get("type")
    local = profile.get("localhostProfile")
    if kind in (None, ""):
        issues.append(
            issue(
                (*parts, "type"),
                f"{what} seccompProfile has no type (required when seccompProfile is set)",
                "security-context",
            )
        )
    elif isinstance(kind, str) and kind not in SECCOMP_TYPES:
        issues.extend(
            enum(profile, "type", SECCOMP_TYPES, parts, f"{what} seccompProfile type", "enum", templated)
        )
    if kind == "Localhost":
        if local is None:
            issues.append(
                issue(
                    (*parts, "localhostProfile"),
                    f"{what} seccompProfile type Localhost needs localhostProfile",
                    "security-context",
                )
            )
        elif isinstance(local, str) and not placeholder(local, templated):
            problem = local_path_problem(local)
            if problem:
                issues.append(
                    issue(
                        (*parts, "localhostProfile"),
                        f"{what} seccompProfile localhostProfile {show(local)} {problem}",
                        "security-context",
                    )
                )
    elif local is not None and not placeholder(kind, templated):
        issues.append(
            issue(
                (*parts, "localhostProfile"),
                f"{what} seccompProfile localhostProfile can only be set when the type is Localhost "
                f"(type {show(kind)})",
                "security-context",
            )
        )


def apparmor_profile_issues(
    profile: Any, parts: Parts, what: str, templated: bool, issues: list[Issue]
) -> None:
    """``ValidateAppArmorProfileField``: a type; ``localhostProfile`` set, unpadded, non-empty and at
    most 4095 bytes exactly when the type is Localhost."""
    if type(profile) is not dict:
        return
    kind = profile.get("type")
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None or local == "":
            issues.append(
                issue(
                    (*parts, "localhostProfile"),
                    f"{what} appArmorProfile type Localhost needs localhostProfile",
                    "security-context",
                )
            )
        elif isinstance(local, str):
            if local.strip() != local:
                issues.append(
                    issue(
                        (*parts, "localhostProfile"),
                        f"{what} appArmorProfile localhostProfile {show(local)} must not be padded with whitespace",
                        "security-context",
                    )
                )
            if len(local.encode()) > APPARMOR_PROFILE_MAX:
                issues.append(
                    issue(
                        (*parts, "localhostProfile"),
                        f"{what} appArmorProfile localhostProfile has {len(local.encode())} bytes, more "
                        f"than {APPARMOR_PROFILE_MAX}",
                        "security-context",
                    )
                )
    elif kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            issues.append(
                issue(
                    (*parts, "localhostProfile"),
                    f"{what} appArmorProfile localhostProfile can only be set when the type is Localhost "
                    f"(type {show(kind)})",
                    "security-context",
                )
            )
    elif kind in (None, ""):
        issues.append(
            issue(
                (*parts, "type"),
                f"{what} appArmorProfile has no type (required when appArmorProfile is set)",
                "security-context",
            )
        )
    else:
        issues.extend(
            enum(profile, "type", APPARMOR_TYPES, parts, f"{what} appArmorProfile type", "enum", templated)
        )


def windows_options_issues(options: Any, parts: Parts, what: str, issues: list[Issue]) -> None:
    """``validateWindowsSecurityContextOptions``: ``gmsaCredentialSpecName`` a DNS-1123 subdomain,
    ``gmsaCredentialSpec`` non-empty and under 64 KiB, ``runAsUserName`` ``[DOMAIN\\]USER`` with the
    NetBIOS/DNS domain and user rules of Windows."""
    if type(options) is not dict:
        return
    from trainops.core.naming import DNS1123_SUBDOMAIN  # here: most pods have no windowsOptions

    name = options.get("gmsaCredentialSpecName")
    if isinstance(name, str):
        problem = DNS1123_SUBDOMAIN.problem(name) if name else "must not be empty"
        if problem:
            issues.append(
                issue(
                    (*parts, "gmsaCredentialSpecName"),
                    f"{what} windowsOptions gmsaCredentialSpecName {show(name)} {problem}",
                    "security-context",
                )
            )
    spec = options.get("gmsaCredentialSpec")
    if isinstance(spec, str) and (not spec or len(spec.encode()) > GMSA_SPEC_MAX):
        issues.append(
            issue(
                (*parts, "gmsaCredentialSpec"),
                f"{what} windowsOptions gmsaCredentialSpec must be non-empty and under 64 KiB",
                "security-context",
            )
        )
    user = options.get("runAsUserName")
    if isinstance(user, str):
        problem = run_as_user_name_problem(user)
        if problem:
            issues.append(
                issue(
                    (*parts, "runAsUserName"),
                    f"{what} windowsOptions runAsUserName {show(user)}: {problem}",
                    "security-context",
                )
            )


def run_as_user_name_problem(value: str) -> str | None:
    """Why ``value`` is not a Windows ``runAsUserName`` (``validateWindowsSecurityContextOptions``),
    or ``None``. Lengths are in bytes, as Go's ``len``."""
    if not value:
        return "runAsUserName cannot be an empty string"
    if re.search(_CONTROL, value):
        return "runAsUserName cannot contain control characters"
    parts = value.split("\\")
    if len(parts) > 2:
        return "runAsUserName cannot contain more than one backslash"
    domain, user = ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])
    if len(domain.encode()) >= RUN_AS_DOMAIN_MAX:
        return f"runAsUserName's Domain length must be under {RUN_AS_DOMAIN_MAX} characters"
    if len(parts) == 2 and not (re.fullmatch(_NETBIOS, domain) or re.fullmatch(_DNS_DOMAIN, domain)):
        return "runAsUserName's Domain doesn't match the NetBios nor the DNS format"
    if not user:
        return "runAsUserName's User cannot be empty"
    if len(user.encode()) > RUN_AS_USER_MAX:
        return f"runAsUserName's User length must not be longer than {RUN_AS_USER_MAX} characters"
    if re.fullmatch(_USER_DOTS_SPACES, user):
        return "runAsUserName's User cannot contain only periods or spaces"
    if re.search(_USER_BAD_CHARS, user):
        return "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
    return None


def _host_process(
    spec: dict[str, Any],
    parts: Parts,
    contexts: list[tuple[dict[str, Any], Parts, dict[str, Any]]],
    issues: list[Issue],
) -> None:
    """``validateWindowsHostProcessPod``: container ``hostProcess`` values agree with the pod's; once
    one container is a HostProcess container (set or inherited), all are and ``hostNetwork`` is true."""
    pod_value = _host_process_of(spec.get("securityContext"))
    if pod_value is None and not contexts:
        return
    total = host_process = 0
    for container, item in containers(spec, parts):
        total += 1
        value = _host_process_of(container.get("securityContext"))
        if pod_value is not None and value is not None and value != pod_value:
            issues.append(
                issue(
                    (*item, "securityContext", "windowsOptions", "hostProcess"),
                    f"container hostProcess {str(value).lower()} differs from the pod's "
                    f"{str(pod_value).lower()}; both must be the same when both are set",
                    "host-process",
                )
            )
        if value is True or (value is None and pod_value is True):
            host_process += 1
    if not host_process:
        return
    if host_process != total:
        issues.append(
            issue(
                parts,
                f"{host_process} of {total} containers are Windows HostProcess containers; if one is, "
                "all must be",
                "host-process",
            )
        )
    if spec.get("hostNetwork") is not True:
        issues.append(
            issue(
                (*parts, "hostNetwork"),
                "hostNetwork must be true in a pod with Windows HostProcess containers",
                "host-process",
            )
        )


def _host_process_of(context: Any) -> bool | None:
    options = context.get("windowsOptions") if type(context) is dict else None
    value = options.get("hostProcess") if type(options) is dict else None
    return value if type(value) is bool else None


def _os(
    spec: dict[str, Any],
    parts: Parts,
    contexts: list[tuple[dict[str, Any], Parts, dict[str, Any]]],
    templated: bool,
    issues: list[Issue],
) -> None:
    """``validateOS`` and, for a valid ``os.name``, ``validateLinux`` or ``validateWindows``."""
    node = spec.get("os")
    if type(node) is not dict:
        return
    name = node.get("name")
    if not isinstance(name, str) or placeholder(name, templated):
        return
    os_parts = (*parts, "os")
    if not name:
        issues.append(issue((*os_parts, "name"), "os.name must not be empty", "enum"))
        return
    if name not in OS_NAMES:
        issues.extend(enum(node, "name", OS_NAMES, os_parts, "os.name", "enum"))
        return
    pod_context = spec.get("securityContext")
    pod_context = pod_context if type(pod_context) is dict else {}
    if name == "linux":
        forbidden_pod: tuple[str, ...] = ("windowsOptions",)
        forbidden_container: tuple[str, ...] = ("windowsOptions",)
        why = "a linux pod"
    else:
        forbidden_pod, forbidden_container, why = (
            _WINDOWS_FORBIDDEN_POD,
            _WINDOWS_FORBIDDEN_CONTAINER,
            "a windows pod",
        )
        for field in ("hostUsers", "shareProcessNamespace"):
            if spec.get(field) is not None:
                issues.append(issue((*parts, field), f"{field} cannot be set for {why}", "pod-os"))
        for field in ("hostPID", "hostIPC"):
            if spec.get(field) is True:
                issues.append(issue((*parts, field), f"{field} cannot be set for {why}", "pod-os"))
        sysctls = pod_context.get("sysctls")
        if type(sysctls) is list and sysctls:
            issues.append(
                issue(
                    (*parts, "securityContext", "sysctls"),
                    f"securityContext sysctls cannot be set for {why}",
                    "pod-os",
                )
            )
    for field in forbidden_pod:
        if pod_context.get(field) is not None:
            issues.append(
                issue(
                    (*parts, "securityContext", field),
                    f"pod securityContext {field} cannot be set for {why}",
                    "pod-os",
                )
            )
    for container, item, context in contexts:
        for field in forbidden_container:
            if context.get(field) is not None:
                issues.append(
                    issue(
                        (*item, "securityContext", field),
                        f"{container_label(container, templated)} securityContext {field} cannot be set for {why}",
                        "pod-os",
                    )
                )
