"""The import-linter contracts in pyproject.toml hold on lib/, follow DESIGN.md's package layout for
every module of trainops, really catch a broken layer, and no import cycle hides behind a lazy import."""

from __future__ import annotations

import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import trainops

REPO = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

#: DESIGN.md "Package layout", the "may import" column: what each module of ``lib/trainops`` may import
#: directly. Beyond the column: pipeline loads the documents (yaml) and the schema registry (schemas)
#: it hands to validate; synth writes YAML (yaml) and runs users' apps (app, user_code: the project
#: loader's pieces); yaml may use its faster path (_accel). workflow (the synth/ci step) and diff sit
#: under cli only. cli may import everything.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "workflow": frozenset({"pipeline", "synth", "policy", "validate", "project", "yaml", "core"}),
    "diff": frozenset({"synth", "project", "app", "yaml", "core"}),
    "pipeline": frozenset({"validate", "policy", "project", "schemas", "yaml", "core"}),
    "synth": frozenset({"constructs", "project", "app", "user_code", "yaml", "core"}),
    "argocd": frozenset({"core"}),
    "report": frozenset({"core"}),
    "scaffold": frozenset({"core"}),
    "validate": frozenset({"schemas", "cel", "yaml", "core"}),
    "policy": frozenset({"cel", "yaml", "core"}),
    "schemas": frozenset({"yaml", "core"}),
    "constructs": frozenset({"core"}),
    "project": frozenset({"app", "user_code", "core"}),
    "user_code": frozenset({"app", "core"}),
    "app": frozenset({"core"}),
    "cluster": frozenset({"core"}),
    "cel": frozenset({"core"}),
    "yaml": frozenset({"_accel", "core"}),
    "_accel": frozenset(),
    "core": frozenset(),
}
#: Modules whose contract forbids indirect imports too (what they may import imports nothing else).
STRICT = frozenset(
    {"argocd", "report", "scaffold", "constructs", "user_code", "app", "cluster", "cel", "_accel", "core"}
)


def _modules() -> set[str]:
    """The modules and packages directly under ``lib/trainops``."""
    return {info.name for info in pkgutil.iter_modules(trainops.__path__)}


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _short(name: str) -> str:
    assert name.startswith("trainops."), name
    return name.removeprefix("trainops.")


