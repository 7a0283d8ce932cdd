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

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import annotations_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "exposed-service"
LEVEL: Level = "error"
KINDS = frozenset({("", "Service")})
CONF: dict[str, dict[str, Any]] = {"annotation": {"type": "string"}}
DEFAULT: dict[str, Any] = {"annotation": "trainops.dev/exposed"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A LoadBalancer or NodePort Service without the allow annotation (or with an empty one)."""
    spec = obj.get("spec")
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind not in ("LoadBalancer", "NodePort"):
        return
    allow = annotations_of(obj).get(conf["annotation"])
    if not isinstance(allow, str) or not allow.strip():
        yield Issue(
            ("spec", "type"),
            f"Service type {kind} exposes it outside the cluster without annotation {conf['annotation']}",
            ID,
        )
