"""The fast path's one-pass YAML 1.1 screen (:data:`trainops.yaml.fast._SCREEN_JSON`) flags exactly the
texts that one of the two screens it joins (``_AMBIGUOUS_JSON``, ``_RESERVED_JSON``) flags, so the same
documents take the PyYAML path as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.yaml import fast

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)
#: Every character the two screens name, and a few others.
ALPHABET = '"[]{},: \n\t%?&*@`ab\x85\u3000yYnNoOtTfF~.+-0189_xesSlLuUrRiIAE'
EXAMPLES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "examples"
needs_shared = pytest.mark.skipif(not EXAMPLES_DIR.is_dir(), reason="../shared is not beside the repo")


def _either(text: str) -> bool:
    return (
        fast._pattern(fast._AMBIGUOUS_JSON).search(text) is not None
        or fast._pattern(fast._RESERVED_JSON).search(text) is not None
    )


@EXAMPLES
@given(st.text(alphabet=ALPHABET, max_size=16))
def test_one_pass_screen_flags_what_either_screen_flags(text: str) -> None:
    assert (fast._pattern(fast._SCREEN_JSON).search(text) is not None) == _either(text)


@pytest.mark.parametrize(
    "text",
    ['{"k": "on"}', '{"k": "0755"}', '{"": 1}', '{"k": "]x"}', '[":x"]', '{"k": "ok"}', '{"k": "1.5"}'],
)
def test_one_pass_screen_on_documents(text: str) -> None:
    assert (fast._pattern(fast._SCREEN_JSON).search(text) is not None) == _either(text)


def _example_json() -> list[str]:
    texts = []
    for path in sorted(EXAMPLES_DIR.rglob("*.yaml")):
        chunks = fast.split_documents(path.read_text(encoding="utf-8")) or []
        for chunk in chunks:
            try:
                tree = fast._quiet_parse(chunk.text.encode("utf-8"))
                texts.append(fast._emit_json(tree, tree.root_id()))
            except Exception:  # rapidyaml rejects it: nothing to screen
                continue
    return texts


@needs_shared
def test_one_pass_screen_on_the_upstream_examples() -> None:
    texts = _example_json()
    assert len(texts) > 300
    assert [fast._pattern(fast._SCREEN_JSON).search(t) is not None for t in texts] == [
        _either(t) for t in texts
    ]
