"""Topology-aware placement (Kueue TAS) and gang admission shared by the multi-pod job constructs.

A job says at which topology level of its cluster its pods must (or should) sit together with a
:class:`TopologyPlacement`; :func:`podset_annotations` turns it into the pod-set annotations Kueue
reads from each pod template (``kueue.x-k8s.io/podset-*-topology``, ``podset-slice-size``,
``podset-group-name``), after the checks Kueue's webhooks and scheduler make, so that bad input is
one ``ValueError`` quoting the prop and its value.

Sources: kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/topology_types.go`` (the annotations),
``pkg/controller/jobframework/tas_validation.go`` (``ValidateTASPodSetRequest``,
``ValidateSliceSizeAnnotationUpperBound``, ``ValidatePodSetGroupingTopology``) and
``pkg/cache/scheduler/tas_flavor_snapshot.go`` (``findTopologyAssignment``: "no requested topology
level", "podset slice topology ... is above the podset topology").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trainops.core.cluster import Cluster, TopologyLevel
from trainops.core.naming import qualified_name_problem
from trainops.core.topology import (
    EXCLUSIVE_TOPOLOGY,
    GROUP_NAME,
    PREFERRED,
    REQUIRED,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
)

__all__ = ["EXCLUSIVE_TOPOLOGY", "TopologyPlacement", "exclusive_label", "podset_annotations"]


@dataclass(frozen=True)
class TopologyPlacement:
    """Where a job's pods sit in the cluster's network topology (Kueue Topology Aware Scheduling).

    Give one of ``required`` (all pods of a pod set inside one domain of that level, e.g. one rack,
    or the job waits), ``preferred`` (one domain if possible, else the next level up, else spread) or
    ``unconstrained`` (any nodes, but placed by Kueue); and/or ``slice_level`` with ``slice_size``
    (every ``slice_size`` pods of the worker pod set inside one domain of ``slice_level``: e.g. 8
    pods per NVLink block). A level is a short name of the cluster's
    :class:`~trainops.core.cluster.ClusterTopology` (``"rack"``) or its node label.

    Args:
        required: level all pods must share, or ``None``. Default: ``None``.
        preferred: level all pods should share, or ``None``. Default: ``None``.
        unconstrained: let Kueue place the pods anywhere. Default: ``False``.
        slice_level: level each slice of pods must share, or ``None``. Default: ``None``.
        slice_size: pods per slice (with ``slice_level``), or ``None``. Default: ``None``.

    Raises:
        ValueError: more than one of ``required``/``preferred``/``unconstrained``; none of them and
            no slice; ``slice_level`` without ``slice_size`` or the reverse; ``slice_size`` < 1
            (Kueue ``ValidateTASPodSetRequest``).
    """

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    slice_level: str | None = None
    slice_size: int | None = None

    def __post_init__(self) -> None:
        chosen = [p for p in ("required", "preferred") if getattr(self, p) is not None]
        chosen += ["unconstrained"] if self.unconstrained else []
        if len(chosen) > 1:
            raise ValueError(
                f"TopologyPlacement {'/'.join(chosen)}: give only one of required, preferred and "
                "unconstrained (Kueue accepts one topology annotation per pod set)"
            )
        if (self.slice_level is None) != (self.slice_size is None):
            raise ValueError(
                f"TopologyPlacement slice_level={self.slice_level!r} slice_size={self.slice_size!r}: "
                "give both or neither"
            )
        if self.slice_size is not None and (
            isinstance(self.slice_size, bool) or not isinstance(self.slice_size, int) or self.slice_size < 1
        ):
            raise ValueError(f"TopologyPlacement slice_size={self.slice_size!r}: must be a whole number >= 1")
        if not chosen and self.slice_level is None:
            raise ValueError(
                "TopologyPlacement: give required, preferred, unconstrained or slice_level with slice_size"
            )

    @property
    def level(self) -> str | None:
        """The level all pods share (``required`` or ``preferred``), or ``None``."""
        return self.required if self.required is not None else self.preferred


def _resolve(owner: str, cluster: Cluster, prop: str, value: str) -> TopologyLevel:
    topology = cluster.topology
    if topology is None:
        raise ValueError(
            f"{owner} placement.{prop}={value!r}: cluster {cluster.name!r} declares no topology "
            "(Cluster.topology) for Kueue topology-aware placement"
        )
    level = topology.level(value) if isinstance(value, str) else None
    if level is None:
        raise ValueError(
            f"{owner} placement.{prop}={value!r}: cluster {cluster.name!r} topology {topology.name!r} "
            f"has no such level (levels: {', '.join(topology.level_names)})"
        )
    return level


def podset_annotations(
    owner: str,
    cluster: Cluster,
    placement: TopologyPlacement,
    pod_sets: Mapping[str, int],
    *,
    queued: bool,
    workers: str | None = None,
) -> dict[str, dict[str, str]]:
    """The Kueue pod-set annotations of each pod set of a job placed by ``placement``.

    Every pod set gets the ``required``/``preferred``/``unconstrained`` annotation; the slice
    annotations go to the ``workers`` pod set only. When the job has exactly two pod sets and one
    of them runs one pod (a Master, Launcher or leader beside its workers) and ``required`` or
    ``preferred`` is given, both get ``podset-group-name: <level>`` so that Kueue places them in
    the same domain (``ValidatePodSetGroupingTopology``: groups of exactly two pod sets, one with
    one pod, with the same level).

    Args:
        owner: the construct's kind, for messages.
        cluster: the target; must declare a topology.
        placement: the placement.
        pod_sets: pod-set name (replica type, replicated job) → its pod count, in template order.
        queued: the job carries a Kueue queue label (Kueue places only the workloads it admits).
        workers: the pod set the slice annotations go to. Default: the one with most pods.

    Returns:
        Pod-set name → annotations (every pod set of ``pod_sets``).

    Raises:
        ValueError: no queue; a level the cluster's topology does not declare; a slice level above
            the pod set's level (``findTopologyAssignment``); a slice size above the pod count of the
            worker pod set (``ValidateSliceSizeAnnotationUpperBound``).
    """
    if not queued:
        raise ValueError(
            f"{owner} placement={placement!r}: needs a queue (Kueue places only the jobs it admits from a LocalQueue)"
        )
    common: dict[str, str] = {}
    level: TopologyLevel | None = None
    if placement.required is not None:
        level = _resolve(owner, cluster, "required", placement.required)
        common[REQUIRED] = level.node_label
    elif placement.preferred is not None:
        level = _resolve(owner, cluster, "preferred", placement.preferred)
        common[PREFERRED] = level.node_label
    elif placement.unconstrained:
        if cluster.topology is None:
            raise ValueError(
                f"{owner} placement.unconstrained=True: cluster {cluster.name!r} declares no topology"
            )
        common[UNCONSTRAINED] = "true"
    out = {name: dict(common) for name in pod_sets}
    if placement.slice_level is not None and placement.slice_size is not None:
        slice_level = _resolve(owner, cluster, "slice_level", placement.slice_level)
        topology = cluster.topology
        assert topology is not None
        if level is not None and topology.depth(slice_level.node_label) < topology.depth(level.node_label):
            raise ValueError(
                f"{owner} placement.slice_level={placement.slice_level!r}: is above the pod set's level "
                f"{level.name!r} (a slice must fit inside the domain all pods share)"
            )
        target = workers if workers is not None else max(pod_sets, key=lambda n: pod_sets[n])
        if placement.slice_size > pod_sets[target]:
            raise ValueError(
                f"{owner} placement.slice_size={placement.slice_size!r}: must not be greater than the "
                f"{pod_sets[target]} pods of {target!r}"
            )
        out[target].update({SLICE_REQUIRED: slice_level.node_label, SLICE_SIZE: str(placement.slice_size)})
    counts = list(pod_sets.values())
    if (
        level is not None
        and len(pod_sets) == 2
        and 1 in counts
        and not any(SLICE_SIZE in a for a in out.values())
    ):
        for annotations in out.values():
            annotations[GROUP_NAME] = level.name
    return out


def exclusive_label(owner: str, cluster: Cluster, value: str) -> str:
    """The node label of an exclusive-placement level: a level of the cluster's topology (short name
    or node label), or a prefixed node label such as ``kubernetes.io/hostname``.

    Raises:
        ValueError: neither a declared level nor a prefixed qualified name, quoting ``owner`` and value.
    """
    level = cluster.topology.level(value) if cluster.topology is not None and isinstance(value, str) else None
    if level is not None:
        return level.node_label
    problem = qualified_name_problem(value) if isinstance(value, str) else "is not a string"
    if problem or "/" not in value:
        known = ", ".join(cluster.topology.level_names) if cluster.topology else "none declared"
        raise ValueError(
            f"{owner} exclusive_topology={value!r}: must be a topology level of cluster {cluster.name!r} "
            f"({known}) or a node label such as kubernetes.io/hostname"
        )
    return value
