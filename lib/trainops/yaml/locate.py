"""Positions of JSON paths in block-style YAML text, without composing a node tree.

A finding needs the line of its JSON path. Composing the document with PyYAML for that (the
general way, :meth:`trainops.yaml.load.Document.locate`) costs more than validating it; this module
reads the lines of the usual block style directly: mappings (``key: value``, plain or simply quoted
keys), sequences (``- item``, also at the parent key's indentation), block scalars (``|``, ``>``),
comments and blank lines. It answers exactly what the composed tree answers (the key's position
for a mapping entry, the item's own position for a sequence item, the deepest existing ancestor for
a missing path) and returns ``None`` for anything else it meets on the path (flow collections,
tabs, complex keys, escapes in keys, nested ``- -`` items), where the caller composes.
It is only used for documents of the fast path, which have no anchors, tags or merge keys.

Two readers, both checked against PyYAML's composed tree (tests/test_locate.py on every document of
the examples, tests/test_locate_properties.py on generated YAML):

* plain block style (no flow collections but ``[]``/``{}``, tabs, carriage returns, complex keys or
  node properties) is walked with regular expressions over the whole text (:func:`_walk_text`): the
  keys of a mapping (or the dashes of a sequence) are the lines at its column within its lines, read
  once per document when a finding first needs them, and each step of a path is remembered, so a
  finding costs a few dictionary look-ups;
* the rest is read line by line (:func:`_locate_in_lines`).

A quoted scalar or a flow collection continued on the next line goes on at any indentation for
PyYAML, where neither reader could tell keys from content: such documents are composed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

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
    when the path crosses syntax this module does not model (the caller composes then).

    Args:
        text: one YAML document (block style; its ``---`` line and comments may precede it).
        parts: JSON path parts, e.g. ``("spec", "containers", 0, "name")``; ``()`` is the root. A
            mapping is looked up with ``str(part)`` and a sequence with an ``int`` part, as
            :meth:`trainops.yaml.load.Document.locate` walks the composed tree.

    The findings of one document are located one after the other: what was read of its text is kept
    until another text is asked about. Texts in plain block style are searched with regular expressions
    (:func:`_walk_text`); the others, and paths the search does not read, are read line by line.
    """
    prepared = _prepared(text)
    if prepared is False:
        return None
    if prepared is not None:
        if prepared.root is None:
            return None
        try:
            offset = _walk_text(prepared, parts)
        except _Unsupported:
            pass
        else:
            t = prepared.t
            return t.count("\n", 0, offset) - 1, offset - t.rfind("\n", 0, offset) - 1
    return _locate_in_lines(text, parts)


#: The text last asked about and what :func:`_prepare` made of it (compared by identity: a document
#: keeps its text object, so the findings of one document reuse it).
_LAST: list[Any] = [None, None]


def _prepared(text: str) -> _Text | Literal[False] | None:
    """:func:`_prepare` of ``text``, or ``False`` when neither reader applies: PyYAML also breaks lines
    at U+0085, U+2028 and U+2029 (such texts never take the fast path, see :mod:`trainops.yaml.fast`)."""
    if _LAST[0] is not text:
        breaks = "\x85" in text or "\u2028" in text or "\u2029" in text
        _LAST[0], _LAST[1] = text, False if breaks else _prepare(text)
    prepared: _Text | Literal[False] | None = _LAST[1]
    return prepared


def _locate_in_lines(text: str, parts: Sequence[str | int]) -> tuple[int, int] | None:
    """:func:`locate_in_text` by reading the lines of ``text`` (any block style this module models)."""
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
        if _COLON.search(rest):
            raise _Unsupported  # maybe a key _KEY does not read (escapes, "#", ...)
        return mark  # a scalar: the path ends here
    return _entry(lines, lo, hi, column, str(part), parts[1:], mark)  # str(): as the composed walk


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
                if index > lo and not _dash(line, indent):
                    raise _Unsupported
            else:
                found[_key(match)] = (index, match.end())
        index += 1
    memo[("entries", lo, hi, column)] = found
    return found


