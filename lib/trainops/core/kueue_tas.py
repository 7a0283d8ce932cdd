"""Kueue's admission-webhook checks of the pod-set topology annotations, as pure functions shared by
the ``kueue-webhook`` validation family (:mod:`trainops.validate.checks.kueue_webhook`) and the policy
rules about placement (``topology-placement``, ``topology-unplaced``, ``gang-scheduling``), with the
pod sets of a job as Kueue sees them (one per pod template: a Kubeflow replica type, a JobSet
replicated job, a batch Job, a LeaderWorkerSet leader or worker template).

Mirrors kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas_validation.go``:
``ValidateTASPodSetRequest`` (with ``validateTASUnconstrained``, ``validateSliceSizeAnnotation``,
``validatePodSetGroupNameAnnotation`` and ``validateSliceRequiredTopologyConstraintsAnnotation``, the
``TASMultiLayerTopology`` gate being beta and on by default in v0.19), ``ValidateSliceSizeAnnotationUpperBound``
and ``ValidatePodSetGroupingTopology`` / ``topologyRequestsValid``. Pod counts follow each
integration's ``PodSets``: Kubeflow ``replicas``, JobSet ``replicas`` x ``parallelism``
(``pkg/controller/jobs/jobset``), batch Job ``min(parallelism, completions)`` (``Job.podsCount``),
LeaderWorkerSet leader 1 and workers ``size - 1`` (``size`` without a leader template;
``pkg/controller/jobs/leaderworkerset/leaderworkerset_reconciler.go`` ``podSets``), a Trainer
TrainJob's ``spec.trainer.numNodes`` (its runtime may say otherwise: unknown counts are ``None``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from trainops.core.kinds import KUBEFLOW_JOBS, Parts, PodSite, group_kind, pod_templates
from trainops.core.naming import qualified_name_problem
from trainops.core.topology import GROUP_NAME, PREFERRED, REQUIRED, SLICE_REQUIRED, SLICE_SIZE, UNCONSTRAINED

QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
#: ``PodSetSliceRequiredTopologyConstraintsAnnotation``: a JSON list of ``{topology, size}`` layers.
SLICE_CONSTRAINTS: Final = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
_JOBSET: Final = ("jobset.x-k8s.io", "JobSet")
_JOB: Final = ("batch", "Job")
_TRAINJOB: Final = ("trainer.kubeflow.org", "TrainJob")
_LWS: Final = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
_MPIJOB: Final = ("kubeflow.org", "MPIJob")
#: Kinds whose Kueue validating webhook runs on every object of the kind, queued or not: the
#: integrations Kueue's shipped configuration enables (``config/components/manager/controller_manager_config.yaml``)
#: whose webhooks call ``ValidateTASPodSetRequest`` unconditionally on create (``JobWebhook.validateCreate``,
#: ``JobSetWebhook.validateCreate``, ``MpiJobWebhook.ValidateCreate``, ``TrainJobWebhook.validateCreate``,
#: leaderworkerset ``validateCreate``; the webhooks have no object selector, only a namespace selector
#: leaving out ``kube-system`` and ``kueue-system``). Other integrations (Kubeflow v1 jobs) are judged
#: when the object names a queue (their integration must then be enabled).
ALWAYS_JUDGED: Final = frozenset({_JOB, _JOBSET, _MPIJOB, _TRAINJOB, _LWS})
#: Kinds whose webhook also calls ``ValidatePodSetGroupingTopology`` (``pkg/controller/jobs/{jobset,mpijob,leaderworkerset}``).
GROUPING: Final = frozenset({_JOBSET, _MPIJOB, _LWS})
_INT32_MAX: Final = 2**31 - 1
#: ``strconv.ParseBool`` accepts these.
_BOOLS: Final = frozenset({"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"})

Problem = tuple[Parts, str]


@dataclass(frozen=True)
class PodSet:
    """One pod template of a job.

    Args:
        site: the pod spec.
        annotations_parts: path of the template's ``metadata.annotations``.
        annotations: those annotations (``{}`` when none).
        count: the pods Kueue counts for it, ``None`` when not known from the object alone.
    """

    site: PodSite
    annotations_parts: Parts
    annotations: dict[str, Any]
    count: int | None


def dig(node: Any, *keys: str | int) -> Any:
    """``node[k1][k2]...`` or ``None`` when a step is missing or of the wrong type."""
    for key in keys:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return None
    return node


def _int(value: Any, default: int) -> int | None:
    if value is None:
        return default
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(obj: dict[str, Any], parts: Parts) -> int | None:
    key = group_kind(obj)
    if key in KUBEFLOW_JOBS and len(parts) == 5:
        return _int(dig(obj, *parts[:3], "replicas"), 1)
    if key == _JOBSET and len(parts) == 7:
        replicas, parallelism = (
            _int(dig(obj, *parts[:3], "replicas"), 1),
            _int(dig(obj, *parts[:5], "parallelism"), 1),
        )
        return None if replicas is None or parallelism is None else replicas * parallelism
    if key == _JOB and len(parts) == 3:
        parallelism, completions = _int(dig(obj, "spec", "parallelism"), 1), dig(obj, "spec", "completions")
        if parallelism is None or (completions is not None and _int(completions, 0) is None):
            return None
        return min(parallelism, completions) if isinstance(completions, int) else parallelism
    if key == _LWS and len(parts) == 4:
        if parts[2] == "leaderTemplate":
            return 1
        size = _int(dig(obj, "spec", "leaderWorkerTemplate", "size"), 1)
        leader = dig(obj, "spec", "leaderWorkerTemplate", "leaderTemplate") is not None
        return None if size is None else size - 1 if leader else size
    if key == _TRAINJOB:
        return _int(dig(obj, "spec", "trainer", "numNodes"), 1)
    return None


def pod_sets(obj: dict[str, Any], sites: list[PodSite] | None = None) -> Iterator[PodSet]:
    """The pod templates of ``obj`` that carry pod-set annotations (pod templates beside a ``spec``).

    Args:
        obj: a document.
        sites: its pod specs when already found (:func:`trainops.core.kinds.pod_templates` otherwise).
    """
    for site in pod_templates(obj) if sites is None else sites:
        if site.templated or not site.parts or site.parts[-1] != "spec" or len(site.parts) < 2:
            continue
        at = (*site.parts[:-1], "metadata", "annotations")
        annotations = dig(obj, *at)
        yield PodSet(site, at, annotations if isinstance(annotations, dict) else {}, _count(obj, site.parts))


def total_pods(obj: dict[str, Any]) -> int:
    """The pods a job runs (pod sets of unknown count count as one; a TrainJob its ``numNodes``)."""
    if group_kind(obj) == _TRAINJOB:
        return _int(dig(obj, "spec", "trainer", "numNodes"), 1) or 1
    return sum(
        p.count if p.count is not None else 1 for p in pod_sets(obj) if p.site.owner == group_kind(obj)
    )


def queued(obj: dict[str, Any]) -> bool:
    """Whether the object names a Kueue LocalQueue (its ``kueue.x-k8s.io/queue-name`` label)."""
    labels = dig(obj, "metadata", "labels")
    return isinstance(labels, dict) and bool(labels.get(QUEUE_LABEL))


def judged(obj: dict[str, Any]) -> bool:
    """Whether Kueue's validating webhook checks ``obj``'s topology annotations on create: a kind of
    :data:`ALWAYS_JUDGED`, or a queued job of another Kueue integration."""
    key = group_kind(obj)
    return key in ALWAYS_JUDGED or (key in KUBEFLOW_JOBS and queued(obj))


def int32(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 32)``: an optionally signed decimal within int32, else ``None``."""
    text = value[1:] if value[:1] in "+-" else value
    if not text.isdigit() or not text.isascii():
        return None
    number = int(value)
    return number if -_INT32_MAX - 1 <= number <= _INT32_MAX else None


