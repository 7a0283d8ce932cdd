"""A direct YAML writer for synth's normalised objects, byte-identical to
:func:`trainops.yaml.dump.dump_document` (PyYAML's ``KubeDumper``: block style, indent 2, sequences in
mappings not indented, no line folding) for the documents it accepts, and about ten times faster
(PyYAML builds a node graph and an event stream for every scalar).

It writes mappings with string keys, lists, ``None``, booleans, integers and single-line ASCII
strings; a string is plain exactly when PyYAML's emitter (``Emitter.analyze_scalar``,
``choose_scalar_style``; libyaml ``yaml_emitter_analyze_scalar``) would write it plain and the
dumper's implicit resolvers read it back as a string, else single-quoted. Anything else (multi-line
or non-ASCII strings, floats, long keys, a container appearing twice) makes :func:`dump` fall back
to PyYAML for the whole document. ``tests/test_fast_dump.py`` compares both on generated/, the
golden files and generated documents.
"""

from __future__ import annotations

import re
from typing import Any

from trainops.yaml.dump import KubeDumper, dump_document

#: Characters that make a plain scalar impossible when first (PyYAML ``analyze_scalar``).
_LEADING_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
#: Printable ASCII without a line break: the strings this writer handles itself.
_ASCII_LINE = re.compile(r"[\x20-\x7e]*")
#: libyaml writes a mapping key of more than 128 characters as a complex key (``? key``).
_SIMPLE_KEY_MAX = 128


class _Fallback(Exception):
    """The document holds something this writer leaves to PyYAML."""


def dump(obj: dict[str, Any]) -> str:
    """``obj`` as one YAML document, exactly as :func:`trainops.yaml.dump.dump_document` writes it."""
    try:
        lines: list[str] = []
        _mapping(obj, 0, lines, set())
    except _Fallback:
        return dump_document(obj)
    if not lines:
        return dump_document(obj)
    return "".join(lines)


_SCALARS: dict[str, str] = {}


def _scalar(value: str) -> str:
    """A single-line ASCII string as PyYAML writes it: plain, or single-quoted."""
    cached = _SCALARS.get(value)
    if cached is not None:
        return cached
    if not _ASCII_LINE.fullmatch(value):
        raise _Fallback
    text = value if _plain(value) else "'" + value.replace("'", "''") + "'"
    if len(_SCALARS) < 100_000:
        _SCALARS[value] = text
    return text


def _plain(value: str) -> bool:
    """Whether the emitter writes ``value`` (printable ASCII, one line) as a plain block scalar."""
    if not value or value[0] == " " or value[-1] == " " or value.startswith(("---", "...")):
        return False
    first = value[0]
    follows_space = len(value) == 1 or value[1] == " "
    if first in _LEADING_INDICATORS or (first in "?:-" and follows_space):
        return False
    for index in range(1, len(value)):
        ch = value[index]
        if ch == ":" and (index + 1 == len(value) or value[index + 1] == " "):
            return False
        if ch == "#" and value[index - 1] == " ":
            return False
    return _resolves_to_string(value)


def _resolves_to_string(value: str) -> bool:
    """Whether the dumper's implicit resolvers read ``value`` back as a string (PyYAML
    ``BaseResolver.resolve``), i.e. no bool/int/float/null/timestamp/merge/value pattern matches."""
    resolvers = KubeDumper.yaml_implicit_resolvers
    candidates = resolvers.get(value[0], []) + resolvers.get(None, [])
    return not any(regexp.match(value) for _, regexp in candidates)


def _key(key: Any) -> str:
    if not isinstance(key, str) or len(key) > _SIMPLE_KEY_MAX or not key:
        raise _Fallback
    return _scalar(key)


def _value(value: Any) -> str:
    """An inline scalar or empty collection, or :class:`_Fallback`."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _scalar(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, list) and not value:
        return "[]"
    raise _Fallback


def _seen(value: Any, seen: set[int]) -> None:
    """PyYAML writes a container that appears twice as an anchor and alias: leave that to it."""
    if id(value) in seen:
        raise _Fallback
    seen.add(id(value))


def _mapping(obj: dict[str, Any], indent: int, lines: list[str], seen: set[int], first: str = "") -> None:
    """Write a non-empty mapping at ``indent``; its first line starts with ``first`` (``"- "`` of a
    list item) instead of the indentation."""
    _seen(obj, seen)
    pad = " " * indent
    lead = first or pad
    for key, item in obj.items():
        prefix = lead + _key(key) + ":"
        lead = pad
        if isinstance(item, dict) and item:
            lines.append(prefix + "\n")
            _mapping(item, indent + 2, lines, seen)
        elif isinstance(item, list) and item:
            lines.append(prefix + "\n")
            _sequence(item, indent, lines, seen)
        else:
            lines.append(prefix + " " + _value(item) + "\n")


def _sequence(items: list[Any], indent: int, lines: list[str], seen: set[int], first: str = "") -> None:
    """Write a non-empty list whose dashes sit at ``indent`` (the first after ``first``)."""
    _seen(items, seen)
    pad = " " * indent
    lead = first or pad
    for item in items:
        if isinstance(item, dict) and item:
            _mapping(item, indent + 2, lines, seen, first=lead + "- ")
        elif isinstance(item, list) and item:
            _sequence(item, indent + 2, lines, seen, first=lead + "- ")
        else:
            lines.append(lead + "- " + _value(item) + "\n")
        lead = pad
