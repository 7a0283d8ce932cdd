"""Each Service with a selector selects the pods of some rendered workload in its namespace
(operator-added pod labels included).

Why: a Service whose selector matches no pod has no endpoints: clients get connection refused and
a ServiceMonitor on it scrapes nothing, with no error anywhere; a typo in one label is enough.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Service
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {app: serve}
      ports: [{name: http, port: 80, targetPort: http}]
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - {name: server, image: registry.example.com/serve:1.0, ports: [{name: http, containerPort: 8080}]}

FAIL:

    apiVersion: v1
    kind: Service
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {app: serving}
      ports: [{name: http, port: 80, targetPort: http}]
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - {name: server, image: registry.example.com/serve:1.0, ports: [{name: http, containerPort: 8080}]}

Remediation: Make the Service selector equal to (a subset of) the pod template labels of the workload it fronts.

Source: https://kubernetes.io/docs/concepts/services-networking/service/#services-without-selectors
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.pods import dig
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import all_pods, service_pods
from trainops.rules import register

ID = "service-selects-pods"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each Service with a non-empty selector that selects no pod template."""
    pods = list(all_pods(objects))
    for index, obj in enumerate(objects):
        if group_kind(obj) != ("", "Service"):
            continue
        selector = dig(obj, "spec", "selector")
        if isinstance(selector, dict) and selector and not service_pods(obj, pods):
            shown = ", ".join(f"{k}={v}" for k, v in selector.items())
            yield (
                index,
                Issue(("spec", "selector"), f"Service selector {shown} selects no pod in its namespace", ID),
            )