def _dash(line: str, column: int) -> bool:
    """Whether a sequence item's dash is at ``column`` of ``line``."""
    return line.startswith("- ", column) or (len(line) == column + 1 and line[column] == "-")


def _extent(lines: list[Line], index: int, hi: int, column: int) -> int:
    """End (exclusive) of the block value of the entry on ``lines[index]`` whose key is at ``column``."""
    memo = _memo(lines)
    known: int | None = memo.get(("extent", index, hi, column))
    if known is not None:
        return known
    end = index + 1
    while end < hi:
        indent = lines[end][1]
        if indent < column or (indent == column and not _dash(lines[end][2], indent)):
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


# ---------------------------------------------------------------------------------------------------
# Searching the text: documents without flow collections, multi-line quoted scalars, tabs, carriage
# returns, complex keys or node properties are walked with regular expressions over the whole text (C
# speed); the line reader above takes the rest.

#: The mapping key alternatives of :data:`_KEY` for searching a whole text (no match crosses a line).
_TEXT_KEY_ALTERNATIVES = (
    r"""(?:"(?P<dq>[^"\\\n]*)"|'(?P<sq>(?:[^'\n]|'')*)'|(?P<plain>[^\s#'"\[\]{},&*!|>%@`?:-][^#\n]*?|"""
    r"-[^\s#][^#\n]*?|:[^\s#][^#\n]*?))[ \t]*:(?:[ \t]+|$)"
)
_TEXT_KEY = re.compile(_TEXT_KEY_ALTERNATIVES, re.MULTILINE)
#: A quoted scalar left open at the end of its line (PyYAML reads its next lines at any indentation),
#: or ``?`` and a space (a complex key): each written from its indicator, checked to follow a space or a
#: line break (where a scalar starts in block style), so that a search only stops at that character.
_OPEN_DOUBLE = re.compile(r""""(?<=[ \t\n]")(?:[^"\\\n]|\\.)*\\?$""", re.MULTILINE)
_OPEN_SINGLE = re.compile(r"""'(?<=[ \t\n]')(?:[^'\n]|'')*$""", re.MULTILINE)
_OPEN_QUOTES = (('"', _OPEN_DOUBLE), ("'", _OPEN_SINGLE))
_COMPLEX_KEY = re.compile(r"\?(?<=[ \n]\?)(?: |$)", re.MULTILINE)
#: A quoted scalar that ends on its line.
_QUOTED = re.compile(r"""\"(?:[^"\\]|\\.)*\"|'(?:[^']|'')*'""")
#: An anchor, alias or tag (``&``, ``*`` or ``!`` after white space, ``,``, ``:``, ``?``, ``-`` or at
#: the start of the text); written indicator first so that the search only stops at those characters.
_NODE_PROPERTY = re.compile(r"[&*!](?<![^\s,:?-][&*!])")
#: The start of the next line with content (not blank, not a comment): group 1 is its indentation.
_CONTENT_LINE = re.compile(r"\n( *)(?=[^ \n#])")
#: ``:`` followed by a space or the end of the line (a key this walk did not read).
_COLON = re.compile(r":(?: |$)", re.MULTILINE)
#: ``---`` with nothing but a comment after it.
_DOCUMENT_START = re.compile(r"---(?: +(?:#.*)?)?$", re.MULTILINE)
#: Per column c: the next line indented at most c with content: a key or a dash at column c (groups
#: ``dq``, ``sq``, ``plain`` or ``dash``), else group ``other``.
_SIBLINGS: dict[int, re.Pattern[str]] = {}


def _siblings(column: int) -> re.Pattern[str]:
    pattern = _SIBLINGS.get(column)
    if pattern is None:
        pattern = _SIBLINGS[column] = re.compile(
            rf"\n(?! {{{column + 1}}})(?: {{{column}}}(?:{_TEXT_KEY_ALTERNATIVES}|(?P<dash>-(?: |$)))"
            r"|(?P<other> *(?=[^ \n#])))",
            re.MULTILINE,
        )
    return pattern


