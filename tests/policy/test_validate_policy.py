"""``trainops validate --policy``: validation and the policy pack in one run and one report."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import CliRun

Cli = Callable[..., CliRun]
FIXTURES = Path(__file__).resolve().parents[1] / "policies"


@pytest.mark.parametrize("rule", ["no-privileged", "pvc-exists", "service-selects-pods"])
def test_validate_policy_adds_the_policy_findings(cli: Cli, rule: str) -> None:
    fixture = str(FIXTURES / rule / "fail.yaml")
    alone = cli("validate", "--format", "json", fixture)
    both = cli("validate", "--policy", "--format", "json", fixture)
    policy = cli("policy", "check", "--format", "json", fixture)
    assert both.code == 1, both.err
    rules = [f["rule"] for f in json.loads(both.out)["findings"]]
    assert rule in rules
    assert rule not in [f["rule"] for f in json.loads(alone.out)["findings"]]
    expected = json.loads(alone.out)["findings"] + json.loads(policy.out)["findings"]
    assert sorted(rules) == sorted(f["rule"] for f in expected)
