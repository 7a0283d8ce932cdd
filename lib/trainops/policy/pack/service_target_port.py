"""A Service's named ``targetPort`` is a containerPort name in every pod it selects.

Why: kube-proxy resolves a named targetPort per pod; pods without that port name get no endpoint,
so the Service silently routes to a subset of its pods, or to none.

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
      selector: {app: serve}
      ports: [{name: http, port: 80, targetPort: web}]
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

Remediation: Use a targetPort name that the selected containers declare (or the port number).

Source: https://kubernetes.io/docs/concepts/services-networking/service/#field-spec-ports
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.pods import as_list, containers, dig
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import all_pods, service_pods
from trainops.rules import register

ID = "service-target-port"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each named targetPort missing from a selected pod template's container ports."""
    pods = list(all_pods(objects))
    for index, obj in enumerate(objects):
        if group_kind(obj) != ("", "Service"):
            continue
        chosen = service_pods(obj, pods)
        ports = dig(obj, "spec", "ports")
        for number, port in enumerate(ports if isinstance(ports, list) else []):
            target = port.get("targetPort") if isinstance(port, dict) else None
            if not isinstance(target, str) or target.isdigit():
                continue
            for pod in chosen:
                names = {
                    p.get("name")
                    for c in containers(pod.site, ephemeral=False)
                    for p in as_list(c.get("ports"))
                    if isinstance(p, dict)
                }
                if target not in names:
                    owner = f"{pod.obj.get('kind')}/{dig(pod.obj, 'metadata', 'name')}"
                    yield (
                        index,
                        Issue(
                            ("spec", "ports", number, "targetPort"),
                            f'targetPort "{target}" is not a container port name of {owner}',
                            ID,
                        ),
                    )
