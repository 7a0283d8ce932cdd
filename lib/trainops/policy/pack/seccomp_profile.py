"""Containers run under a seccomp profile: ``RuntimeDefault`` or ``Localhost`` (pod or container).

Why: without seccomp a container may call every syscall the kernel has, including the ones most
container escapes use; ``RuntimeDefault`` blocks them at no cost to training or serving.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      securityContext:
        seccompProfile: {type: RuntimeDefault}
      containers: [{name: train, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        securityContext:
          seccompProfile: {type: Unconfined}

Remediation: Set securityContext.seccompProfile.type to RuntimeDefault on the pod.

Source: https://kubernetes.io/docs/tutorials/security/seccomp/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, dig, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "seccomp-profile"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_ALLOWED = ("RuntimeDefault", "Localhost")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per container, the effective seccompProfile.type (container over pod)."""
    for site in pod_templates(obj):
        pod_type = dig(site.spec, "securityContext", "seccompProfile", "type")
        for container in containers(site, ephemeral=False):
            own = container.get("securityContext", "seccompProfile", "type")
            kind = own if own is not None else pod_type
            if kind not in _ALLOWED:
                where = (
                    container.at("securityContext", "seccompProfile", "type")
                    if own is not None
                    else (*site.parts, "securityContext", "seccompProfile")
                )
                shown = "unset" if kind is None else kind
                yield Issue(
                    where,
                    f'container "{container.name}" seccomp profile is {shown} (want RuntimeDefault or Localhost)',
                    ID,
                )
