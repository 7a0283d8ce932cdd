"""Line-based positions (trainops.yaml.locate) give exactly what PyYAML's composed tree gives."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, REPO, SAMPLE
from trainops.yaml.load import Document, stream_text
from trainops.yaml.locate import locate_in_text
from trainops.yaml.pyyaml_path import Loader as _Loader

Parts = tuple[str | int, ...]


def _composed(text: str, parts: Parts) -> tuple[int, int]:
    """The composed tree's answer (0-based), as Document.locate gives it without fast text."""
    document = Document("x", 0, None, None, [], 0, None)
    document.node = yaml.compose(text, Loader=_Loader)
    line, column = document.locate(parts)
    return line - 1, column - 1


def _paths(value: Any, prefix: Parts = ()) -> Iterator[Parts]:
    """Every path of ``value`` plus one missing key or index below each collection."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
        yield (*prefix, "no-such-key")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))
        yield (*prefix, len(value))


def _files() -> list[str]:
    found = (
        sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.y*ml")) if EXAMPLES.is_dir() else []
    )
    return [*found, *(f"REPO/{p.relative_to(REPO)}" for p in sorted((SAMPLE / "generated").rglob("*.yaml")))]


@pytest.mark.parametrize("rel", _files())
def test_same_position_as_the_composed_tree(rel: str) -> None:
    path = REPO / rel.removeprefix("REPO/") if rel.startswith("REPO/") else EXAMPLES / rel
    text = path.read_text(encoding="utf-8", errors="replace")
    compared = 0
    for document in stream_text(text, rel):
        if not isinstance(document, Document) or document.text is None or document.data is None:
            continue
        for parts in _paths(document.data):
            fast = locate_in_text(document.text, parts)
            if fast is not None:
                assert fast == _composed(document.text, parts), parts
                compared += 1
    if rel.startswith("REPO/generated/"):
        assert compared > 0  # trainops's own output is plain block style throughout


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
        ("a: {b: 1}\n", ("a", "b"), None),
        ("a: [1, 2]\n", ("a", 0), None),
        ("a:\n- - x\n", ("a", 0, 0), None),
        # Quoted scalars and flow collections go on at any indentation: compose.
        ('a: "x\nb: y"\n', ("b",), None),
        ("a: 'x\nb: y'\n", ("b",), None),
        ("a: [1,\nb: 2]\n", ("b",), None),
        ('a: ["x]",\nb: 2]\n', ("b",), None),
        # A first key the readers cannot parse (an escape) is not taken for a scalar.
        ('"a\\"b": 1\nc: 2\n', ("c",), None),
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
    ],
)
def test_cases(text: str, parts: Parts, expected: tuple[int, int] | None) -> None:
    assert locate_in_text(text, parts) == expected
    if expected is not None:
        assert expected == _composed(text, parts)
