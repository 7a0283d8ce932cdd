"""Kueue topology annotations on pod templates of queued jobs name levels of the cluster's Topology.

Why: a level that the cluster's Topology lacks is accepted by Kueue's webhook but never placed: the
workload stays pending with "no requested topology level"; so does a slice level above the pod set's
level. The checks mirror kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``
``findTopologyAssignment`` (the level must be one of the Topology's; a slice level not above the pod
set's level), which runs for queued workloads only. What Kueue's webhook rejects on create without
the cluster (conflicting or malformed ``kueue.x-k8s.io/podset-*`` annotations, ``ValidateTASPodSetRequest``
and the rest of ``pkg/controller/jobframework/tas_validation.go``) is the validation family
``kueue-webhook``'s, so a finding is not reported twice; a level that is no label name is left to it.

Options: none (the Topology's levels come from the cluster facts; without them the rule says nothing).

Default: enabled, level error.

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: tas
      labels: {kueue.x-k8s.io/queue-name: tas-user-queue}
    spec:
      parallelism: 4
      completions: 4
      template:
        metadata:
          annotations:
            kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-block
        spec:
          restartPolicy: Never
          containers: [{name: main, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: tas
      labels: {kueue.x-k8s.io/queue-name: tas-user-queue}
    spec:
      parallelism: 4
      completions: 4
      template:
        metadata:
          annotations:
            kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-zone   # no level of the Topology
        spec:
          restartPolicy: Never
          containers: [{name: main, image: registry.example.com/train:1.0}]

Remediation: Name levels of the cluster's Topology, and a slice level at or below the pod set's level.

Source: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/cache/scheduler/tas_flavor_snapshot.go (findTopologyAssignment)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.naming import qualified_name_problem
from trainops.core.rules import register
from trainops.core.topology import PREFERRED, REQUIRED, SLICE_REQUIRED
from trainops.policy.placement import pod_sets, queued
from trainops.policy.rule import Context, describe

ID = "topology-placement"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each pod template's topology levels of a queued job against the cluster's Topology levels."""
    levels = ctx.facts.topology_levels
    if not levels or not queued(obj):
        return
    for pod_set in pod_sets(obj):
        notes, at = pod_set.annotations, pod_set.annotations_parts
        for key in (REQUIRED, PREFERRED, SLICE_REQUIRED):
            value = notes.get(key)
            if isinstance(value, str) and not qualified_name_problem(value) and value not in levels:
                yield Issue(
                    (*at, key),
                    f"{key} {value!r} is no level of the cluster's Topology {ctx.facts.topology_name!r} "
                    f"({', '.join(levels)}): the workload never gets placed",
                    ID,
                )
        base, lower = notes.get(REQUIRED, notes.get(PREFERRED)), notes.get(SLICE_REQUIRED)
        if base in levels and lower in levels and levels.index(lower) < levels.index(base):
            yield Issue(
                (*at, SLICE_REQUIRED), f"slice level {lower!r} is above the pod set's level {base!r}", ID
            )