def request(annotations: Mapping[str, Any]) -> tuple[str, str] | None:
    """A pod set's level request as Kueue builds it (``podSetTopologyRequestBuilder.Build``: required
    wins over preferred): ``(annotation, level)``, or ``None`` without either."""
    for key in (REQUIRED, PREFERRED):
        if key in annotations:
            return key, str(annotations[key])
    return None


def webhook_problems(obj: dict[str, Any], sites: list[PodSite] | None = None) -> list[Problem]:
    """Every reason Kueue's webhook rejects creating ``obj`` for its pod-set topology annotations, as
    ``(path parts, message)`` in the webhook's order; ``[]`` when it accepts it or does not judge it
    (:func:`judged`). Each path names the annotation (or the annotations map) the webhook's field
    error names. A batch Job's upper bound is checked only when the rest passed
    (``JobWebhook.validateTopologyRequest`` returns early); a slice size that is no number is reported
    once (``ValidateSliceSizeAnnotationUpperBound`` repeats it). ``sites``: ``obj``'s pod specs when
    already found.
    """
    if not judged(obj):
        return []
    found = [p for p in pod_sets(obj, sites) if p.site.owner == group_kind(obj)]
    out: list[Problem] = []
    for pod_set in found:
        own = pod_set_problems(pod_set.annotations, pod_set.annotations_parts)
        out += own
        if not own or group_kind(obj) != _JOB:
            out += upper_bound_problems(pod_set, skip_unparsed=True)
    if group_kind(obj) in GROUPING:
        out += group_problems(found)
    return out


