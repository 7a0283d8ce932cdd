"""Probes and lifecycle hooks call their own pod: no ``host`` in an ``httpGet`` or ``tcpSocket``
handler.

Why: the kubelet runs probes and hooks from the node; a ``host`` sends its requests to any address
the node reaches (the cloud metadata endpoint, another tenant's pod, the API server), a
server-side request forgery Pod Security "baseline" forbids since Kubernetes 1.34.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        readinessProbe: {httpGet: {path: /ready, port: 8080}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        readinessProbe: {httpGet: {host: 169.254.169.254, path: /latest/meta-data/, port: 80}}

Remediation: Remove host from the probe or hook handler (the pod's IP is the default).

Source: k8s.io/pod-security-admission policy/check_hostProbesAndhostLifecycle.go (hostProbesAndHostLifecycleV1Dot34); https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers, show
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "probe-host"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Handlers with a host: (path below the container, handler types).
HANDLERS: Final = (
    (("livenessProbe",), ("httpGet", "tcpSocket")),
    (("readinessProbe",), ("httpGet", "tcpSocket")),
    (("startupProbe",), ("httpGet", "tcpSocket")),
    (("lifecycle", "postStart"), ("httpGet", "tcpSocket")),
    (("lifecycle", "preStop"), ("httpGet", "tcpSocket")),
)


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each probe or hook handler of each container (ephemeral ones included) with a non-empty host."""
    for container in all_containers(obj):
        for path, kinds in HANDLERS:
            for kind in kinds:
                host = container.get(*path, kind, "host")
                if host is not None and host != "":
                    yield Issue(
                        container.at(*path, kind, "host"),
                        f'container "{container.name}" {".".join(path)} {kind} calls host {show(host)}',
                        ID,
                    )
