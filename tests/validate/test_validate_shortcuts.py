"""Shortcuts of the validator's hot path answer as the checks they skip.

* ``list_map._distinct`` (a set of string/integer keys) is only ``True`` where ``_duplicates``'s item by
  item loop finds nothing;
* ``api_server._check_labels``/``_check_annotations`` remember strings that passed: a document checked
  after others gets the issues it gets on its own.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core.findings import Issue
from trainops.validate.checks import api_server, list_map
from trainops.validate.checks.list_map import NO_DEFAULT, MapKeys

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)

#: Key values that compare equal in Python but not as JSON (1, 1.0, True), absent and null ones.
KEY_VALUES = st.sampled_from(["a", "b", "1", "", 1, 2, 1.0, True, False, None, [1], {"x": 1}, 0, 0.0])
ITEMS = st.lists(
    st.one_of(
        st.dictionaries(st.sampled_from(["name", "port", "protocol", "other"]), KEY_VALUES, max_size=4),
        st.sampled_from(["scalar", 3, None]),
    ),
    max_size=6,
)
KEYS = st.sampled_from(
    [
        MapKeys(("name",), (NO_DEFAULT,), (True,)),
        MapKeys(("name",), (NO_DEFAULT,), (False,)),
        MapKeys(("name",), ("a",), (False,)),
        MapKeys(("port", "protocol"), (NO_DEFAULT, "TCP"), (True, False)),
        MapKeys(("port", "protocol"), (NO_DEFAULT, NO_DEFAULT), (False, False)),
    ]
)


def _item_by_item(keys: MapKeys, items: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[Issue]:
    out: list[Issue] = []
    with monkeypatch.context() as patched:
        patched.setattr(list_map, "_distinct", lambda keys, items: False)
        list_map._duplicates(keys, items, ["spec", "list"], out)
    return out


@EXAMPLES
@given(KEYS, ITEMS)
def test_distinct_keys_mean_no_duplicate(keys: MapKeys, items: list[Any]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        out: list[Issue] = []
        list_map._duplicates(keys, items, ["spec", "list"], out)
        assert out == _item_by_item(keys, items, monkeypatch)
        if list_map._distinct(keys, items):
            assert out == []


@pytest.mark.parametrize(
    ("items", "distinct"),
    [
        ([{"name": "a"}, {"name": "b"}], True),
        ([{"name": "a"}, {"name": "a"}], False),
        ([{"name": 1}, {"name": "1"}], False),  # an integer: looked at item by item
        ([{"name": "a"}, "x", {"name": "b"}], True),
        ([{"name": "a"}, {}], False),
    ],
)
def test_distinct_on_examples(items: list[Any], distinct: bool) -> None:
    assert list_map._distinct(MapKeys(("name",), (NO_DEFAULT,), (True,)), items) is distinct


LABEL_TEXT = st.sampled_from(["app", "a.b/c", "-bad", "x" * 64, "", "${p}", "ok-1", "a/b/c", "É", "k8s.io/x"])
LABELS = st.dictionaries(LABEL_TEXT, st.one_of(LABEL_TEXT, st.sampled_from([1, None, ["l"]])), max_size=5)


def _labels(labels: dict[str, Any], templated: bool) -> list[Issue]:
    issues: list[Issue] = []
    api_server._check_labels(labels, ("metadata", "labels"), "metadata.labels", issues, templated)
    api_server._check_annotations(
        labels, ("metadata", "annotations"), "metadata.annotations", issues, templated
    )
    return issues


def _fresh(labels: dict[str, Any], templated: bool) -> list[Issue]:
    for remembered in (
        api_server._GOOD_LABEL_KEYS,
        api_server._GOOD_LABEL_VALUES,
        api_server._GOOD_ANNOTATION_KEYS,
    ):
        remembered.clear()
    return _labels(labels, templated)


@EXAMPLES
@given(st.lists(LABELS, min_size=1, max_size=4), st.booleans())
def test_remembered_labels_give_the_same_issues(earlier: list[dict[str, Any]], templated: bool) -> None:
    *before, last = earlier
    expected = _fresh(last, templated)
    for labels in before:
        _labels(labels, not templated)
    assert _labels(last, templated) == expected
    assert _labels(last, templated) == expected


def test_annotations_over_the_size_limit_are_found_after_their_keys_passed() -> None:
    _fresh({"note": "x"}, False)
    big = {"note": "x" * (api_server.ANNOTATIONS_MAX_BYTES + 1)}
    [issue] = _labels(big, False)[1:]
    assert issue.keyword == "annotations-size"