def _lint(lib: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(lib)}
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_contracts_are_kept() -> None:
    run = _lint(REPO / "lib", REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_the_table_names_every_module() -> None:
    """A module added to lib/trainops must get its row here and its contract in pyproject.toml."""
    assert _modules() - {"cli"} == set(MAY_IMPORT)


def test_every_module_is_in_the_exhaustive_layers_contract() -> None:
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    assert layers["containers"] == ["trainops"]
    assert layers["exhaustive"] is True
    listed = {name.strip() for layer in layers["layers"] for name in layer.replace(":", "|").split("|")}
    assert listed == _modules()


def test_no_cycle_contract_covers_every_package() -> None:
    (acyclic,) = [c for c in _contracts() if c["type"] == "acyclic_siblings"]
    assert set(acyclic["ancestors"]) == {"trainops", "trainops.**"}
    assert "depth" not in acyclic and "skip_descendants" not in acyclic


def _may_import_contracts(module: str) -> list[dict[str, Any]]:
    return [
        c
        for c in _contracts()
        if c["type"] == "forbidden"
        and f"trainops.{module}" in c["source_modules"]
        and all(name.startswith("trainops.") for name in c["forbidden_modules"])
    ]


@pytest.mark.parametrize("module", sorted(MAY_IMPORT))
def test_each_module_has_its_may_import_contract(module: str) -> None:
    """One forbidden contract per module forbids every other module of trainops but those it may import."""
    contracts = _may_import_contracts(module)
    assert len(contracts) == 1, contracts
    (contract,) = contracts
    assert contract["source_modules"] == [f"trainops.{module}"]
    forbidden = {_short(name) for name in contract["forbidden_modules"]}
    assert forbidden == _modules() - MAY_IMPORT[module] - {module}
    assert contract.get("allow_indirect_imports", False) is (module not in STRICT)


def test_only_cel_imports_the_cel_runtime() -> None:
    (contract,) = [c for c in _contracts() if c.get("forbidden_modules") == ["cel_expr_python"]]
    assert {_short(name) for name in contract["source_modules"]} == _modules() - {"cel"}


#: Appended to a module of a copy of lib/trainops: a function-level (lazy) import each.
_LAZY_ROLE = "\ndef _lazy() -> object:\n    from trainops.constructs.role import Role\n\n    return Role\n"
_LAZY_RULE = "\ndef _lazy() -> object:\n    from trainops.policy.rule import Context\n\n    return Context\n"


@pytest.mark.parametrize(
    ("module", "injected", "contract"),
    [
        ("schemas/registry.py", "from trainops.validate import engine", "schemas imports only yaml, core"),
        ("constructs/volume_claim.py", "from trainops.pipeline import check", "constructs imports only core"),
        ("core/naming.py", "from trainops.synth import render", "Layers of trainops"),
        ("argocd/client.py", "from trainops.yaml.load import one_line", "argocd imports only core"),
        ("report/text.py", "from trainops.cel import env", "report imports only core"),
        ("policy/engine.py", "from trainops.schemas import registry", "policy imports only cel, yaml, core"),
        (
            "validate/engine.py",
            "from trainops.policy import engine",
            "validate imports only schemas, cel, yaml, core",
        ),
        ("cel/celrule.py", _LAZY_RULE, "cel imports only core"),
        ("policy/engine.py", "from cel_expr_python import cel", "Only cel imports cel_expr_python"),
        # a lazy import hiding a cycle between siblings, which no layer sees (both in constructs)
        ("constructs/role_binding.py", _LAZY_ROLE, "No import cycle between sibling modules"),
        # a module in no contract
        ("newmodule.py", '"""A module nobody placed."""', "Layers of trainops"),
    ],
)
def test_a_broken_contract_fails(tmp_path: Path, module: str, injected: str, contract: str) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(REPO / "lib" / "trainops", lib / "trainops")
    path = lib / "trainops" / module
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(text + f"\n{injected}\n", encoding="utf-8")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    run = _lint(lib, tmp_path)
    assert run.returncode != 0
    broken = [
        line for line in run.stdout.splitlines() if " BROKEN" in line
    ]  # "... BROKEN (1 ignored import)"
    assert any(contract in line for line in broken), run.stdout


#: Prints the first import cycle between modules of trainops as JSON (``[]`` when there is none):
#: grimp's graph holds every import, function-level and ``TYPE_CHECKING`` ones included.
_CYCLE = """
import graphlib, json, grimp
graph = grimp.build_graph("trainops", cache_dir=None)
sorter = graphlib.TopologicalSorter({m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
try:
    sorter.prepare()
except graphlib.CycleError as err:
    print(json.dumps(err.args[1]))
else:
    print("[]")
"""


def _cycle(lib: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(lib)}
    run = subprocess.run(
        [sys.executable, "-c", _CYCLE], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    cycle: list[str] = json.loads(run.stdout)
    return cycle


def test_no_import_cycle_between_modules() -> None:
    """No two modules import each other, not even through a function-level import (the lazy imports
    that remain exist for start-up cost, e.g. of cel-expr-python, not to hide a cycle)."""
    assert _cycle(REPO / "lib") == []


def test_a_lazy_import_cycle_is_found(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    shutil.copytree(REPO / "lib" / "trainops", lib / "trainops")
    path = lib / "trainops" / "synth" / "render.py"
    lazy = "\ndef _lazy() -> object:\n    from trainops.synth.delivery import deliver\n\n    return deliver\n"
    path.write_text(path.read_text(encoding="utf-8") + lazy, encoding="utf-8")
    cycle = _cycle(lib)
    assert {"trainops.synth.render", "trainops.synth.delivery"} <= set(cycle), cycle
