"""An HPA's ``scaleTargetRef`` exists (rendered in its namespace, or external), and for each
Utilization metric every container of the target requests that resource.

Why: an HPA on a missing target does nothing; utilization is computed against requests, so with a
container lacking the request the HPA reports ``missing request for cpu`` and never scales.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: serve, namespace: ml}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: serve}
      minReplicas: 2
      maxReplicas: 4
      metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}]
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
          - {name: server, image: registry.example.com/serve:1.0, resources: {requests: {cpu: "1"}}}

FAIL:

    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: serve, namespace: ml}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: serving}
      minReplicas: 2
      maxReplicas: 4

Remediation: Point scaleTargetRef at the rendered workload and set requests for every resource the HPA measures by utilization.

Source: https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#support-for-resource-metrics
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.index import HPA, ObjectIndex, where
from trainops.policy.pods import all_containers, as_dict, dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "hpa-target"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per HPA: the target's existence, then requests for each utilization metric."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, hpa in enumerate(objects):
        if group_kind(hpa) != HPA:
            continue
        namespace = metadata_of(hpa).get("namespace")
        ref = as_dict(dig(hpa, "spec", "scaleTargetRef"))
        kind, name = ref.get("kind"), ref.get("name")
        if not isinstance(kind, str) or not isinstance(name, str):
            continue
        if not index_.exists(kind, name, namespace):
            yield (
                index,
                Issue(
                    ("spec", "scaleTargetRef"),
                    f"scale target {kind}/{name} does not exist in {where(namespace)}",
                    ID,
                ),
            )
            continue
        target = index_.first(kind, name, namespace)
        metrics = dig(hpa, "spec", "metrics")
        for number, metric in enumerate(metrics if isinstance(metrics, list) else []):
            resource = dig(metric, "resource", "name")
            if (
                target is None
                or dig(metric, "resource", "target", "type") != "Utilization"
                or not isinstance(resource, str)
            ):
                continue
            for container in all_containers(target, ephemeral=False):
                if container.field != "containers":
                    continue
                if (
                    container.get("resources", "requests", resource) is None
                    and container.get("resources", "limits", resource) is None
                ):
                    yield (
                        index,
                        Issue(
                            ("spec", "metrics", number),
                            f'{resource} utilization, but container "{container.name}" of {kind}/{name} requests no {resource}',
                            ID,
                        ),
                    )
