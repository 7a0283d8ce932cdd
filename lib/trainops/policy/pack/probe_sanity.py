"""Probes do what each is for: a liveness probe differs from the readiness probe, and every probe's
``timeoutSeconds`` is below its ``periodSeconds``.

Why: a liveness probe identical to the readiness probe restarts a model server that is only busy
(a long batch, a GC pause) instead of taking it out of the Service, so load turns into restarts;
a timeout as long as the period lets probes overlap and a slow endpoint count as two failures.

Options: none.

Default: enabled, level warning. Kubernetes defaults count: ``timeoutSeconds`` 1, ``periodSeconds`` 10.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        readinessProbe: {httpGet: {path: /v2/health/ready, port: 8080}, periodSeconds: 5}
        livenessProbe: {httpGet: {path: /v2/health/live, port: 8080}, periodSeconds: 15, timeoutSeconds: 5}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        readinessProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10, timeoutSeconds: 10}
        livenessProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10, timeoutSeconds: 10}

Remediation: Point the liveness probe at a cheaper "process alive" check (or give it a higher failureThreshold) and keep timeoutSeconds below periodSeconds.

Source: kube-score container-probes-identical (probes); https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#configure-probes
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "probe-sanity"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

PROBES: Final = ("startupProbe", "readinessProbe", "livenessProbe")


def _seconds(probe: dict[str, Any], field: str, default: int) -> Any:
    value = probe.get(field, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per container: liveness equal to readiness; then each probe with timeoutSeconds ≥ periodSeconds."""
    for container in all_containers(obj, ephemeral=False):
        liveness, readiness = container.get("livenessProbe"), container.get("readinessProbe")
        if isinstance(liveness, dict) and liveness and liveness == readiness:
            yield Issue(
                container.at("livenessProbe"),
                f'container "{container.name}" livenessProbe is the same as its readinessProbe',
                ID,
            )
        for name in PROBES:
            probe = container.get(name)
            if not isinstance(probe, dict):
                continue
            timeout, period = _seconds(probe, "timeoutSeconds", 1), _seconds(probe, "periodSeconds", 10)
            if timeout is not None and period is not None and timeout >= period:
                yield Issue(
                    container.at(name, "timeoutSeconds"),
                    f'container "{container.name}" {name} timeoutSeconds {timeout} is not below periodSeconds {period}',
                    ID,
                )
