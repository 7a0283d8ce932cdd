"""The ``text`` format: ``file:line: Kind/name $.path: message [rule]`` and a count line."""

from __future__ import annotations

from trainops.core.findings import Finding, Result


def location(finding: Finding) -> str:
    """``file:line`` (or ``file`` when the line is unknown)."""
    return f"{finding.file}:{finding.line}" if finding.line else finding.file


def text_line(finding: Finding) -> str:
    """One finding as ``file:line: Kind/name $.path: message [rule]`` (warnings say so)."""
    ref = f" {finding.object_ref}" if finding.object_ref else ""
    level = "" if finding.level == "error" else f"{finding.level}: "
    tag = finding.keyword if finding.rule == "schema" and finding.keyword else finding.rule
    return f"{location(finding)}:{ref} {finding.path}: {level}{finding.message} [{tag}]"


def render_text(result: Result) -> str:
    """Human-readable report with a closing count line."""
    lines = [text_line(f) for f in result.sorted()]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def summary_line(result: Result) -> str:
    """``N files, N documents: N errors, N warnings``."""
    errors, warnings = result.count("error"), result.count("warning")
    return f"{result.files} files, {result.documents} documents: {errors} errors, {warnings} warnings"