class _Text:
    """One document's text prepared for :func:`_walk_text`: ``t`` is the text after a line break (so
    that every line starts after ``\\n``); ``nodes`` remembers what was read (offset -> children)."""

    __slots__ = ("nodes", "root", "steps", "t")

    def __init__(self, text: str) -> None:
        self.t = "\n" + text
        self.nodes: dict[int, Any] = {}
        self.steps: dict[tuple[int, str | int], Step] = {}
        self.root: tuple[int, int] | None = None


def _prepare(text: str) -> _Text | Literal[False] | None:
    """The prepared text; ``None`` when the text uses syntax only the line reader models (tabs,
    carriage returns, flow collections other than ``[]`` and ``{}`` ending a line, complex keys,
    anchors, aliases and tags); ``False`` when neither reader does: a quoted scalar or a flow
    collection continued on the next line (PyYAML reads those lines at any indentation).
    Every check but the last is a search of the whole text in C."""
    prepared = _Text(text)
    t = prepared.t
    quotes = any(character in text and pattern.search(t) for character, pattern in _OPEN_QUOTES)
    flow = False
    for opening, closing, pair in (("{", "}", "{}\n"), ("[", "]", "[]\n")):
        if opening in text or closing in text:
            pairs = text.count(pair)
            flow = flow or text.count(opening) != pairs or text.count(closing) != pairs
    if quotes or flow:  # maybe only in block scalars: look at the lines with content
        try:
            lines = _lines(text)
        except _Unsupported:
            return False
        flow = False
        for _, _, line in lines:
            if ('"' in line or "'" in line) and any(p.search("\n" + line) for _, p in _OPEN_QUOTES):
                return False
            if "[" in line or "{" in line or "]" in line or "}" in line:
                if not _flow_closed(line):
                    return False
                brackets = line.count("[") + line.count("]") + line.count("{") + line.count("}")
                flow = flow or brackets != 2 or not line.endswith(("{}", "[]"))
    if flow or "\t" in text or "\r" in text:
        return None
    if ("&" in text or "*" in text or "!" in text) and _NODE_PROPERTY.search(text):
        return None
    if "?" in text and _COMPLEX_KEY.search(t):
        return None
    found = _CONTENT_LINE.search(t)
    if found is not None and found.end() == found.start() + 1 and t.startswith("---", found.end()):
        if not _DOCUMENT_START.match(t, found.end()):
            return None
        found = _CONTENT_LINE.search(t, _line_end(t, found.end()))
    if found is not None:
        prepared.root = (found.end(), len(found.group(1)))
    return prepared


def _flow_closed(line: str) -> bool:
    """Whether every flow collection opened on ``line`` also closes on it (over-cautious: ``False``
    also for some lines that are not YAML). Quoted scalars are skipped where a scalar starts (after a
    space, ``[``, ``{`` or ``,``); a quote right after ``:`` is not read; a comment ends the line."""
    depth = 0
    position = 0
    while position < len(line):
        character = line[position]
        before = line[position - 1] if position else " "
        if character in "[{":
            depth += 1
        elif character in "]}":
            depth -= 1
            if depth < 0:
                return False
        elif character in "\"'":
            if before == ":":
                return False
            if before in " [{,":
                quoted = _QUOTED.match(line, position)
                if quoted is None:
                    return False
                position = quoted.end()
                continue
        elif character == "#" and before == " ":
            break
        position += 1
    return depth == 0


def _line_end(t: str, offset: int) -> int:
    """Offset of the line break ending the line of ``offset`` (or the end of ``t``)."""
    end = t.find("\n", offset)
    return len(t) if end < 0 else end


