"""Faster paths that give exactly the plain path's results, each kept only while ``make bench`` shows
it at least 1.5x faster on the command it speeds up (bench/README.md), behind one switch:
``TRAINOPS_ACCEL=0`` turns every one off (default: on where built).

* :func:`block_pieces`, :func:`parse_block` and :func:`locate_block`: ``trainops._accel._blockyaml``, a C reader of the
  block YAML most manifests are written in (``_blockyaml.c``, built by ``setup.py`` when a C compiler
  is there). :func:`trainops.yaml.load.stream_text` hands it the documents of a text made only of tab,
  line feed and printable ASCII; it declines (``None``) anything outside its subset, and such a
  document is read by PyYAML as on the plain path. The positions of findings in a document it read
  come from the same reader (:func:`locate_block`), where PyYAML's marks put them; the plain path
  composes the document with PyYAML. ``tests/accel/test_accel.py`` requires byte-identical reports
  both ways on ../shared/examples and the bundled output, and the same position as PyYAML's for every
  node of their documents.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import cache
from itertools import pairwise
from typing import Any

#: The switch: ``0`` turns every faster path off.
ACCEL_ENV = "TRAINOPS_ACCEL"


def enabled() -> bool:
    """Whether faster paths may be used (``TRAINOPS_ACCEL`` is not ``0``)."""
    return os.environ.get(ACCEL_ENV, "1") != "0"


@cache
def _parse() -> Callable[[str], tuple[Any, list[str], list[Any]] | None] | None:
    try:
        from trainops._accel._blockyaml import parse  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # built without a C compiler: the plain path only
        return None
    return parse  # type: ignore[no-any-return,unused-ignore]


@cache
def _locate() -> Callable[[str, tuple[str | int, ...]], tuple[int, int] | None] | None:
    try:
        from trainops._accel._blockyaml import locate  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # built without a C compiler, or an older build without locate
        return None
    return locate  # type: ignore[no-any-return,unused-ignore]


#: Tab, line feed and printable ASCII: a text with any other character takes the plain path (the
#: reader models neither other line breaks nor characters go-yaml refuses). Tested by deleting these
#: bytes from the text's ASCII encoding (a table lookup per byte, unlike a regular expression).
_READABLE = bytes([0x09, 0x0A, *range(0x20, 0x7F)])
#: Stream syntax the splitter does not model: directives and document-end markers.
_STREAM_SYNTAX = r"(?m)^(?:%|\.\.\.(?:[ \t]|$))"
#: A line that starts a document: ``---`` at column 0 followed by a blank, a line end or the end.
_DOC_START = re.compile(r"^---(?:[ \t]|$)")
#: The same after the first line, searched from its literal ``\n---`` (the match starts one
#: character before the document).
_NEXT_DOC_START = re.compile(r"\n---(?=[ \t\n]|\Z)")
#: A line with content (YAML's white space is only space and tab).
_CONTENT = re.compile(r"^[ \t]*[^ \t\n#]", re.MULTILINE)


def block_pieces(text: str) -> list[tuple[str, int]] | None:
    """The documents of ``text`` as ``(text, lines before it)`` pairs for :func:`parse_block`, or
    ``None`` (take the plain path): the switch is off, the reader is not built, or ``text`` holds a
    character other than tab, line feed and printable ASCII, a directive or a ``...`` marker.

    A ``---`` line at column 0 always starts a document (YAML forbids it inside scalars and flow
    collections); text before the first one is a document only when it has content.
    """
    if not enabled() or _parse() is None or not text.isascii():
        return None
    if text.encode("ascii").translate(None, _READABLE):  # a character other than the readable ones
        return None
    if ("\n%" in text or "\n..." in text or text.startswith(("%", "..."))) and re.search(
        _STREAM_SYNTAX, text
    ):
        return None
    starts = [m.start() + 1 for m in _NEXT_DOC_START.finditer(text)]
    if _DOC_START.match(text):
        starts.insert(0, 0)
    bounds = [0, *starts, len(text)]
    pieces: list[tuple[str, int]] = []
    line = 0
    for begin, end in pairwise(bounds):
        piece = text[begin:end]
        if begin > 0 or (begin < end and _CONTENT.search(piece)):
            pieces.append((piece, line))
        line += piece.count("\n")
    return pieces


def parse_block(piece: str) -> tuple[Any, list[str], list[Any]] | None:
    """``(value, strings, envs)`` of one document ``piece`` (from :func:`block_pieces`): its value as
    the plain path builds it, its string values (mapping keys left out) and the value of each of its
    ``env`` keys but null (what :func:`trainops.validate.scan.scan` collects, in document order); or
    ``None`` when the reader declines it (then read it with PyYAML). An integer it reads has at most
    18 characters: none is outside int64."""
    parse = _parse()
    return parse(piece) if parse is not None else None


def locate_block(piece: str, parts: tuple[str | int, ...]) -> tuple[int, int] | None:
    """The 0-based ``(line, column)`` of the node at ``parts`` in ``piece`` (a document
    :func:`parse_block` read), or of its deepest existing ancestor, as PyYAML's marks give it (a
    mapping entry at its key, a sequence item at its node); ``None`` when the switch is off, the
    reader is not built, or it declines the piece (then compose it with PyYAML)."""
    locate = _locate() if enabled() else None
    return None if locate is None else locate(piece, parts)
