"""synth's direct YAML writer (``trainops.synth.fast_dump``) writes exactly what PyYAML's ``KubeDumper``
(``trainops.yaml.dump.dump_document``) writes: on every generated/ and golden file, and on generated
documents full of strings YAML readers would misread."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE
from trainops.synth.fast_dump import _plain, dump
from trainops.yaml.dump import dump_document

REPO = Path(__file__).resolve().parents[1]
FILES = sorted(
    [*(SAMPLE / "generated").rglob("*.yaml"), *(REPO / "tests" / "golden").rglob("*.yaml")],
    key=lambda p: p.as_posix(),
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_writes_the_committed_files_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    if len(documents) != 1:
        pytest.skip("not one document")
    assert dump_document(documents[0]) == text  # the oracle reproduces the file
    assert dump(documents[0]) == text


# Strings that YAML 1.1/1.2 readers resolve to other types, indicator characters in every position,
# quotes, spaces, and a few that need PyYAML (line breaks, non-ASCII).
WORDS = st.sampled_from(
    [
        "a", "web", "x-1", "yes", "No", "y", "n", "on", "OFF", "true", "null", "~", "", "0", "07", "0o17",
        "0x1f", "1e3", "1.5", ".inf", "-.5", "1_000", "2026-11-23", "12:30", "<<", "=", "-", "--", "---",
        "...", "?", ":", "::", "a:b", "a: b", "a:", "#", "a#b", "a #b", "- x", "-x", "?x", "? x", "[a]",
        "{a}", "a,b", "&a", "*a", "!a", "|", ">", "'q'", '"q"', "%", "@a", "`a", " lead", "trail ",
        "in side", "it's", "a\nb", "é", "tab\there", "/data", "500m", "64Gi", "registry/x:1.2@sha256:ab",
    ]
)  # fmt: skip
SCALARS = st.one_of(WORDS, st.text(max_size=12), st.integers(-(2**40), 2**40), st.booleans(), st.none())
KEYS = st.one_of(WORDS, st.text(min_size=1, max_size=10))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)
CHECKED = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@CHECKED
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=5))
def test_writes_what_pyyaml_writes(document: dict[str, Any]) -> None:
    assert dump(document) == dump_document(document)


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("web", True),
        ("a:b", True),
        ("a#b", True),
        ("yes", False),  # a YAML 1.1 boolean
        ("y", False),  # go-yaml v2 reads it as a boolean
        ("0o17", False),  # a YAML 1.2 integer
        ("a: b", False),
        ("a #b", False),
        ("- x", False),
        ("trail ", False),
    ],
)
def test_plain_when_pyyaml_writes_it_plain(value: str, plain: bool) -> None:
    assert _plain(value) is plain
    assert (dump_document({"k": value}) == f"k: {value}\n") is plain


def test_shared_container_left_to_pyyaml() -> None:
    shared = {"a": 1}
    document = {"x": shared, "y": shared}
    assert dump(document) == dump_document(document)
    assert "&id001" in dump(document)
