"""Pods set only safe sysctls: the namespaced, isolated set Pod Security "baseline" allows.

Why: a sysctl outside the safe set (``kernel.shmmax``, ``vm.*``, most ``net.core.*``) either
changes the whole node or is not isolated between pods; a namespace enforcing ``baseline`` rejects
the pod, and the kubelet refuses unsafe sysctls unless the node allows them. Shared memory for
data loaders is an emptyDir with ``medium: Memory`` at ``/dev/shm`` (rule ``shm-size``), not
``kernel.shmmax``.

Options: ``allowed``: further sysctl names the cluster's kubelets allow (``--allowed-unsafe-sysctls``),
accepted here although Pod Security "baseline" still forbids them.

Default: enabled, level error, ``allowed: []``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      securityContext:
        sysctls: [{name: net.ipv4.ip_local_port_range, value: "1024 65535"}]
      containers: [{name: serve, image: registry.example.com/serve:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      securityContext:
        sysctls: [{name: kernel.shmmax, value: "68719476736"}]
      containers: [{name: train, image: registry.example.com/train:1.0}]

Remediation: Remove the sysctl (use a memory emptyDir at /dev/shm for shared memory) or keep to the safe set.

Source: k8s.io/pod-security-admission policy/check_sysctls.go (sysctlsAllowedV1Dot32, the set of v1.32 to v1.36); https://kubernetes.io/docs/tasks/administer-cluster/sysctl-cluster/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, as_list, dig, pod_templates, templated
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "unsafe-sysctls"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"allowed": {"type": "array", "items": {"type": "string"}}}
DEFAULT: dict[str, Any] = {"allowed": []}
RULE = register(describe(ID, LEVEL, __doc__))

#: The safe sysctls of Pod Security v1.32+ (pod-security-admission ``sysctlsAllowedV1Dot32``).
SAFE: Final = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each ``securityContext.sysctls[]`` of a pod spec whose name is outside the safe set and ``allowed``."""
    allowed = SAFE | set(conf["allowed"])
    for site in pod_templates(obj):
        for index, item in enumerate(as_list(dig(site.spec, "securityContext", "sysctls"))):
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str) or templated(name) or name in allowed:
                continue
            yield Issue(
                (*site.parts, "securityContext", "sysctls", index, "name"),
                f"sysctl {name} is not in the safe set of Pod Security baseline",
                ID,
                keyword="sysctls",
            )
