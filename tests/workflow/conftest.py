"""Fixtures of the workflow tests: a temporary git repository holding the test apps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.workflow.project import init_repo, write_project


@pytest.fixture
def repo(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (the working directory) whose first commit holds the apps and their
    synthesised generated/."""
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    init_repo(root)
    return root
