"""Services of type LoadBalancer or NodePort carry an explicit allow annotation with a reason.

Why: a LoadBalancer puts a model server (or a training dashboard) on an external address, a
NodePort on every node's address; both bypass the ingress, its TLS and its authentication.

Options: ``annotation``: the annotation whose non-empty value allows exposure.

Default: enabled, level error, ``annotation: trainops.dev/exposed``.

PASS:

    apiVersion: v1
    kind: Service
    metadata:
      name: serve
      annotations: {trainops.dev/exposed: "public inference API behind the cloud WAF"}
    spec:
      type: LoadBalancer
      ports: [{name: http, port: 80}]

FAIL:

    apiVersion: v1
    kind: Service
    metadata: {name: serve}
    spec:
      type: LoadBalancer
      ports: [{name: http, port: 80}]

Remediation: Use a ClusterIP Service behind an Ingress or Gateway, or add the allow annotation with the reason.

Source: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types
"""

from __future__ import annotations

from typing import Any

from trainops.findings import Level
from trainops.policy.admission import Variable, violations
from trainops.policy.celrule import CelRule
from trainops.policy.rule import describe
from trainops.rules import register

ID = "exposed-service"
LEVEL: Level = "error"
KINDS = frozenset({("", "Service")})
CONF: dict[str, dict[str, Any]] = {"annotation": {"type": "string"}}
DEFAULT: dict[str, Any] = {"annotation": "trainops.dev/exposed"}
RULE = register(describe(ID, LEVEL, __doc__))

#: A LoadBalancer or NodePort Service without the allow annotation (or with an empty one).
CEL = CelRule(
    variables=(
        Variable(
            "violations",
            "object.?spec.?type.orValue('') in ['LoadBalancer', 'NodePort'] && "
            "object.?metadata.?annotations[?params.data.annotation].orValue('').trim() == '' ? "
            "[{'path': '$.spec.type', 'message': 'Service type ' + object.spec.type + "
            "' exposes it outside the cluster without annotation ' + params.data.annotation}] : []",
        ),
    ),
    validations=(
        violations(
            "variables.violations",
            message="the Service is exposed outside the cluster without the allow annotation",
        ),
    ),
)
