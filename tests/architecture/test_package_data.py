"""Every file the installed package reads is in the wheel (issue 32 point 1).

An installed trainops crashed on ``trainops argocd health-checks`` because pyproject.toml's
package-data glob left out ``argocd/health/_prelude.lua``. The wheel is built once per session
(conftest ``built_wheel``: ``pip wheel --no-deps --no-build-isolation``); every non-Python file git
tracks under ``lib/trainops`` must be in it, or on :data:`NOT_SHIPPED` with the reason.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

#: Tracked non-Python files of lib/trainops that the wheel need not hold, and why (none is read at
#: run time). A file listed here may still be in the wheel.
NOT_SHIPPED = {
    "lib/trainops/_accel/_blockyaml.c": "the C source of the optional reader: setup.py compiles it into "
    "trainops/_accel/_blockyaml*.so at install; nothing reads the source at run time",
}


def _tracked_data_files() -> list[str]:
    """Tracked files under lib/trainops that are not Python modules, as repository paths."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--", "lib/trainops"],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    return sorted(p for p in listed.stdout.split("\0") if p and not p.endswith(".py"))


TRACKED = _tracked_data_files()


@pytest.fixture(scope="module")
def wheel_files(built_wheel: Path) -> set[str]:
    """The paths inside the wheel, as ``lib/trainops/...`` (the wheel holds ``trainops/...``)."""
    with zipfile.ZipFile(built_wheel) as wheel:
        return {f"lib/{name}" for name in wheel.namelist() if name.startswith("trainops/")}


@pytest.mark.parametrize("path", [p for p in TRACKED if p not in NOT_SHIPPED])
def test_every_tracked_data_file_is_in_the_wheel(path: str, wheel_files: set[str]) -> None:
    assert path in wheel_files, f"{path} is not in the wheel: add it to package-data in pyproject.toml"


def test_every_exclusion_names_a_tracked_file() -> None:
    assert sorted(set(NOT_SHIPPED) - set(TRACKED)) == []
