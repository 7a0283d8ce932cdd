"""Spot Go-template (Helm) syntax where YAML sees it: outside quoted strings and block scalars.

A Helm chart's ``templates/*.yaml`` are not YAML until ``helm template`` renders them:
``{{- include "x.labels" . | nindent 4 }}`` or ``replicas: {{ .Values.replicas }}`` parse as flow
mappings or fail to parse, and every finding that follows is noise. :func:`template_line` finds
the first ``{{`` that YAML reads as syntax, so the validator can say what to do instead.
``{{`` inside a quoted scalar (``image: "{{ .Values.image }}"``), a block scalar (``|``/``>``) or a
comment is a string to YAML (e.g. Argo Workflows parameters) and does not count.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from trainops.core.findings import Finding
from trainops.yaml.load import YAML

#: A line ending a mapping value or sequence item with a block scalar indicator (``key: |-``, ``- >``).
_BLOCK_START = r"(?:^|:\s|-\s)\s*[|>][-+0-9]*\s*(?:#.*)?$"
#: ``{{`` where a plain scalar or flow collection starts: line start, after ``key:`` or ``-``.
_PLAIN_START = r"^(?:-\s+)*(?:[^\s\"'#{][^:#]*:\s+)?(?:-\s+)*\{\{"

HINT = "looks like a Helm template: render it with helm template first"


def template_line(text: str) -> int | None:
    """1-based line of the first Go-template ``{{`` outside strings, block scalars and comments, or
    ``None`` (also when ``text`` has no ``{{``: the common case costs one substring search)."""
    if "{{" not in text:
        return None
    lines = text.splitlines()
    if not any("{{" in line and re.match(_PLAIN_START, line.lstrip(" ")) for line in lines):
        return None  # no line could be one: block scalars and comments only rule lines out
    parent: int | None = None  # indentation of the line opening a block scalar
    content: int | None = None  # indentation of that block's first content line
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if parent is not None:
            if not stripped:
                continue
            if content is None and indent > parent:
                content = indent
            if content is not None and indent >= content:
                continue
            parent = content = None
        if not stripped or stripped.startswith("#"):
            continue
        if "{{" in stripped and re.match(_PLAIN_START, stripped):
            return number
        if re.search(_BLOCK_START, stripped):
            parent = indent
    return None


def template_hint(text: str, path: str, *, line_offset: int = 0) -> Finding | None:
    """An ``info`` ``yaml`` finding (keyword ``helm-template``) at the first template line of
    ``text`` (see :func:`template_line`), or on line 1 of a Helm ``Chart.yaml``; ``None`` otherwise.

    Args:
        text: the file's text (or a chunk of it starting ``line_offset`` lines into the file).
        path: the file name findings carry.
    """
    line = template_line(text)
    hint = HINT
    if line is None and PurePath(path).name == "Chart.yaml" and line_offset == 0:
        line, hint = 1, "the Chart.yaml of a Helm chart: render the chart with helm template first"
    if line is None:
        return None
    return Finding(
        rule=YAML.id,
        level="info",
        message=f"{hint} (`helm template <chart> | trainops validate -`)",
        file=path,
        line=line + line_offset,
        keyword="helm-template",
    )
