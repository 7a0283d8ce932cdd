"""core.gang: the PodGroup and pod references of each gang scheduler, and what the gang-scheduling rule
calls a missing reference."""

from __future__ import annotations

from typing import Any

import pytest

from trainops.core.cluster import GANG_SCHEDULERS
from trainops.core.gang import SCHEDULERS, pod_group, pod_reference, reference_problem


def test_every_declarable_gang_scheduler_is_described() -> None:
    assert set(GANG_SCHEDULERS) == set(SCHEDULERS) == {"volcano", "scheduler-plugins"}


@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
def test_a_referenced_pod_passes(scheduler: str) -> None:
    labels, annotations, name = pod_reference(scheduler, "run-3f2a1b")
    assert pod_group(scheduler, "run-3f2a1b", 4)["spec"] == {"minMember": 4}
    metadata = {"labels": labels, "annotations": annotations}
    assert reference_problem(scheduler, metadata, {"schedulerName": name}) is None


@pytest.mark.parametrize(
    ("scheduler", "metadata", "spec", "message"),
    [
        ("volcano", {}, {"schedulerName": "volcano"}, "no scheduling.k8s.io/group-name annotation"),
        (
            "volcano",
            {"annotations": {"scheduling.k8s.io/group-name": "g"}},
            {},
            "schedulerName None, not 'volcano'",
        ),
        (
            "scheduler-plugins",
            {"annotations": {"scheduling.x-k8s.io/pod-group": "g"}},
            {"schedulerName": "scheduler-plugins-scheduler"},
            "no scheduling.x-k8s.io/pod-group label",
        ),
    ],
)
def test_missing_references(
    scheduler: str, metadata: dict[str, Any], spec: dict[str, Any], message: str
) -> None:
    problem = reference_problem(scheduler, metadata, spec)
    assert problem is not None and message in problem
