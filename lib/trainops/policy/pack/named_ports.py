"""Service ports are named.

Why: ServiceMonitors, Istio and Ingress backends refer to ports by name; an unnamed port cannot be
scraped or routed by name, and adding a second port later makes names mandatory anyway.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Service
    metadata: {name: serve}
    spec:
      ports: [{name: http, port: 80, targetPort: http}]

FAIL:

    apiVersion: v1
    kind: Service
    metadata: {name: serve}
    spec:
      ports: [{port: 80, targetPort: 8080}]

Remediation: Give every Service port a name (e.g. http, grpc, metrics).

Source: https://kubernetes.io/docs/concepts/services-networking/service/#multi-port-services
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import dig
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "named-ports"
LEVEL: Level = "error"
KINDS = frozenset({("", "Service")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each Service port without a name."""
    ports = dig(obj, "spec", "ports")
    for index, port in enumerate(ports if isinstance(ports, list) else []):
        if isinstance(port, dict) and not port.get("name"):
            yield Issue(("spec", "ports", index), f"Service port {port.get('port')} has no name", ID)
