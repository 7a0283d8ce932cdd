"""The rule registry: every finding's rule ID is registered here with its documentation.

Validation check families (``trainops.validate.checks``), the YAML loader and policy rules
(``policies/``) each register a :class:`RuleInfo` once, at import, with :func:`register`. Reporters
(SARIF ``rules[]``), ``trainops explain RULE-ID`` and ``policy list`` read it back with :func:`get`
and :func:`all_rules`. The registry is explicit and typed (STYLE.md habit 2): a duplicate ID is an
error, an unknown ID a clear one-line error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from trainops.core.errors import UsageError
from trainops.core.findings import Level

Family = Literal["validation", "policy"]

_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class RuleInfo:
    """What a rule checks, why, and how to fix what it finds.

    Args:
        id: kebab-case rule ID, e.g. ``api-server`` or ``no-privileged`` (a policy rule's module name
            with ``-`` for ``_``).
        level: default level of its findings: ``error`` fails a run, ``warning`` only with ``--strict``,
            ``info`` never.
        summary: one line: what the rule checks.
        rationale: why it matters (what breaks when it is ignored).
        remediation: one sentence ending with a period: how to fix a finding.
        source: the upstream source the rule mirrors (a URL or ``repo path: function``).
        family: ``validation`` (what the API server or an operator rejects) or ``policy``.
        help_uri: documentation link; default: ``source`` when it is a URL, else empty.

    Raises:
        ValueError: an ID that is not kebab-case, or a remediation not ending with a period.
    """

    id: str
    level: Level
    summary: str
    rationale: str
    remediation: str
    source: str
    family: Family = "validation"
    help_uri: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"rule id {self.id!r}: must be kebab-case")
        if not self.remediation.endswith("."):
            raise ValueError(f"rule {self.id}: remediation must be one sentence ending with a period")
        if not self.help_uri and self.source.startswith("https://"):
            object.__setattr__(self, "help_uri", self.source.split()[0])


class UnknownRuleError(UsageError):
    """A rule ID that no module registered (exit code 2)."""


#: Every registered rule by ID, in registration order.
RULES: dict[str, RuleInfo] = {}


def register(info: RuleInfo) -> RuleInfo:
    """Add ``info`` to :data:`RULES` and return it (so a module can write ``RULE = register(...)``).

    Raises:
        ValueError: another rule already has this ID.
    """
    if info.id in RULES:
        raise ValueError(f"rule {info.id!r} is registered twice")
    RULES[info.id] = info
    return info


def get(rule_id: str) -> RuleInfo:
    """The registered rule ``rule_id``.

    Raises:
        UnknownRuleError: no such rule; the message lists the closest IDs.
    """
    info = RULES.get(rule_id)
    if info is None:
        close = sorted(r for r in RULES if r.split("-")[0] == rule_id.split("-")[0])[:5]
        hint = f" (did you mean: {', '.join(close)}?)" if close else ""
        raise UnknownRuleError(f"unknown rule {rule_id!r}{hint}; `trainops policy list` lists them")
    return info


def all_rules(family: Family | None = None) -> list[RuleInfo]:
    """Registered rules sorted by ID, optionally of one family."""
    return sorted((r for r in RULES.values() if family is None or r.family == family), key=lambda r: r.id)


def explain(info: RuleInfo) -> str:
    """The rule's documentation as plain text (what ``trainops explain`` prints)."""
    return (
        f"{info.id} ({info.family}, {info.level})\n\n"
        f"{info.summary}\n\n"
        f"Why: {info.rationale}\n\n"
        f"Fix: {info.remediation}\n\n"
        f"Source: {info.source}\n"
    )
