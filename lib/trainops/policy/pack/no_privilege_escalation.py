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

from typing import Any

from trainops.findings import Level
from trainops.policy.admission import Variable, violations
from trainops.policy.celrule import CelRule
from trainops.policy.pods import POD_KINDS
from trainops.policy.rule import describe
from trainops.rules import register

ID = "no-privilege-escalation"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Each container (ephemeral ones excepted: they take no security context changes) without
#: ``allowPrivilegeEscalation: false`` (on a patch of a pod spec, :attr:`~trainops.kinds.PodSite.partial`, only an explicit true).
CEL = CelRule(
    pods=True,
    variables=(
        Variable(
            "escalating",
            "variables.containers.filter(c, c.field != 'ephemeralContainers' && "
            "c.value.?securityContext.?allowPrivilegeEscalation.orValue(!c.partial) != false)",
        ),
    ),
    validations=(
        violations(
            "variables.escalating.map(c, {'path': c.path + '.securityContext.allowPrivilegeEscalation', "
            "'message': 'container \"' + c.name + '\" allowPrivilegeEscalation is ' + "
            "(has(c.value.securityContext) && has(c.value.securityContext.allowPrivilegeEscalation) ? "
            "string(c.value.securityContext.allowPrivilegeEscalation).lowerAscii() : 'unset') + ', not false'})",
            message="a container may escalate its privileges",
        ),
    ),
)
