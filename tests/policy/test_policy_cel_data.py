"""CEL rules see objects as the API server's CEL does: one conversion pass, checked against the
three separate walks it replaced (plain values, null mapping entries dropped, then for built-in kinds
empty mappings and lists inside mappings dropped)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.cel.admission import Program, Validation, Variable, object_value
from trainops.cel.values import plain


def _prune_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_prune_nulls(v) for v in value]
    return value


def _prune_empty(value: Any) -> Any:
    if isinstance(value, dict):
        pruned = {k: _prune_empty(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if v != {} and v != []}
    if isinstance(value, list):
        return [_prune_empty(v) for v in value]
    return value


_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    spec=st.dictionaries(st.text(max_size=3), _VALUES, max_size=4),
    api_version=st.sampled_from(["v1", "apps/v1", "kubeflow.org/v1", "networking.k8s.io/v1"]),
)
def test_object_value_is_the_three_walks_in_one(spec: dict[str, Any], api_version: str) -> None:
    obj = {"apiVersion": api_version, "kind": "X", "spec": spec}
    expected = _prune_nulls(plain(obj))
    if api_version != "kubeflow.org/v1":  # built-in groups: omitempty drops empty values
        expected = _prune_empty(expected)
    assert object_value(obj) == expected


def test_a_mapping_left_empty_by_nulls_is_dropped_only_for_built_in_kinds() -> None:
    spec = {"template": {"metadata": {"labels": None}}, "ports": [], "keep": [{}]}
    assert object_value({"apiVersion": "apps/v1", "kind": "Deployment", "spec": spec})["spec"] == {
        "keep": [{}]
    }
    custom = object_value({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "spec": spec})
    assert custom["spec"] == {"template": {"metadata": {}}, "ports": [], "keep": [{}]}


def test_variables_read_by_index_are_bound() -> None:
    """Only the names an expression mentions are bound; ``variables['x']`` still sees every variable."""
    program = Program(
        "t",
        (Validation(expression="variables['big'] == false", message="too many replicas"),),
        (Variable("big", "object.spec.replicas > 3"),),
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "a"},
        "spec": {"replicas": 5},
    }
    assert [(d.kind, d.message) for d in program.evaluate(deployment)] == [("deny", "too many replicas")]
