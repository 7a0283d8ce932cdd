"""``trainops explain RULE-ID``: what a rule checks, why, how to fix it, and its upstream source."""

from __future__ import annotations

import sys

import click

from trainops.core import rules
from trainops.policy import waivers  # noqa: F401  (registers the waiver rule)
from trainops.policy.docs import explain_rule
from trainops.policy.loader import load_pack
from trainops.validate import engine  # noqa: F401  (registers the validation rules of every document)
from trainops.validate.checks import all_checks


def run_explain(rule_id: str) -> int:
    """Print the documentation of ``rule_id`` (a policy rule's with its options and examples); return 0.

    Raises:
        UnknownRuleError: no rule has that ID (exit 2).
    """
    all_checks()  # registers the rules of the operators' webhook families too
    pack = load_pack()  # registers the policy rules of the repository's pack
    if rule_id in pack.rules:
        sys.stdout.write(explain_rule(pack.rules[rule_id]))
        return 0
    sys.stdout.write(rules.explain(rules.get(rule_id)))
    return 0


@click.command("explain")
@click.argument("rule_id", metavar="RULE-ID")
def command(rule_id: str) -> None:
    """Explain a validation or policy rule: summary, rationale, remediation, source."""
    sys.exit(run_explain(rule_id))
