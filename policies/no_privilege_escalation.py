"""Every container sets ``allowPrivilegeEscalation: false``.

Why: unset, a process can gain more privileges than its parent through setuid binaries or file
capabilities (``no_new_privs`` is off); the Pod Security "restricted" profile requires false.

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
        securityContext: {allowPrivilegeEscalation: false}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0

Remediation: Set securityContext.allowPrivilegeEscalation to false on every container.

Source: https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "no-privilege-escalation"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each container (ephemeral ones excepted: they take no security context changes) without it."""
    for container in all_containers(obj, ephemeral=False):
        value = container.get("securityContext", "allowPrivilegeEscalation")
        if value is not False:
            where = container.at("securityContext", "allowPrivilegeEscalation")
            shown = "unset" if value is None else str(value).lower()
            yield Issue(
                where, f'container "{container.name}" allowPrivilegeEscalation is {shown}, not false', ID
            )