def pod_set_problems(notes: Mapping[str, Any], at: Parts) -> list[Problem]:
    """``ValidateTASPodSetRequest`` on one pod template's annotations ``notes`` at path ``at``."""
    out: list[Problem] = []
    modes = [k for k in (REQUIRED, PREFERRED, UNCONSTRAINED) if k in notes]
    if len(modes) > 1:
        out.append((at, f"must not contain more than one topology annotation: {', '.join(modes)}"))
    for key in (REQUIRED, PREFERRED, SLICE_REQUIRED):
        value = notes.get(key)
        if key in notes:
            problem = qualified_name_problem(value) if isinstance(value, str) else "is not a string"
            if problem:
                out.append(((*at, key), f"{key} {value!r} is not a label name: {problem}"))
    grouped, slice_size, slice_level = GROUP_NAME in notes, SLICE_SIZE in notes, SLICE_REQUIRED in notes
    if grouped:
        group = str(notes[GROUP_NAME])
        if group.isascii() and group.isdigit() and int(group) < 2**64:
            out.append(((*at, GROUP_NAME), f"{GROUP_NAME} {group!r} must not be a number"))
        for key, given in ((SLICE_SIZE, slice_size), (SLICE_REQUIRED, slice_level)):
            if given:
                out.append(((*at, GROUP_NAME), f"{GROUP_NAME} may not be set when '{key}' is specified"))
        if REQUIRED not in notes and PREFERRED not in notes:
            out.append(
                (
                    (*at, GROUP_NAME),
                    f"{GROUP_NAME} may not be set when neither '{PREFERRED}' nor '{REQUIRED}' is specified",
                )
            )
    if UNCONSTRAINED in notes and str(notes[UNCONSTRAINED]) not in _BOOLS:
        out.append(
            ((*at, UNCONSTRAINED), f"{UNCONSTRAINED} {notes[UNCONSTRAINED]!r} must be a boolean value")
        )
    if slice_size:
        size = notes[SLICE_SIZE]
        number = int32(size) if isinstance(size, str) else None
        if number is None:
            out.append(((*at, SLICE_SIZE), f"{SLICE_SIZE} {size!r} must be a numeric value"))
        elif number < 1:
            out.append(((*at, SLICE_SIZE), f"{SLICE_SIZE} {size!r} must be greater than or equal to 1"))
    if slice_level and not slice_size:
        out.append(((*at, SLICE_SIZE), f"{SLICE_SIZE} must be set when '{SLICE_REQUIRED}' is specified"))
    if slice_size and not slice_level:
        out.append(
            ((*at, SLICE_SIZE), f"{SLICE_SIZE} may not be set when '{SLICE_REQUIRED}' is not specified")
        )
    if SLICE_CONSTRAINTS in notes:
        out += _constraints_problems(
            notes, at, grouped=grouped, slice_size=slice_size, slice_level=slice_level
        )
    return out


def _constraints(text: Any) -> list[tuple[Any, Any]] | None:
    """``json.Unmarshal`` into ``[]PodsetSliceRequiredTopologyConstraint``: ``(topology, size)`` pairs
    (absent fields are ``""`` and 0; keys match case-insensitively), or ``None`` when it fails."""
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        return None
    pairs: list[tuple[Any, Any]] = []
    for item in data:
        fields = {str(k).lower(): v for k, v in item.items()}
        topology, size = fields.get("topology", ""), fields.get("size", 0)
        if not isinstance(topology, str) or (size is not None and _int(size, 0) is None):
            return None
        pairs.append((topology, size or 0))
    return pairs


