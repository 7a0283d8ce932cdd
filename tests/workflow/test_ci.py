"""``trainops ci`` as the single CI entry point (issue 15 point 4): several format/file pairs,
``--format auto`` under GitHub Actions, the target options of ``validate``, the diff summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import CRDS
from tests.workflow.project import write_project


@pytest.fixture
def invalid(cli: Any, repo: Path) -> Path:
    """The repository with an invalid Deployment written with ``synth --no-validate``."""
    write_project(repo, replicas="two")
    assert cli("synth", "--no-validate").code == 0
    return repo


def test_several_format_file_pairs(cli: Any, invalid: Path) -> None:
    run = cli(
        "ci", "--format", "sarif", "--output", "ci.sarif", "--format", "junit", "--output", "ci.xml",
        "--format", "json",
    )  # fmt: skip
    assert run.code == 1
    sarif = json.loads((invalid / "ci.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert any("$.spec.replicas" in r["message"]["text"] for r in results)
    assert "<testsuite" in (invalid / "ci.xml").read_text()
    report = json.loads(run.out)
    assert any(f["path"] == "$.spec.replicas" for f in report["findings"])
    assert "trainops ci" in run.err  # the summary table leaves stdout to the JSON report


def test_auto_picks_github_annotations_in_actions(
    cli: Any, invalid: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = cli("ci", "--format", "auto")
    assert run.code == 1
    assert "::error file=generated/lab/web/deployment_web.yaml,line=" in run.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("--output", "a.json"), None, id="one-pair-ok"),
        pytest.param(
            ("--format", "json", "--format", "text"), "only one --format can go to stdout", id="two-stdout"
        ),
        pytest.param(
            ("--format", "json", "--output", "a", "--output", "b"), "--output given 2 times", id="extra-file"
        ),
    ],
)
def test_format_file_pairing(cli: Any, repo: Path, args: tuple[str, ...], message: str | None) -> None:
    run = cli("ci", *args)
    if message is None:
        assert run.code == 0, run.err
    else:
        assert run.code == 2
        assert message in run.err


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--cluster", "lab"), id="cluster"),
        pytest.param(("--kubernetes-version", "1.33"), id="kubernetes-version"),
        pytest.param(("--unknown-kinds", "warning"), id="unknown-kinds"),
    ],
)
def test_accepts_the_target_options_of_validate(cli: Any, repo: Path, args: tuple[str, ...]) -> None:
    run = cli("ci", "--format", "text", *args)
    assert run.code == 0, run.out + run.err
    assert "0 errors" in run.out


def test_cache_dir_option_is_used(
    cli: Any, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-cache"
    monkeypatch.setenv("TRAINOPS_CRD_MIRROR", str(CRDS))
    run = cli("ci", "--format", "text", "--cache-dir", str(empty))
    assert run.code == 0, run.out + run.err
    # the PyTorchJob's CRD schema was cached there on first use (issue 24 point 4)
    assert "kubeflow.org/v1 PyTorchJob" in run.err
    assert (
        empty / "schemas" / "crds" / "kubeflow.org" / "v1" / "PyTorchJob.training-operator.json"
    ).is_file()


def test_offline_with_an_empty_cache_names_the_sync_command(cli: Any, repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-cache"
    run = cli("ci", "--format", "text", "--offline", "--cache-dir", str(empty))
    assert run.code == 2
    assert run.err.endswith(f"run `trainops schemas sync --cache-dir {empty}` first\n")
    assert not (empty / "schemas").exists()


def test_diff_summary_names_new_runs(cli: Any, repo: Path) -> None:
    write_project(repo, workers=8)
    assert cli("synth").code == 0
    run = cli("ci", "--format", "text")
    assert run.code == 0, run.err
    assert "diff: generated/ merge-base " in run.err
    assert "1 new run" in run.err
    assert "! [new-run] lab/train: new training run PyTorchJob bert-" in run.err


def test_diff_summary_skipped_outside_git(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path / "plain")
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    run = cli("ci", "--format", "text")
    assert run.code == 0
    assert "diff: skipped (" in run.err
