"""HorizontalPodAutoscalers keep ``minReplicas <= maxReplicas`` and ``minReplicas >= min-replicas``,
and the Deployments or StatefulSets they scale omit ``replicas``.

Why: a workload that sets replicas and is also scaled by an HPA is reset to the Git value on every
Argo CD sync (and scaled back by the HPA a minute later): capacity flaps under load. A minReplicas
of 1 gives no redundancy.

Options: ``min-replicas``: the lowest allowed minReplicas.

Default: enabled, level error, ``min-replicas: 2``.

PASS:

    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: serve, namespace: ml}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: serve}
      minReplicas: 2
      maxReplicas: 10

FAIL:

    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: serve, namespace: ml}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: serve}
      minReplicas: 12
      maxReplicas: 10

Remediation: Set minReplicas between min-replicas and maxReplicas, and remove spec.replicas from the scaled workload.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/best_practices/#leaving-room-for-imperativeness
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.pods import as_dict, as_str, dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "hpa-bounds"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"min-replicas": {"type": "integer", "minimum": 1}}
DEFAULT: dict[str, Any] = {"min-replicas": 2}
RULE = register(describe(ID, LEVEL, __doc__))

HPA = ("autoscaling", "HorizontalPodAutoscaler")


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per HPA: its bounds; per scaled workload: no replicas."""
    targets: set[tuple[Any, Any, Any]] = set()
    for index, obj in enumerate(objects):
        if group_kind(obj) != HPA:
            continue
        low, high = dig(obj, "spec", "minReplicas"), dig(obj, "spec", "maxReplicas")
        low = low if isinstance(low, int) else 1
        if isinstance(high, int) and low > high:
            yield index, Issue(("spec", "minReplicas"), f"minReplicas {low} exceeds maxReplicas {high}", ID)
        if low < conf["min-replicas"]:
            yield (
                index,
                Issue(("spec", "minReplicas"), f"minReplicas {low} is below {conf['min-replicas']}", ID),
            )
        ref = as_dict(dig(obj, "spec", "scaleTargetRef"))
        targets.add(
            (as_str(metadata_of(obj).get("namespace")), as_str(ref.get("kind")), as_str(ref.get("name")))
        )
    for index, obj in enumerate(objects):
        meta = metadata_of(obj)
        identity = (as_str(meta.get("namespace")), as_str(obj.get("kind")), as_str(meta.get("name")))
        if identity in targets and dig(obj, "spec", "replicas") is not None:
            yield index, Issue(("spec", "replicas"), "an HPA scales this workload: omit spec.replicas", ID)
