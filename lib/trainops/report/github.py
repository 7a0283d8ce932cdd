"""The ``github`` format: GitHub Actions workflow commands, shown as PR annotations."""

from __future__ import annotations

from trainops.core.findings import Result
from trainops.report.text import summary_line


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
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
