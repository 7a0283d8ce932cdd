"""Shared fixtures: repository paths, the ../shared reference data and a CLI runner."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The sample repository (a user's GitOps repository: apps/, policies/, generated/, cdk8s.yaml).
SAMPLE = REPO / "examples" / "ml-platform"
SHARED = REPO.parent / "shared"
EXAMPLES = SHARED / "examples"
CRDS = SHARED / "crds"

# Tests rewrite apps/ files within the same second and at the same size; Python's timestamp-based
# bytecode check (mtime in seconds and size) would then import a stale cached compile. The suite never
# writes bytecode for the code it runs, whatever the caller's environment says.
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True

needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason="../shared (upstream reference data) is not beside the repo"
)


def documents_in(paths: list[Path]) -> list[Any]:
    """The documents (:class:`trainops.yaml.load.Document`) of every UTF-8 file of ``paths``, read as
    ``validate`` reads them (files that are not UTF-8 are left out)."""
    from trainops.yaml.load import Document, stream_text

    found: list[Any] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [d for d in stream_text(text, str(path)) if isinstance(d, Document)]
    return found


@dataclass(frozen=True)
class CliRun:
    """Exit code and captured streams of one ``trainops`` invocation."""

    code: int
    out: str
    err: str


@pytest.fixture(scope="session")
def schema_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A schema cache synced from ../shared/crds once per test session."""
    if not CRDS.is_dir():
        pytest.skip("../shared/crds is not beside the repo")
    from trainops.pipeline import sync_schemas
    from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog

    cache = tmp_path_factory.mktemp("cache")
    sync_schemas(load_catalog(PACKAGED_CATALOG), cache, mirror=CRDS)
    return cache


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trainops built as a wheel from a copy of this checkout's sources, once per session and offline
    (no index, no build isolation, no dependencies)."""
    import shutil
    import subprocess
    import sys

    base = tmp_path_factory.mktemp("wheel")
    source = base / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        if (REPO / name).is_file():
            shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "build")
    shutil.copytree(REPO / "lib", source / "lib", ignore=ignore)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    flags = ["--no-deps", "--no-index", "--no-build-isolation"]
    subprocess.run([*pip, "wheel", *flags, "-w", str(base / "dist"), str(source)], check=True, env=env)
    [wheel] = (base / "dist").glob("trainops-*.whl")
    return wheel


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], schema_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[object]:
    """Run ``trainops`` in-process with the session schema cache; returns a :class:`CliRun`."""
    from trainops.cli import main

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(schema_cache))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    def run(*args: str) -> CliRun:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    yield run


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every test from the sample repository's root (apps/clusters.py: the default target)."""
    monkeypatch.chdir(SAMPLE)
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "18,20,22,24")


@pytest.fixture
def outside_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from an empty directory outside any trainops repository: the default target is then every
    known operator on the newest Kubernetes (for upstream examples of any operator)."""
    directory = tmp_path / "elsewhere"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


# --- construct tests: a fresh Chart, synth as `trainops synth` writes it, golden files ---------

GOLDEN = Path(__file__).resolve().parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ from the current output",
    )


@pytest.fixture(scope="session")
def test_cluster() -> object:
    """A GPU cluster with the operators the constructs need (independent of apps/clusters.py)."""
    from trainops.core.cluster import Cluster, Taint

    return Cluster(
        name="test",
        kubernetes_version="1.34",
        operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
        storage_classes={"default": "standard-rwo", "shared": "nfs"},
        gpu_taints=(Taint("nvidia.com/gpu"),),
        gpu_node_selector={"nvidia.com/gpu.present": "true"},
    )


@pytest.fixture
def chart() -> object:
    """A new cdk8s Chart (namespace ``ml-test``) in a new App; node starts once per session."""
    from trainops.core.nodeenv import configure_node

    configure_node()
    from cdk8s import App, Chart

    return Chart(App(), "test", namespace="ml-test", disable_resource_name_hashes=True)


@pytest.fixture(scope="session")
def synth() -> object:
    """``synth(chart)`` → ``{"Kind/name": YAML text}`` normalised exactly as ``trainops synth`` writes it."""
    from trainops.app import AppDef
    from trainops.synth import normalise
    from trainops.yaml.dump import dump_document

    app_def = AppDef(
        name="golden", build=lambda chart, cluster: None, namespace="ml-test", team="ml-platform"
    )

    def run(chart: object) -> dict[str, str]:
        docs = json.loads(json.dumps(chart.to_json()))  # type: ignore[attr-defined]
        return {f"{d['kind']}/{d['metadata']['name']}": dump_document(normalise(d, app_def)) for d in docs}

    return run


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> object:
    """``golden("construct/case.yaml", text)``: compare with tests/golden/, or rewrite with --update-golden."""
    update = bool(request.config.getoption("--update-golden"))

    def check(rel: str, text: str) -> None:
        path = GOLDEN / rel
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.is_file():
            pytest.fail(f"{path} is missing: run pytest --update-golden and review the file")
        assert text == path.read_text(encoding="utf-8"), (
            f"{path} differs (pytest --update-golden rewrites it)"
        )

    return check


@pytest.fixture(scope="session")
def make_httpserver() -> Iterator[Any]:
    """pytest-httpserver's server (the ``httpserver`` fixture) as the fake Argo CD of tests/argocd:
    it handles requests as argocd-server does (415 for a POST or DELETE that is not JSON, 403 for an
    application that does not exist; ``tests/argocd/fakeargocd.py``). Overrides the plugin's fixture."""
    from argocd.fakeargocd import FakeArgoCD  # tests/argocd, a namespace package beside this file

    server = FakeArgoCD(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()
