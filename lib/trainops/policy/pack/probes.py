"""Long-running workloads have readiness and liveness probes on every container, model servers a
startupProbe too, and every named probe port is a declared containerPort.

Why: without readiness a Service sends requests to a server still loading its model; without
liveness a wedged server keeps its endpoint; without a startupProbe the liveness probe kills a
server that takes minutes to load large weights, in a loop. A probe on an undeclared port name
fails forever.

Options: ``require-startup-probe``: require a startupProbe on model servers (a known model-server
image, a ``--model``-style argument or a ``MODEL_NAME``-style variable:
:func:`trainops.policy.images.is_model_server`); a web server or cache (nginx, redis) that is ready
in a second needs none.

Default: enabled, level error, ``require-startup-probe: true``.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            ports: [{name: http, containerPort: 8080}]
            readinessProbe: {httpGet: {path: /ready, port: http}}
            livenessProbe: {httpGet: {path: /live, port: http}}
            startupProbe: {httpGet: {path: /ready, port: http}, failureThreshold: 60}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            ports: [{name: http, containerPort: 8080}]
            readinessProbe: {httpGet: {path: /ready, port: metrics}}

Remediation: Add readinessProbe, livenessProbe (and a startupProbe for model servers) on a declared containerPort.

Source: https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import WORKLOADS
from trainops.policy.images import is_model_server
from trainops.policy.pods import all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "probes"
LEVEL: Level = "error"
KINDS = WORKLOADS - {("apps", "DaemonSet")}
CONF: dict[str, dict[str, Any]] = {"require-startup-probe": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"require-startup-probe": True}
RULE = register(describe(ID, LEVEL, __doc__))

_PROBES = ("readinessProbe", "livenessProbe", "startupProbe")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per main container: the probes present, and their named ports declared."""
    for container in all_containers(obj, ephemeral=False):
        if container.field != "containers":
            continue
        ports = container.get("ports")
        declared = [p for p in (ports if isinstance(ports, list) else []) if isinstance(p, dict)]
        names = {p.get("name") for p in declared if p.get("name")}
        wanted = ["readinessProbe", "livenessProbe"]
        if conf["require-startup-probe"] and is_model_server(container.spec):
            wanted.append("startupProbe")
        for probe in wanted:
            if not isinstance(container.get(probe), dict):
                yield Issue(container.at(probe), f'container "{container.name}" has no {probe}', ID)
        for probe in _PROBES:
            for handler in ("httpGet", "tcpSocket"):
                port = container.get(probe, handler, "port")
                if isinstance(port, str) and not port.isdigit() and port not in names:
                    yield Issue(
                        container.at(probe, handler, "port"),
                        f'container "{container.name}" {probe} port "{port}" is not a declared containerPort name',
                        ID,
                    )
