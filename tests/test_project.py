"""The one target resolver (issue 24 point 5, DESIGN.md decision 6): one test per rule of resolution,
and the commands that use it.

Rules, in order: a file under a synth tree (``<out>/<cluster>/`` holding lock.json) is checked
against that cluster whatever the options; else ``--cluster``; else the first declared cluster; else
(outside a repository) every catalogued operator on the newest Kubernetes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, SAMPLE, needs_shared
from trainops.core.errors import UsageError
from trainops.pipeline import resolve_targets
from trainops.policy.config import DEFAULT_CONFIG
from trainops.project import Resolution, find_repository, resolve_clusters
from trainops.schemas.registry import newest_kubernetes_version

pytestmark = needs_shared

CLUSTERS = """
from trainops.core.cluster import Cluster

CLUSTERS = (
    Cluster(name="v1-jobs", kubernetes_version="1.33", operators={"training-operator": "v1.9.4"}),
    Cluster(name="trainer", kubernetes_version="1.34", operators={"trainer": "v2.1.0"}),
)
"""

TRAINJOB = EXAMPLES / "trainer/examples/flux/lammps-train-job.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two clusters; synth trees generated/trainer/ and generated/gone/ (a cluster no longer
    declared), and generated/v1-jobs/ without a lock.json; the working directory."""
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "clusters.py").write_text(CLUSTERS)
    for tree in ("trainer", "gone"):
        (tmp_path / "generated" / tree / "app").mkdir(parents=True)
        (tmp_path / "generated" / tree / "lock.json").write_text('{"objects": []}\n')
    (tmp_path / "generated" / "v1-jobs" / "app").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _resolve(path: str, cluster: str | None = None) -> tuple[str | None, str]:
    found = resolve_clusters([path], cluster=cluster)[path]
    return (found.cluster.name if found.cluster else None), found.reason


@pytest.mark.parametrize(
    ("path", "cluster", "expected"),
    [
        # 1. a synth tree's own cluster, whatever the options, at any depth below the tree
        ("generated/trainer/app/job.yaml", None, ("trainer", "synth tree generated/trainer")),
        ("generated/trainer/app/job.yaml", "v1-jobs", ("trainer", "synth tree generated/trainer")),
        ("generated/trainer/argocd/deep/x.yaml", None, ("trainer", "synth tree generated/trainer")),
        # 2. --cluster for a file outside synth trees
        ("manifests/job.yaml", "trainer", ("trainer", "--cluster trainer")),
        ("generated/v1-jobs/app/job.yaml", "trainer", ("trainer", "--cluster trainer")),  # no lock.json
        # 3. else the first declared cluster (also for the tree of a cluster no longer declared)
        ("manifests/job.yaml", None, ("v1-jobs", "first cluster of apps/clusters.py")),
        ("generated/gone/app/job.yaml", None, ("v1-jobs", "first cluster of apps/clusters.py")),
        ("<stdin>", None, ("v1-jobs", "first cluster of apps/clusters.py")),
    ],
)
def test_rules_in_a_repository(repo: Path, path: str, cluster: str | None, expected: tuple[str, str]) -> None:
    assert _resolve(path, cluster) == expected


def test_an_absolute_path_into_a_tree(repo: Path) -> None:
    path = str(repo / "generated" / "trainer" / "app" / "job.yaml")
    assert _resolve(path) == ("trainer", f"synth tree {repo / 'generated' / 'trainer'}")


def test_outside_a_repository_every_catalogued_operator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4. No apps/clusters.py: even a synth tree cannot be resolved; every operator, newest minor."""
    (tmp_path / "generated" / "trainer").mkdir(parents=True)
    (tmp_path / "generated" / "trainer" / "lock.json").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    path = "generated/trainer/job.yaml"
    assert resolve_clusters([path])[path] == Resolution(None, "no apps/clusters.py")
    target = resolve_targets([path], cache_dir=tmp_path)[path]
    assert (target.kubernetes_version, target.operators, target.cluster) == (
        newest_kubernetes_version(),
        None,
        None,
    )


def test_an_unknown_cluster_is_refused_even_without_files(repo: Path) -> None:
    with pytest.raises(
        UsageError, match=r"unknown cluster 'nope' \(apps/clusters.py declares: v1-jobs, trainer\)"
    ):
        resolve_clusters([], cluster="nope")


def test_kubernetes_version_overrides_every_minor_and_targets_are_shared(repo: Path, tmp_path: Path) -> None:
    paths = ["generated/trainer/app/a.yaml", "generated/trainer/app/b.yaml", "manifests/c.yaml"]
    targets = resolve_targets(paths, cache_dir=tmp_path, kubernetes_version="1.32")
    assert [(t.cluster, t.kubernetes_version) for t in targets.values()] == [
        ("trainer", "1.32"),
        ("trainer", "1.32"),
        ("v1-jobs", "1.32"),
    ]
    assert targets[paths[0]] is targets[paths[1]]  # one schema registry per target


def test_target_facts_are_the_clusters(repo: Path, tmp_path: Path) -> None:
    """One model: a target's policy facts are those of the cluster it was resolved to."""
    path = "generated/trainer/app/a.yaml"
    target = resolve_targets([path], cache_dir=tmp_path)[path]
    assert target.facts.cluster == "trainer"
    assert target.declared is not None and target.declared.name == "trainer"


