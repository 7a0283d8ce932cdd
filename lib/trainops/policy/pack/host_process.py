"""Pods do not run Windows HostProcess containers (``windowsOptions.hostProcess: true``).

Why: a HostProcess container runs directly on the Windows node with the node's network and file
system, outside any container isolation; Pod Security "baseline" forbids it.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: infer}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers: [{name: infer, image: registry.example.com/infer:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: infer}
    spec:
      securityContext:
        windowsOptions: {hostProcess: true}
      hostNetwork: true
      containers: [{name: infer, image: registry.example.com/infer:1.0}]

Remediation: Remove windowsOptions.hostProcess (or set it to false) on the pod and every container.

Source: k8s.io/pod-security-admission policy/check_windowsHostProcess.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, dig, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "host-process"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_FIELD = ("securityContext", "windowsOptions", "hostProcess")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """``hostProcess: true`` on the pod, then on each container (ephemeral ones included)."""
    for site in pod_templates(obj):
        if dig(site.spec, *_FIELD) is True:
            yield Issue((*site.parts, *_FIELD), "pod sets windowsOptions.hostProcess: true", ID)
        for container in containers(site):
            if container.get(*_FIELD) is True:
                yield Issue(
                    container.at(*_FIELD),
                    f'container "{container.name}" sets windowsOptions.hostProcess: true',
                    ID,
                )
