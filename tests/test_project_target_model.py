"""One target model (issue 14 point 4) and the Trainer v2 notice (point 6).

The default target inside a repository is exactly the first cluster of apps/clusters.py (the same as
``--cluster`` of it); outside one it is every catalogued operator on the newest Kubernetes. The
"superseded by Kubeflow Trainer v2" notice appears at most once per run, only for a target that
offers Trainer v2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, SAMPLE, needs_shared
from trainops.core.findings import Finding, Result
from trainops.pipeline import Target, once_per_run, resolve_targets
from trainops.schemas.registry import newest_kubernetes_version
from trainops.yaml.walk import expand_paths

pytestmark = needs_shared

TWO_CLUSTERS = """
from trainops.core.cluster import Cluster

CLUSTERS = (
    Cluster(name="v1-jobs", kubernetes_version="1.33", operators={"training-operator": "v1.9.4"}),
    Cluster(name="trainer", kubernetes_version="1.34", operators={"trainer": "v2.1.0", "kueue": "v0.14.0"}),
)
"""

PYTORCH = "training-operator/examples/pytorch/simple.yaml"
TRAINJOB = "trainer/examples/flux/lammps-train-job.yaml"
LOCALQUEUE = "kueue/site/static/examples/admin/single-clusterqueue-setup.yaml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with two clusters (first: Training Operator v1 only), as the working directory."""
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "clusters.py").write_text(TWO_CLUSTERS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _target(tmp_path: Path, *, cluster: str | None = None, kubernetes_version: str | None = None) -> Target:
    """The target of a file outside every synth tree."""
    return resolve_targets(
        ["job.yaml"], cache_dir=tmp_path, cluster=cluster, kubernetes_version=kubernetes_version
    )["job.yaml"]


def test_default_target_is_the_first_cluster(project: Path, tmp_path: Path) -> None:
    default = _target(tmp_path)
    assert default == _target(tmp_path, cluster="v1-jobs")
    assert default == Target("1.33", {"training-operator": "v1.9.4"}, tmp_path, "v1-jobs")


def test_kubernetes_version_overrides_the_first_cluster(project: Path, tmp_path: Path) -> None:
    target = _target(tmp_path, kubernetes_version="1.32")
    assert (target.kubernetes_version, target.cluster) == ("1.32", "v1-jobs")


def test_outside_a_repository_every_operator_on_the_newest_kubernetes(
    outside_project: Path, tmp_path: Path
) -> None:
    target = _target(tmp_path)
    assert target == Target(newest_kubernetes_version(), None, tmp_path)
    assert target.describe() == {
        "cluster": None,
        "kubernetesVersion": newest_kubernetes_version(),
        "operators": "all",
    }


@pytest.mark.parametrize("rel", [TRAINJOB, LOCALQUEUE, PYTORCH])
def test_default_and_cluster_of_the_first_give_the_same_report(cli: Any, project: Path, rel: str) -> None:
    default = cli("validate", "-o", "json", str(EXAMPLES / rel))
    explicit = cli("validate", "-o", "json", "--cluster", "v1-jobs", str(EXAMPLES / rel))
    assert (default.code, default.out) == (explicit.code, explicit.out)


@pytest.mark.parametrize(
    ("rel", "code"),
    [(TRAINJOB, 1), (LOCALQUEUE, 1), (PYTORCH, 0)],
)
def test_default_rejects_crds_the_first_cluster_does_not_run(
    cli: Any, project: Path, rel: str, code: int
) -> None:
    run = cli("validate", "-o", "text", str(EXAMPLES / rel))
    assert run.code == code, run.out
    assert ("which the target cluster does not run [unknown-kind]" in run.out) == (code == 1)


def test_verbose_prints_the_target(cli: Any, project: Path) -> None:
    run = cli("validate", "-v", str(EXAMPLES / PYTORCH))
    assert run.err.splitlines()[:3] == [
        f"trainops: repository: {project} (its apps/clusters.py)",  # the working directory's
        "trainops: target: cluster v1-jobs (first cluster of apps/clusters.py): Kubernetes 1.33; "
        "operators: training-operator v1.9.4",
        f"trainops:   {EXAMPLES / PYTORCH}",
    ]


def test_verbose_outside_a_repository(cli: Any, outside_project: Path) -> None:
    run = cli("validate", "-v", str(EXAMPLES / PYTORCH))
    assert run.err.splitlines()[:3] == [
        "trainops: repository: none (no apps/clusters.py at or above the checked files or the working directory)",
        f"trainops: target: all known operators, Kubernetes {newest_kubernetes_version()} "
        "(no apps/clusters.py)",
        f"trainops:   {EXAMPLES / PYTORCH}",
    ]


@pytest.mark.parametrize(
    ("fmt", "extract"),
    [
        ("json", lambda report: report["target"]),
        ("sarif", lambda report: report["runs"][0]["properties"]["target"]),
    ],
)
def test_reports_carry_the_target(cli: Any, project: Path, fmt: str, extract: Any) -> None:
    run = cli("validate", "-o", fmt, "--cluster", "trainer", str(EXAMPLES / TRAINJOB))
    assert extract(json.loads(run.out)) == {
        "cluster": "trainer",
        "kubernetesVersion": "1.34",
        "operators": {"kueue": "v0.14.0", "trainer": "v2.1.0"},
    }


# --- the Trainer v2 notice --------------------------------------------------------------------


def _notices(out: str) -> list[dict[str, Any]]:
    return [f for f in json.loads(out)["findings"] if f["rule"] == "deprecated-api" and f["level"] == "info"]


def test_notice_once_per_run_outside_a_repository(cli: Any, outside_project: Path) -> None:
    directory = EXAMPLES / "training-operator/examples/pytorch"
    run = cli("validate", "-o", "json", str(directory))
    jobs = sum(
        1
        for path in expand_paths([str(directory)])
        for doc in yaml.safe_load_all(Path(path).read_text())
        if isinstance(doc, dict)
        and (doc.get("apiVersion"), doc.get("kind")) == ("kubeflow.org/v1", "PyTorchJob")
    )
    assert jobs > 1
    [notice] = _notices(run.out)
    assert "is superseded by Kubeflow Trainer v2" in notice["message"]
    assert notice["message"].endswith(f"[shown once per run: {jobs} Training Operator v1 jobs]")


@pytest.mark.parametrize("cluster", ["v1-jobs", None])
def test_no_notice_for_a_cluster_running_the_training_operator(
    cli: Any, project: Path, cluster: str | None
) -> None:
    args = ["--cluster", cluster] if cluster else []
    run = cli("validate", "-o", "json", *args, str(EXAMPLES / "training-operator/examples/pytorch"))
    assert run.code == 0
    assert _notices(run.out) == []


def test_generated_output_of_the_repository_has_no_findings_at_all(cli: Any) -> None:
    run = cli("validate", "-o", "json", str(SAMPLE / "generated" / "gpu-prod"))
    report = json.loads(run.out)
    assert run.code == 0 and report["documents"] > 0
    assert report["findings"] == []
    assert report["target"]["cluster"] == "gpu-prod"


def _notice(file: str) -> Finding:
    return Finding(
        "deprecated-api", "info", "kubeflow.org/v1 PyTorchJob is superseded", file, 1, keyword="superseded"
    )


@pytest.mark.parametrize(
    ("trainer_v2", "expected"),
    [
        (
            True,
            [
                "a.yaml: kubeflow.org/v1 PyTorchJob is superseded [shown once per run: 3 Training Operator v1 jobs]"
            ],
        ),
        (False, []),
    ],
)
def test_once_per_run(trainer_v2: bool, expected: list[str]) -> None:
    other = Finding("schema", "error", "bad", "b.yaml", 2)
    result = Result([_notice("c.yaml"), other, _notice("a.yaml"), _notice("b.yaml")])
    kept = once_per_run(result, trainer_v2)
    assert other in kept
    assert [f"{f.file}: {f.message}" for f in kept if f.rule == "deprecated-api"] == expected
