"""The pod sets of a job as Kueue sees them, for the topology and gang-admission rules: the functions
of :mod:`trainops.core.kueue_tas` (shared with the ``kueue-webhook`` validation family), reading the
pod specs the policy engine holds (:func:`trainops.policy.pods.pod_templates`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trainops.core.kueue_tas import PodSet as PodSet  # re-exported for the rules
from trainops.core.kueue_tas import pod_sets as _pod_sets
from trainops.core.kueue_tas import queued as queued  # re-exported for the rules
from trainops.core.kueue_tas import total_pods as total_pods  # re-exported for the rules
from trainops.policy.pods import pod_templates


def pod_sets(obj: dict[str, Any]) -> Iterator[PodSet]:
    """The pod templates of ``obj`` with their pod-set annotations and counts
    (:func:`trainops.core.kueue_tas.pod_sets`)."""
    return _pod_sets(obj, pod_templates(obj))
