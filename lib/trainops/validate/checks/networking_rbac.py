"""API-server checks of NetworkPolicies, Ingresses and RBAC objects (rule ``api-server``).

Each check function appends what it finds to the ``issues`` list it is given, in document order.

Mirrors k8s.io/kubernetes v1.36 ``pkg/apis/networking/validation/validation.go`` and
``pkg/apis/rbac/validation/validation.go``.

====================  ===============================================================================
keyword               check (Go function)
====================  ===============================================================================
``network-policy``    policyTypes, port protocol, numeric or named ports, endPort only after a numeric
                      port and ≥ it, exactly one kind of peer, ipBlock CIDRs with ``except`` strictly
                      inside (``ValidateNetworkPolicySpec``, ``ValidateNetworkPolicyPort``,
                      ``ValidateNetworkPolicyPeer``, ``ValidateIPBlock``)
``ingress``           rules or a default backend, hosts (DNS names, ``*.`` wildcards, no IPs), paths
                      (pathType required; absolute; no ``//``, ``/./``, ``/../``, ``%2f``), backends
                      (service xor resource; port name xor number), class name, TLS hosts
                      (``ValidateIngressSpec``, ``validateIngressRules``, ``validateHTTPIngressPath``,
                      ``validateIngressBackend``)
``rbac``              rules: verbs, apiGroups and resources, or non-resource URLs (ClusterRole only);
                      bindings: roleRef group, kind and name, subjects' kinds, groups, names and
                      namespaces (``ValidatePolicyRule``, ``ValidateRoleBindingSubject``,
                      ``ValidateRoleBinding``, ``ValidateClusterRoleBinding``)
====================  ===============================================================================
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import GroupKind, Parts, group_of
from trainops.core.naming import DNS1123_LABEL, DNS1123_SUBDOMAIN
from trainops.validate.checks.api_server import port_name_problem
from trainops.validate.checks.go_helpers import (
    choices,
    cidr_problem,
    family,
    get,
    ip_problem,
    is_int,
    issue,
    label_selector,
    show,
)
from trainops.validate.context import DocumentContext

RBAC_GROUP: Final = "rbac.authorization.k8s.io"
POLICY_TYPES: Final = frozenset({"Ingress", "Egress"})
PROTOCOLS: Final = frozenset({"TCP", "UDP", "SCTP"})
PATH_TYPES: Final = frozenset({"Exact", "Prefix", "ImplementationSpecific"})
_BAD_PATH_PARTS: Final = ("//", "/./", "/../", "%2f", "%2F")
_BAD_PATH_ENDS: Final = ("/..", "/.")
SUBJECT_KINDS: Final = frozenset({"ServiceAccount", "User", "Group"})
_RBAC_ROLES: Final = frozenset(
    {("rbac.authorization.k8s.io", "Role"), ("rbac.authorization.k8s.io", "ClusterRole")}
)
_RBAC_BINDINGS: Final = frozenset(
    {("rbac.authorization.k8s.io", "RoleBinding"), ("rbac.authorization.k8s.io", "ClusterRoleBinding")}
)


def check(context: DocumentContext) -> list[Issue]:
    """Issues of NetworkPolicies, Ingresses, Roles, ClusterRoles and their bindings."""
    data = context.data
    key: GroupKind = (group_of(context.api_version), context.kind)
    issues: list[Issue] = []
    if key == ("networking.k8s.io", "NetworkPolicy"):
        network_policy_spec(data.get("spec"), ("spec",), issues)
    elif key == ("networking.k8s.io", "Ingress"):
        ingress_spec(data.get("spec"), ("spec",), issues)
    elif key in _RBAC_ROLES:
        policy_rules(data.get("rules"), issues, namespaced=key[1] == "Role")
    elif key in _RBAC_BINDINGS:
        binding(data, issues, cluster=key[1] == "ClusterRoleBinding")
    return issues


#: Kinds this family checks.
KINDS: Final = frozenset(
    {"NetworkPolicy", "Ingress", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
)
FAMILY = family(check, KINDS)


# --- NetworkPolicy ---------------------------------------------------------------------------------


def network_policy_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateNetworkPolicySpec``."""
    if not isinstance(spec, dict):
        return
    label_selector(spec.get("podSelector"), (*parts, "podSelector"), issues)
    types = spec.get("policyTypes")
    if isinstance(types, list):
        for index, kind in enumerate(types):
            if isinstance(kind, str) and kind not in POLICY_TYPES:
                issues.append(
                    issue(
                        (*parts, "policyTypes", index),
                        f"policyTypes[{index}] {show(kind)} is not one of {choices(POLICY_TYPES)}",
                        "enum",
                    )
                )
    for direction, peers_field in (("ingress", "from"), ("egress", "to")):
        rules = spec.get(direction)
        if not isinstance(rules, list):
            continue
        for index, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            rule_parts = (*parts, direction, index)
            ports = rule.get("ports")
            if isinstance(ports, list):
                for port_index, port in enumerate(ports):
                    if isinstance(port, dict):
                        _policy_port(port, (*rule_parts, "ports", port_index), issues)
            peers = rule.get(peers_field)
            if isinstance(peers, list):
                for peer_index, peer in enumerate(peers):
                    if isinstance(peer, dict):
                        _peer(peer, (*rule_parts, peers_field, peer_index), issues)


