"""The pod variables computed in Python (:func:`trainops.cel.celrule.native_pod_specs`,
:func:`~trainops.cel.celrule.native_containers`) are their CEL's values, on every upstream example
under ../shared/examples and on generated objects with odd values (NUL, lone surrogates, integers
beyond int64, non-mapping containers, keys that need quoting), where the CEL is evaluated instead."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, needs_shared
from trainops.cel import admission
from trainops.cel.admission import NOT_NATIVE, Program, Variable, cel_exact, object_value
from trainops.cel.celrule import (
    CONTAINERS_EXPRESSION,
    POD_SPECS,
    native_containers,
    native_pod_specs,
    params_object,
    pod_specs_expression,
    program_for,
)
from trainops.core.kinds import (
    EACH_VALUE,
    EMBEDDED_OBJECTS,
    POD_SPEC_SITES,
    POD_TEMPLATE_SITES,
    WRAPPED_OBJECTS,
    group_kind,
)
from trainops.pipeline import policy_run
from trainops.policy.engine import PolicyRun
from trainops.yaml.load import Document, stream_text

POD_KINDS = sorted(
    set(POD_TEMPLATE_SITES) | set(POD_SPEC_SITES) | set(EMBEDDED_OBJECTS) | set(WRAPPED_OBJECTS)
)


def _canonical(values: Any, ordered: bool) -> list[str]:
    """Items as JSON (tells ``true`` from ``1`` and ``1.0``), sorted unless CEL's order is defined."""
    assert isinstance(values, list)
    items = [json.dumps(v, sort_keys=True) for v in values]
    return items if ordered else sorted(items)


def _ordered(key: tuple[str, str]) -> bool:
    """Whether CEL lists the pod specs of ``key`` in a defined order (no mapping iterated on the way:
    CEL iterates mappings in its own order, Python in insertion order)."""
    paths = [(*s.path, "spec") for s in POD_TEMPLATE_SITES.get(key, ())]
    paths += [(*s.spec_path, *slot) for s in POD_SPEC_SITES.get(key, ()) for slot in (*s.slots, ())]
    return all(EACH_VALUE not in path for path in paths)


def _cel(source: str, bindings: dict[str, Any]) -> Any:
    outcome = admission._eval(source, bindings)
    assert not isinstance(outcome, admission._Failed), outcome
    return outcome


def _check_pod_variables(obj: dict[str, Any]) -> bool:
    """Assert that the native pod variables of ``obj`` are the CEL's; whether they were computed."""
    key = group_kind(obj)
    assert key is not None
    value = object_value(obj)
    native = native_pod_specs(key)
    assert (native is None) == (key in EMBEDDED_OBJECTS or key in WRAPPED_OBJECTS)
    if native is None:  # Katib, AppWrapper: podSpecs by its CEL, containers in Python from them
        cel_specs = _cel(pod_specs_expression(key), {"object": value})
        containers = native_containers(value, {POD_SPECS: cel_specs})
        if containers is NOT_NATIVE:
            assert not cel_exact(value)
            return False
        cel_containers = _cel(CONTAINERS_EXPRESSION, {"variables": {POD_SPECS: cel_specs}})
        assert _canonical(containers, ordered=False) == _canonical(cel_containers, ordered=False)
        return True
    specs = native(value, {})
    if specs is NOT_NATIVE:
        assert not cel_exact(value)
        assert native_containers(value, {POD_SPECS: []}) is NOT_NATIVE
        return False
    cel_specs = _cel(pod_specs_expression(key), {"object": value})
    assert _canonical(specs, _ordered(key)) == _canonical(cel_specs, _ordered(key))
    containers = native_containers(value, {POD_SPECS: specs})
    cel_containers = _cel(CONTAINERS_EXPRESSION, {"variables": {POD_SPECS: cel_specs}})
    assert _canonical(containers, _ordered(key)) == _canonical(cel_containers, _ordered(key))
    return True


@cache
def _run() -> PolicyRun:
    return policy_run()