def test_cli_checks_a_tree_against_its_own_cluster(cli: Any, repo: Path) -> None:
    """A TrainJob under generated/trainer/ is valid (trainer runs Trainer v2) although the first
    cluster and --cluster v1-jobs do not serve TrainJob; the same file elsewhere is not."""
    shutil.copy(TRAINJOB, repo / "generated" / "trainer" / "app" / "job.yaml")
    shutil.copy(TRAINJOB, repo / "job.yaml")
    run = cli("validate", "-o", "text", "generated/trainer")
    assert run.code == 0, run.out
    run = cli("validate", "-o", "text", "--cluster", "v1-jobs", "generated/trainer", "job.yaml")
    assert run.code == 1
    assert "job.yaml:" in run.out and "generated/trainer" not in run.out
    assert run.err == (
        "trainops: note: files under synth tree generated/trainer are checked against their own "
        "cluster trainer, not --cluster v1-jobs\n"
    )


@pytest.mark.parametrize("command", [("validate",), ("validate", "--policy"), ("policy", "check")])
def test_verbose_prints_the_target_of_each_file(cli: Any, repo: Path, command: tuple[str, ...]) -> None:
    shutil.copy(TRAINJOB, repo / "generated" / "trainer" / "app" / "job.yaml")
    shutil.copy(TRAINJOB, repo / "job.yaml")
    run = cli(*command, "-v", "-o", "json", "generated", "job.yaml")
    config = [f"trainops: policy config: {DEFAULT_CONFIG}"] if command[0] == "policy" else []
    assert run.err.splitlines() == [
        f"trainops: repository: {repo} (its apps/clusters.py)",
        *config,
        "trainops: target: cluster trainer (synth tree generated/trainer): Kubernetes 1.34; "
        "operators: trainer v2.1.0",
        "trainops:   generated/trainer/app/job.yaml",
        "trainops: target: cluster v1-jobs (first cluster of apps/clusters.py): Kubernetes 1.33; "
        "operators: training-operator v1.9.4",
        "trainops:   job.yaml",
    ]
    if command[0] == "validate":
        assert [t["cluster"] for t in json.loads(run.out)["target"]["targets"]] == ["trainer", "v1-jobs"]


# --- which repository: from the checked paths upwards (issue 32 point 4) -------------------------


def _repository(root: Path) -> Path:
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "clusters.py").write_text(CLUSTERS)
    return root


@pytest.mark.parametrize(
    ("paths", "cwd", "expected"),
    [
        (["one/generated/a/x.yaml"], "elsewhere", "one"),  # the paths' repository, from anywhere
        (["one/apps/x.yaml", "outside/x.yaml"], "two", "one"),  # a path outside any does not count
        (["outside/x.yaml"], "two/sub", "two"),  # no path in one: the working directory's
        (["<stdin>"], "two", "two"),
        (["outside/x.yaml"], "elsewhere", None),
        ([], "one", "one"),
    ],
)
def test_the_repository_is_found_from_the_checked_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: list[str], cwd: str, expected: str | None
) -> None:
    for name in ("one", "two"):
        _repository(tmp_path / name)
    (tmp_path / cwd).mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(tmp_path / cwd)
    named = [p if p == "<stdin>" else str(tmp_path / p) for p in paths]
    assert find_repository(named) == (tmp_path / expected if expected else None)


def test_paths_in_two_repositories_are_refused(tmp_path: Path) -> None:
    one, two = _repository(tmp_path / "one"), _repository(tmp_path / "two")
    with pytest.raises(
        UsageError, match=r"are in two trainops repositories .*: check one repository per run"
    ):
        find_repository([str(one / "a.yaml"), str(two / "b.yaml")])