def _node(prepared: _Text, offset: int, column: int, end: int) -> Any:
    """What starts at ``offset`` (column ``column``; its lines end before ``end``): ``None`` for a
    scalar (also an empty flow collection), ``{key: (key offset, value offset, value end)}`` for a
    mapping, ``[(dash offset, item end), ...]`` for a sequence.

    Raises:
        _Unsupported: a line the walk does not read (a key it cannot parse, a line indented less).
    """
    t = prepared.t
    line_end = t.find("\n", offset)
    if line_end < 0:
        line_end = len(t)
    node: Any
    if t.startswith("- ", offset) or (offset + 1 == line_end and t[offset] == "-"):
        items = []
        start = offset
        for match in _siblings(column).finditer(t, line_end, end):
            if match.lastgroup != "dash":
                raise _Unsupported
            items.append((start, match.start()))
            start = match.start() + 1 + column
        items.append((start, end))
        node = items
    else:
        first = _TEXT_KEY.match(t, offset)
        if first is None:
            if _COLON.search(t, offset, line_end):
                raise _Unsupported  # a key this walk does not read
            node = None
        else:
            entries = {}
            key = _key(first)
            start, after = offset, first.end()
            for match in _siblings(column).finditer(t, line_end, end):
                kind = match.lastgroup
                if kind == "dash":
                    continue  # an item of a sequence at its key's indentation
                if kind == "other" or kind is None:
                    raise _Unsupported
                entries[key] = (start, after, match.start())  # the last duplicate wins, as in the walk
                value = match.group(kind)
                key = (
                    value
                    if kind == "dq"
                    else value.replace("''", "'")
                    if kind == "sq"
                    else value.rstrip(" \t")
                )
                start, after = match.start() + 1 + column, match.end()
            entries[key] = (start, after, end)
            node = entries
    prepared.nodes[offset] = node
    return node


def _walk_text(prepared: _Text, parts: Sequence[str | int]) -> int:
    """Offset (in ``prepared.t``) of what PyYAML's composed tree gives for ``parts``.

    Raises:
        _Unsupported: the path crosses something the walk does not read (the line reader takes over).
    """
    steps = prepared.steps
    offset, column = prepared.root  # type: ignore[misc]
    end = len(prepared.t)
    mark = offset
    for part in parts:
        if part.__class__ is bool:  # True == 1 as a dict key, but str(True) is not str(1)
            step = _step(prepared, offset, column, end, part)
        else:
            known = steps.get((offset, part))
            if known is None:
                known = steps[(offset, part)] = _step(prepared, offset, column, end, part)
            step = known
        found, offset, column, end = step
        if found >= 0:
            mark = found
        if offset < 0:
            return mark
    return mark


#: What :func:`_step` answers: (the new mark or -1 to keep the last one, then the offset, column and
#: end of the node to go on from, the offset -1 when the walk stops here).
Step = tuple[int, int, int, int]
_STOP: Step = (-1, -1, 0, 0)


def _step(prepared: _Text, offset: int, column: int, end: int, part: str | int) -> Step:
    """One step of :func:`_walk_text`: from the node at ``offset`` (column ``column``, lines before
    ``end``) to its child ``part``."""
    t = prepared.t
    nodes = prepared.nodes
    node = nodes[offset] if offset in nodes else _node(prepared, offset, column, end)
    if type(node) is dict:
        found: tuple[int, int, int] | None = node.get(str(part))
        if found is None:
            return _STOP
        mark, after, end = found
        if after < len(t) and t[after] != "\n" and t[after] != "#":
            return mark, -1, 0, 0  # a scalar (or an empty flow collection) on the key's line
        following = _CONTENT_LINE.search(t, after, end)
        if following is None:
            return mark, -1, 0, 0  # an empty (null) value
        offset = following.end()
        return mark, offset, offset - following.start() - 1, end
    if node is None or not isinstance(part, int) or not 0 <= part < len(node):
        return _STOP
    item: tuple[int, int] = node[part]
    dash, end = item
    content = dash + 1
    while t.startswith(" ", content):
        content += 1
    if content < len(t) and t[content] != "\n" and t[content] != "#":
        if t.startswith("- ", content) or t.startswith("-\n", content) or content + 1 == len(t):
            raise _Unsupported  # "- - nested"
        return content, content, column + content - dash, end
    following = _CONTENT_LINE.search(t, content, end)
    if following is None:
        raise _Unsupported  # an empty item
    offset = following.end()
    return offset, offset, offset - following.start() - 1, end