def _constraints_problems(
    notes: Mapping[str, Any], at: Parts, *, grouped: bool, slice_size: bool, slice_level: bool
) -> list[Problem]:
    """``validateSliceRequiredTopologyConstraintsAnnotation`` (``TASMultiLayerTopology`` on)."""
    where = (*at, SLICE_CONSTRAINTS)
    out: list[Problem] = [
        (where, f"{SLICE_CONSTRAINTS} may not be set when '{key}' is specified")
        for key, given in ((SLICE_REQUIRED, slice_level), (SLICE_SIZE, slice_size))
        if given
    ]
    if grouped:
        out.append(
            ((*at, GROUP_NAME), f"{GROUP_NAME} may not be set when '{SLICE_CONSTRAINTS}' is specified")
        )
    layers = _constraints(notes[SLICE_CONSTRAINTS])
    if layers is None:
        return [*out, (where, f"{SLICE_CONSTRAINTS} must be a valid JSON array of {{topology, size}}")]
    if not 1 <= len(layers) <= 3:
        return [
            *out,
            (where, f"{SLICE_CONSTRAINTS}: topology constraints must contain between 1 and 3 entries"),
        ]
    seen: set[str] = set()
    for index, (topology, size) in enumerate(layers):
        problem = qualified_name_problem(topology)
        if problem:
            out.append(
                (where, f"{SLICE_CONSTRAINTS}[{index}].topology {topology!r} is not a label name: {problem}")
            )
        if size < 1:
            out.append(
                (where, f"{SLICE_CONSTRAINTS}[{index}].size {size} must be greater than or equal to 1")
            )
        if topology in seen:
            out.append((where, f"{SLICE_CONSTRAINTS}[{index}].topology {topology!r} is duplicated"))
        seen.add(topology)
    for index, ((_, parent), (_, child)) in enumerate(itertools.pairwise(layers), start=1):
        if child > 0 and parent % child:
            out.append(
                (
                    where,
                    f"{SLICE_CONSTRAINTS}[{index}].size {child} must evenly divide the parent layer size {parent}",
                )
            )
    return out


def upper_bound_problems(pod_set: PodSet, *, skip_unparsed: bool = False) -> list[Problem]:
    """``ValidateSliceSizeAnnotationUpperBound``: a slice size (or the first multi-layer size) at
    most the pod set's count (nothing when the count is unknown). ``skip_unparsed``: say nothing of a
    slice size that is no number (:func:`pod_set_problems` said it)."""
    notes, at, count = pod_set.annotations, pod_set.annotations_parts, pod_set.count
    if count is None:
        return []
    out: list[Problem] = []
    if SLICE_SIZE in notes:
        size = notes[SLICE_SIZE]
        number = int32(size) if isinstance(size, str) else None
        if number is None:
            return (
                []
                if skip_unparsed
                else [((*at, SLICE_SIZE), f"{SLICE_SIZE} {size!r} must be a numeric value")]
            )
        if number > count:
            out.append(
                ((*at, SLICE_SIZE), f"{SLICE_SIZE} {number} must not be greater than pod set count {count}")
            )
    layers = _constraints(notes.get(SLICE_CONSTRAINTS)) if SLICE_CONSTRAINTS in notes else None
    if layers and layers[0][1] > count:
        out.append(
            (
                (*at, SLICE_CONSTRAINTS),
                f"{SLICE_CONSTRAINTS}[0].size {layers[0][1]} must not be greater than pod set count {count}",
            )
        )
    return out


def group_problems(found: list[PodSet]) -> list[Problem]:
    """``ValidatePodSetGroupingTopology``: the pod sets that share a group name (counted only beside a
    required or preferred level) are exactly two, one of them runs one pod, and both ask for the same
    level in the same mode (``topologyRequestsValid``)."""
    groups: dict[str, list[PodSet]] = {}
    for pod_set in found:
        if GROUP_NAME in pod_set.annotations and request(pod_set.annotations) is not None:
            groups.setdefault(str(pod_set.annotations[GROUP_NAME]), []).append(pod_set)
    out: list[Problem] = []
    for name, members in groups.items():
        if len(members) != 2:
            out += [
                (
                    (*m.annotations_parts, GROUP_NAME),
                    f"{GROUP_NAME} {name!r}: can only define groups of exactly 2 pod sets, got {len(members)}",
                )
                for m in members
            ]
            continue
        first, second = members
        counts = (first.count, second.count)
        if None not in counts and 1 not in counts:
            out += [
                (
                    (*m.annotations_parts, GROUP_NAME),
                    f"{GROUP_NAME} {name!r}: can only define groups where at least one pod set has only 1 replica, "
                    f"got {counts[0]} and {counts[1]}",
                )
                for m in members
            ]
        mine, theirs = request(first.annotations), request(second.annotations)
        if mine != theirs:
            for member, a, b in ((first, mine, theirs), (second, theirs, mine)):
                out.append(
                    (
                        member.annotations_parts,
                        f"{GROUP_NAME} {name!r}: asks for {_show(a)} but the other pod set of the group asks for "
                        f"{_show(b)} (Kueue needs the same level and mode)",
                    )
                )
    return out


def _show(found: tuple[str, str] | None) -> str:
    return f"{found[0].rsplit('-', 2)[-2]} {found[1]!r}" if found else "no level"
