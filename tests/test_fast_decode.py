"""The fast path's JSON decoding (:func:`trainops.yaml.fast._decode`: jiter where it can answer exactly,
else the json module with a hook per object) gives the json module's values, key order, duplicate-key
records and errors on every text."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.yaml import fast

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)
EXAMPLES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "examples"
needs_shared = pytest.mark.skipif(not EXAMPLES_DIR.is_dir(), reason="../shared is not beside the repo")


def _typed(value: Any) -> Any:
    """``value`` with its types and mapping order made comparable (``NaN`` equal to itself)."""
    if isinstance(value, dict):
        return ("dict", [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def _outcome(decode: Any, text: str) -> Any:
    fast._DUPLICATES.clear()
    try:
        value = decode(text)
    except ValueError:
        return "rejected"
    recorded = [(_typed(mapping), keys) for mapping, keys in fast._DUPLICATES]
    fast._DUPLICATES.clear()
    return _typed(value), recorded


def _same_as_the_json_module(text: str) -> None:
    assert _outcome(fast._decode, text) == _outcome(fast._DECODER.decode, text)


#: Strings as JSON text: escaped by json.dumps, or raw with what JSON forbids or json keeps.
STRINGS = st.one_of(
    st.text(alphabet='ab"\\/\n\t\x01\x7f\x85\u2028é😀', max_size=4).map(json.dumps),
    st.text(alphabet='ab"\\/\n\t\x01\x7f\x85\u2028é😀', max_size=4).map(
        lambda s: json.dumps(s, ensure_ascii=False)
    ),
    st.sampled_from(
        ['"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"a\x01"', '"\\u0061"', '"\\x"', '""']
    ),
)
NUMBERS = st.one_of(
    st.integers().map(str),
    st.sampled_from(["-0", "0", "01", "1.", ".5", "1.5", "-0.0", "1e3", "1E+2", "2.5e-3", "NaN", "Infinity"]),
    st.sampled_from(
        ["-Infinity", "1" * 4300, "-" + "9" * 4300, "1" * 4301, "123456789012345678901234567890"]
    ),
    st.floats(allow_nan=False).map(repr),
)
SCALARS = st.one_of(STRINGS, NUMBERS, st.sampled_from(["true", "false", "null", "tru", "nul"]))
KEYS = st.one_of(st.sampled_from(['"a"', '"b"', '"\\u0061"', '""', '"a "']), STRINGS)


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in pairs) + "}"


def _array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


TEXTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(_array),
        st.lists(st.tuples(KEYS, inner), max_size=4).map(_object),
    ),
    max_leaves=12,
)


@EXAMPLES
@given(TEXTS, st.sampled_from(["", "\n", " x", "\ufeff"]))
def test_decoding_is_the_json_modules(text: str, around: str) -> None:
    _same_as_the_json_module(text + around if around != "\ufeff" else around + text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"a": 1, "\\u0061": {"b": 1, "b": 2}}',
        '{"m": {"k": 1, "k": 2}, "m": {"x": 1}}',
        '{"k": [1, 2.5]}',
        '{"k": 1e3}',
        '{"k": "\\ud800"}',
        '{"k": ' + "1" * 4301 + "}",
        '{"k": NaN, "i": -Infinity}',
    ],
)
def test_decoding_on_examples(text: str) -> None:
    _same_as_the_json_module(text)


def test_a_float_takes_the_json_module() -> None:
    assert fast._float_token_in()('{"cpu": 0.5}')
    assert not fast._float_token_in()('{"image": "pytorch:2.3.1", "tag": "1.5"}')
    assert math.isnan(fast._decode('{"k": NaN}')["k"])


@needs_shared
def test_decoding_rapidyamls_json_of_the_upstream_examples() -> None:
    texts = []
    for path in sorted(EXAMPLES_DIR.rglob("*.yaml")):
        for chunk in fast.split_documents(path.read_text(encoding="utf-8")) or []:
            try:
                tree = fast._quiet_parse(chunk.text.encode("utf-8"))
                texts.append(fast._emit_json(tree, tree.root_id()))
            except Exception:  # rapidyaml rejects it: nothing to decode
                continue
    assert len(texts) > 300
    assert [_outcome(fast._decode, t) for t in texts] == [_outcome(fast._DECODER.decode, t) for t in texts]
