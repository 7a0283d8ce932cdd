"""``textsearch.searcher`` (Rust's regex crate through jsonschema-rs) finds a pattern exactly where
Python's ``re`` does, for the patterns trainops searches with."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops import credentials
from trainops.textsearch import searcher
from trainops.yaml import fast

PATTERNS = {
    "float token": fast._FLOAT_TOKEN,
    "depth prefix": "(?:^|\n)[ \t?-]{3}",
    "secret name": credentials._SECRET_NAME_IN_JSON,
}
_TEXT = st.text(st.sampled_from('0123456789.eE-+:[],{}" \t\n\rabnmpPASWORDtokey\\'), max_size=40)


@pytest.mark.parametrize("pattern", list(PATTERNS.values()), ids=list(PATTERNS))
@settings(max_examples=400, deadline=None)
@given(text=_TEXT)
def test_same_answers_as_re(pattern: str, text: str) -> None:
    # re's "$" also matches before a final line break; none of these patterns end a match there alone
    assert searcher(pattern)(text) == (re.search(pattern, text) is not None)


def test_fallback_when_jsonschema_rs_refuses_the_pattern() -> None:
    # "(?#...)" comments are Python syntax, refused as a JSON Schema pattern
    assert searcher("(?#c)ab", lambda text: text == "chosen")("chosen")
    assert searcher("(?#c)ab")("xab") and not searcher("(?#c)ab")("xac")  # default: re
