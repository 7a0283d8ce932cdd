"""The modules setup.py compiles with mypyc are compiled in this install, and from their current source.

Python imports an extension module before the ``.py`` beside it: a module edited after the last build
would run its old code. ``make`` rebuilds when one of them changes (the Makefile reads setup.py's list);
this test says so when the build is older than the source (run ``make install``). The rest of the
suite runs on the compiled build.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _compiled_paths() -> list[str]:
    """``COMPILED`` of setup.py, read without running setup.py."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple)
            return [str(v) for v in value]
    raise AssertionError("setup.py defines no COMPILED")


COMPILED = _compiled_paths()


def test_makefile_rebuilds_on_the_same_list() -> None:
    """The Makefile's ``COMPILED`` (a sed over setup.py, a prerequisite of the install stamp), as make
    expands it, is setup.py's list."""
    database = subprocess.run(
        ["make", "-C", str(REPO), "--no-print-directory", "-pq", "lint"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    [line] = [line for line in database.splitlines() if line.startswith("COMPILED := ")]
    assert line.removeprefix("COMPILED := ").split() == [f"lib/{path}" for path in COMPILED]


@pytest.mark.parametrize("path", COMPILED)
def test_module_is_compiled_from_its_current_source(path: str) -> None:
    name = path.removesuffix(".py").replace("/", ".")
    module = importlib.import_module(name)
    origin = Path(str(module.__file__))
    assert origin.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), (
        f"{name} runs as Python ({origin}): the mypyc build failed or was skipped (run `make install`)"
    )
    source = REPO / "lib" / path
    assert origin.stat().st_mtime >= source.stat().st_mtime, (
        f"{origin.name} is older than {source.name}: run `make install` to rebuild it"
    )
