"""Positions of JSON paths in block-style YAML text, without composing a node tree.

A finding needs the line of its JSON path. Composing the document with PyYAML for that (the
general way, :meth:`trainops.yaml.load.Document.locate`) costs more than validating it; this module
reads the lines of the usual block style directly: mappings (``key: value``, plain or simply quoted
keys), sequences (``- item``, also at the parent key's indentation), block scalars (``|``, ``>``),
comments and blank lines. It answers exactly what the composed tree answers (the key's position
for a mapping entry, the item's own position for a sequence item, the deepest existing ancestor for
a missing path) and returns ``None`` for anything else it meets on the path (flow collections,
tabs, complex keys, escapes in keys, nested ``- -`` items), where the caller composes.
It is only used for documents of the fast path, which have no anchors, tags, merge keys or
duplicate keys.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

#: A mapping key at the start of ``text``: double-quoted (no escapes), single-quoted, or plain; then
#: ``:`` followed by a space or the end of the line.
_KEY = re.compile(
    r"""(?:"(?P<dq>[^"\\]*)"|'(?P<sq>(?:[^']|'')*)'|(?P<plain>[^\s#'"\[\]{},&*!|>%@`?:-][^#]*?|-[^\s#][^#]*?|:[^\s#][^#]*?))"""
    r"[ \t]*:(?:[ \t]+|$)"
)
#: A block scalar indicator as the whole value: ``|``, ``>-``, ``|2+``, with an optional comment.
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?$")


class _Unsupported(Exception):
    """Syntax this reader does not model: compose instead."""


Line = tuple[int, int, str]
"""(0-based line number, indentation, text without the line break)."""


@lru_cache(maxsize=4)  # the findings of one document are located one after the other
def _lines(text: str) -> list[Line]:
    """Content lines (no blank or comment lines, no block scalar contents, no ``---``); never mutated."""
    out: list[Line] = []
    block: int | None = None  # block scalar contents must be indented more than this
    for number, raw in enumerate(text.split("\n")):
        line = raw.rstrip("\r")
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if block is not None:
            if not stripped.strip() or indent > block:
                continue
            block = None
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("\t"):
            raise _Unsupported
        if line.startswith("---"):
            if line[3:].strip() and not line[3:].strip().startswith("#"):
                raise _Unsupported
            continue
        out.append((number, indent, line))
        block = _block_threshold(line, indent)
    return out


def _block_threshold(line: str, indent: int) -> int | None:
    """The indentation block scalar contents must exceed when ``line`` opens one, else ``None``."""
    if "|" not in line and ">" not in line:  # no indicator: most lines, answered without a regex
        return None
    column = indent
    while line.startswith("- ", column) or line[column:] == "-":
        column += 1
        while column < len(line) and line[column] == " ":
            column += 1
    rest = line[column:]
    if _BLOCK_SCALAR.match(rest):
        return indent  # a sequence item's scalar: deeper than its dash
    match = _KEY.match(rest)
    if match and _BLOCK_SCALAR.match(rest[match.end() :]):
        return column
    return None


def locate_in_text(text: str, parts: Sequence[str | int]) -> tuple[int, int] | None:
    """0-based (line, column) of ``parts`` in ``text`` as PyYAML's composed tree gives it, or ``None``
    when the path crosses syntax this module does not model (the caller composes then)."""
    try:
        lines = _lines(text)
        if not lines:
            return None
        root = (lines[0][0], lines[0][1])
        return _find(lines, 0, len(lines), lines[0][1], parts, root)
    except _Unsupported:
        return None


def _find(
    lines: list[Line], lo: int, hi: int, column: int, parts: Sequence[str | int], mark: tuple[int, int]
) -> tuple[int, int]:
    """Walk ``parts`` from the node starting at ``column`` of line ``lines[lo]`` (lines ``lo..hi``);
    ``mark`` is the position of the last step (a key, an item, or the root), which PyYAML's walk
    returns when the path ends or stops here."""
    line = lines[lo][2]
    rest = line[column:]
    if not parts:
        return mark
    part = parts[0]
    if rest.startswith("- ") or rest == "-":
        if not isinstance(part, int):
            return mark
        return _item(lines, lo, hi, column, part, parts[1:], mark)
    if rest.startswith(("[", "{", "? ", "&", "*", "!", "|", ">")):
        raise _Unsupported
    if _KEY.match(rest) is None:
        return mark  # a scalar: the path ends here
    if isinstance(part, int):
        return mark
    return _entry(lines, lo, hi, column, part, parts[1:], mark)


def _key(match: re.Match[str]) -> str:
    if match.group("dq") is not None:
        return match.group("dq")
    if match.group("sq") is not None:
        return match.group("sq").replace("''", "'")
    return match.group("plain").rstrip(" \t")


def _entry(
    lines: list[Line],
    lo: int,
    hi: int,
    column: int,
    key: str,
    parts: Sequence[str | int],
    mark: tuple[int, int],
) -> tuple[int, int]:
    """The mapping entry ``key`` of the mapping whose entries start at ``column``."""
    found = _entries(lines, lo, hi, column).get(key)
    if found is None:
        return mark
    return _value(lines, found[0], hi, column, found[1], parts)


#: What was read of the content lines the ``_lines`` cache keeps (mapping keys, value extents): a
#: document's findings walk the same mappings, so each is read once.
_READ: dict[int, tuple[list[Line], dict[tuple[str, int, int, int], Any]]] = {}


def _memo(lines: list[Line]) -> dict[tuple[str, int, int, int], Any]:
    held = _READ.get(id(lines))
    if held is None or held[0] is not lines:
        _READ.clear()
        held = _READ[id(lines)] = (lines, {})
    return held[1]


def _entries(lines: list[Line], lo: int, hi: int, column: int) -> dict[str, tuple[int, int]]:
    """Key → (line index, end of the key) of the mapping whose entries start at ``column`` of
    ``lines[lo]`` (the last entry with a key wins, as in PyYAML's walk)."""
    memo = _memo(lines)
    known: dict[str, tuple[int, int]] | None = memo.get(("entries", lo, hi, column))
    if known is not None:
        return known
    found: dict[str, tuple[int, int]] = {}
    index = lo
    while index < hi:
        _, indent, line = lines[index]
        start = column if index == lo else indent
        if index > lo and indent < column:
            break
        if start == column:
            match = _KEY.match(line, column)
            if match is None:
                if index > lo and not line.startswith("-", indent):
                    raise _Unsupported
            else:
                found[_key(match)] = (index, match.end())
        index += 1
    memo[("entries", lo, hi, column)] = found
    return found


def _extent(lines: list[Line], index: int, hi: int, column: int) -> int:
    """End (exclusive) of the block value of the entry on ``lines[index]`` whose key is at ``column``."""
    memo = _memo(lines)
    known: int | None = memo.get(("extent", index, hi, column))
    if known is not None:
        return known
    end = index + 1
    while end < hi:
        indent = lines[end][1]
        if indent < column or (indent == column and not lines[end][2].startswith("-", indent)):
            break
        end += 1
    memo[("extent", index, hi, column)] = end
    return end


def _value(
    lines: list[Line], index: int, hi: int, column: int, after: int, parts: Sequence[str | int]
) -> tuple[int, int]:
    """Continue into the value of the entry on ``lines[index]`` (key at ``column``, value at ``after``)."""
    number, _, line = lines[index]
    mark = (number, column)  # a mapping entry's position is its key's
    if not parts:
        return mark
    inline = line[after:].strip()
    if inline and not inline.startswith("#"):
        if inline.startswith(("[", "{", "&", "*", "!")):
            raise _Unsupported
        return mark  # a scalar (or block scalar) value: the path ends at the key
    end = _extent(lines, index, hi, column)
    if end == index + 1:
        return mark  # an empty (null) value
    return _find(lines, index + 1, end, lines[index + 1][1], parts, mark)


def _item(
    lines: list[Line],
    lo: int,
    hi: int,
    column: int,
    position: int,
    parts: Sequence[str | int],
    mark: tuple[int, int],
) -> tuple[int, int]:
    """Item ``position`` of the sequence whose dashes are at ``column`` (an item's position is its
    content's)."""
    starts = [
        i
        for i in range(lo, hi)
        if (i == lo or lines[i][1] == column)
        and lines[i][2].startswith("-", column)
        and (len(lines[i][2]) == column + 1 or lines[i][2][column + 1] == " ")
    ]
    if any(lines[i][1] < column for i in range(lo + 1, hi)):
        raise _Unsupported
    if not 0 <= position < len(starts):
        return mark  # compose keeps the sequence's own position
    first = starts[position]
    last = starts[position + 1] if position + 1 < len(starts) else hi
    number, _, line = lines[first]
    content = column + 1
    while content < len(line) and line[content] == " ":
        content += 1
    if content < len(line) and not line.startswith("#", content):
        if line.startswith("-", content) and (content + 1 == len(line) or line[content + 1] == " "):
            raise _Unsupported  # "- - nested"
        return _find(lines, first, last, content, parts, (number, content))
    if first + 1 >= last:
        raise _Unsupported  # an empty item
    return _find(
        lines, first + 1, last, lines[first + 1][1], parts, (lines[first + 1][0], lines[first + 1][1])
    )
