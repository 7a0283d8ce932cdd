"""Run the enabled policy rules over a set of loaded documents and return findings.

Single-object rules (``check``) run on every document of their kinds; cross-object rules
(``check_all``) run once over the whole set (a cluster's rendered objects, or every file given).
Issues are then filtered by waivers (:mod:`trainops.policy.waivers`), given the configured level
and the rule's remediation, and located (file, line, object) by the same function the validator
uses (:func:`trainops.yaml.load.locate_issues`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trainops.findings import Finding, Issue
from trainops.kinds import GroupKind
from trainops.policy.config import PolicyConfig
from trainops.policy.facts import Facts
from trainops.policy.loader import Pack
from trainops.policy.objects import ObjectSet
from trainops.policy.pods import hold
from trainops.policy.rule import CheckOne, Context
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


#: Documents from which ``run_policies`` splits the per-document work across ``workers`` processes.
PARALLEL_DOCUMENTS = 2000


class RuleFailure(RuntimeError):
    """A rule raised on a document: names the rule and the file (a bug in the rule; exit 3)."""


def run_policies(documents: Sequence[Document], run: PolicyRun, *, workers: int = 1) -> list[Finding]:
    """Findings of every enabled rule on ``documents`` (documents that are not mappings are skipped:
    the loader and validator report them).

    Each object's kind is read once (cross-object rules get an
    :class:`~trainops.policy.objects.ObjectSet`); the single-object rules that apply to a kind are
    chosen once per kind (a dispatch table), not asked per object. Each document's issues are kept in the
    config's rule order, whichever kind of rule found them. With ``workers > 1`` and at least
    :data:`PARALLEL_DOCUMENTS` documents, the single-object rules, waivers and positions run in that
    many processes (:mod:`trainops.forking`, after the cross-object rules, each taking interleaved blocks
    of documents);
    the findings are those of a serial run.

    Raises:
        RuleFailure: a rule raised.
    """
    docs = [d for d in documents if isinstance(d.data, dict)]
    objects = ObjectSet([d.data for d in docs])
    context = Context(run.facts)
    found: list[list[tuple[int, Issue]]] = [[] for _ in docs]
    single: list[_Single] = []
    for position, (rule_id, rule_config) in enumerate(run.config.rules.items()):
        rule = run.pack.rules[rule_id]
        options = rule_config.options
        if rule.check is not None:
            single.append(_Single(position, rule_id, rule.applies_to, rule.check, options))
        if rule.check_all is not None:
            try:
                located = list(rule.check_all(options, objects, context))
            except Exception as exc:
                raise RuleFailure(f"policy rule {rule_id} failed: {type(exc).__name__}: {exc}") from exc
            for index, issue in located:
                found[index].append((position, _own(rule_id, issue)))

    def finish(indices: Sequence[int]) -> list[list[Finding]]:
        """Single-object rules, waivers and positions for the documents at ``indices`` (one list each)."""
        dispatch: dict[GroupKind | None, list[_Single]] = {}
        out: list[list[Finding]] = []
        for index in indices:
            obj, key = objects[index], objects.kinds[index]
            todo = dispatch.get(key)
            if todo is None:
                # Rule.applies_to reads only the object's (group, kind): the first object of a kind decides
                todo = dispatch[key] = [s for s in single if s.applies_to(obj)]
            hold(obj)
            try:
                for one in todo:
                    issues = _guard(one.rule_id, docs[index], one.check(one.options, obj, context))
                    found[index].extend((one.position, issue) for issue in issues)
            finally:
                hold(None)
            ranked = sorted(found[index], key=_position)  # stable: a rule's own issues keep their order
            out.append(_finish(docs[index], obj, [issue for _, issue in ranked], run))
        return out

    if workers < 2 or len(docs) < PARALLEL_DOCUMENTS:
        findings = [f for one in finish(range(len(docs))) for f in one]
    else:
        # In forked processes (each a copy of this one: documents, cross-object issues). Shares
        # interleave blocks of documents, so that each gets some of every part of the input (kinds
        # cost very differently: custom resources often come last).
        from trainops.forking import fork_map  # most runs never fork (start-up)

        shares = [_share(len(docs), part, workers) for part in range(workers)]
        per_share: list[list[list[Finding]]] = [[] for _ in shares]
        for part, lists in fork_map(finish, shares, workers):
            per_share[part] = lists
        by_index: list[list[Finding]] = [[] for _ in docs]
        for share, lists in zip(shares, per_share, strict=True):
            for index, one in zip(share, lists, strict=True):
                by_index[index] = one
        findings = [f for one in by_index for f in one]
    if run.pack.directory is not None:
        from trainops.policy.uservap import run_user_policies  # ValidatingAdmissionPolicies in policies/

        findings.extend(run_user_policies(docs, run.pack.directory))
    return findings


#: Documents per block when the per-document work is shared among processes (:func:`_share`).
SHARE_BLOCK = 64


def _share(count: int, part: int, parts: int) -> list[int]:
    """The document indices process ``part`` of ``parts`` takes among ``count`` documents: every
    ``parts``-th block of :data:`SHARE_BLOCK` documents, starting with block ``part``."""
    return [
        i
        for start in range(part * SHARE_BLOCK, count, parts * SHARE_BLOCK)
        for i in range(start, min(start + SHARE_BLOCK, count))
    ]


@dataclass(frozen=True)
class _Single:
    """A single-object rule as the dispatch table holds it (``position``: its place in the config)."""

    position: int
    rule_id: str
    applies_to: Callable[[dict[str, Any]], bool]
    check: CheckOne
    options: Mapping[str, Any]


def _position(item: tuple[int, Issue]) -> int:
    return item[0]


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
            level = run.config.rules[issue.rule].level
            kept.append(
                issue
                if issue.level == level
                else Issue(issue.parts, issue.message, issue.rule, issue.keyword, level)
            )
        elif run.show_waived:
            kept.append(replace(issue, message=f"waived ({reason}): {issue.message}", level="info"))
    return locate_issues(document, kept, obj, lambda rule: _remediation(run, rule))


def _remediation(run: PolicyRun, rule_id: str) -> str:
    rule = run.pack.rules.get(rule_id)
    return rule.info.remediation if rule is not None else WAIVER.remediation
