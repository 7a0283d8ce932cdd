"""Kueue topology annotations on pod templates are ones Kueue accepts, and name levels of the cluster's Topology.

Why: Kueue's webhook rejects a job whose pod templates carry conflicting or malformed
``kueue.x-k8s.io/podset-*`` annotations (Argo CD's sync fails), and a level that the cluster's
Topology lacks is accepted but never placed: the workload stays pending with "no requested topology
level". The checks mirror kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas_validation.go``
``ValidateTASPodSetRequest`` (one of required/preferred/unconstrained; label-name values; a boolean
``unconstrained``; a numeric ``slice-size`` >= 1 given with ``slice-required-topology`` and only with
it; ``podset-group-name`` not a number, not with slices, only with required or preferred) and
``ValidateSliceSizeAnnotationUpperBound`` (slice size at most the pod set's pods), called by the Job,
JobSet, Kubeflow, MPIJob and TrainJob webhooks; ``ValidatePodSetGroupingTopology`` with
``topologyRequestsValid`` (pod sets sharing a ``podset-group-name`` beside a required or preferred
level: exactly two of them, one running a single pod, both asking for the same level in the same
mode), called by the JobSet, MPIJob and LeaderWorkerSet webhooks only; and ``pkg/cache/scheduler/tas_flavor_snapshot.go``
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

Source: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobframework/tas_validation.go (ValidateTASPodSetRequest, ValidateSliceSizeAnnotationUpperBound, ValidatePodSetGroupingTopology, topologyRequestsValid); https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/cache/scheduler/tas_flavor_snapshot.go (findTopologyAssignment)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.naming import qualified_name_problem
from trainops.core.rules import register
from trainops.core.topology import GROUP_NAME, PREFERRED, REQUIRED, SLICE_REQUIRED, SLICE_SIZE, UNCONSTRAINED
from trainops.policy.placement import PodSet, pod_sets
from trainops.policy.rule import Context, describe

ID = "topology-placement"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_INT32_MAX = 2**31 - 1
#: The kinds whose Kueue webhook checks pod-set groups (``ValidatePodSetGroupingTopology`` callers:
#: ``pkg/controller/jobs/{jobset,mpijob,leaderworkerset}/*_webhook.go``).
_GROUPING_KINDS = frozenset({"JobSet", "MPIJob", "LeaderWorkerSet"})


def _int32(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 32)``: an optionally signed decimal within int32, else ``None``."""
    text = value[1:] if value[:1] in "+-" else value
    if not text.isdigit() or not text.isascii():
        return None
    number = int(value)
    return number if -_INT32_MAX - 1 <= number <= _INT32_MAX else None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Every pod template's Kueue topology annotations, as Kueue's webhook and scheduler check them."""
    found = list(pod_sets(obj))
    yield from _pod_set_issues(found, ctx)
    kind = obj.get("kind")
    if isinstance(kind, str) and kind in _GROUPING_KINDS:
        yield from _group_issues(found)


def _request(pod_set: PodSet) -> tuple[str, str] | None:
    """The pod set's level request as Kueue builds it (``podSetTopologyRequestBuilder.Build``:
    required wins over preferred): ``(annotation, level)``, or ``None`` without either."""
    for key in (REQUIRED, PREFERRED):
        if key in pod_set.annotations:
            return key, str(pod_set.annotations[key])
    return None


def _group_issues(found: list[PodSet]) -> Iterator[Issue]:
    """Kueue ``ValidatePodSetGroupingTopology``: the pod sets that share a group name (counted only
    beside a required or preferred level) are exactly two, one of them runs one pod, and both ask for
    the same level in the same mode (``topologyRequestsValid``)."""
    groups: dict[str, list[PodSet]] = {}
    for pod_set in found:
        if GROUP_NAME in pod_set.annotations and _request(pod_set) is not None:
            groups.setdefault(str(pod_set.annotations[GROUP_NAME]), []).append(pod_set)
    for name, members in groups.items():
        if len(members) != 2:
            for member in members:
                yield Issue(
                    (*member.annotations_parts, GROUP_NAME),
                    f"{GROUP_NAME} {name!r}: Kueue groups exactly 2 pod sets, got {len(members)}",
                    ID,
                )
            continue
        first, second = members
        counts = (first.count, second.count)
        if None not in counts and 1 not in counts:
            for member in members:
                yield Issue(
                    (*member.annotations_parts, GROUP_NAME),
                    f"{GROUP_NAME} {name!r}: one of the 2 pod sets must run 1 pod, got {counts[0]} and {counts[1]}",
                    ID,
                )
        if _request(first) != _request(second):
            for member, other in ((first, second), (second, first)):
                yield Issue(
                    (*member.annotations_parts, GROUP_NAME),
                    f"{GROUP_NAME} {name!r}: asks for {_show(_request(member))} but the other pod set of the "
                    f"group asks for {_show(_request(other))} (Kueue needs the same level and mode)",
                    ID,
                )


def _show(request: tuple[str, str] | None) -> str:
    return f"{request[0].rsplit('-', 2)[-2]} {request[1]!r}" if request else "no level"


def _pod_set_issues(found: list[PodSet], ctx: Context) -> Iterator[Issue]:
    """Each pod set's own annotations (``ValidateTASPodSetRequest``, ``findTopologyAssignment``)."""
    levels = ctx.facts.topology_levels
    for pod_set in found:
        notes = pod_set.annotations
        if not any(k.startswith("kueue.x-k8s.io/podset-") for k in notes):
            continue
        at = pod_set.annotations_parts
        modes = [k for k in (REQUIRED, PREFERRED, UNCONSTRAINED) if k in notes]
        if len(modes) > 1:
            yield Issue(at, f"more than one topology annotation: {', '.join(modes)} (Kueue accepts one)", ID)
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
