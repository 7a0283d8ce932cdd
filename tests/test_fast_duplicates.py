"""Duplicate keys on the fast path: same values, problems and positions as the PyYAML path."""

from __future__ import annotations

import pytest

from trainops.yaml.fast import fast_document
from trainops.yaml.load import Document, stream_text
from trainops.yaml.pyyaml_path import stream_pyyaml


@pytest.mark.parametrize(
    ("text", "duplicates"),
    [
        ("a: 1\na: 2\n", [((), "a")]),
        ("a: 1\na: 2\na: 3\n", [((), "a"), ((), "a")]),
        ("m:\n  k: 1\n  x: 0\n  k: 2\n", [(("m",), "k")]),
        ("l:\n- k: 1\n  k: 2\n- k: 3\n", [(("l", 0), "k")]),
        ("a: 1\nm:\n  k: [1]\n  k: {b: 2}\na: 4\n", [((), "a"), (("m",), "k")]),
    ],
)
def test_same_as_the_pyyaml_path(text: str, duplicates: list[tuple[tuple[str | int, ...], str]]) -> None:
    fast, value, found = fast_document(text)
    assert (fast, found) == (True, duplicates)
    [reference] = [d for d in stream_pyyaml(text, "x.yaml") if isinstance(d, Document)]
    [document] = [d for d in stream_text(text, "x.yaml") if isinstance(d, Document)]
    assert document.node is None  # the fast path
    assert value == document.data == reference.data
    assert sorted(map(repr, document.problems)) == sorted(map(repr, reference.problems))
    assert [document.locate(p.parts) for p in document.problems] == [
        reference.locate(p.parts) for p in document.problems
    ]


def test_a_duplicate_inside_a_replaced_value_takes_the_pyyaml_path() -> None:
    assert fast_document("m:\n  k: 1\n  k: 2\nm:\n  x: 1\n") == (False, None, [])
