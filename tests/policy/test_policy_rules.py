"""The rule pack: every rule on its fixtures and docstring examples, plus meta-tests over the registry
(kube-linter style: registered, documented, in default.yaml, with both fixtures; README current).

Fixtures live in ``tests/policies/<rule-id>/``: ``pass.yaml`` (no finding of the rule),
``fail.yaml`` and ``fail.expected`` (the complete findings, one per line as
``line: Kind/name $.path: message``; ``pytest --update-golden`` rewrites it, review the diff), and
optionally ``config.yaml`` (options for that rule). Every fixture is checked with the facts of
``tests/policies/facts.yaml``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.core.findings import Finding
from trainops.core.rules import RULES
from trainops.policy.config import PolicyConfig, RuleConfig, config_schema_text
from trainops.policy.docs import render_list
from trainops.policy.engine import PolicyRun, run_policies
from trainops.policy.facts import FACTS_SCHEMA, Facts, load_facts
from trainops.policy.loader import DEFAULT_DIR, Pack, default_pack
from trainops.policy.rule import SECTIONS
from trainops.yaml.load import Document, stream_text

REPO = Path(__file__).resolve().parents[2]
POLICIES = DEFAULT_DIR
FIXTURES = REPO / "tests" / "policies"
PACK: Pack = default_pack()
RULE_IDS = sorted(PACK.rules)
FACTS: Facts = load_facts(str(FIXTURES / "facts.yaml"))


def run_rule(
    rule_id: str,
    text: str,
    *,
    path: str = "input.yaml",
    options: dict[str, Any] | None = None,
    facts: Facts | None = None,
) -> list[Finding]:
    """Findings of ``rule_id`` alone (default options updated by ``options``) on ``text``, with the
    fixture facts (or ``facts``)."""
    rule = PACK.rules[rule_id]
    config = PolicyConfig({rule_id: RuleConfig(rule.level, {**rule.default, **(options or {})})})
    documents = [d for d in stream_text(text, path) if isinstance(d, Document)]
    return run_policies(documents, PolicyRun(PACK, config, facts or FACTS))


def fixture_options(rule_id: str) -> dict[str, Any]:
    path = FIXTURES / rule_id / "config.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}


def lines(findings: list[Finding]) -> list[str]:
    ordered = sorted(findings, key=lambda f: (f.document or 0, f.line or 0, f.path, f.message))
    return [f"{f.line}: {f.object_ref} {f.path}: {f.message}" for f in ordered]


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_pass_fixture_has_no_findings(rule_id: str) -> None:
    text = (FIXTURES / rule_id / "pass.yaml").read_text(encoding="utf-8")
    assert lines(run_rule(rule_id, text, options=fixture_options(rule_id))) == []


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_fail_fixture_has_the_expected_findings(rule_id: str, request: pytest.FixtureRequest) -> None:
    text = (FIXTURES / rule_id / "fail.yaml").read_text(encoding="utf-8")
    found = run_rule(rule_id, text, options=fixture_options(rule_id))
    expected_file = FIXTURES / rule_id / "fail.expected"
    if request.config.getoption("--update-golden"):
        expected_file.write_text("".join(f"{line}\n" for line in lines(found)), encoding="utf-8")
    expected = expected_file.read_text(encoding="utf-8").splitlines()
    assert expected, f"{expected_file} lists no finding"
    assert lines(found) == expected
    assert {(f.rule, f.level) for f in found} == {(rule_id, PACK.rules[rule_id].level)}
    assert all(f.remediation == PACK.rules[rule_id].info.remediation for f in found)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_docstring_pass_example_has_no_findings(rule_id: str) -> None:
    example = PACK.rules[rule_id].doc.get("PASS")
    assert lines(run_rule(rule_id, example, options=fixture_options(rule_id))) == []


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_docstring_fail_example_has_findings(rule_id: str) -> None:
    example = PACK.rules[rule_id].doc.get("FAIL")
    assert run_rule(rule_id, example, options=fixture_options(rule_id))


# --- meta-tests ------------------------------------------------------------------------------------


def test_every_module_in_policies_is_listed_in_rules() -> None:
    modules = {p.stem.replace("_", "-") for p in POLICIES.glob("*.py") if p.stem != "__init__"}
    assert modules == set(PACK.rules)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_is_registered_as_a_policy_rule(rule_id: str) -> None:
    info = RULES[rule_id]
    assert info.family == "policy" and info is PACK.rules[rule_id].info


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_docstring_has_every_section(rule_id: str) -> None:
    doc = PACK.rules[rule_id].doc
    assert doc.summary.endswith(".")
    assert [s for s in SECTIONS if not doc.get(s)] == []
    assert doc.get("Remediation").endswith(".")


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_is_in_default_yaml_with_its_level_and_options(rule_id: str) -> None:
    default = yaml.safe_load((POLICIES / "default.yaml").read_text(encoding="utf-8"))
    rule = PACK.rules[rule_id]
    assert default["rules"][rule_id] == {"level": rule.level, **rule.default}


def test_default_yaml_names_only_pack_rules() -> None:
    default = yaml.safe_load((POLICIES / "default.yaml").read_text(encoding="utf-8"))
    assert sorted(default["rules"]) == RULE_IDS


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_has_both_fixtures(rule_id: str) -> None:
    names = {p.name for p in (FIXTURES / rule_id).iterdir()}
    assert {"pass.yaml", "fail.yaml", "fail.expected"} <= names


def test_fixture_directories_name_known_rules() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(RULE_IDS)


def test_readme_is_generated_from_the_rules() -> None:
    from trainops.policy.config import load_config

    text = render_list(PACK, load_config(PACK, POLICIES / "default.yaml"), "markdown")
    assert (POLICIES / "README.md").read_text(encoding="utf-8") == text, (
        "lib/trainops/policy/pack/README.md is stale: run `trainops policy list --format markdown"
        " > lib/trainops/policy/pack/README.md` outside any repository"
    )


def test_config_schema_is_generated_from_the_rules() -> None:
    stored = (REPO / "lib" / "trainops" / "schemas" / "local" / "policy-config.json").read_text(
        encoding="utf-8"
    )
    assert stored == config_schema_text(PACK), (
        "lib/trainops/schemas/local/policy-config.json is stale: run `trainops policy schema > lib/trainops/schemas/local/policy-config.json`"
    )


def test_facts_schema_file_is_the_one_in_code() -> None:
    """Facts files are checked against FACTS_SCHEMA; the editors' copy in schemas/local says the same."""
    stored = (REPO / "lib" / "trainops" / "schemas" / "local" / "policy-facts.json").read_text(
        encoding="utf-8"
    )
    assert json.loads(stored) == FACTS_SCHEMA
