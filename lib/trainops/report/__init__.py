"""Reporters: present a :class:`~trainops.findings.Result`; they never decide anything.

Each format is one module with a ``render_<format>(result) -> str`` registered in :data:`REPORTERS`;
:data:`FORMATS` (the ``--format`` choices) is derived from it, plus ``auto``, which picks
``github`` when ``GITHUB_ACTIONS=true`` and ``text`` elsewhere.

Adding a format (README "Extending trainops"): write ``report/<format>.py`` with its render
function, add one line to :data:`REPORTERS`, add its test.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TextIO

from trainops.findings import Result
from trainops.report.github import render_github
from trainops.report.json_report import iter_json, render_json
from trainops.report.junit import render_junit
from trainops.report.sarif import render_sarif
from trainops.report.text import location, render_text, text_line

#: Format name → renderer, explicit (STYLE.md habit 2).
REPORTERS: dict[str, Callable[[Result], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "sarif": render_sarif,
    "github": render_github,
}

#: The ``--format`` choices: ``auto`` and every registered reporter.
FORMATS: tuple[str, ...] = ("auto", *REPORTERS)

__all__ = ["FORMATS", "REPORTERS", "location", "render", "resolve_format", "text_line", "write_report"]


def resolve_format(fmt: str) -> str:
    """Map ``auto`` to ``github`` inside GitHub Actions and to ``text`` elsewhere."""
    if fmt == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return fmt


def render(result: Result, fmt: str) -> str:
    """Render ``result`` in ``fmt`` (``auto`` resolved first)."""
    return REPORTERS[resolve_format(fmt)](result)


def write_report(result: Result, fmt: str, stream: TextIO) -> None:
    """Write ``render(result, fmt)`` to ``stream``; the ``json`` format one finding at a time, so that
    a run with hundreds of thousands of findings needs no second copy of its report in memory."""
    fmt = resolve_format(fmt)
    if fmt == "json":
        for piece in iter_json(result):
            stream.write(piece)
        return
    stream.write(render(result, fmt))
