"""API-server checks of Services, PersistentVolumeClaims, ConfigMaps and Secrets (rule ``api-server``).

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors k8s.io/kubernetes ``pkg/apis/core/validation/validation.go`` (v1.36); Service port names,
numbers and selectors are :mod:`.api_server`'s.

==================  ===============================================================================
keyword             check (Go function)
==================  ===============================================================================
``enum``            Service type, port protocol, sessionAffinity, externalTrafficPolicy,
                    internalTrafficPolicy, ipFamilies, ipFamilyPolicy (``ValidateService``); PVC
                    accessModes and volumeMode (``ValidatePersistentVolumeClaimSpec``)
``service``         ports required (unless headless or ExternalName), externalName required for
                    ExternalName, clusterIP "", "None" or an IP (not "None" for NodePort and
                    LoadBalancer), clusterIPs[0] == clusterIP, nodePort only for NodePort and
                    LoadBalancer, externalTrafficPolicy only for them, externalIPs are IPs,
                    loadBalancerSourceRanges are CIDRs (``ValidateService``,
                    ``validateServiceExternalTrafficPolicy``)
``pvc``             at least one access mode, ReadWriteOncePod alone, a storage request > 0,
                    storageClassName a DNS-1123 subdomain (``ValidatePersistentVolumeClaimSpec``);
                    also StatefulSet ``volumeClaimTemplates``
``config-key``      ConfigMap/Secret keys (``IsConfigMapKey``), a key not in both ``data`` and
                    ``binaryData`` (``ValidateConfigMap``, ``ValidateSecret``)
``size``            ConfigMap values ≤ 1 MiB (``MaxConfigMapSize``), Secret data ≤ 1 MiB
                    (``MaxSecretSize``)
``secret-type``     keys each built-in Secret type requires (``ValidateSecret``)
==================  ===============================================================================
"""

from __future__ import annotations

import binascii
import json
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import GroupKind, Parts, group_of
from trainops.core.naming import DNS1123_SUBDOMAIN
from trainops.validate.checks.api_server import quantity_value
from trainops.validate.checks.go_helpers import (
    choices,
    cidr_problem,
    config_key_problem,
    enum,
    family,
    get,
    ip_problem,
    issue,
    show,
)
from trainops.validate.context import DocumentContext

SERVICE_TYPES: Final = frozenset({"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"})
PROTOCOLS: Final = frozenset({"TCP", "UDP", "SCTP"})
SESSION_AFFINITY: Final = frozenset({"ClientIP", "None"})
TRAFFIC_POLICIES: Final = frozenset({"Cluster", "Local"})
IP_FAMILIES: Final = frozenset({"IPv4", "IPv6"})
IP_FAMILY_POLICIES: Final = frozenset({"SingleStack", "PreferDualStack", "RequireDualStack"})
ACCESS_MODES: Final = frozenset({"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"})
VOLUME_MODES: Final = frozenset({"Block", "Filesystem"})
#: ``MaxConfigMapSize`` and ``MaxSecretSize`` (``pkg/apis/core/types.go``): 1 MiB.
MAX_SIZE: Final = 1024 * 1024
#: Keys each Secret type requires (``ValidateSecret``; basic-auth needs one of its two keys).
SECRET_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}
_EXTERNAL: Final = frozenset({"NodePort", "LoadBalancer"})


def check(context: DocumentContext) -> list[Issue]:
    """Issues of Services, PVCs (and StatefulSet claim templates), ConfigMaps and Secrets."""
    data = context.data
    key: GroupKind = (group_of(context.api_version), context.kind)
    issues: list[Issue] = []
    if key == ("", "Service"):
        service_spec(data.get("spec"), ("spec",), issues)
    elif key == ("", "PersistentVolumeClaim"):
        pvc_spec(data.get("spec"), ("spec",), issues)
    elif key == ("apps", "StatefulSet"):
        templates = get(data, "spec", "volumeClaimTemplates")
        if isinstance(templates, list):
            for index, template in enumerate(templates):
                pvc_spec(get(template, "spec"), ("spec", "volumeClaimTemplates", index, "spec"), issues)
    elif key == ("", "ConfigMap"):
        config_map(data, issues)
    elif key == ("", "Secret"):
        secret(data, issues)
    return issues


#: Kinds this family checks.
KINDS: Final = frozenset({"Service", "PersistentVolumeClaim", "StatefulSet", "ConfigMap", "Secret"})
FAMILY = family(check, KINDS)


