"""Gang admission through a PodGroup scheduler, for jobs that Kueue does not admit: what a cluster's
declared gang scheduler (:attr:`trainops.core.cluster.Cluster.gang_scheduler`) needs on a job's pods
and the PodGroup it reads, shared by the constructs that write them and the ``gang-scheduling`` rule
that checks them.

Sources:

- Volcano v1.15.1: the PodGroup ``scheduling.volcano.sh/v1beta1`` (``spec.minMember``) and the pod
  annotation ``scheduling.k8s.io/group-name`` (volcano-sh/apis ``pkg/apis/scheduling/v1beta1/labels.go``
  ``KubeGroupNameAnnotationKey``); the scheduler's name is ``volcano``.
- scheduler-plugins v0.34.7 (coscheduling): the PodGroup ``scheduling.x-k8s.io/v1alpha1``
  (``spec.minMember``) and the pod label ``scheduling.x-k8s.io/pod-group``
  (kubernetes-sigs/scheduler-plugins ``apis/scheduling/v1alpha1/types.go`` ``PodGroupLabel``); it runs
  as a second scheduler named ``scheduler-plugins-scheduler`` (the chart
  ``manifests/install/charts/as-a-second-scheduler/values.yaml`` ``scheduler.name``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple


class GangScheduler(NamedTuple):
    """What one gang scheduler reads.

    Args:
        api_version: the PodGroup's apiVersion.
        scheduler_name: the ``schedulerName`` its pods name.
        annotation: the pod annotation naming the PodGroup, or ``None``.
        label: the pod label naming the PodGroup, or ``None``.
    """

    api_version: str
    scheduler_name: str
    annotation: str | None = None
    label: str | None = None

    @property
    def group(self) -> str:
        """The PodGroup's API group."""
        return self.api_version.split("/")[0]


#: Gang scheduler name (``Cluster.gang_scheduler``) → what it reads.
SCHEDULERS: Final[dict[str, GangScheduler]] = {
    "volcano": GangScheduler(
        "scheduling.volcano.sh/v1beta1", "volcano", annotation="scheduling.k8s.io/group-name"
    ),
    "scheduler-plugins": GangScheduler(
        "scheduling.x-k8s.io/v1alpha1", "scheduler-plugins-scheduler", label="scheduling.x-k8s.io/pod-group"
    ),
}
#: The ``Cluster.operators`` key serving both PodGroup CRDs (the catalog's ``podgroup`` operator).
PODGROUP_OPERATOR: Final = "podgroup"


def pod_group(scheduler: str, name: str, min_member: int) -> dict[str, Any]:
    """The PodGroup ``name`` of ``scheduler`` admitting ``min_member`` pods together (no namespace:
    the chart's).

    Raises:
        KeyError: an unknown scheduler (not a key of :data:`SCHEDULERS`).
    """
    return {
        "apiVersion": SCHEDULERS[scheduler].api_version,
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"minMember": min_member},
    }


def pod_reference(scheduler: str, group: str) -> tuple[dict[str, str], dict[str, str], str]:
    """``(labels, annotations, schedulerName)`` a pod of PodGroup ``group`` carries for ``scheduler``.

    Raises:
        KeyError: an unknown scheduler.
    """
    info = SCHEDULERS[scheduler]
    labels = {info.label: group} if info.label else {}
    annotations = {info.annotation: group} if info.annotation else {}
    return labels, annotations, info.scheduler_name


def reference_problem(scheduler: str, metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """Why a pod template (its ``metadata`` and ``spec``) is not gang-scheduled by ``scheduler``, or
    ``None``: it must name its PodGroup (label or annotation) and the scheduler.

    Raises:
        KeyError: an unknown scheduler.
    """
    info = SCHEDULERS[scheduler]
    key, where = (info.label, "labels") if info.label else (info.annotation, "annotations")
    values = metadata.get(where)
    if not isinstance(values, Mapping) or not values.get(key):
        return f"its pods carry no {key} {where[:-1]} naming their PodGroup ({scheduler} gang scheduling)"
    if spec.get("schedulerName") != info.scheduler_name:
        return f"its pods name schedulerName {spec.get('schedulerName')!r}, not {info.scheduler_name!r} ({scheduler})"
    return None