def _decisions(obj: dict[str, Any], native: bool) -> list[str]:
    """Decisions of the pack's CEL rules with pod variables on ``obj`` (sorted: see :func:`_ordered`),
    with the native pod variables or with the CEL only."""
    admission._PER_OBJECT.clear()
    out = []
    run = _run()
    for rule_id, config in run.config.rules.items():
        rule = run.pack.rules[rule_id]
        if rule.cel is None or not rule.cel.pods or not rule.applies_to(obj):
            continue
        program = program_for(rule_id, rule.cel, group_kind(obj))
        if not native:
            plain = tuple(Variable(v.name, v.expression, v.per_object) for v in program.variables)
            program = Program(program.name, program.validations, plain, program.match_conditions)
        params = params_object(rule_id, config.options) if config.options else None
        out.extend(f"{rule_id} {d!r}" for d in program.evaluate(obj, params=params))
    admission._PER_OBJECT.clear()
    return sorted(out)


def _example_objects() -> list[tuple[str, dict[str, Any]]]:
    if not EXAMPLES.is_dir():
        return []
    found = []
    for path in sorted(EXAMPLES.rglob("*")):
        if not path.is_file() or path.suffix not in (".yaml", ".yml"):
            continue
        items = stream_text(path.read_text(encoding="utf-8"), str(path))
        for index, item in enumerate(items):
            if (
                isinstance(item, Document)
                and isinstance(item.data, dict)
                and group_kind(item.data) in POD_KINDS
            ):
                found.append((f"{Path(path).relative_to(EXAMPLES)}#{index}", item.data))
    return found


EXAMPLE_OBJECTS = _example_objects()


@needs_shared
@pytest.mark.parametrize("obj", [o for _, o in EXAMPLE_OBJECTS], ids=[n for n, _ in EXAMPLE_OBJECTS])
def test_native_pod_variables_are_the_cel_on_upstream_examples(obj: dict[str, Any]) -> None:
    _check_pod_variables(obj)
    assert _decisions(obj, native=True) == _decisions(obj, native=False)


@needs_shared
def test_upstream_examples_take_the_native_path() -> None:
    """The examples convert exactly, so the Python walks (not the CEL fallback) are what is tested."""
    computed = [_check_pod_variables(obj) for _, obj in EXAMPLE_OBJECTS]
    assert len(computed) > 100 and all(computed)
    assert any(group_kind(obj) in EMBEDDED_OBJECTS for _, obj in EXAMPLE_OBJECTS)


# --- generated objects -----------------------------------------------------------------------------

_ODD_TEXT = st.sampled_from(["a\x00b", "\udc80", "é", "it's", "a.b", "x\n", "[0]", "", "-", "_a"])
_TEXT = st.one_of(st.text(max_size=4), st.text(max_size=4), _ODD_TEXT)
_INT = st.one_of(st.integers(-(2**63), 2**63 - 1), st.sampled_from([2**63, 2**64, -(2**63) - 1]))
_LEAF = st.one_of(st.none(), st.booleans(), _INT, st.floats(allow_nan=False), _TEXT)
_ANY = st.recursive(
    _LEAF, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_TEXT, inner, max_size=2), max_leaves=6
)
_CONTAINER = st.fixed_dictionaries(
    {"name": _LEAF},
    optional={
        "image": _TEXT,
        "securityContext": st.fixed_dictionaries(
            {}, optional={"privileged": _LEAF, "allowPrivilegeEscalation": _LEAF}
        ),
        "ports": st.lists(st.fixed_dictionaries({"hostPort": _LEAF}), max_size=2),
    },
)
#: Mostly what the walks look for, sometimes anything in its place.
_CONTAINERS = st.one_of(st.lists(st.one_of(_CONTAINER, _CONTAINER, st.just({}), _ANY), max_size=3), _ANY)
_POD_SPEC = st.fixed_dictionaries(
    {"containers": _CONTAINERS},
    optional={"initContainers": _CONTAINERS, "ephemeralContainers": _CONTAINERS, "hostNetwork": _LEAF},
)
_SPEC = st.one_of(_POD_SPEC, _POD_SPEC, _ANY)
_TEMPLATE = st.one_of(
    st.builds(lambda spec: {"spec": spec}, _SPEC), st.builds(lambda spec: {"spec": spec}, _SPEC), _ANY
)
_KEY = st.one_of(st.sampled_from(["Master", "Worker", "x\n", "it's", "a.b", "-", "_a-1", "é", "[0]"]), _TEXT)


