"""Containers do not run privileged (init and ephemeral containers included).

Why: a privileged container gets every capability and the host's devices; escaping it is owning
the node and every other job's data on it. GPU access never needs it: the device plugin mounts the
GPUs.

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
        securityContext: {privileged: false}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        securityContext: {privileged: true}

Remediation: Remove securityContext.privileged (or set it to false) and grant only the capabilities the container needs.

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

ID = "no-privileged"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Each container whose ``securityContext.privileged`` is true.
CEL = CelRule(
    pods=True,
    variables=(
        Variable(
            "privileged",
            "variables.containers.filter(c, c.value.?securityContext.?privileged.orValue(false) == true)",
        ),
    ),
    validations=(
        violations(
            "variables.privileged.map(c, {'path': c.path + '.securityContext.privileged', "
            "'message': 'container \"' + c.name + '\" runs privileged'})",
            message="a container runs privileged",
        ),
    ),
)
