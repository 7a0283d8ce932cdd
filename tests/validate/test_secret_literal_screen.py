"""``secret-literal`` walks a document string by string only when ``_may_hold_literal`` says a string
can be flagged: that answer is never ``False`` for a document with a finding (upstream examples, the
bundled output, generated documents)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, SAMPLE
from trainops.core.credentials import walk_strings
from trainops.validate.checks.secret_literal import _may_hold_literal, _problem
from trainops.yaml.load import Document, stream_text

MANY = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)


def _flagged(kind: str, data: Any) -> bool:
    return any(_problem(kind, parts, value, data) is not None for parts, value in walk_strings(data))


def _documents() -> list[Any]:
    paths = sorted((SAMPLE / "generated").rglob("*.yaml"))
    if EXAMPLES.is_dir():
        paths += sorted(EXAMPLES.rglob("*.y*ml"))
    found = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [
            d.data
            for d in stream_text(text, str(path))
            if isinstance(d, Document) and isinstance(d.data, dict)
        ]
    return found


def test_never_false_for_a_flagged_document() -> None:
    documents = _documents()
    assert len(documents) > 300
    # Secrets and ConfigMaps are always walked (their data is checked by key name and decoded)
    skipped = [
        d for d in documents if d.get("kind") not in ("Secret", "ConfigMap") and not _may_hold_literal(d)
    ]
    assert skipped  # most documents are not walked
    assert not [d for d in skipped if _flagged(str(d.get("kind")), d)]


STRINGS = st.sampled_from(
    [
        "x",
        "AKIA" + "A" * 16,
        "ghp_" + "a" * 36,
        "hunter2-prod",
        "$(REF)",
        "",
        "eyJhbGciOi",
        "https://u:p@h",
        "ok",
    ]
)
NAMES = st.sampled_from(["DB_PASSWORD", "API_KEY", "LOG_LEVEL", "token", "x", "SECRET"])
ENV = st.lists(st.fixed_dictionaries({"name": NAMES, "value": STRINGS}), max_size=3)
VALUES = st.recursive(
    STRINGS | st.integers(0, 3) | st.none(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "value", "name"]), children, max_size=3)
        | st.fixed_dictionaries({"env": ENV})
    ),
    max_leaves=15,
)


@MANY
@given(data=st.dictionaries(st.sampled_from(["spec", "metadata", "env", "x"]), VALUES, max_size=4))
@pytest.mark.parametrize("kind", ["Deployment", "Pod"])
def test_never_false_for_a_flagged_generated_document(kind: str, data: dict[str, Any]) -> None:
    assert _may_hold_literal(data) or not _flagged(kind, data)
