"""Reporters: present a :class:`~trainops.findings.Result`; they never decide anything.

Formats: ``text`` (``file:line: Kind/name $.path: message [rule]``), ``json``, ``junit``,
``sarif`` (SARIF 2.1.0) and ``github`` (workflow commands, shown as PR annotations).
``auto`` picks ``github`` when ``GITHUB_ACTIONS=true``, else ``text``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

from trainops import __version__
from trainops.findings import Finding, Result

Format = Literal["auto", "text", "json", "junit", "sarif", "github"]
FORMATS: tuple[str, ...] = ("auto", "text", "json", "junit", "sarif", "github")


def resolve_format(fmt: str) -> str:
    """Map ``auto`` to ``github`` inside GitHub Actions and to ``text`` elsewhere."""
    if fmt == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return fmt


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
    errors, warnings = result.count("error"), result.count("warning")
    lines.append(f"{result.files} files, {result.documents} documents: {errors} errors, {warnings} warnings")
    return "\n".join(lines) + "\n"


def _as_dict(finding: Finding) -> dict[str, object]:
    return {
        "rule": finding.rule,
        "level": finding.level,
        "message": finding.message,
        "file": finding.file,
        "line": finding.line,
        "column": finding.column,
        "document": finding.document,
        "apiVersion": finding.api_version,
        "kind": finding.kind,
        "namespace": finding.namespace,
        "name": finding.name,
        "path": finding.path,
        "keyword": finding.keyword,
        "remediation": finding.remediation,
    }


def render_json(result: Result) -> str:
    """Machine-readable report: counts and every finding."""
    payload = {
        "files": result.files,
        "documents": result.documents,
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "findings": [_as_dict(f) for f in result.sorted()],
    }
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def render_junit(result: Result) -> str:
    """JUnit XML: one test case per file, failures for error findings."""
    by_file: dict[str, list[Finding]] = {}
    for finding in result.sorted():
        by_file.setdefault(finding.file, []).append(finding)
    failures = sum(1 for items in by_file.values() if any(f.level == "error" for f in items))
    cases = []
    for file, items in sorted(by_file.items()):
        body = "\n".join(escape(text_line(f)) for f in items)
        errors = [f for f in items if f.level == "error"]
        inner = (
            f'<failure message={quoteattr(errors[0].message)} type="{errors[0].rule}">{body}</failure>'
            if errors
            else f"<system-out>{body}</system-out>"
        )
        cases.append(f'    <testcase classname="trainops" name={quoteattr(file)}>{inner}</testcase>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites><testsuite name="trainops" tests="{max(len(by_file), 1)}" failures="{failures}">\n'
        + ("\n".join(cases) + "\n" if cases else '    <testcase classname="trainops" name="all files"/>\n')
        + "</testsuite></testsuites>\n"
    )


def render_sarif(result: Result) -> str:
    """SARIF 2.1.0 with one rule per finding rule ID."""
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
                        "rules": [{"id": rule} for rule in rules],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, sort_keys=True) + "\n"


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def render_github(result: Result) -> str:
    """GitHub Actions workflow commands (``::error file=…,line=…::message``)."""
    lines = []
    for finding in result.sorted():
        command = (
            "error" if finding.level == "error" else ("warning" if finding.level == "warning" else "notice")
        )
        props = [f"file={_gh_escape(finding.file, prop=True)}"]
        if finding.line:
            props.append(f"line={finding.line}")
        if finding.column:
            props.append(f"col={finding.column}")
        props.append(f"title={_gh_escape(f'trainops {finding.rule}', prop=True)}")
        message = f"{finding.object_ref} {finding.path}: {finding.message}".strip()
        lines.append(f"::{command} {','.join(props)}::{_gh_escape(message)}")
    errors, warnings = result.count("error"), result.count("warning")
    lines.append(f"{result.files} files, {result.documents} documents: {errors} errors, {warnings} warnings")
    return "\n".join(lines) + "\n"


REPORTERS: dict[str, Callable[[Result], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "sarif": render_sarif,
    "github": render_github,
}


def render(result: Result, fmt: str) -> str:
    """Render ``result`` in ``fmt`` (``auto`` resolved first)."""
    return REPORTERS[resolve_format(fmt)](result)