def service_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateService`` beyond port names and numbers."""
    if not isinstance(spec, dict):
        return
    issues.extend(enum(spec, "type", SERVICE_TYPES, parts, "Service type", "enum"))
    kind = spec.get("type", "ClusterIP")
    cluster_ip = spec.get("clusterIP")
    headless = cluster_ip == "None"
    ports = spec.get("ports")
    if (ports is None or ports == []) and not headless and kind != "ExternalName":
        issues.append(issue((*parts, "ports"), f"a {kind} Service needs at least one port", "service"))
    external_name = spec.get("externalName")
    if kind == "ExternalName" and external_name in (None, ""):
        issues.append(issue(parts, "an ExternalName Service needs spec.externalName", "service"))
    elif kind == "ExternalName" and isinstance(external_name, str):
        problem = DNS1123_SUBDOMAIN.problem(external_name.removesuffix("."))
        if problem:
            issues.append(
                issue(
                    (*parts, "externalName"), f"spec.externalName {show(external_name)} {problem}", "service"
                )
            )
    if spec.get("loadBalancerClass") is not None and kind != "LoadBalancer":
        issues.append(
            issue(
                (*parts, "loadBalancerClass"),
                f"loadBalancerClass may only be set on a LoadBalancer Service (this one is {kind})",
                "service",
            )
        )
    if isinstance(cluster_ip, str) and cluster_ip not in ("", "None"):
        problem = ip_problem(cluster_ip)
        if problem:
            issues.append(
                issue((*parts, "clusterIP"), f"spec.clusterIP {show(cluster_ip)} {problem}", "service")
            )
    elif headless and kind in _EXTERNAL:
        issues.append(
            issue((*parts, "clusterIP"), f'spec.clusterIP may not be "None" for a {kind} Service', "service")
        )
    cluster_ips = spec.get("clusterIPs")
    if isinstance(cluster_ips, list) and cluster_ips and isinstance(cluster_ip, str) and cluster_ip:  # noqa: SIM102
        if cluster_ips[0] != cluster_ip:
            issues.append(
                issue(
                    (*parts, "clusterIPs"),
                    f"spec.clusterIPs[0] {show(cluster_ips[0])} must equal spec.clusterIP {show(cluster_ip)}",
                    "service",
                )
            )
    if isinstance(ports, list):
        for index, port in enumerate(ports):
            if not isinstance(port, dict):
                continue
            port_parts = (*parts, "ports", index)
            issues.extend(enum(port, "protocol", PROTOCOLS, port_parts, "Service port protocol", "enum"))
            if port.get("nodePort") not in (None, 0) and kind not in _EXTERNAL:
                issues.append(
                    issue(
                        (*port_parts, "nodePort"),
                        f"nodePort {show(port.get('nodePort'))} may not be set on a {kind} Service",
                        "service",
                    )
                )
    issues.extend(enum(spec, "sessionAffinity", SESSION_AFFINITY, parts, "sessionAffinity", "enum"))
    policy = spec.get("externalTrafficPolicy")
    if isinstance(policy, str) and policy:
        if policy not in TRAFFIC_POLICIES:
            issues.extend(
                enum(spec, "externalTrafficPolicy", TRAFFIC_POLICIES, parts, "externalTrafficPolicy", "enum")
            )
        elif kind not in _EXTERNAL:
            issues.append(
                issue(
                    (*parts, "externalTrafficPolicy"),
                    f"externalTrafficPolicy {show(policy)} may only be set on NodePort and LoadBalancer Services "
                    f"(this one is {kind})",
                    "service",
                )
            )
    issues.extend(
        enum(spec, "internalTrafficPolicy", TRAFFIC_POLICIES, parts, "internalTrafficPolicy", "enum")
    )
    issues.extend(enum(spec, "ipFamilyPolicy", IP_FAMILY_POLICIES, parts, "ipFamilyPolicy", "enum"))
    for name, validate in (("externalIPs", ip_problem), ("loadBalancerSourceRanges", cidr_problem)):
        values = spec.get(name)
        if isinstance(values, list):
            for index, value in enumerate(values):
                problem = validate(value.strip()) if isinstance(value, str) else None
                if problem:
                    issues.append(
                        issue(
                            (*parts, name, index), f"spec.{name}[{index}] {show(value)} {problem}", "service"
                        )
                    )
    families = spec.get("ipFamilies")
    if isinstance(families, list):
        for index, family_name in enumerate(families):
            if isinstance(family_name, str) and family_name not in IP_FAMILIES:
                issues.append(
                    issue(
                        (*parts, "ipFamilies", index),
                        f'ipFamilies[{index}] {show(family_name)} is not one of "IPv4", "IPv6"',
                        "enum",
                    )
                )


def pvc_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidatePersistentVolumeClaimSpec``: access modes, storage request, volumeMode, class name."""
    if not isinstance(spec, dict):
        return
    modes = spec.get("accessModes")
    if modes is None or modes == []:
        issues.append(
            issue(parts, "a PersistentVolumeClaim needs at least one access mode (spec.accessModes)", "pvc")
        )
    elif isinstance(modes, list):
        for index, mode in enumerate(modes):
            if isinstance(mode, str) and mode not in ACCESS_MODES:
                issues.append(
                    issue(
                        (*parts, "accessModes", index),
                        f"access mode {show(mode)} is not one of {choices(ACCESS_MODES)}",
                        "enum",
                    )
                )
        if "ReadWriteOncePod" in modes and len(modes) > 1:
            issues.append(
                issue(
                    (*parts, "accessModes"),
                    "ReadWriteOncePod may not be combined with other access modes",
                    "pvc",
                )
            )
    storage = get(spec, "resources", "requests", "storage")
    if storage is None:
        issues.append(issue(parts, "a PersistentVolumeClaim needs spec.resources.requests.storage", "pvc"))
    elif isinstance(storage, str | int | float) and not isinstance(storage, bool):
        value = quantity_value(storage)  # None when not a quantity: the schema reports it
        if value is not None and value <= 0:
            issues.append(
                issue(
                    (*parts, "resources", "requests", "storage"),
                    f"storage request {show(storage)} must be greater than zero",
                    "pvc",
                )
            )
    issues.extend(enum(spec, "volumeMode", VOLUME_MODES, parts, "volumeMode", "enum"))
    class_name = spec.get("storageClassName")
    if isinstance(class_name, str) and class_name:
        problem = DNS1123_SUBDOMAIN.problem(class_name)
        if problem:
            issues.append(
                issue((*parts, "storageClassName"), f"storageClassName {show(class_name)} {problem}", "pvc")
            )


