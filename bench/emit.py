"""A small deterministic YAML emitter that knows the line of every path it writes.

The corpus needs three things PyYAML's dumper does not give: byte-stable block-style output in the
shape ``kubectl``/``trainops synth`` write (sequences not indented under their key), mappings with a
*duplicate* key (:class:`Pairs`), and the 1-based line of one chosen JSON path, so that the expected
verdicts can say where a validator should point.

Path parts follow trainops's convention: a mapping key is a ``str``, a sequence index an ``int``.
The line of a mapping entry is the line of its key; the line of a sequence item is its ``-`` line
(for a mapping item that is also the line of its first key). A duplicated key reports its *last*
occurrence, the one a strict decoder trips over.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import yaml

Parts = tuple[str | int, ...]

_PLAIN = re.compile(r"^[A-Za-z0-9_/.][A-Za-z0-9 _./@+=:,-]*$")
#: Words some YAML 1.1 readers take for booleans although PyYAML does not.
_RESERVED = frozenset({"y", "n"})
_RESOLVER = yaml.resolver.Resolver()
#: Numbers in YAML 1.2 readers (go-yaml) that YAML 1.1 takes for strings, e.g. ``1e5``, ``0o17``.
_NUMBER_12 = re.compile(r"^[-+]?(?:[0-9][0-9_.]*(?:[eE][-+]?[0-9]+)?|0o[0-7]+)$")


class Pairs(list[tuple[str, Any]]):
    """An ordered mapping written as-is, so it may repeat a key (a duplicate-key document)."""


def scalar(value: Any) -> str:
    """One scalar in flow position: plain when unambiguous, else single- or double-quoted."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if _plain_ok(text):
        return text
    if text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


@lru_cache(maxsize=65536)
def _plain_ok(text: str) -> bool:
    """Whether ``text`` written plain reads back as the same string (YAML 1.1 resolution, as PyYAML)."""
    return (
        _PLAIN.match(text) is not None
        and text.lower() not in _RESERVED
        and not text.endswith((" ", ":"))
        and ": " not in text
        and " #" not in text
        and not _NUMBER_12.match(text)
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str"  # type: ignore[no-untyped-call]
    )


def _block_literal(text: str, indent: str) -> list[str] | None:
    """``|``/``|-`` block lines for a multi-line string, or ``None`` when it must be quoted."""
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    if not lines[0] or lines[0][0] == " " or any(line != line.rstrip() or "\t" in line for line in lines):
        return None
    if any(not line.isprintable() for line in lines):
        return None
    header = "|" if text.endswith("\n") else "|-"
    return [header, *(f"{indent}{line}" if line else "" for line in lines)]


class Emitter:
    """Write one document; ``target_line`` is the 1-based line of ``target`` (``None``: not written).

    Args:
        target: the JSON path (as parts) whose line to record; ``()`` is the document itself (line 1).
    """

    def __init__(self, target: Parts | None = None) -> None:
        self.lines: list[str] = []
        self.target = target
        self.target_line: int | None = 1 if target == () else None

    def document(self, value: Any) -> str:
        """The document's text (no ``---``), ending with a newline."""
        if isinstance(value, dict | Pairs) and _items(value):
            self._mapping(value, 0, ())
        else:
            self.lines.append(self._inline(value))
        return "\n".join(self.lines) + "\n"

    def _mark(self, path: Parts) -> None:
        if path == self.target:
            self.target_line = len(self.lines)

    def _inline(self, value: Any) -> str:
        if isinstance(value, dict | Pairs) and not _items(value):
            return "{}"
        if isinstance(value, list) and not value:
            return "[]"
        return scalar(value)

    def _mapping(
        self, value: dict[str, Any] | Pairs, indent: int, path: Parts, first: str | None = None
    ) -> None:
        """Entries at ``indent``; ``first`` replaces the first entry's indentation (``"- "`` items)."""
        pad = " " * indent
        for number, (key, item) in enumerate(_items(value)):
            lead = first if first is not None and number == 0 else pad
            head = f"{lead}{scalar(key)}:"
            self._entry(head, item, indent, (*path, key))

    def _entry(self, head: str, item: Any, indent: int, path: Parts) -> None:
        if isinstance(item, dict | Pairs) and _items(item):
            self.lines.append(head)
            self._mark(path)
            self._mapping(item, indent + 2, path)
        elif isinstance(item, list) and item:
            self.lines.append(head)
            self._mark(path)
            self._sequence(item, indent, path)
        elif isinstance(item, str) and "\n" in item and (block := _block_literal(item, " " * (indent + 2))):
            self.lines.append(f"{head} {block[0]}")
            self._mark(path)
            self.lines.extend(block[1:])
        else:
            self.lines.append(f"{head} {self._inline(item)}")
            self._mark(path)

    def _sequence(self, items: list[Any], indent: int, path: Parts) -> None:
        pad = " " * indent
        for index, item in enumerate(items):
            item_path = (*path, index)
            if isinstance(item, dict | Pairs) and _items(item):
                start = len(self.lines) + 1
                self._mapping(item, indent + 2, item_path, first=f"{pad}- ")
                if item_path == self.target:
                    self.target_line = start
            elif isinstance(item, list) and item:
                self.lines.append(f"{pad}-")
                self._mark(item_path)
                self._sequence(item, indent + 2, item_path)
            else:
                self.lines.append(f"{pad}- {self._inline(item)}")
                self._mark(item_path)


def _items(value: dict[str, Any] | Pairs) -> list[tuple[str, Any]]:
    return list(value) if isinstance(value, Pairs) else list(value.items())


def emit(value: Any, target: Parts | None = None) -> tuple[str, int | None]:
    """``(text, line of target)`` for one document; see :class:`Emitter`."""
    emitter = Emitter(target)
    text = emitter.document(value)
    return text, emitter.target_line
