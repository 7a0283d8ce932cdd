"""lib/trainops/policy/pack/COVERAGE.md (issue 26 point 6): each row is a check at least two of kube-linter,
Checkov, Polaris, kube-score and Kyverno have, and names pack rules that exist (or says why none
applies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.policy.test_policy_rules import PACK

COVERAGE = Path(__file__).resolve().parents[2] / "lib" / "trainops" / "policy" / "pack" / "COVERAGE.md"
#: Rules the table may name that are validation rules, not pack rules.
VALIDATION_RULES = {"deprecated-api"}


def _rows() -> list[list[str]]:
    rows = []
    for line in COVERAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 7 and cells[0] != "check":
            rows.append(cells)
    return rows


ROWS = _rows()


def test_the_table_has_rows() -> None:
    assert len(ROWS) > 40


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_each_row_is_shared_by_two_tools_and_resolved(row: list[str]) -> None:
    tools = row[1:6]
    assert sum(cell not in ("", "–") for cell in tools) >= 2, row[0]
    ours = row[6]
    named = set(re.findall(r"^`([a-z][a-z0-9-]*)`", ours)) | set(re.findall(r"→ `([a-z][a-z0-9-]*)`", ours))
    assert named or ours.startswith(("not ", "only ", "covered ", "the validator")), row[0]
    assert named <= set(PACK.rules) | VALIDATION_RULES, named - set(PACK.rules)


def test_every_rule_named_in_the_prose_exists() -> None:
    text = COVERAGE.read_text(encoding="utf-8")
    named = set(re.findall(r"→ `([a-z][a-z0-9-]*)`", text)) | set(
        re.findall(r"are `([a-z][a-z0-9-]*)`", text)
    )
    assert named and named <= set(PACK.rules)