def _objects() -> st.SearchStrategy[dict[str, Any]]:
    deployment = st.builds(
        lambda template: {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": template}},
        _TEMPLATE,
    )
    pod = st.builds(lambda spec: {"apiVersion": "v1", "kind": "Pod", "spec": spec}, _SPEC)
    replicas = st.dictionaries(
        _KEY, st.one_of(st.builds(lambda t: {"template": t}, _TEMPLATE), _ANY), max_size=3
    )
    pytorch = st.builds(
        lambda r: {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "spec": {"pytorchReplicaSpecs": r}},
        st.one_of(replicas, replicas, _ANY),
    )
    override = st.builds(lambda spec: {"spec": spec}, _SPEC)
    overrides = st.lists(st.one_of(override, override, _ANY), min_size=1, max_size=3)
    trainjob = st.builds(
        lambda o: {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "spec": {"podTemplateOverrides": o},
        },
        st.one_of(overrides, overrides, _ANY),
    )
    return st.one_of(deployment, pod, pytorch, trainjob)


@settings(max_examples=300, deadline=None)
@given(obj=_objects(), metadata=_ANY)
def test_native_pod_variables_are_the_cel_on_generated_objects(obj: dict[str, Any], metadata: Any) -> None:
    obj = {**obj, "metadata": metadata}
    _check_pod_variables(obj)
    assert _decisions(obj, native=True) == _decisions(obj, native=False)


_ROUND_TRIP = st.recursive(
    _LEAF | st.integers(min_value=-(2**70), max_value=2**70),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(spec=_ROUND_TRIP)
def test_what_cel_exact_vouches_for_converts_into_cel_and_back_unchanged(spec: Any) -> None:
    value = object_value({"apiVersion": "kubeflow.org/v1", "kind": "X", "spec": spec})
    if cel_exact(value):
        back = _cel("object", {"object": value})
        assert json.dumps(back, sort_keys=True) == json.dumps(value, sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(spec=_ROUND_TRIP)
def test_object_value_records_what_cel_exact_finds_walking(spec: Any) -> None:
    value = object_value({"apiVersion": "apps/v1", "kind": "X", "spec": spec})
    recorded = cel_exact(value)
    admission._EXACT.clear()
    assert cel_exact(value) is recorded


class _Text(str):
    pass


@pytest.mark.parametrize(
    "spec", [{"a": ("x",)}, {"a": _Text("x")}, {1: "x"}], ids=["tuple", "str-subclass", "int-key"]
)
def test_object_value_does_not_vouch_for_other_types(spec: dict[Any, Any]) -> None:
    """Values converted from other types than plain JSON ones are left to the CEL (conservative)."""
    assert not cel_exact(object_value({"apiVersion": "apps/v1", "kind": "X", "spec": spec}))


def _nested(depth: int) -> Any:
    value: Any = ["x", 1]
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("spec", "exact"),
    [
        ({"a": [1, "x", 2.5, True, None]}, True),
        ({"a": "a\x00b"}, False),
        ({"a\x00": 1}, False),
        ({"a": "\udc80"}, False),
        ({"a": 2**63}, False),
        ({"a": -(2**63)}, True),
        ({"a": _nested(300)}, True),
    ],
)
def test_cel_exact_refuses_what_the_conversion_changes(spec: dict[str, Any], exact: bool) -> None:
    value = object_value({"apiVersion": "kubeflow.org/v1", "kind": "X", "spec": spec})
    assert cel_exact(value) is exact
    outcome = admission._eval("object.spec", {"object": value})
    changed = (
        isinstance(outcome, admission._Failed)
        or json.dumps(outcome) != json.dumps(value["spec"])
        or admission._eval("type(object.spec.a) == uint", {"object": value}) is True
    )
    assert changed is not exact


@pytest.mark.parametrize("replica", ["Worker", "_a-1", "x\n", "\nx", "a.b", "it's", "é", "-a", "", "0"])
def test_native_paths_quote_replica_names_as_the_cel_does(replica: str) -> None:
    """Replica names become ``.name`` or ``['name']`` path pieces as the CEL's RE2 ``matches`` decides
    (its ``$`` matches only at the end, Python's also before a final newline)."""
    obj = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "job"},
        "spec": {"pytorchReplicaSpecs": {replica: {"template": {"spec": {"containers": [{"name": "c"}]}}}}},
    }
    assert _check_pod_variables(obj)
