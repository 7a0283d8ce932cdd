"""Kueue API version and labels shared by the Kueue constructs and the workloads Kueue admits.

Kueue serves ``kueue.x-k8s.io/v1beta2`` (storage version since v0.16.0, kubernetes-sigs/kueue#9281)
and ``v1beta1``; v1beta2 renames ClusterQueue ``spec.cohort`` to ``spec.cohortName``
(kubernetes-sigs/kueue#7412). The pinned CRDs (v0.19.2) serve both.
"""

from __future__ import annotations

from typing import Final

from trainops.core.cluster import MULTIKUEUE_CONTROLLER, Cluster
from trainops.core.naming import DNS1123_LABEL, require

GROUP: Final = "kueue.x-k8s.io"
#: The label that hands a workload to a LocalQueue (``constants.QueueLabel``).
QUEUE_LABEL: Final = "kueue.x-k8s.io/queue-name"
#: The label that gives a workload a WorkloadPriorityClass (``constants.WorkloadPriorityClassLabel``).
PRIORITY_LABEL: Final = "kueue.x-k8s.io/priority-class"
#: The first Kueue release storing v1beta2.
V1BETA2_SINCE: Final = (0, 16, 0)


def _release(text: str) -> tuple[int, ...]:
    parts = text.lstrip("v").split("-")[0].split(".")
    return tuple(int(p) for p in parts if p.isdigit())


def kueue_api_version(owner: str, cluster: Cluster) -> str:
    """``kueue.x-k8s.io/v1beta2`` for Kueue ≥ v0.16.0 on ``cluster``, else ``kueue.x-k8s.io/v1beta1``.

    Args:
        owner: the construct's name, for the message.
        cluster: the target; must list ``kueue`` in ``operators``.

    Raises:
        ValueError: the cluster does not run Kueue.
    """
    version = cluster.operators.get("kueue")
    if version is None:
        raise ValueError(f"{owner} cluster={cluster.name!r}: the cluster does not list kueue in operators")
    return f"{GROUP}/v1beta2" if _release(version) >= V1BETA2_SINCE else f"{GROUP}/v1beta1"


def queue_labels(owner: str, cluster: Cluster, queue: str | None, priority: str | None) -> dict[str, str]:
    """The labels that hand a workload to Kueue: ``kueue.x-k8s.io/queue-name`` (and
    ``kueue.x-k8s.io/priority-class``); empty without a queue.

    Args:
        owner: the construct's name, for messages.
        cluster: the target; must run Kueue when a queue is given.
        queue: a LocalQueue name, or ``None``.
        priority: a WorkloadPriorityClass name, or ``None`` (only with a queue).

    Raises:
        ValueError: a queue on a cluster without Kueue, a priority without a queue, a bad name.
    """
    if queue is None:
        if priority is not None:
            raise ValueError(
                f"{owner} priority={priority!r}: needs a queue (Kueue priorities order queued workloads)"
            )
        return {}
    kueue_api_version(owner, cluster)
    labels = {QUEUE_LABEL: require(DNS1123_LABEL, owner, "queue", queue)}
    if priority is not None:
        labels[PRIORITY_LABEL] = require(DNS1123_LABEL, owner, "priority", priority)
    return labels


def multikueue_managed_by(cluster: Cluster, labels: dict[str, str]) -> str | None:
    """The ``managedBy`` value of a queued job on a MultiKueue manager: ``kueue.x-k8s.io/multikueue``
    when ``labels`` name a queue (:func:`queue_labels`) and ``cluster`` is a manager
    (``Cluster.multikueue``), else ``None``. With it the job's own controller leaves the job to Kueue,
    which runs a copy on a worker and mirrors its status (kueue ``pkg/controller/jobframework``
    ``ApplyDefaultForManagedBy`` sets the same value when its webhook runs).

    Args:
        cluster: the target.
        labels: the job's labels.
    """
    if cluster.multikueue is None or QUEUE_LABEL not in labels:
        return None
    return MULTIKUEUE_CONTROLLER
