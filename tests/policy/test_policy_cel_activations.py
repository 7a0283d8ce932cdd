"""CEL rules reuse activations (cel-expr-python converts bound values into CEL inside an activation, on
first access): the rules evaluating one object share the activation binding ``variables.containers``,
and reusing activations changes no decision on any upstream example under ../shared/examples."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.cel import admission
from trainops.cel.admission import ACTIVATION_STATS, Decision
from trainops.cel.celrule import params_object, program_for
from trainops.core.kinds import group_kind
from trainops.pipeline import policy_run
from trainops.policy.engine import PolicyRun
from trainops.yaml.load import Document, stream_text

pytestmark = needs_shared


def _example_files() -> list[Path]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(p for p in EXAMPLES.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml"))


def _objects(path: Path) -> list[dict[str, Any]]:
    items = stream_text(path.read_text(encoding="utf-8"), str(path))
    return [i.data for i in items if isinstance(i, Document) and isinstance(i.data, dict)]


@cache
def _run() -> PolicyRun:
    return policy_run()


def _decisions(obj: dict[str, Any]) -> Iterator[tuple[str, list[Decision]]]:
    """Every CEL rule of the default pack that applies to ``obj``, with its decisions."""
    run = _run()
    for rule_id, config in run.config.rules.items():
        rule = run.pack.rules[rule_id]
        if rule.cel is None or not rule.applies_to(obj):
            continue
        params = params_object(rule_id, config.options) if config.options else None
        program = program_for(rule_id, rule.cel, group_kind(obj))
        yield rule_id, program.evaluate(obj, params=params)


class _Forgetful(dict[Any, Any]):
    """An activation cache that keeps nothing: every evaluation gets a fresh activation."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def _pod_example() -> dict[str, Any]:
    """The first Deployment of ../shared/examples/k8s-website with a container."""
    for path in _example_files():
        if "k8s-website" not in path.parts:
            continue
        for obj in _objects(path):
            if obj.get("kind") == "Deployment" and obj.get("spec", {}).get("template", {}).get("spec"):
                return obj
    raise AssertionError("no Deployment under ../shared/examples/k8s-website")


def test_rules_on_one_object_reuse_the_containers_activation() -> None:
    obj = _pod_example()
    decisions = dict(_decisions(obj))  # warm: compiled programs; pod variables memoised per object
    assert {"no-privileged", "no-privilege-escalation", "image-pinned"} <= set(decisions)
    admission._ACTIVATIONS.clear()
    admission._PER_OBJECT.clear()
    before = dict(ACTIVATION_STATS)
    again = dict(_decisions(obj))
    hits = ACTIVATION_STATS["hits"] - before["hits"]
    # no-privileged converts variables.containers; no-host-namespaces' hostPorts,
    # no-privilege-escalation's and image-pinned's first variables reuse that activation
    assert hits >= 3
    assert again == decisions


@pytest.mark.parametrize(
    "path", _example_files(), ids=[str(p.relative_to(EXAMPLES)) for p in _example_files()]
)
def test_reused_activations_decide_as_fresh_ones(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = _objects(path)
    admission._ACTIVATIONS.clear()
    cached = [list(_decisions(obj)) for obj in objects]
    monkeypatch.setattr(admission, "_ACTIVATIONS", _Forgetful())
    admission._PER_OBJECT.clear()
    before = dict(ACTIVATION_STATS)
    fresh = [list(_decisions(obj)) for obj in objects]
    assert ACTIVATION_STATS["hits"] == before["hits"]  # the forgetful cache never hit
    assert fresh == cached


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("variables.a.x", {"x": 2**70}),
        ("variables.a.x", {"x": "\udc80"}),
        ("variables.a.x", {"x": "a\x00b"}),
        ("type(variables.a.x)", {"x": 2**63}),
        ("variables.a.x[3]", {"x": [1]}),
        ("variables.a.y", {"x": 1}),
        ("variables.a.x[1].y", {"x": [1, {"y": 2.5}]}),
    ],
    ids=["int-range", "surrogate", "nul", "uint", "index", "no-key", "nested"],
)
def test_evaluating_on_data_is_evaluating_on_an_activation(source: str, value: Any) -> None:
    """A variable made per evaluation is bound as data (no activation kept): same values and errors."""
    admission._ACTIVATIONS.clear()
    before = dict(ACTIVATION_STATS)
    on_data = admission._eval(source, {"variables": {"a": value}})
    assert before == ACTIVATION_STATS and not admission._ACTIVATIONS
    on_activation = admission._eval(source, {"variables": {"a": value}}, shared={"a"})
    assert ACTIVATION_STATS["misses"] == before["misses"] + 1
    assert on_data == on_activation
