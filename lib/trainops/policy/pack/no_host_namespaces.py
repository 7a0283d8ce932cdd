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

from typing import Any

from trainops.findings import Level
from trainops.policy.admission import Variable, violations
from trainops.policy.celrule import CelRule
from trainops.policy.pods import POD_KINDS
from trainops.policy.rule import describe
from trainops.rules import register

ID = "no-host-namespaces"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Host namespaces on each pod spec, then hostPorts (other than 0) of each container.
CEL = CelRule(
    pods=True,
    variables=(
        Variable(
            "hostNamespaces",
            "variables.podSpecs.map(p, ['hostNetwork', 'hostPID', 'hostIPC']"
            ".filter(f, p.spec[?f].orValue(false) == true)"
            ".map(f, {'path': p.path + '.' + f, 'message': 'pod uses the node\\'s namespace: ' + f + ': true'}))"
            ".flatten()",
        ),
        Variable(
            "hostPorts",
            "variables.containers.map(c, c.value.?ports.orValue([]).transformList(i, port, "
            "port.?hostPort.orValue(0) != 0 ? [{'path': c.path + '.ports[' + string(i) + '].hostPort', "
            "'message': 'container \"' + c.name + '\" binds hostPort ' + string(port.hostPort)}] : []).flatten())"
            ".flatten()",
        ),
    ),
    validations=(
        violations(
            "variables.hostNamespaces + variables.hostPorts",
            message="a pod uses the node's namespaces or ports",
        ),
    ),
)
