"""Waivers: an object annotation ``trainops.dev/waive-<rule-id>: "<reason>"`` turns off one rule
for that object (kube-linter ``ignore-check.kube-linter.io/<check>``; STYLE.md habit 10).

A waiver needs a reason: an empty one is itself a finding (rule ``waiver``), and so is a waiver
naming a rule the pack does not have. Constructs set waivers with :func:`waive`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from trainops.core.findings import Issue
from trainops.core.rules import RuleInfo, register

#: Annotation prefix of a waiver; the rule ID follows.
PREFIX = "trainops.dev/waive-"

WAIVER = register(
    RuleInfo(
        id="waiver",
        level="error",
        summary="A waiver annotation trainops.dev/waive-<rule-id> names a known policy rule and "
        "gives a non-empty reason.",
        rationale="A waiver without a reason hides a finding with no record of why; one naming an "
        "unknown rule (a typo) waives nothing while looking as if it did.",
        remediation='Write the reason as the annotation value, e.g. trainops.dev/waive-no-host-path: "GPU driver mount".',
        source="https://docs.kubelinter.io/#/configuring-kubelinter?id=ignoring-violations-for-specific-cases",
        family="policy",
    )
)


@dataclass(frozen=True)
class Waiver:
    """One waiver annotation of an object.

    Args:
        rule: the waived rule ID.
        reason: the annotation value, stripped.
        key: the annotation key (for the finding's path).
    """

    rule: str
    reason: str
    key: str


def waive(rule_id: str, reason: str) -> dict[str, str]:
    """The annotation that waives ``rule_id`` on an object, for construct props and ``metadata``.

    Raises:
        ValueError: an empty reason.
    """
    if not reason.strip():
        raise ValueError(f"waive({rule_id!r}, reason=''): a waiver needs a reason")
    return {f"{PREFIX}{rule_id}": reason}


def waivers_of(obj: dict[str, Any]) -> list[Waiver]:
    """The waiver annotations of ``obj`` (values that are not strings count as empty)."""
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return []
    return [
        Waiver(key[len(PREFIX) :], value.strip() if isinstance(value, str) else "", key)
        for key, value in annotations.items()
        if isinstance(key, str) and key.startswith(PREFIX)
    ]


def waiver_issues(waivers: list[Waiver], known: Collection[str]) -> Iterator[Issue]:
    """Issues for waivers with an empty reason or naming a rule not in ``known``."""
    for waiver in waivers:
        parts = ("metadata", "annotations", waiver.key)
        if waiver.rule not in known:
            yield Issue(parts, f'waiver names unknown policy rule "{waiver.rule}"', WAIVER.id)
        elif not waiver.reason:
            yield Issue(parts, f'waiver of "{waiver.rule}" has an empty reason', WAIVER.id)
