"""The rule registry: every validation rule is registered and documented; `trainops explain` and SARIF
`rules[]` read it; unknown and duplicate IDs are clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.core import rules
from trainops.core.rules import RuleInfo, UnknownRuleError
from trainops.validate import engine  # noqa: F401  (registers the validation rules)
from trainops.validate.checks import all_checks

VALIDATION_RULES = ("yaml", "schema", "unknown-kind", "api-server", "deprecated-api", "cel", "list-map")
VALIDATION_RULES += (
    "secret-literal",
    "lws-webhook",
    "jobset-webhook",
    "kueue-webhook",
    "rollouts-controller",
)


@pytest.mark.parametrize("rule_id", VALIDATION_RULES)
def test_validation_rules_are_registered_and_documented(rule_id: str) -> None:
    all_checks()  # the families of GROUP_FAMILIES register their rules when imported
    info = rules.get(rule_id)
    assert info.family == "validation"
    assert info.summary and info.rationale and info.source
    assert info.remediation.endswith(".")


def test_every_check_family_is_a_registered_rule() -> None:
    checks = all_checks()
    ids = [check.rule.id for check in checks]
    # Several modules contribute API-server checks under the one rule id ``api-server``.
    assert list(dict.fromkeys(ids)) == [
        "schema",
        "api-server",
        "list-map",
        "cel",
        "deprecated-api",
        "secret-literal",
        "lws-webhook",
        "jobset-webhook",
        "kueue-webhook",
        "rollouts-controller",
    ]
    assert all(rules.RULES[check.rule.id] is check.rule for check in checks)


def test_unknown_rule_is_a_usage_error() -> None:
    with pytest.raises(UnknownRuleError, match=r"unknown rule 'schema-x' \(did you mean: schema\?\)"):
        rules.get("schema-x")
    assert UnknownRuleError("x").exit_code == 2


def test_duplicate_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="rule 'schema' is registered twice"):
        rules.register(rules.get("schema"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": "Bad_Id"}, "must be kebab-case"),
        ({"remediation": "no period"}, "remediation must be one sentence ending with a period"),
    ],
)
def test_rule_info_checks_itself(kwargs: dict[str, str], message: str) -> None:
    base = {
        "id": "x-y",
        "level": "error",
        "summary": "s",
        "rationale": "r",
        "remediation": "Do.",
        "source": "s",
    }
    with pytest.raises(ValueError, match=message):
        RuleInfo(**{**base, **kwargs})  # type: ignore[arg-type]


def test_explain_prints_the_registry_entry(cli: Any) -> None:
    run = cli("explain", "api-server")
    assert run.code == 0
    info = rules.get("api-server")
    assert run.out.startswith("api-server (validation, error)\n")
    for text in (info.summary, info.rationale, info.remediation, info.source):
        assert text in run.out


def test_explain_unknown_rule_exits_2(cli: Any) -> None:
    run = cli("explain", "no-such-rule")
    assert run.code == 2
    assert run.err.startswith("trainops: unknown rule 'no-such-rule'")


@needs_shared
def test_sarif_rules_carry_the_registry_documentation(cli: Any) -> None:
    run = cli(
        "validate", "--format", "sarif", str(EXAMPLES / "training-operator"), str(EXAMPLES / "k8s-website")
    )
    driver = json.loads(run.out)["runs"][0]["tool"]["driver"]
    used = {result["ruleId"] for result in json.loads(run.out)["runs"][0]["results"]}
    assert {d["id"] for d in driver["rules"]} == used
    assert used, "the examples produce findings"
    for descriptor in driver["rules"]:
        info = rules.get(descriptor["id"])
        assert descriptor["shortDescription"]["text"] == info.summary
        assert descriptor["fullDescription"]["text"] == info.rationale
        assert descriptor["help"]["text"].startswith(info.remediation)


@needs_shared
def test_every_finding_on_the_upstream_examples_has_a_registered_rule(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", "--format", "json", "--unknown-kinds", "warning", str(EXAMPLES))
    findings = json.loads(run.out)["findings"]
    assert len(findings) > 50
    assert {f["rule"] for f in findings} <= set(rules.RULES)
