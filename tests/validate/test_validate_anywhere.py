"""Usable anywhere (issue 14 point 5): stdin, --exclude, --summary, the Helm template hint, and an
installed wheel run from an empty directory with a fresh user cache."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import CRDS, EXAMPLES, needs_shared
from trainops.cli.validate import excluded
from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog
from trainops.yaml.template import template_line

PYTORCH = EXAMPLES / "training-operator/examples/pytorch/simple.yaml"


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``stdin(data)`` makes standard input read ``data`` (bytes)."""

    def feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))

    return feed


# --- stdin --------------------------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize(("args", "name"), [((), "<stdin>"), (("--filename", "job.yaml"), "job.yaml")])
def test_stdin_is_validated_under_its_name(cli: Any, stdin: Any, args: tuple[str, ...], name: str) -> None:
    stdin(PYTORCH.read_bytes().replace(b"replicas: 1", b"replicas: one", 1))
    run = cli("validate", "-o", "text", "-", *args)
    assert run.code == 1
    assert run.out.startswith(f"{name}:")
    assert "expected integer, got string 'one'" in run.out
    from_file = cli("validate", "-o", "json", str(PYTORCH))
    assert json.loads(from_file.out)["documents"] == 1


@needs_shared
def test_stdin_and_files_together(cli: Any, stdin: Any) -> None:
    stdin(PYTORCH.read_bytes())
    run = cli("validate", "-o", "json", "-", str(PYTORCH))
    report = json.loads(run.out)
    assert (run.code, report["files"], report["documents"]) == (0, 2, 2)


@pytest.mark.parametrize(
    ("args", "data", "message"),
    [
        (("--filename", "x.yaml", "a.yaml"), b"", "--filename names standard input: pass - as a path too"),
        (("-",), b"kind: \xff\n", "stdin: not UTF-8 text (invalid start byte at byte 6)"),
    ],
)
def test_stdin_usage_errors(cli: Any, stdin: Any, args: tuple[str, ...], data: bytes, message: str) -> None:
    stdin(data)
    run = cli("validate", *args)
    assert (run.code, run.err.strip()) == (2, f"trainops: {message}")


# --- --exclude and --summary --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "globs", "expected"),
    [
        ("deploy/kustomization.yaml", ("kustomization.yaml",), True),
        ("deploy/charts/x/templates/a.yaml", ("charts/*",), True),
        ("deploy/app.tmpl.yaml", ("*.tmpl.yaml",), True),
        ("deploy/app.yaml", ("*.tmpl.yaml", "charts/*"), False),
        ("deploy/mycharts/a.yaml", ("charts/*",), False),
        ("a.yaml", (), False),
        ("/abs/deploy/a.yaml", ("/abs/*",), True),
        ("/abs/deploy/a.yaml", ("deploy/a.yaml",), True),
    ],
)
def test_excluded(path: str, globs: tuple[str, ...], expected: bool) -> None:
    assert excluded(path, globs) is expected


def test_exclude_and_summary(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "bad.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {nam: a}\n")
    assert cli("validate", str(tmp_path)).code == 1
    run = cli("validate", "--summary", "--exclude", "vendor/*", str(tmp_path))
    assert run.code == 0
    assert run.err.strip() == (
        "trainops: summary: 1 files (1 excluded), 1 documents: 0 errors, 0 warnings, 0 notices"
    )


# --- Helm templates -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("apiVersion: v1\nkind: ConfigMap\n", None),
        ("{{- if .Values.enabled }}\napiVersion: v1\n", 1),
        ('metadata:\n  labels:\n    {{- include "x.labels" . | nindent 4 }}\n', 3),
        ("spec:\n  replicas: {{ .Values.replicas }}\n", 2),
        ("args:\n- {{ .Values.arg }}\n", 2),
        ('image: "{{ .Values.image }}"\n', None),
        ("image: '{{ .Values.image }}'\n", None),
        ("image: repo/app:{{ .Values.tag }}\n", None),
        ("# {{ a comment }}\n", None),
        ("- script: |\n    {{ inside a block scalar }}\n  other: 1\n", None),
        ("- script: |\n    echo\n  other: {{ .Values.x }}\n", 3),
    ],
)
def test_template_line(text: str, line: int | None) -> None:
    assert template_line(text) == line


