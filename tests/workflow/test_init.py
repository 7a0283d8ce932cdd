"""``trainops init`` (issue 15 point 5) and the repository's ``.pre-commit-hooks.yaml``: the
workflow validates against the GitHub workflow schema check-jsonschema ships, the hooks and the
example configuration against pre-commit's own schemas, and the hooks' commands work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO
from tests.workflow.project import write_project
from trainops import __version__

WORKFLOW = ".github/workflows/trainops.yml"


@pytest.fixture
def initialised(cli: Any, tmp_path: Path) -> Path:
    run = cli("init", "-C", str(tmp_path))
    assert run.code == 0, run.err
    return tmp_path


def test_writes_the_integration_files(initialised: Path) -> None:
    written = sorted(str(p.relative_to(initialised)) for p in initialised.rglob("*") if p.is_file())
    assert written == [".github/CODEOWNERS", WORKFLOW, ".pre-commit-config.yaml"]
    assert "/generated/" in (initialised / ".github/CODEOWNERS").read_text()


def test_keeps_existing_files_unless_forced(cli: Any, initialised: Path) -> None:
    workflow = initialised / WORKFLOW
    workflow.write_text("# mine\n")
    kept = cli("init", "-C", str(initialised))
    assert kept.code == 0
    assert f"kept {WORKFLOW}" in kept.err
    assert workflow.read_text() == "# mine\n"
    assert cli("init", "-C", str(initialised), "--force").code == 0
    assert "trainops ci" in workflow.read_text()


def test_workflow_validates_against_the_github_workflow_schema(initialised: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(initialised / WORKFLOW),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_workflow_runs_ci_uploads_sarif_and_comments_the_diff(initialised: Path) -> None:
    workflow = yaml.safe_load((initialised / WORKFLOW).read_text())
    steps = workflow["jobs"]["trainops"]["steps"]
    uses = {s.get("uses", "").split("@")[0]: s for s in steps}
    runs = " ".join(s.get("run", "") for s in steps)
    assert uses["actions/setup-python"]["with"]["cache"] == "pip"
    assert uses["actions/cache"]["with"]["path"] == ".trainops-cache"
    assert uses["github/codeql-action/upload-sarif"]["with"]["sarif_file"] == "trainops.sarif"
    assert "trainops ci" in runs and "--format sarif --output trainops.sarif" in runs
    assert "--format markdown --output trainops-diff.md" in runs
    assert "gh pr comment" in runs
    assert f"trainops=={__version__}" in runs
    assert workflow["permissions"]["security-events"] == "write"


def test_hooks_file_matches_pre_commits_manifest_schema() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    assert [h["id"] for h in hooks] == ["trainops-synth-check", "trainops-validate", "trainops-policy"]


def test_example_config_matches_pre_commits_config_schema(initialised: Path) -> None:
    from pre_commit.clientlib import load_config

    config = load_config(str(initialised / ".pre-commit-config.yaml"))
    hooks = [h["id"] for repo in config["repos"] for h in repo["hooks"]]
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hooks == [h["id"] for h in manifest]
    assert [h["entry"] for repo in config["repos"] for h in repo["hooks"]] == [h["entry"] for h in manifest]


def test_synth_check_hook_command(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    assert cli("synth", "--check").code == 0
    write_project(root, replicas=3)
    stale = cli("synth", "--check")
    assert stale.code == 1
    assert "changed  generated/lab/web/deployment_web.yaml" in stale.err
    assert "replicas: 2" in (root / "generated/lab/web/deployment_web.yaml").read_text()
