"""MultiKueue workers in synth: the sample's gpu-west and gpu-east get gpu-next's apps without their
run-once objects, and a worker that is not a declared cluster is one clear usage error."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from trainops.core.cluster import Cluster, MultiKueueManager
from trainops.core.errors import UsageError
from trainops.core.kinds import RUN_ONCE, group_kind
from trainops.project import check_multikueue, load_project
from trainops.synth.render import render_cluster

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ml-platform"


def test_workers_get_the_managers_apps_without_jobs() -> None:
    project = load_project(SAMPLE)
    manager, worker = project.cluster("gpu-next"), project.cluster("gpu-west")
    on_manager = {r.app: r for r in render_cluster(project, manager)}
    on_worker = {r.app: r for r in render_cluster(project, worker)}
    # gpu-next-only apps reach the worker; apps of gpu-prod alone do not.
    assert {"team-queues", "mpi-dra"} <= set(on_worker) <= set(on_manager)
    kinds = {group_kind(obj) for result in on_worker.values() for obj in result.objects.values()}
    assert not kinds & set(RUN_ONCE)
    assert list(on_worker["mpi-dra"].files) == [
        f for f in on_manager["mpi-dra"].files if f.startswith("resourceclaimtemplate_")
    ]
    assert project.render_mode(project.apps["mpi-dra"], worker) == "mirror"
    assert project.render_mode(project.apps["mpi-dra"], manager) == "all"
    assert project.render_mode(project.apps["mpi-dra"], project.cluster("gpu-prod")) is None


KUEUE = {"kueue": "v0.19.2"}
MANAGER = Cluster(
    name="hub", kubernetes_version="1.34", operators=KUEUE, multikueue=MultiKueueManager(workers=("w1",))
)
W1 = Cluster(name="w1", kubernetes_version="1.34", operators=KUEUE)


@pytest.mark.parametrize(
    ("clusters", "message"),
    [
        (
            (MANAGER,),
            "clusters.py: cluster 'hub' multikueue worker 'w1' is not a declared cluster \\(declared: hub\\)",
        ),
        ((MANAGER, replace(W1, operators={})), "worker 'w1' does not list kueue in operators"),
        (
            (MANAGER, replace(W1, multikueue=MultiKueueManager(workers=("hub",)))),
            "worker 'w1' is itself a MultiKueue manager",
        ),
        ((MANAGER, replace(MANAGER, name="hub2"), W1), "worker 'w1' is already a worker of 'hub'"),
    ],
)
def test_bad_worker_declarations(clusters: tuple[Cluster, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        check_multikueue(clusters, Path("apps/clusters.py"))


def test_good_declaration_passes() -> None:
    check_multikueue((MANAGER, W1), Path("apps/clusters.py"))
