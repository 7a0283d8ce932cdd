"""Kueue topology annotations on pod templates are ones Kueue accepts, and name levels of the cluster's Topology.

Why: Kueue's webhook rejects a job whose pod templates carry conflicting or malformed
``kueue.x-k8s.io/podset-*`` annotations (Argo CD's sync fails), and a level that the cluster's
Topology lacks is accepted but never placed: the workload stays pending with "no requested topology
level". The checks mirror kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas_validation.go``
``ValidateTASPodSetRequest`` (one of required/preferred/unconstrained; label-name values; a boolean
``unconstrained``; a numeric ``slice-size`` >= 1 given with ``slice-required-topology`` and only with
it; ``podset-group-name`` not a number, not with slices, only with required or preferred) and
``ValidateSliceSizeAnnotationUpperBound`` (slice size at most the pod set's pods), called by the Job,
JobSet, Kubeflow, MPIJob and TrainJob webhooks; and ``pkg/cache/scheduler/tas_flavor_snapshot.go``
``findTopologyAssignment`` (the level must be one of the Topology's; a slice level not above the pod
set's level).

Options: none (the Topology's levels come from the cluster facts; without them only Kueue's webhook
checks run).

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
            kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-block
            kueue.x-k8s.io/podset-preferred-topology: cloud.example.com/topology-rack
            kueue.x-k8s.io/podset-slice-size: "8"
        spec:
          restartPolicy: Never
          containers: [{name: main, image: registry.example.com/train:1.0}]

Remediation: Keep one of the required, preferred and unconstrained annotations, give a slice size with its slice level, and name levels of the cluster's Topology.

Source: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobframework/tas_validation.go (ValidateTASPodSetRequest, ValidateSliceSizeAnnotationUpperBound); https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/cache/scheduler/tas_flavor_snapshot.go (findTopologyAssignment)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.naming import qualified_name_problem
from trainops.core.rules import register
from trainops.core.topology import GROUP_NAME, PREFERRED, REQUIRED, SLICE_REQUIRED, SLICE_SIZE, UNCONSTRAINED
from trainops.policy.placement import pod_sets
from trainops.policy.rule import Context, describe

ID = "topology-placement"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_INT32_MAX = 2**31 - 1


def _int32(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 32)``: an optionally signed decimal within int32, else ``None``."""
    text = value[1:] if value[:1] in "+-" else value
    if not text.isdigit() or not text.isascii():
        return None
    number = int(value)
    return number if -_INT32_MAX - 1 <= number <= _INT32_MAX else None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Every pod template's Kueue topology annotations, as Kueue's webhook and scheduler check them."""
    levels = ctx.facts.topology_levels
    for pod_set in pod_sets(obj):
        notes = pod_set.annotations
        if not any(k.startswith("kueue.x-k8s.io/podset-") for k in notes):
            continue
        at = pod_set.annotations_parts
        found = [k for k in (REQUIRED, PREFERRED, UNCONSTRAINED) if k in notes]
        if len(found) > 1:
            yield Issue(at, f"more than one topology annotation: {', '.join(found)} (Kueue accepts one)", ID)
        for key in (REQUIRED, PREFERRED, SLICE_REQUIRED):
            value = notes.get(key)
            if key not in notes:
                continue
            problem = qualified_name_problem(value) if isinstance(value, str) else "is not a string"
            if problem:
                yield Issue((*at, key), f"{key} {value!r} is not a label name: {problem}", ID)
            elif levels and value not in levels:
                yield Issue(
                    (*at, key),
                    f"{key} {value!r} is no level of the cluster's Topology {ctx.facts.topology_name!r} "
                    f"({', '.join(levels)}): the workload never gets placed",
                    ID,
                )
        if UNCONSTRAINED in notes and str(notes[UNCONSTRAINED]) not in _BOOLS:
            yield Issue(
                (*at, UNCONSTRAINED), f"{UNCONSTRAINED} {notes[UNCONSTRAINED]!r} is not a boolean", ID
            )
        size = notes.get(SLICE_SIZE)
        if SLICE_SIZE in notes:
            number = _int32(size) if isinstance(size, str) else None
            if number is None:
                yield Issue((*at, SLICE_SIZE), f"{SLICE_SIZE} {size!r} is not a number", ID)
            elif number < 1:
                yield Issue((*at, SLICE_SIZE), f"{SLICE_SIZE} {size!r} must be at least 1", ID)
            elif pod_set.count is not None and number > pod_set.count:
                yield Issue(
                    (*at, SLICE_SIZE),
                    f"{SLICE_SIZE} {number} is greater than the pod set's {pod_set.count} pods",
                    ID,
                )
        if (SLICE_REQUIRED in notes) != (SLICE_SIZE in notes):
            given, missing = (
                (SLICE_REQUIRED, SLICE_SIZE) if SLICE_REQUIRED in notes else (SLICE_SIZE, SLICE_REQUIRED)
            )
            yield Issue(at, f"{given} is set without {missing} (Kueue needs both)", ID)
        if SLICE_REQUIRED in notes and levels:
            base = notes.get(REQUIRED, notes.get(PREFERRED))
            lower = notes[SLICE_REQUIRED]
            if base in levels and lower in levels and levels.index(lower) < levels.index(base):
                yield Issue(
                    (*at, SLICE_REQUIRED), f"slice level {lower!r} is above the pod set's level {base!r}", ID
                )
        if GROUP_NAME in notes:
            group = str(notes[GROUP_NAME])
            if group.isdigit():
                yield Issue((*at, GROUP_NAME), f"{GROUP_NAME} {group!r} must not be a number", ID)
            if SLICE_SIZE in notes or SLICE_REQUIRED in notes:
                yield Issue((*at, GROUP_NAME), f"{GROUP_NAME} may not be set with the slice annotations", ID)
            if REQUIRED not in notes and PREFERRED not in notes:
                yield Issue((*at, GROUP_NAME), f"{GROUP_NAME} needs {REQUIRED} or {PREFERRED}", ID)


#: ``strconv.ParseBool`` accepts these.
_BOOLS = frozenset({"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"})