def config_map(data: dict[str, Any], issues: list[Issue]) -> None:
    """``ValidateConfigMap``: keys, no key in both maps, values ≤ 1 MiB in total."""
    total = 0
    values, binary = data.get("data"), data.get("binaryData")
    for field_name, mapping in (("data", values), ("binaryData", binary)):
        if not isinstance(mapping, dict):
            continue
        for key, value in mapping.items():
            if isinstance(key, str):
                _key(key, field_name, issues)
                if field_name == "data" and isinstance(binary, dict) and key in binary:
                    issues.append(
                        issue(
                            (field_name, key), f"key {show(key)} is in both data and binaryData", "config-key"
                        )
                    )
            if isinstance(value, str):
                if field_name == "binaryData":
                    total += _decoded_size(value)
                else:
                    total += len(value) if value.isascii() else len(value.encode())
    if total > MAX_SIZE:
        issues.append(
            issue((), f"ConfigMap data is {total} bytes, more than the {MAX_SIZE}-byte (1 MiB) limit", "size")
        )


def secret(data: dict[str, Any], issues: list[Issue]) -> None:
    """``ValidateSecret``: keys of ``data`` and ``stringData`` (merged into ``data`` by the server),
    the 1 MiB limit, and the keys each built-in type requires."""
    sizes: dict[str, int] = {}  # per key: stringData overwrites data (v1 conversion), then the sum counts
    keys: set[str] = set()
    values: dict[str, str] = {}  # decoded text, kept for the docker config types
    for field_name in ("data", "stringData"):
        mapping = data.get(field_name)
        if not isinstance(mapping, dict):
            continue
        for key, value in mapping.items():
            if not isinstance(key, str):
                continue
            keys.add(key)
            _key(key, field_name, issues)
            if isinstance(value, str):
                sizes[key] = len(value.encode()) if field_name == "stringData" else _decoded_size(value)
                values[key] = value if field_name == "stringData" else _decode(value)
    total = sum(sizes.values())
    if total > MAX_SIZE:
        issues.append(
            issue((), f"Secret data is {total} bytes, more than the {MAX_SIZE}-byte (1 MiB) limit", "size")
        )
    kind = data.get("type")
    required = SECRET_KEYS.get(kind) if isinstance(kind, str) else None
    if required:
        for key in required:
            if key not in keys:
                issues.append(issue((), f"a {kind} Secret needs the data key {show(key)}", "secret-type"))
        if kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson") and required[0] in values:
            try:
                json.loads(values[required[0]] or "{}")
            except ValueError:
                issues.append(
                    issue((), f"the {required[0]} of a {kind} Secret is not valid JSON", "secret-type")
                )
    elif kind == "kubernetes.io/basic-auth" and not keys & {"username", "password"}:
        issues.append(
            issue(
                (),
                'a kubernetes.io/basic-auth Secret needs the data key "username" or "password"',
                "secret-type",
            )
        )


def _key(key: str, field_name: str, issues: list[Issue]) -> None:
    """``IsConfigMapKey`` of a key of ``data`` (``binaryData``, ``stringData``)."""
    problem = config_key_problem(key)
    if problem:
        issues.append(issue((field_name, key), f"{field_name} key {show(key)} {problem}", "config-key"))


def _decode(value: str) -> str:
    try:
        return binascii.a2b_base64(value).decode(errors="replace")
    except binascii.Error:
        return ""  # the schema family reports the format


def _decoded_size(value: str) -> int:
    """Decoded length of base64 text without decoding it."""
    stripped = value.rstrip("=")
    return len(stripped) * 3 // 4
