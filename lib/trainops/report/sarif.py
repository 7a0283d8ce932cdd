"""The ``sarif`` format: SARIF 2.1.0 for code scanning, with each rule's documentation from the
rule registry in ``tool.driver.rules``."""

from __future__ import annotations

import json

from trainops import __version__
from trainops.core.findings import Result
from trainops.core.rules import RuleInfo, get


def rule_descriptor(info: RuleInfo) -> dict[str, object]:
    """A SARIF ``reportingDescriptor`` for a registered rule (SARIF 2.1.0 §3.49)."""
    descriptor: dict[str, object] = {
        "id": info.id,
        "name": info.id,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.rationale},
        "help": {"text": f"{info.remediation} Source: {info.source}"},
        "defaultConfiguration": {
            "level": {"error": "error", "warning": "warning", "info": "note"}[info.level]
        },
        "properties": {"family": info.family, "source": info.source},
    }
    if info.help_uri:
        descriptor["helpUri"] = info.help_uri
    return descriptor


def render_sarif(result: Result) -> str:
    """SARIF 2.1.0 with one rule descriptor per rule that has findings.

    Raises:
        UnknownRuleError: a finding carries a rule ID nothing registered.
    """
    rules = sorted({f.rule for f in result.findings})
    level_map = {"error": "error", "warning": "warning", "info": "note"}
    results = []
    for finding in result.sorted():
        region: dict[str, int] = {}
        if finding.line:
            region["startLine"] = finding.line
        if finding.column:
            region["startColumn"] = finding.column
        physical: dict[str, object] = {"artifactLocation": {"uri": finding.file}}
        if region:
            physical["region"] = region
        results.append(
            {
                "ruleId": finding.rule,
                "level": level_map[finding.level],
                "message": {"text": f"{finding.object_ref} {finding.path}: {finding.message}".strip()},
                "locations": [{"physicalLocation": physical}],
            }
        )
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "trainops",
                        "version": __version__,
                        "rules": [rule_descriptor(get(rule)) for rule in rules],
                    }
                },
                "results": results,
                **({"properties": {"target": dict(result.target)}} if result.target is not None else {}),
            }
        ],
    }
    return json.dumps(sarif, indent=2, sort_keys=True) + "\n"
