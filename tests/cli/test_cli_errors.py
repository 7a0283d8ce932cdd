"""Bad input never produces a traceback: one stderr line, a defined exit code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trainops.pipeline as pipeline

VALID = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ml
data:
  epochs: "10"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "input.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "expected", "line"),
    [
        pytest.param("kind: Pod\nmetadata: {name: [x\n", "invalid YAML", 3, id="malformed-yaml"),
        pytest.param("- just\n- a list\n", "document is not a mapping (got array)", 1, id="not-a-mapping"),
        pytest.param("hello\n", "document is not a mapping (got string)", 1, id="scalar-document"),
        pytest.param(
            "kind: ConfigMap\nmetadata: {name: x}\n", "missing or empty apiVersion", 1, id="no-apiversion"
        ),
        pytest.param("apiVersion: v1\nmetadata: {name: x}\n", "missing or empty kind", 1, id="no-kind"),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n",
            'duplicate key "name"',
            5,
            id="duplicate-key",
        ),
        pytest.param(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
            "no schema for example.com/v1 Widget",
            2,
            id="unknown-kind",
        ),
    ],
)
def test_invalid_input_is_exit_1_with_position(
    cli: Any, tmp_path: Path, text: str, expected: str, line: int
) -> None:
    path = _write(tmp_path, text)
    run = cli("validate", "--format", "text", str(path))
    assert run.code == 1
    assert "Traceback" not in run.out + run.err
    finding = next(out for out in run.out.splitlines() if expected in out)
    assert finding.startswith(f"{path}:{line}:")


def test_unknown_kind_can_be_downgraded(cli: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    run = cli("validate", "--unknown-kinds", "warning", "--format", "text", str(path))
    assert run.code == 0
    assert "warning: no schema for example.com/v1 Widget" in run.out
    assert cli("validate", "--unknown-kinds", "warning", "--strict", str(path)).code == 1


def test_missing_path_is_usage_error(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", str(tmp_path / "nope.yaml"))
    assert run.code == 2
    assert run.err.strip() == f"trainops: {tmp_path / 'nope.yaml'}: no such file or directory"
    assert run.out == ""


def test_bad_option_is_usage_error(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", "--kubernetes-version", "1.2", str(_write(tmp_path, VALID)))
    assert run.code == 2
    assert "no schemas for it" in run.err
    assert len(run.err.strip().splitlines()) == 1


def test_unknown_flag_is_usage_error(cli: Any) -> None:
    run = cli("validate", "--no-such-flag", "x")
    assert run.code == 2
    assert "No such option" in run.err


def test_unexpected_error_is_exit_3(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(pipeline, "validate_files", boom)
    run = cli("validate", str(_write(tmp_path, VALID)))
    assert run.code == 3
    assert run.err.strip() == "trainops: unexpected error: RuntimeError: kaboom (re-run with --traceback)"


def test_traceback_flag_shows_traceback(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(pipeline, "validate_files", boom)
    run = cli("--traceback", "validate", str(_write(tmp_path, VALID)))
    assert run.code == 3
    assert "Traceback (most recent call last)" in run.err


def test_valid_file_exit_0(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", "--format", "text", str(_write(tmp_path, VALID)))
    assert run.code == 0
    assert run.out == "1 files, 1 documents: 0 errors, 0 warnings\n"


def test_directory_is_walked(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.yaml").write_text(VALID)
    (tmp_path / "a" / "two.yml").write_text(VALID.replace("settings", "other"))
    (tmp_path / "a" / "notes.txt").write_text("not yaml: [")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text("- broken")
    run = cli("validate", "--format", "text", str(tmp_path))
    assert run.code == 0
    assert run.out.startswith("2 files, 2 documents")
