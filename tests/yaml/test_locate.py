"""Positions of findings come from PyYAML's composed tree (the parser's marks), whatever the line
breaks: ``Document.locate`` gives the key of a mapping entry, the item of a sequence, or the deepest
existing ancestor."""

from __future__ import annotations

import pytest

from trainops.yaml.load import Document
from trainops.yaml.nodes import compose

Parts = tuple[str | int, ...]


def _located(text: str, parts: Parts) -> tuple[int, int]:
    """Document.locate's answer, 0-based."""
    document = Document("x", 0, None, compose(text), [], 0)
    line, column = document.locate(parts)
    return line - 1, column - 1


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        ("a:\n  b: 1\n", ("a", "b"), (1, 2)),
        ("a:\n  b: 1\n", ("a", "c"), (0, 0)),
        ("a:\n- x\n- y: 1\n  z: 2\n", ("a", 1, "z"), (3, 2)),
        ("a:\n  - x\n  - y\n", ("a", 5), (0, 0)),
        ("# c\n---\nk: |\n  b: 1\n  c: 2\nc: 3\n", ("c",), (5, 0)),
        ("'q''k': 1\n\"d\": 2\n", ("q'k",), (0, 0)),
        ("l:\n-\n  n: 1\n", ("l", 0, "n"), (2, 2)),
        # "-{#" is a key, not a sequence item.
        ("-k: 1\n-x: 2\n", ("-x",), (1, 0)),
        # An int part looks a mapping up by its text, as the composed walk does.
        ('a:\n  "0": 1\n', ("a", 0), (1, 2)),
        ("a:\n  0: 1\n", ("a", 0), (1, 2)),
        # The last duplicate key wins, with its own value.
        ("a: 1\nb:\n  c: 1\na:\n  d: 2\n", ("a", "d"), (4, 2)),
        ("a:\n  c: 1\nb: 1\na:\n  d: 2\n", ("a", "c"), (3, 0)),
        # Indentless sequences, comments at any indentation, items starting on the next line.
        ("k:\n# c\n- x\n   # c\n-   y: 1\n    z: 2\n", ("k", 1, "z"), (5, 4)),
        ("k:\n-\n  # c\n  y: |\n    a: b\n  z: {}\n", ("k", 0, "z", "q"), (5, 2)),
        ("--- # c\nk:\n  - []\n", ("k", 0, 1), (2, 4)),
        # Every line break YAML knows counts as go-yaml counts it: CR LF once, a lone CR, NEL, LS, PS.
        ("a: 1\r\nb:\r\n  c: 2\r\n", ("b", "c"), (2, 2)),
        ("a: 1\rb:\r  c: 2\r", ("b", "c"), (2, 2)),
        ("a: 1\r\nb: 2\rc:\n  d: 3\n", ("c", "d"), (3, 2)),
        ("a: 1\x85b: 2\u2028c: 3\u2029d: 4\n", ("d",), (3, 0)),
        ('a: "x\r\n  y"\r\nb: 1\r\n', ("b",), (2, 0)),
        ("flow: {a: 1,\r\n  b: [x,\r\n    y]}\r\n", ("flow", "b", 1), (2, 4)),
    ],
)
def test_cases(text: str, parts: Parts, expected: tuple[int, int]) -> None:
    assert _located(text, parts) == expected


def test_a_document_given_as_text_is_composed_on_first_use() -> None:
    document = Document("x", 0, {"a": {"b": 1}}, None, [], 4, "a:\r\n  b: 1\r\n")
    assert document.locate(("a", "b")) == (6, 3)
    assert document.line == 5
