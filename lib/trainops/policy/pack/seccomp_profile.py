"""Containers run under a seccomp profile: ``RuntimeDefault`` or ``Localhost`` (pod or container).

Why: without seccomp a container may call every syscall the kernel has, including the ones most
container escapes use; ``RuntimeDefault`` blocks them at no cost to training or serving.

Options: none.

Default: enabled, level warning. A finding's keyword names the Pod Security check it fails:
``seccompProfile_baseline`` (an explicit ``Unconfined``) or ``seccompProfile_restricted`` (unset).

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

Source: k8s.io/pod-security-admission policy/check_seccompProfile_baseline.go and check_seccompProfile_restricted.go; https://kubernetes.io/docs/tutorials/security/seccomp/
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
    """As Pod Security checks it: a pod or container setting a type other than RuntimeDefault or
    Localhost (baseline, ``seccompProfileBaseline_1_19``), then each container (ephemeral ones
    included) without a valid type of its own or from the pod (restricted,
    ``seccompProfileRestricted_1_25``: not for Windows pods, ``spec.os.name: windows``)."""
    for site in pod_templates(obj):
        pod_profile = dig(site.spec, "securityContext", "seccompProfile")
        pod_set = isinstance(pod_profile, dict) and pod_profile.get("type") in _ALLOWED
        if isinstance(pod_profile, dict) and not pod_set:
            yield Issue(
                (*site.parts, "securityContext", "seccompProfile", "type"),
                f"pod seccomp profile is {_shown(pod_profile.get('type'))} (want RuntimeDefault or Localhost)",
                ID,
                "seccompProfile_baseline",
            )
        windows = dig(site.spec, "os", "name") == "windows"
        for container in containers(site):
            own = container.get("securityContext", "seccompProfile")
            if isinstance(own, dict):
                if own.get("type") not in _ALLOWED:
                    yield Issue(
                        container.at("securityContext", "seccompProfile", "type"),
                        f'container "{container.name}" seccomp profile is {_shown(own.get("type"))} '
                        "(want RuntimeDefault or Localhost)",
                        ID,
                        "seccompProfile_baseline",
                    )
            elif not pod_set and not windows and not site.partial:
                yield Issue(
                    (*site.parts, "securityContext", "seccompProfile"),
                    f'container "{container.name}" seccomp profile is unset (want RuntimeDefault or Localhost)',
                    ID,
                    "seccompProfile_restricted",
                )


def _shown(value: Any) -> str:
    return "unset" if value is None else str(value)
