"""Reporters present the same findings in text, json, junit, sarif and github formats."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

BROKEN = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ml
spec:
  replicas: two
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
"""


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "deploy.yaml"
    path.write_text(BROKEN)
    return path


def test_text(cli: Any, broken: Path) -> None:
    run = cli("validate", "-o", "text", str(broken))
    assert run.code == 1
    assert run.out.splitlines()[0] == (
        f"{broken}:7: Deployment/web $.spec.replicas: expected integer, got string 'two' [type]"
    )


def test_json(cli: Any, broken: Path) -> None:
    payload = json.loads(cli("validate", "-o", "json", str(broken)).out)
    assert payload["errors"] == 1
    finding = payload["findings"][0]
    assert finding["line"] == 7
    assert finding["column"] == 3
    assert finding["document"] == 0
    assert (finding["apiVersion"], finding["kind"], finding["namespace"], finding["name"]) == (
        "apps/v1",
        "Deployment",
        "ml",
        "web",
    )
    assert finding["path"] == "$.spec.replicas"
    assert finding["keyword"] == "type"


def test_junit(cli: Any, broken: Path) -> None:
    root = ET.fromstring(cli("validate", "-o", "junit", str(broken)).out)
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None and "expected integer" in (failure.get("message") or "")


def test_sarif(cli: Any, broken: Path) -> None:
    sarif = json.loads(cli("validate", "-o", "sarif", str(broken)).out)
    result = sarif["runs"][0]["results"][0]
    assert sarif["version"] == "2.1.0"
    assert result["ruleId"] == "schema"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 3}


def test_github_annotations_and_auto(cli: Any, broken: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = cli("validate", str(broken))  # --format auto
    first = run.out.splitlines()[0]
    assert first.startswith(
        f"::error file={broken},line=7,col=3,title=trainops schema::Deployment/web $.spec.replicas"
    )


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "github"])
def test_each_format_is_rendered_by_its_own_module(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``REPORTERS`` names each format's ``render_<format>`` in ``trainops.report``'s modules (imported
    on use); ``auto`` is text outside GitHub Actions."""
    from trainops.report import renderer

    function = renderer(fmt)
    assert function.__name__ == f"render_{fmt}"
    assert function.__module__.startswith("trainops.report.")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert renderer("auto") is renderer("text")


def test_a_one_format_run_imports_no_other_format() -> None:
    """Start-up: rendering one format loads no other format's module."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from trainops.core.findings import Result\n"
        "from trainops.report import render\n"
        "render(Result(), 'text')\n"
        "print(sorted(m for m in sys.modules if m.startswith('trainops.report.')))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['trainops.report.text']"
