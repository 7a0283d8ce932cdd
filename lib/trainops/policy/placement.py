"""The pod sets of a job as Kueue sees them (one per pod template: a Kubeflow replica type, a JobSet
replicated job, a batch Job), with their topology annotations and pod counts, for the topology and
gang-admission rules.

Pod counts follow Kueue v0.19.2's ``PodSets`` of each integration: Kubeflow ``replicas``, JobSet
``replicas`` x ``parallelism`` (``pkg/controller/jobs/jobset``), batch Job ``parallelism``; a Trainer
TrainJob's nodes are ``spec.trainer.numNodes`` (its runtime may say otherwise: unknown counts are ``None``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from trainops.core.kinds import KUBEFLOW_JOBS, Parts, PodSite, group_kind
from trainops.policy.pods import dig, pod_annotations, pod_templates

QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
_JOBSET: Final = ("jobset.x-k8s.io", "JobSet")
_JOB: Final = ("batch", "Job")
_TRAINJOB: Final = ("trainer.kubeflow.org", "TrainJob")


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


def _int(value: Any, default: int) -> int | None:
    if value is None:
        return default
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(obj: dict[str, Any], site: PodSite) -> int | None:
    key = group_kind(obj)
    parts = site.parts
    if key in KUBEFLOW_JOBS and len(parts) == 5:
        return _int(dig(obj, *parts[:3], "replicas"), 1)
    if key == _JOBSET and len(parts) == 7:
        replicas, parallelism = (
            _int(dig(obj, *parts[:3], "replicas"), 1),
            _int(dig(obj, *parts[:5], "parallelism"), 1),
        )
        return None if replicas is None or parallelism is None else replicas * parallelism
    if key == _JOB and len(parts) == 3:
        return _int(dig(obj, "spec", "parallelism"), 1)
    if key == _TRAINJOB:
        return _int(dig(obj, "spec", "trainer", "numNodes"), 1)
    return None


def pod_sets(obj: dict[str, Any]) -> Iterator[PodSet]:
    """The pod templates of ``obj`` that carry pod-set annotations (Pod templates beside a ``spec``)."""
    for site in pod_templates(obj):
        if site.templated or not site.parts or site.parts[-1] != "spec":
            continue
        yield PodSet(
            site, (*site.parts[:-1], "metadata", "annotations"), pod_annotations(obj, site), _count(obj, site)
        )


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
