"""``secret-literal`` screens a document (``_screen``) before it walks it string by string, and scans
strings with the detectors only when one of them holds a marker: the screened check reports exactly
what a full scan of every string reports (upstream examples, the bundled output, generated documents)."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, SAMPLE, documents_in
from trainops.core.credentials import walk_strings
from trainops.validate.checks.secret_literal import _problem, _screen, check
from trainops.validate.scan import scan

MANY = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)


def _full_scan(kind: str, data: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """What the check reports when it scans every string of every document."""
    found = [(parts, _problem(kind, parts, value, data, True)) for parts, value in walk_strings(data)]
    return [(parts, problem) for parts, problem in found if problem is not None]


def _screened(kind: str, data: Any) -> list[tuple[tuple[str | int, ...], str]]:
    issues = check(SimpleNamespace(data=data, kind=kind, scan=scan(data)))  # type: ignore[arg-type]
    return [(issue.parts, issue.message.removesuffix("; reference a Secret instead")) for issue in issues]


def _documents() -> list[Any]:
    paths = sorted((SAMPLE / "generated").rglob("*.yaml"))
    if EXAMPLES.is_dir():
        paths += sorted(EXAMPLES.rglob("*.y*ml"))
    return [d.data for d in documents_in(paths) if isinstance(d.data, dict)]


def test_screened_check_reports_what_a_full_scan_reports() -> None:
    documents = _documents()
    assert len(documents) > 300
    kinds = [str(d.get("kind")) for d in documents]
    screened = [_screen(scan(d)) for d in documents]
    assert any(scan or named for scan, named in screened)
    assert (
        sum(not scan and not named for scan, named in screened) > len(documents) // 2
    )  # most are not walked
    assert [_screened(kind, d) for kind, d in zip(kinds, documents, strict=True)] == [
        _full_scan(kind, d) for kind, d in zip(kinds, documents, strict=True)
    ]
    assert any(_full_scan(kind, d) for kind, d in zip(kinds, documents, strict=True))


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
        "aHVudGVyMi1wcm9k",  # base64 of hunter2-prod
        "QUtJQUFBQUFBQUFBQUFBQUFBQUE=",  # base64 of an AWS access key id
    ]
)
NAMES = st.sampled_from(["DB_PASSWORD", "API_KEY", "LOG_LEVEL", "token", "x", "SECRET"])
ENV = st.lists(st.fixed_dictionaries({"name": NAMES, "value": STRINGS}), max_size=3)
VALUES = st.recursive(
    STRINGS | st.integers(0, 3) | st.none(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "value", "name", "DB_PASSWORD"]), children, max_size=3)
        | st.fixed_dictionaries({"env": ENV})
    ),
    max_leaves=15,
)


@MANY
@given(
    data=st.dictionaries(
        st.sampled_from(["spec", "metadata", "env", "data", "stringData", "x"]), VALUES, max_size=4
    )
)
@pytest.mark.parametrize("kind", ["Deployment", "Pod", "ConfigMap", "Secret"])
def test_screened_check_equals_a_full_scan_on_generated_documents(kind: str, data: dict[str, Any]) -> None:
    assert _screened(kind, data) == _full_scan(kind, data)
