"""Reporters: present a :class:`~trainops.core.findings.Result`; they never decide anything.

Each format is one module with a ``render_<format>(result) -> str`` registered in :data:`REPORTERS`;
:data:`FORMATS` (the ``--format`` choices) is derived from it, plus ``auto``, which picks
``github`` when ``GITHUB_ACTIONS=true`` and ``text`` elsewhere.

Adding a format (README "Extending trainops"): write ``report/<format>.py`` with its render
function, add one line ``"<format>": "trainops.report.<format>:render_<format>"`` to
:data:`REPORTERS`, add its test.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import TextIO

from trainops.core.findings import Result
from trainops.report.text import location, text_line

#: Format name → ``module:function`` of its renderer, explicit (STYLE.md habit 2); a module is
#: imported when its format is asked for (start-up of a one-file validate: one format).
REPORTERS: dict[str, str] = {
    "text": "trainops.report.text:render_text",
    "json": "trainops.report.json_report:render_json",
    "junit": "trainops.report.junit:render_junit",
    "sarif": "trainops.report.sarif:render_sarif",
    "github": "trainops.report.github:render_github",
}

#: The ``--format`` choices: ``auto`` and every registered reporter.
FORMATS: tuple[str, ...] = ("auto", *REPORTERS)

__all__ = [
    "FORMATS",
    "REPORTERS",
    "location",
    "render",
    "renderer",
    "resolve_format",
    "text_line",
    "write_report",
]


def resolve_format(fmt: str) -> str:
    """Map ``auto`` to ``github`` inside GitHub Actions and to ``text`` elsewhere."""
    if fmt == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return fmt


def renderer(fmt: str) -> Callable[[Result], str]:
    """The render function of format ``fmt`` (``auto`` resolved first), from :data:`REPORTERS`.

    Raises:
        KeyError: no such format (``--format`` offers only :data:`FORMATS`).
    """
    module, function = REPORTERS[resolve_format(fmt)].split(":")
    render_function: Callable[[Result], str] = getattr(importlib.import_module(module), function)
    return render_function


def render(result: Result, fmt: str) -> str:
    """Render ``result`` in ``fmt`` (``auto`` resolved first)."""
    return renderer(fmt)(result)


def write_report(result: Result, fmt: str, stream: TextIO) -> None:
    """Write ``render(result, fmt)`` to ``stream``; the ``json`` format one finding at a time, so that
    a run with hundreds of thousands of findings needs no second copy of its report in memory."""
    fmt = resolve_format(fmt)
    if fmt == "json":
        from trainops.report.json_report import iter_json

        for piece in iter_json(result):
            stream.write(piece)
        return
    stream.write(render(result, fmt))
