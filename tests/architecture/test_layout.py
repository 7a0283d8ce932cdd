"""Tests mirror the packages (issue 28 point 7): ``tests/<package>/`` holds the tests of
``lib/trainops/<package>/``, ``tests/test_<module>*.py`` those of a top-level module; the other
folders are data or whole-product suites, each named here with what it holds."""

from __future__ import annotations

from conftest import REPO

PACKAGE = REPO / "lib" / "trainops"
TESTS = REPO / "tests"
#: Test folders that mirror no package, and why.
SUITES = {
    "architecture": "contracts over the whole package (layers, kinds, rules, pipeline, this layout)",
    "bad_inputs": "hostile input files, read by tests/cli/test_bad_inputs.py",
    "bench": "tests of the bench/ package (benchmarks with peers)",
    "conformance": "differential tests against the real kube-apiserver's recorded verdicts",
    "e2e": "end to end against a real Argo CD (make e2e)",
    "fuzz": "coverage-guided fuzz targets (make fuzz) and their smoke test",
    "golden": "golden manifests of the constructs",
    "policies": "PASS/FAIL fixtures of every rule and the reviewed findings on the upstream examples",
    "seeds": "the seed articles' YAML and its reviewed findings",
    "workflow": "the everyday loop in temporary git repositories: init, new, synth, diff, ci",
}


def _packages() -> set[str]:
    return {p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_every_test_folder_is_a_package_or_a_named_suite() -> None:
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders - _packages() - set(SUITES) == set()


def test_every_suite_named_here_exists() -> None:
    assert {name for name in SUITES if not (TESTS / name).is_dir()} == set()


def test_top_level_tests_are_of_top_level_modules() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    stray = [
        p.name
        for p in TESTS.glob("test_*.py")
        if not any(p.stem == f"test_{m}" or p.stem.startswith(f"test_{m}_") for m in modules)
    ]
    assert stray == []
