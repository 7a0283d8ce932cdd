"""Integers the API server cannot read (issue 27): a finding and exit 1, never exit 3 or "valid".

``revisionHistoryLimit: 0x`` followed by 4,000 hex digits used to validate (jsonschema-rs reported
the 16,000-bit integer as valid); ``replicas:`` with 4,301 digits exited 3 (Python's int-string
limit); ``policy check`` of the first crashed the CEL runtime (segmentation fault). go-yaml reads
neither as an integer (``strconv.ParseInt(s, 0, 64)`` and ``ParseUint`` fail: the scalar stays a
string) and the API server decodes integers as int64, so both are rejected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.validate.integers import INT64_MAX, INT64_MIN, out_of_int64
from trainops.yaml.load import load_text

pytestmark = needs_shared

DEPLOYMENT = EXAMPLES / "k8s-website/content/en/examples/application/deployment.yaml"


def _deployment(field: str, value: str) -> str:
    """The upstream nginx Deployment with ``spec.<field>: <value>`` (a plain scalar)."""
    text = DEPLOYMENT.read_text(encoding="utf-8")
    assert "\nspec:\n" in text
    return text.replace("\nspec:\n", f"\nspec:\n  {field}: {value}\n", 1).replace(
        "  replicas: 2", "  paused: false"
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "revisionHistoryLimit",
            "0x" + "f" * 4000,
            # go-yaml resolves a hex scalar beyond uint64 to no number: the plain string
            "$.spec.revisionHistoryLimit: expected integer, got string '0xfffff",
        ),
        (
            "replicas",
            "9" * 4301,
            "$.spec.replicas: expected integer, got string '99999999999",
        ),
        (
            "replicas",
            "-" + "9" * 40,
            "$.spec.replicas: an integer of 133 bits, below the 64-bit range",
        ),
        (
            "minReadySeconds",
            str(2**63),
            "$.spec.minReadySeconds: an integer of 64 bits, above the 64-bit range",
        ),
    ],
    ids=["hex-4000-digits", "decimal-4301-digits", "negative-40-digits", "int64-max-plus-one"],
)
def test_validate_rejects_integers_out_of_int64(
    cli: Any, tmp_path: Path, field: str, value: str, message: str
) -> None:
    path = tmp_path / "deployment.yaml"
    path.write_text(_deployment(field, value), encoding="utf-8")
    run = cli("validate", str(path))
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    assert len(lines) == 2 and message in lines[0], run.out
    assert lines[1] == "1 files, 1 documents: 1 errors, 0 warnings"
    assert "Traceback" not in run.err and "unexpected" not in run.err
    assert len(run.out) < 400  # the digits are never printed in full


@pytest.mark.parametrize("command", [("policy", "check"), ("validate", "--policy")])
def test_policy_of_a_huge_hex_integer_ends_with_findings(
    cli: Any, tmp_path: Path, command: tuple[str, ...]
) -> None:
    path = tmp_path / "deployment.yaml"
    path.write_text(_deployment("revisionHistoryLimit", "0x" + "f" * 4000), encoding="utf-8")
    run = cli(*command, str(path))
    assert run.code == 1, run.err
    assert "unexpected" not in run.err and "f" * 100 not in run.out


@pytest.mark.parametrize(
    ("value", "loaded"),
    [
        ("0xffffffffffffffff", 2**64 - 1),
        ("0x10000000000000000", "0x10000000000000000"),
        ("-0x8000000000000000", -(2**63)),
        ("0b" + "1" * 65, "0b" + "1" * 65),
    ],
)
def test_hex_and_binary_beyond_uint64_stay_strings(value: str, loaded: object) -> None:
    loaded_file = load_text(f"a: {value}\n", "t.yaml")
    assert loaded_file.documents[0].data == {"a": loaded}


def test_int64_bounds_themselves_are_valid(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "deployment.yaml"
    path.write_text(_deployment("revisionHistoryLimit", str(INT64_MAX)), encoding="utf-8")
    run = cli("validate", str(path))
    # in range for int64: the schema's own int32 bound answers, not the int64 check
    assert run.code == 1 and "[int64]" not in run.out and "greater than the maximum of 2147483647" in run.out


def test_later_documents_are_still_validated(cli: Any, tmp_path: Path) -> None:
    bad = _deployment("replicas", "9" * 4301)
    path = tmp_path / "two.yaml"
    path.write_text(
        bad + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n", encoding="utf-8"
    )
    run = cli("validate", str(path))
    assert run.code == 1
    assert "2 documents: 2 errors" in run.out and "ConfigMap/Bad_Name" in run.out


@pytest.mark.parametrize(
    ("data", "paths"),
    [
        ({"a": [1, {"b": 2**63}], "c": -(2**63) - 1, "d": INT64_MIN, "e": True}, [("a", 1, "b"), ("c",)]),
        ({"a": [INT64_MAX, INT64_MIN, 1.5e300, "9" * 5000]}, []),
    ],
)
def test_out_of_int64_names_each_path(data: Any, paths: list[tuple[str | int, ...]]) -> None:
    assert [issue.parts for issue in out_of_int64(data)] == paths


def test_the_loader_keeps_an_unreadable_integer_as_its_text() -> None:
    """Over Python's 4,300-digit limit the plain scalar stays a string, as go-yaml resolves it."""
    digits = "9" * 4301
    loaded = load_text(f"a: {digits}\nb: {json.dumps(digits)}\n", "x.yaml")
    assert loaded.error is None
    assert loaded.documents[0].data == {"a": digits, "b": digits}
