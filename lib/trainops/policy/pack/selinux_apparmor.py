"""Pods keep the runtime's SELinux and AppArmor confinement: no SELinux type outside the container
types, no SELinux user or role, no AppArmor profile ``Unconfined``.

Why: an SELinux type such as ``spc_t`` or an ``Unconfined`` AppArmor profile switches off the
mandatory access control that contains a compromised process; Pod Security "baseline" forbids both.

Options: none.

Default: enabled, level error. A finding's keyword names the Pod Security check it fails
(``seLinuxOptions`` or ``appArmorProfile``, both baseline).

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      securityContext:
        seLinuxOptions: {type: container_t, level: "s0:c123,c456"}
        appArmorProfile: {type: RuntimeDefault}
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
          seLinuxOptions: {type: spc_t}
          appArmorProfile: {type: Unconfined}

Remediation: Remove seLinuxOptions type/user/role (or use container_t) and set appArmorProfile to RuntimeDefault or Localhost.

Source: k8s.io/pod-security-admission policy/check_seLinuxOptions.go (seLinuxOptions1_31) and check_appArmorProfile.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.kinds import Parts
from trainops.policy.pods import POD_KINDS, as_dict, containers, dig, pod_annotations, pod_templates, show
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "selinux-apparmor"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: SELinux types Pod Security v1.31+ allows (``selinuxAllowedTypes1_31``; ``""`` is unset).
SELINUX_TYPES: Final = frozenset(
    {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
)
#: AppArmor profile types it allows (``allowedProfileType``).
APPARMOR_TYPES: Final = frozenset({"RuntimeDefault", "Localhost"})
#: The deprecated per-container AppArmor annotation (``DeprecatedAppArmorBetaContainerAnnotationKeyPrefix``).
APPARMOR_ANNOTATION: Final = "container.apparmor.security.beta.kubernetes.io/"


def _context(context: Any, parts: Parts, who: str) -> Iterator[Issue]:
    """Issues of one securityContext (a pod's or a container's)."""
    selinux = as_dict(dig(context, "seLinuxOptions"))
    kind = selinux.get("type", "")
    if isinstance(kind, str) and kind not in SELINUX_TYPES:
        where = (*parts, "seLinuxOptions", "type")
        yield Issue(where, f"{who} sets SELinux type {show(kind)}", ID, keyword="seLinuxOptions")
    for field in ("user", "role"):
        value = selinux.get(field)
        if isinstance(value, str) and value:
            where = (*parts, "seLinuxOptions", field)
            yield Issue(where, f"{who} sets SELinux {field} {show(value)}", ID, keyword="seLinuxOptions")
    profile = dig(context, "appArmorProfile")
    kind = profile.get("type") if isinstance(profile, dict) else None
    if isinstance(profile, dict) and not (isinstance(kind, str) and kind in APPARMOR_TYPES):
        where = (*parts, "appArmorProfile", "type")
        message = f"{who} sets AppArmor profile type {show(profile.get('type'))}"
        yield Issue(where, message, ID, keyword="appArmorProfile")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The pod's securityContext, each container's (ephemeral ones included), then the pod's
    deprecated AppArmor annotations (allowed: empty, ``runtime/default``, ``localhost/*``)."""
    for site in pod_templates(obj):
        yield from _context(site.spec.get("securityContext"), (*site.parts, "securityContext"), "pod")
        for container in containers(site):
            yield from _context(
                container.get("securityContext"),
                container.at("securityContext"),
                f'container "{container.name}"',
            )
        for key, value in sorted(pod_annotations(obj, site).items()):
            if not key.startswith(APPARMOR_ANNOTATION) or not isinstance(value, str):
                continue
            if value and value != "runtime/default" and not value.startswith("localhost/"):
                where = (*site.parts[:-1], "metadata", "annotations", key)
                yield Issue(
                    where,
                    f"annotation {key} sets AppArmor profile {show(value)}",
                    ID,
                    keyword="appArmorProfile",
                )
