"""Pods do not share the node's network, PID or IPC namespace, and containers bind no hostPort.

Why: hostNetwork, hostPID and hostIPC let a pod see and signal the node's processes and sniff its
traffic; a hostPort ties a pod to one port per node and bypasses NetworkPolicy. NCCL and RDMA work
without them (the RDMA device plugin hands over the HCA).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        ports: [{containerPort: 29500}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      hostNetwork: true
      containers:
      - name: train
        image: registry.example.com/train:1.0

Remediation: Remove hostNetwork, hostPID, hostIPC and hostPort; expose ports through a Service instead.

Source: https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "no-host-namespaces"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Host namespaces on each pod spec, then hostPorts of each container."""
    for site in pod_templates(obj):
        for field in _NAMESPACES:
            if site.spec.get(field) is True:
                yield Issue((*site.parts, field), f"pod uses the node's namespace: {field}: true", ID)
        for container in containers(site):
            ports = container.get("ports")
            for index, port in enumerate(ports if isinstance(ports, list) else []):
                host_port = port.get("hostPort") if isinstance(port, dict) else None
                if host_port not in (None, 0):
                    yield Issue(
                        container.at("ports", index, "hostPort"),
                        f'container "{container.name}" binds hostPort {host_port}',
                        ID,
                    )