@pytest.mark.parametrize("command", [("validate",), ("validate", "--policy"), ("policy", "check")])
def test_the_sample_from_outside_is_checked_as_from_inside(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """policy check of the sample's generated/ from another directory reported 3 refs-exist errors
    (the Secret its apps/clusters.py declares external); from inside, none."""
    monkeypatch.chdir(tmp_path)
    run = cli(*command, "-v", "-o", "json", str(SAMPLE / "generated"))
    report = json.loads(run.out)
    assert (run.code, report["findings"]) == (0, []), run.out
    assert report["documents"] > 100
    notes = [line for line in run.err.splitlines() if not line.startswith("trainops:   ")]
    assert notes[0] == f"trainops: repository: {SAMPLE} (its apps/clusters.py)"
    if command[0] == "policy":
        assert notes[1] == f"trainops: policy config: {SAMPLE / 'policies' / 'config.yaml'}"
    trees = {mark.parent.name for mark in (SAMPLE / "generated").glob("*/lock.json")}
    assert {line.split(" (")[0] for line in notes if line.startswith("trainops: target:")} == {
        f"trainops: target: cluster {name}" for name in trees
    }


# --- the sample repository ----------------------------------------------------------------------


@pytest.fixture
def sample(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(SAMPLE)
    return SAMPLE


@pytest.mark.parametrize("path", ["generated", "generated/gpu-next", "generated/gpu-next/team-queues"])
def test_sample_generated_validates_against_each_clusters_own_target(
    cli: Any, sample: Path, path: str
) -> None:
    """The reported bug: generated/gpu-next/ gave 9 unknown-kind errors against the first cluster."""
    run = cli("validate", "-o", "json", path)
    report = json.loads(run.out)
    assert run.code == 0 and report["findings"] == [], run.out
    assert report["documents"] > 0


def test_sample_target_of_every_tree(cli: Any, sample: Path) -> None:
    run = cli("validate", "-o", "json", "generated")
    assert [t["cluster"] for t in json.loads(run.out)["target"]["targets"]] == [
        "gpu-east",
        "gpu-next",
        "gpu-prod",
        "gpu-staging",
        "gpu-west",
    ]


PVCS = "generated/gpu-next/training-data"


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "--policy", "-o", "json", PVCS),
        ("policy", "check", "-o", "json", PVCS),
        ("validate", "--policy", "-o", "json", "--cluster", "gpu-prod", PVCS),
        ("policy", "check", "-o", "json", "--cluster", "gpu-prod", PVCS),
    ],
)
def test_policies_use_each_trees_own_facts(cli: Any, sample: Path, args: tuple[str, ...]) -> None:
    """gpu-next's PVCs use its storage classes (efs-sc), which gpu-prod (the first cluster) lacks."""
    run = cli(*args)
    assert run.code == 0, run.out
    assert json.loads(run.out)["findings"] == []


@pytest.mark.parametrize("command", [("validate", "--policy"), ("policy", "check")])
def test_policies_outside_a_tree_use_the_first_clusters_facts(
    cli: Any, sample: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """The same PVC outside the tree is checked with gpu-prod's facts, which do not know efs-sc."""
    copy = tmp_path / "pvc.yaml"
    shutil.copy(sample / PVCS / "persistentvolumeclaim_training-data.yaml", copy)
    run = cli(*command, "-o", "json", str(copy))
    [found] = json.loads(run.out)["findings"]
    assert (found["rule"], found["level"]) == ("pvc-storage", "warning")
    assert "efs-sc" in found["message"]


def test_a_facts_file_replaces_the_facts_outside_synth_trees_only(repo: Path, tmp_path: Path) -> None:
    from trainops.policy.facts import Facts

    given = Facts(storage_classes=("from-file",))
    paths = ["generated/trainer/app/a.yaml", "manifests/b.yaml"]
    targets = resolve_targets(paths, cache_dir=tmp_path, facts=given)
    assert targets[paths[0]].facts.cluster == "trainer"
    assert targets[paths[1]].facts is given


# --- every command resolves through the one resolver ---------------------------------------------

APP = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34", operators={}),)


def build(chart, cluster):
    emit(Construct(chart, "c"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}})


APPS = (AppDef(name="demo", build=build, namespace="ml", team="research"),)
"""


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "generated"),
        ("validate", "--policy", "generated"),
        ("policy", "check", "generated"),
        ("synth", "--force"),
        ("ci", "--no-diff"),
    ],
)
def test_every_command_uses_the_one_resolver(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    import trainops.pipeline

    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "__init__.py").write_text(APP)
    (tmp_path / "apps" / "clusters.py").write_text(APP.split("\n\ndef build")[0])
    monkeypatch.chdir(tmp_path)
    assert cli("synth").code == 0
    calls: list[dict[str, Resolution]] = []
    real = trainops.pipeline.resolve_clusters

    def spy(*a: Any, **k: Any) -> dict[str, Resolution]:
        calls.append(real(*a, **k))
        return calls[-1]

    monkeypatch.setattr(trainops.pipeline, "resolve_clusters", spy)
    run = cli(*args)
    assert run.code == 0, run.out + run.err
    resolved = {path: r for call in calls for path, r in call.items()}
    assert {Path(p).as_posix() for p in resolved} >= {"generated/lab/demo/configmap_settings.yaml"}
    assert {r.cluster.name for r in resolved.values() if r.cluster} == {"lab"}
