"""The import-linter contracts in pyproject.toml hold on lib/, and really catch a broken layer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(lib: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(lib)}
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_contracts_are_kept() -> None:
    run = _lint(REPO / "lib", REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(
    ("module", "injected", "contract"),
    [
        (
            "schemas/registry.py",
            "from trainops.validate import engine",
            "schemas import nothing from validate",
        ),
        ("constructs/volume_claim.py", "from trainops.pipeline import check", "constructs import nothing"),
        ("naming.py", "from trainops.synth import render", "Layers of trainops"),
    ],
)
def test_a_broken_contract_fails(tmp_path: Path, module: str, injected: str, contract: str) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(REPO / "lib" / "trainops", lib / "trainops")
    path = lib / "trainops" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{injected}  # noqa\n", encoding="utf-8")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    run = _lint(lib, tmp_path)
    assert run.returncode != 0
    broken = [line for line in run.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(contract in line for line in broken), run.stdout
