"""Long-running workloads have readiness and liveness probes on every container, model servers a
startupProbe too, and every probe port is a declared TCP containerPort.

Why: without readiness a Service sends requests to a server still loading its model; without
liveness a wedged server keeps its endpoint; without a startupProbe the liveness probe kills a
server that takes minutes to load large weights, in a loop. A probe on an undeclared port name
fails forever; a probe on a port number the container does not declare, or an ``httpGet``,
``tcpSocket`` or ``grpc`` probe on a port declared UDP, most often probes the wrong port (a copied
manifest, a changed server flag). As kube-linter's ``liveness-port``, ``readiness-port`` and
``startup-port`` (``pkg/templates/util/check_probe_port.go`` ``CheckProbePort``): the port, by
name or number, must be one of the container's ``ports`` whose protocol is TCP or unset.

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

from trainops.core.findings import Issue, Level
from trainops.core.kinds import WORKLOADS
from trainops.core.rules import register
from trainops.policy.images import is_model_server
from trainops.policy.pods import Container, all_containers, templated
from trainops.policy.rule import Context, describe

ID = "probes"
LEVEL: Level = "error"
KINDS = WORKLOADS - {("apps", "DaemonSet")}
CONF: dict[str, dict[str, Any]] = {"require-startup-probe": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"require-startup-probe": True}
RULE = register(describe(ID, LEVEL, __doc__))

_PROBES = ("readinessProbe", "livenessProbe", "startupProbe")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per main container: the probes present, and their ports declared."""
    for container in all_containers(obj, ephemeral=False):
        if container.field != "containers":
            continue
        wanted = ["readinessProbe", "livenessProbe"]
        if conf["require-startup-probe"] and is_model_server(container.spec):
            wanted.append("startupProbe")
        for probe in wanted:
            if not isinstance(container.get(probe), dict):
                yield Issue(container.at(probe), f'container "{container.name}" has no {probe}', ID)
        yield from _probe_ports(container)


def _probe_ports(container: Container) -> Iterator[Issue]:
    """Each probe port (``httpGet``, ``tcpSocket``, ``grpc``) that is no TCP port of the container
    (``CheckProbePort``: ports whose protocol is unset or TCP, by name and by number)."""
    ports = container.get("ports")
    protocols: dict[int | str, Any] = {}  # port name and number → declared protocol (None: TCP)
    for port in ports if isinstance(ports, list) else []:
        if not isinstance(port, dict):
            continue
        protocol = port.get("protocol")
        protocol = None if protocol == "TCP" else protocol
        for key in (port.get("name"), port.get("containerPort")):
            if (
                isinstance(key, (int, str))
                and not isinstance(key, bool)
                and protocols.get(key, 0) is not None
            ):
                protocols[key] = protocol
    for probe in _PROBES:
        for handler in ("httpGet", "tcpSocket", "grpc"):
            port = container.get(probe, handler, "port")
            if isinstance(port, bool) or not isinstance(port, (int, str)) or port == "" or templated(port):
                continue
            number = int(port) if isinstance(port, str) and port.isdigit() else port
            shown = str(number) if isinstance(number, int) else f'"{number}"'
            if number not in protocols:
                what = "containerPort" if isinstance(number, int) else "containerPort name"
                message = f"{probe} port {shown} is not a declared {what}"
            elif protocols[number] is not None:
                message = f"{probe} port {shown} is declared {protocols[number]}, the {handler} probe connects over TCP"
            else:
                continue
            yield Issue(container.at(probe, handler, "port"), f'container "{container.name}" {message}', ID)