@needs_shared
def test_upstream_examples_are_not_helm_templates() -> None:
    """Argo CD ApplicationSets and Argo-style parameters quote their ``{{ }}``: no false hint."""
    flagged = [
        path
        for path in sorted(EXAMPLES.rglob("*.y*ml"))
        if path.is_file() and template_line(path.read_text(encoding="utf-8", errors="replace")) is not None
    ]
    assert flagged == []


def test_helm_chart_directory_gets_the_hint(cli: Any, tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: x\nversion: 0.1.0\n")
    (chart / "templates" / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n  labels:\n"
        '    {{- include "x.labels" . | nindent 4 }}\n'
    )
    run = cli("validate", "-o", "text", str(chart))
    assert run.code == 1
    hints = [line for line in run.out.splitlines() if "render" in line]
    assert hints == [
        f"{chart}/Chart.yaml:1: $: info: the Chart.yaml of a Helm chart: render the chart with helm template "
        "first (`helm template <chart> | trainops validate -`) [yaml]",
        f"{chart}/templates/deployment.yaml:6: $: info: looks like a Helm template: render it with helm "
        "template first (`helm template <chart> | trainops validate -`) [yaml]",
    ]


# --- an installed wheel, an empty directory, a fresh user ---------------------------------------


@pytest.fixture(scope="session")
def installed(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trainops built as a wheel (conftest ``built_wheel``) and installed into a fresh directory,
    offline: ``--no-index``, no dependencies (those come from the test venv)."""
    base = tmp_path_factory.mktemp("wheel-site")
    wheel = built_wheel
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    target = base / "site"
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)], check=True
    )
    return target


def _inputs(directory: Path) -> None:
    """Upstream custom resources with one error each, a valid TrainJob and a Katib Experiment typo."""
    pytorch = PYTORCH.read_text().replace("replicas: 1", "replicas: one", 1)
    (directory / "pytorchjob.yaml").write_text(pytorch)
    monitor = (
        EXAMPLES / "prometheus-operator/example/user-guides/getting-started/example-app-service-monitor.yaml"
    )
    (directory / "servicemonitor.yaml").write_text(monitor.read_text().replace("endpoints:", "endpoint:", 1))
    experiment = EXAMPLES / "katib/examples/v1beta1/hp-tuning/random.yaml"
    (directory / "experiment.yaml").write_text(experiment.read_text().replace("objective:", "objectiv:", 1))
    shutil.copy2(EXAMPLES / "trainer/examples/flux/lammps-train-job.yaml", directory / "trainjob.yaml")


@needs_shared
def test_installed_wheel_in_an_empty_directory(
    installed: Path, schema_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same findings as the source tree gives for the same target; the catalog and the Katib schema
    come from the wheel, the cache from the fresh user's cache directory."""
    work, cache_home = tmp_path / "work", tmp_path / "xdg-cache"
    work.mkdir()
    # The fresh user's cache, as `schemas sync --from ../shared/crds` writes it (a copy of the
    # session's: converting every CRD again takes ~20 s); sync must then find it up to date.
    shutil.copytree(schema_cache, cache_home / "trainops")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(cache_home),
        "PYTHONPATH": str(installed),
        "LANG": "C.UTF-8",
    }
    trainops = [sys.executable, str(installed / "bin" / "trainops")]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*trainops, *args], cwd=work, env=env, capture_output=True, text=True)

    where = subprocess.run(
        [sys.executable, "-c", "import trainops; print(trainops.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(installed))
    sync = run("schemas", "sync", "--from", str(CRDS))
    assert sync.returncode == 0, sync.stderr
    crds = len(load_catalog(PACKAGED_CATALOG))
    assert f"schemas up to date: {crds} CRDs" in sync.stderr and str(cache_home / "trainops") in sync.stderr
    _inputs(work)
    outside = run("validate", "-o", "json", ".")
    assert outside.returncode == 1, outside.stderr
    report = json.loads(outside.stdout)

    from trainops.pipeline import Target, check
    from trainops.report import render
    from trainops.schemas.registry import newest_kubernetes_version
    from trainops.yaml.walk import expand_paths

    monkeypatch.chdir(work)
    expected = check(Target(newest_kubernetes_version(), None, schema_cache), expand_paths(["."]))
    assert report == json.loads(render(expected, "json"))
    rules = {(f["file"], f["rule"]) for f in report["findings"] if f["level"] == "error"}
    assert rules == {
        ("pytorchjob.yaml", "schema"),
        ("servicemonitor.yaml", "schema"),
        ("experiment.yaml", "schema"),
    }