def _policy_port(port: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``ValidateNetworkPolicyPort``."""
    protocol = port.get("protocol")
    if isinstance(protocol, str) and protocol not in PROTOCOLS:
        issues.append(
            issue(
                (*parts, "protocol"),
                f"port protocol {show(protocol)} is not one of {choices(PROTOCOLS)}",
                "enum",
            )
        )
    number, end = port.get("port"), port.get("endPort")
    if is_int(number) and not 1 <= number <= 65535:
        issues.append(issue((*parts, "port"), f"port {number} is not between 1 and 65535", "network-policy"))
    elif isinstance(number, str):
        problem = port_name_problem(number)
        if problem:
            issues.append(issue((*parts, "port"), f"port {show(number)} {problem}", "network-policy"))
    if is_int(end):
        if number is None:
            issues.append(issue((*parts, "endPort"), f"endPort {end} needs a numeric port", "network-policy"))
        elif isinstance(number, str):
            issues.append(
                issue(
                    (*parts, "endPort"),
                    f"endPort {end} may not be used with the named port {show(number)}",
                    "network-policy",
                )
            )
        elif is_int(number) and end < number:
            issues.append(
                issue((*parts, "endPort"), f"endPort {end} is less than port {number}", "network-policy")
            )


def _peer(peer: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``ValidateNetworkPolicyPeer`` and ``ValidateIPBlock``."""
    selectors = sum(peer.get(name) is not None for name in ("podSelector", "namespaceSelector"))
    for name in ("podSelector", "namespaceSelector"):
        label_selector(peer.get(name), (*parts, name), issues)
    block = peer.get("ipBlock")
    if block is not None and selectors:
        issues.append(
            issue(
                parts,
                "a peer may not combine ipBlock with podSelector or namespaceSelector",
                "network-policy",
            )
        )
    elif block is None and not selectors:
        issues.append(
            issue(parts, "a peer needs podSelector, namespaceSelector or ipBlock", "network-policy")
        )
    if not isinstance(block, dict):
        return
    cidr = block.get("cidr")
    valid = False
    if isinstance(cidr, str):
        problem = cidr_problem(cidr)
        valid = problem is None
        if problem:
            issues.append(
                issue((*parts, "ipBlock", "cidr"), f"ipBlock.cidr {show(cidr)} {problem}", "network-policy")
            )
    excepts = block.get("except")
    if not isinstance(excepts, list):
        return
    for index, item in enumerate(excepts):
        if not isinstance(item, str):
            continue
        item_parts = (*parts, "ipBlock", "except", index)
        problem = cidr_problem(item)
        if problem:
            issues.append(
                issue(item_parts, f"ipBlock.except[{index}] {show(item)} {problem}", "network-policy")
            )
            continue
        if valid and not _strict_subset(item, cidr):
            issues.append(
                issue(
                    item_parts,
                    f"ipBlock.except[{index}] {show(item)} is not a strict subset of cidr {show(cidr)}",
                    "network-policy",
                )
            )


@lru_cache(maxsize=1024)
def _strict_subset(inner_text: str, outer_text: str) -> bool:
    """Whether CIDR ``inner_text`` lies strictly inside ``outer_text`` (both valid CIDRs)."""
    inner = ipaddress.ip_network(inner_text, strict=False)
    outer = ipaddress.ip_network(outer_text, strict=False)
    if inner.version != outer.version or inner.prefixlen <= outer.prefixlen:
        return False
    return inner.subnet_of(outer)  # type: ignore[arg-type]


# --- Ingress ---------------------------------------------------------------------------------------


def ingress_spec(spec: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateIngressSpec``."""
    if not isinstance(spec, dict):
        return
    rules = spec.get("rules")
    backend = spec.get("defaultBackend")
    if (rules is None or rules == []) and backend is None:
        issues.append(issue(parts, "an Ingress needs rules or a defaultBackend", "ingress"))
    if isinstance(backend, dict):
        _backend(backend, (*parts, "defaultBackend"), issues)
    class_name = spec.get("ingressClassName")
    if isinstance(class_name, str):
        problem = DNS1123_SUBDOMAIN.problem(class_name)
        if problem:
            issues.append(
                issue(
                    (*parts, "ingressClassName"), f"ingressClassName {show(class_name)} {problem}", "ingress"
                )
            )
    if isinstance(rules, list):
        for index, rule in enumerate(rules):
            if isinstance(rule, dict):
                _rule(rule, (*parts, "rules", index), issues)
    tls = spec.get("tls")
    if isinstance(tls, list):
        for index, item in enumerate(tls):
            hosts = get(item, "hosts")
            if isinstance(hosts, list):
                for host_index, host in enumerate(hosts):
                    if isinstance(host, str):
                        problem = _host_problem(host, allow_ip=True)
                        if problem:
                            issues.append(
                                issue(
                                    (*parts, "tls", index, "hosts", host_index),
                                    f"TLS host {show(host)} {problem}",
                                    "ingress",
                                )
                            )


def _rule(rule: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    host = rule.get("host")
    if isinstance(host, str) and host:
        problem = _host_problem(host, allow_ip=False)
        if problem:
            issues.append(issue((*parts, "host"), f"host {show(host)} {problem}", "ingress"))
    http = rule.get("http")
    if not isinstance(http, dict):
        return
    paths = http.get("paths")
    if paths is None or paths == []:
        issues.append(issue((*parts, "http"), "rule http needs at least one path", "ingress"))
        return
    if not isinstance(paths, list):
        return
    for index, path in enumerate(paths):
        if isinstance(path, dict):
            _http_path(path, (*parts, "http", "paths", index), issues)


def _host_problem(host: str, *, allow_ip: bool) -> str | None:
    """Rule hosts: not an IP, a DNS-1123 subdomain or ``*.`` + one (``IsWildcardDNS1123Subdomain``)."""
    if not allow_ip and ip_problem(host) is None:
        return "must be a DNS name, not an IP address"
    name = host[2:] if host.startswith("*.") else host
    problem = DNS1123_SUBDOMAIN.problem(name)
    if problem and host.startswith("*."):
        return f"is not a wildcard DNS-1123 subdomain ('*.' followed by a DNS-1123 subdomain): {problem}"
    return problem


def _http_path(path: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validateHTTPIngressPath``: pathType, the path's shape, the backend."""
    kind, value = path.get("pathType"), path.get("path", "")
    if kind is None:
        issues.append(
            issue(parts, "pathType must be set (Exact, Prefix or ImplementationSpecific)", "ingress")
        )
    elif isinstance(kind, str) and kind not in PATH_TYPES:
        issues.append(
            issue((*parts, "pathType"), f"pathType {show(kind)} is not one of {choices(PATH_TYPES)}", "enum")
        )
    elif isinstance(value, str) and (value or kind != "ImplementationSpecific"):
        if not value.startswith("/"):
            issues.append(issue((*parts, "path"), f"path {show(value)} must be an absolute path", "ingress"))
        elif kind != "ImplementationSpecific":
            bad = next((seq for seq in _BAD_PATH_PARTS if seq in value), None)
            end = next((end for end in _BAD_PATH_ENDS if value.endswith(end)), None)
            if bad is not None:
                issues.append(
                    issue((*parts, "path"), f"path {show(value)} must not contain '{bad}'", "ingress")
                )
            elif end is not None:
                issues.append(
                    issue((*parts, "path"), f"path {show(value)} cannot end with '{end}'", "ingress")
                )
    backend = path.get("backend")
    if isinstance(backend, dict):
        _backend(backend, (*parts, "backend"), issues)


def _backend(backend: dict[str, Any], parts: Parts, issues: list[Issue]) -> None:
    """``validateIngressBackend``."""
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        issues.append(issue(parts, "a backend may not set both service and resource", "ingress"))
        return
    if service is None and resource is None:
        issues.append(issue(parts, "a backend needs a service or a resource", "ingress"))
        return
    if not isinstance(service, dict):
        return
    name = service.get("name")
    if isinstance(name, str) and name:
        problem = DNS1123_LABEL.problem(name)
        if problem:
            issues.append(
                issue((*parts, "service", "name"), f"backend service name {show(name)} {problem}", "ingress")
            )
    port = service.get("port")
    port = port if isinstance(port, dict) else {}
    port_name, number = port.get("name") or "", port.get("number") or 0
    if port_name and number:
        issues.append(
            issue((*parts, "service", "port"), "backend service port sets both name and number", "ingress")
        )
    elif isinstance(port_name, str) and port_name:
        problem = port_name_problem(port_name)
        if problem:
            issues.append(
                issue(
                    (*parts, "service", "port", "name"),
                    f"backend port name {show(port_name)} {problem}",
                    "ingress",
                )
            )
    elif is_int(number) and number:
        if not 1 <= number <= 65535:
            issues.append(
                issue(
                    (*parts, "service", "port", "number"),
                    f"backend port {number} is not between 1 and 65535",
                    "ingress",
                )
            )
    else:
        issues.append(
            issue((*parts, "service", "port"), "backend service port needs a name or a number", "ingress")
        )


# --- RBAC --------------------------------------------------------------------------------------------


def policy_rules(rules: Any, issues: list[Issue], *, namespaced: bool) -> None:
    """``ValidatePolicyRule`` for each rule of a Role (``namespaced``) or ClusterRole."""
    if not isinstance(rules, list):
        return
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        parts = ("rules", index)
        if not rule.get("verbs"):
            issues.append(issue(parts, f"rules[{index}] needs at least one verb", "rbac"))
        urls = rule.get("nonResourceURLs")
        if urls:
            if namespaced:
                issues.append(
                    issue(
                        (*parts, "nonResourceURLs"),
                        "a Role's rules cannot apply to non-resource URLs (use a ClusterRole)",
                        "rbac",
                    )
                )
            if rule.get("apiGroups") or rule.get("resources"):
                issues.append(
                    issue(
                        (*parts, "nonResourceURLs"),
                        f"rules[{index}] cannot apply to both resources and non-resource URLs",
                        "rbac",
                    )
                )
            continue
        if not rule.get("apiGroups"):
            issues.append(
                issue(parts, f'rules[{index}] needs at least one apiGroup ("" is the core group)', "rbac")
            )
        if not rule.get("resources"):
            issues.append(issue(parts, f"rules[{index}] needs at least one resource", "rbac"))


def binding(data: dict[str, Any], issues: list[Issue], *, cluster: bool) -> None:
    """``ValidateRoleBinding``/``ValidateClusterRoleBinding``: roleRef and subjects."""
    ref = data.get("roleRef")
    if isinstance(ref, dict):
        group = ref.get("apiGroup")
        if isinstance(group, str) and group != RBAC_GROUP:
            issues.append(
                issue(("roleRef", "apiGroup"), f"roleRef.apiGroup {show(group)} must be {RBAC_GROUP}", "rbac")
            )
        kinds = ("ClusterRole",) if cluster else ("Role", "ClusterRole")
        kind = ref.get("kind")
        if isinstance(kind, str) and kind not in kinds:
            issues.append(
                issue(("roleRef", "kind"), f"roleRef.kind {show(kind)} must be {' or '.join(kinds)}", "rbac")
            )
        if ref.get("name") in (None, ""):
            issues.append(issue(("roleRef",), "roleRef.name is required", "rbac"))
    subjects = data.get("subjects")
    if not isinstance(subjects, list):
        return
    for index, subject in enumerate(subjects):
        if isinstance(subject, dict):
            _subject(subject, ("subjects", index), cluster, issues)


def _subject(subject: dict[str, Any], parts: Parts, cluster: bool, issues: list[Issue]) -> None:
    """``ValidateRoleBindingSubject``."""
    kind, name, group = subject.get("kind"), subject.get("name"), subject.get("apiGroup")
    if name in (None, ""):
        issues.append(issue(parts, "a subject needs a name", "rbac"))
    if kind == "ServiceAccount":
        if isinstance(group, str) and group:
            issues.append(
                issue(
                    (*parts, "apiGroup"),
                    f'a ServiceAccount subject\'s apiGroup must be "" (got {show(group)})',
                    "rbac",
                )
            )
        if isinstance(name, str) and name:
            problem = DNS1123_SUBDOMAIN.problem(name)
            if problem:
                issues.append(issue((*parts, "name"), f"ServiceAccount name {show(name)} {problem}", "rbac"))
        if cluster and subject.get("namespace") in (None, ""):
            issues.append(
                issue(parts, "a ServiceAccount subject of a ClusterRoleBinding needs a namespace", "rbac")
            )
    elif kind in ("User", "Group"):
        if isinstance(group, str) and group and group != RBAC_GROUP:
            issues.append(
                issue(
                    (*parts, "apiGroup"),
                    f"a {kind} subject's apiGroup must be {RBAC_GROUP} (got {show(group)})",
                    "rbac",
                )
            )
    elif isinstance(kind, str):
        issues.append(
            issue(
                (*parts, "kind"), f"subject kind {show(kind)} is not one of {choices(SUBJECT_KINDS)}", "enum"
            )
        )
