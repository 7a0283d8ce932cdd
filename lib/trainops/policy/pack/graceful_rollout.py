"""Deployments roll out with ``RollingUpdate`` (an Argo Rollouts Rollout's blue-green or canary
strategy counts as rolling), set ``terminationGracePeriodSeconds`` explicitly, and containers that
serve a port have a ``preStop`` hook.

Why: ``Recreate`` takes the endpoint down for the whole model load; without a preStop delay the
pod leaves the endpoints after it stops accepting requests, so in-flight inference requests fail
on every rollout and scale-down. ``Recreate`` is right for a single-replica Deployment that mounts a
PersistentVolumeClaim (the Kubernetes "single-instance stateful application" tutorial): a
ReadWriteOnce claim cannot attach to the old and the new pod on two nodes (Multi-Attach error), so a
rolling update would hang.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      strategy: {type: RollingUpdate}
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          terminationGracePeriodSeconds: 30
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            ports: [{name: http, containerPort: 8080}]
            lifecycle: {preStop: {sleep: {seconds: 5}}}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      strategy: {type: Recreate}
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            ports: [{name: http, containerPort: 8080}]

Remediation: Use strategy RollingUpdate, set terminationGracePeriodSeconds, and add a preStop sleep to serving containers.

Source: https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.rules import register
from trainops.policy.pods import all_containers, dig
from trainops.policy.rule import Context, describe

ID = "graceful-rollout"
LEVEL: Level = "warning"
KINDS = frozenset({("apps", "Deployment"), ("argoproj.io", "Rollout")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Strategy, grace period, and preStop on port-serving containers (a Rollout that takes its pods
    from a Deployment, ``workloadRef``, has no template of its own: the Deployment is checked)."""
    if dig(obj, "spec", "workloadRef") is not None:
        return
    strategy = dig(obj, "spec", "strategy", "type")
    if strategy not in (None, "RollingUpdate") and not _single_with_claim(obj):
        yield Issue(
            ("spec", "strategy", "type"), f"strategy {strategy} stops every pod before starting new ones", ID
        )
    if dig(obj, "spec", "template", "spec", "terminationGracePeriodSeconds") is None:
        yield Issue(
            ("spec", "template", "spec", "terminationGracePeriodSeconds"),
            "terminationGracePeriodSeconds is not set",
            ID,
        )
    for container in all_containers(obj, ephemeral=False):
        if (
            container.field == "containers"
            and container.get("ports")
            and container.get("lifecycle", "preStop") is None
        ):
            yield Issue(
                container.at("lifecycle"), f'serving container "{container.name}" has no preStop hook', ID
            )


def _single_with_claim(obj: dict[str, Any]) -> bool:
    """One replica (unset means 1) whose pod mounts a PersistentVolumeClaim."""
    replicas = dig(obj, "spec", "replicas")
    volumes = dig(obj, "spec", "template", "spec", "volumes")
    return (replicas is None or replicas == 1) and any(
        isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"), dict)
        for v in (volumes if isinstance(volumes, list) else [])
    )
