"""Null pruning descends only into branches that hold a null (``_null_holders``): the result is the
full walk's, on generated documents and schemas."""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainops.validate import nulls

MANY = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

NAMES = st.sampled_from(["a", "b", "metadata", "kind", "spec", "x"])
VALUES = st.recursive(
    st.none() | st.integers(0, 3) | st.sampled_from(["s", ""]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(NAMES, children, max_size=4),
    max_leaves=25,
)
SCHEMAS = st.recursive(
    st.just({}) | st.just({"x-kubernetes-preserve-unknown-fields": True}),
    lambda children: st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(NAMES, children, max_size=3),
            "items": children,
            "additionalProperties": children | st.booleans(),
            "x-kubernetes-embedded-resource": st.booleans(),
        },
    ),
    max_leaves=10,
)


def _full_walk(value: Any, node: dict[str, Any], *, root: bool = False) -> None:
    """The pruning walk before null_holders: every branch visited."""
    if isinstance(value, dict):
        doomed = []
        for key, item in value.items():
            child = nulls._child(node, key, root)
            if child is nulls._UNKNOWN:
                continue
            if item is None:
                doomed.append(key)
            elif isinstance(item, dict | list):
                _full_walk(item, child)
        for key in doomed:
            del value[key]
    elif isinstance(value, list):
        items = node.get("items")
        child = items if isinstance(items, dict) else nulls._ANY
        for item in value:
            if isinstance(item, dict | list):
                _full_walk(item, child)


@MANY
@given(value=st.dictionaries(NAMES, VALUES, max_size=5), schema=SCHEMAS)
def test_pruning_only_null_branches_equals_the_full_walk(
    value: dict[str, Any], schema: dict[str, Any]
) -> None:
    expected = copy.deepcopy(value)
    _full_walk(expected, schema, root=True)
    nulls.prune_known_nulls(value, schema)
    assert value == expected


def test_null_holders_names_the_path_to_each_null() -> None:
    inner: dict[str, Any] = {"c": None}
    middle = [1, inner]
    doc = {"a": {"b": 1}, "m": middle}
    assert nulls._null_holders(doc) == {id(doc), id(middle), id(inner)}
    assert nulls._null_holders({"a": [1, {"b": "null"}]}) == set()
