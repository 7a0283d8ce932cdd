"""Run the enabled policy rules over a set of loaded documents and return findings.

Single-object rules (``check``) run on every document of their kinds; cross-object rules
(``check_all``) run once over the whole set (a cluster's rendered objects, or every file given).
Issues are then filtered by waivers (:mod:`trainops.policy.waivers`), given the configured level
and the rule's remediation, and located (file, line, object) by the same function the validator
uses (:func:`trainops.yaml.load.locate_issues`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trainops.findings import Finding, Issue
from trainops.policy.config import PolicyConfig
from trainops.policy.facts import Facts
from trainops.policy.pack import Pack
from trainops.policy.rule import Context
from trainops.policy.waivers import WAIVER, waiver_issues, waivers_of
from trainops.yaml.load import Document, locate_issues


@dataclass(frozen=True)
class PolicyRun:
    """What one policy run applies.

    Args:
        pack: the rule pack.
        config: the effective config (enabled rules, levels, options).
        facts: the target's facts.
        show_waived: report waived findings at level ``info`` (``waived (reason): message``).
    """

    pack: Pack
    config: PolicyConfig
    facts: Facts
    show_waived: bool = False


class RuleFailure(RuntimeError):
    """A rule raised on a document: names the rule and the file (a bug in the rule; exit 3)."""


def run_policies(documents: Sequence[Document], run: PolicyRun) -> list[Finding]:
    """Findings of every enabled rule on ``documents`` (documents that are not mappings are skipped:
    the loader and validator report them).

    Raises:
        RuleFailure: a rule raised.
    """
    docs = [d for d in documents if isinstance(d.data, dict)]
    objects: list[dict[str, Any]] = [d.data for d in docs]
    context = Context(run.facts)
    found: list[list[Issue]] = [[] for _ in docs]
    for rule_id, rule_config in run.config.rules.items():
        rule = run.pack.rules[rule_id]
        options = rule_config.options
        if rule.check is not None:
            for index, obj in enumerate(objects):
                if rule.applies_to(obj):
                    found[index].extend(_guard(rule_id, docs[index], rule.check(options, obj, context)))
        if rule.check_all is not None:
            try:
                located = list(rule.check_all(options, objects, context))
            except Exception as exc:
                raise RuleFailure(f"policy rule {rule_id} failed: {type(exc).__name__}: {exc}") from exc
            for index, issue in located:
                found[index].append(_own(rule_id, issue))
    findings: list[Finding] = []
    for document, obj, issues in zip(docs, objects, found, strict=True):
        findings.extend(_finish(document, obj, issues, run))
    from trainops.policy.uservap import run_user_policies  # ValidatingAdmissionPolicies in policies/

    findings.extend(run_user_policies(docs, run.pack.directory))
    return findings


def _own(rule_id: str, issue: Issue) -> Issue:
    """``issue`` when it carries ``rule_id``.

    Raises:
        RuleFailure: a rule yielded an issue of another rule.
    """
    if issue.rule != rule_id:
        raise RuleFailure(f"policy rule {rule_id} yielded an issue of rule {issue.rule!r}")
    return issue


def _guard(rule_id: str, document: Document, issues: Iterator[Issue]) -> list[Issue]:
    try:
        return [_own(rule_id, issue) for issue in issues]
    except RuleFailure:
        raise
    except Exception as exc:
        raise RuleFailure(
            f"policy rule {rule_id} failed on {document.file} (document {document.index}): "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def _finish(document: Document, obj: dict[str, Any], issues: list[Issue], run: PolicyRun) -> list[Finding]:
    waivers = waivers_of(obj)
    reasons = {w.rule: w.reason for w in waivers if w.reason}
    kept: list[Issue] = list(waiver_issues(waivers, run.pack.rules))
    for issue in issues:
        reason = reasons.get(issue.rule)
        if reason is None:
            kept.append(replace(issue, level=run.config.rules[issue.rule].level))
        elif run.show_waived:
            kept.append(replace(issue, message=f"waived ({reason}): {issue.message}", level="info"))
    findings = locate_issues(document, kept, obj)
    return [replace(f, remediation=_remediation(run, f.rule)) for f in findings]


def _remediation(run: PolicyRun, rule_id: str) -> str:
    rule = run.pack.rules.get(rule_id)
    return rule.info.remediation if rule is not None else WAIVER.remediation
