"""Deployments, StatefulSets and Argo Rollouts Rollouts run at least ``min-replicas`` pods (their HPA's minReplicas when an
HPA scales them) and spread them with pod anti-affinity or topology spread constraints.

Why: one replica means every node drain, OOM kill or rollout is an outage of the model endpoint;
several replicas on one node fail together.

Options: ``min-replicas``: the minimum replica count.

Default: enabled, level warning, ``min-replicas: 2``.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 2
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: serve}}}
          containers: [{name: server, image: registry.example.com/serve:1.0}]

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

Remediation: Run at least min-replicas replicas (or an HPA minReplicas) and add topologySpreadConstraints or pod anti-affinity.

Source: https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.pods import as_dict, as_str, dig, metadata_of
from trainops.policy.rule import Context, describe

ID = "high-availability"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"min-replicas": {"type": "integer", "minimum": 1}}
DEFAULT: dict[str, Any] = {"min-replicas": 2}
RULE = register(describe(ID, LEVEL, __doc__))

TARGETS = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("argoproj.io", "Rollout")})
HPA = ("autoscaling", "HorizontalPodAutoscaler")


def hpa_min_replicas(objects: Sequence[dict[str, Any]]) -> dict[tuple[Any, Any, Any], int]:
    """(namespace, kind, name) of each HPA target → the HPA's minReplicas (default 1)."""
    found: dict[tuple[Any, Any, Any], int] = {}
    for obj in objects:
        if group_kind(obj) != HPA:
            continue
        ref = as_dict(dig(obj, "spec", "scaleTargetRef"))
        minimum = dig(obj, "spec", "minReplicas")
        key = (as_str(metadata_of(obj).get("namespace")), as_str(ref.get("kind")), as_str(ref.get("name")))
        found[key] = minimum if isinstance(minimum, int) else 1
    return found


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per Deployment/StatefulSet: effective replicas and spreading."""
    scaled = hpa_min_replicas(objects)
    wanted = conf["min-replicas"]
    for index, obj in enumerate(objects):
        if group_kind(obj) not in TARGETS:
            continue
        meta = metadata_of(obj)
        hpa = scaled.get((as_str(meta.get("namespace")), as_str(obj.get("kind")), as_str(meta.get("name"))))
        replicas = dig(obj, "spec", "replicas")
        count = hpa if hpa is not None else (replicas if isinstance(replicas, int) else 1)
        source = "HPA minReplicas" if hpa is not None else "replicas"
        if count < wanted:
            yield index, Issue(("spec", "replicas"), f"{source} {count} is below min-replicas {wanted}", ID)
            continue
        pod = as_dict(dig(obj, "spec", "template", "spec"))
        spread = pod.get("topologySpreadConstraints") or dig(pod, "affinity", "podAntiAffinity")
        if not spread:
            yield (
                index,
                Issue(
                    ("spec", "template", "spec"),
                    f"{count} replicas without topologySpreadConstraints or podAntiAffinity may share one node",
                    ID,
                ),
            )
