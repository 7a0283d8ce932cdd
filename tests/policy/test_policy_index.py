"""The policy engine's per-run indexes (:mod:`trainops.policy.objects`, ``selectors.pods_in`` and
``service_pods``, ``ObjectIndex.first``) answer exactly what the plain walks they replace answer,
on every rule fixture of ``tests/policies`` (pass and fail sets, each read as one checked set)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trainops.core.kinds import CLUSTER_SCOPED, group_kind
from trainops.policy.facts import Facts
from trainops.policy.index import ObjectIndex
from trainops.policy.objects import ObjectSet, PerSequence, hashable, of_kind
from trainops.policy.pods import metadata_of
from trainops.policy.selectors import (
    ANY_VALUE_LABELS,
    all_pods,
    matches,
    matches_map,
    pods_in,
    selected_pods,
    service_pods,
)
from trainops.yaml.load import Document, stream_text

FIXTURES = Path(__file__).resolve().parents[1] / "policies"
SETS = sorted(FIXTURES.glob("*/*.yaml"))


def _objects(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    return [
        d.data for d in stream_text(text, str(path)) if isinstance(d, Document) and isinstance(d.data, dict)
    ]


@pytest.fixture(params=SETS, ids=lambda p: f"{p.parent.name}/{p.name}")
def objects(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return _objects(request.param)


def test_fixtures_found() -> None:
    assert len(SETS) > 50


def test_object_set_is_the_list_with_kinds(objects: list[dict[str, Any]]) -> None:
    indexed = ObjectSet(objects)
    assert indexed == objects
    assert indexed.kinds == [group_kind(o) for o in objects]


def test_of_kind_filters_in_document_order(objects: list[dict[str, Any]]) -> None:
    kinds = sorted({k for k in map(group_kind, objects) if k is not None})
    for keys in ([*kinds[:1]], kinds[:3]):  # one kind, several kinds
        plain = [(i, o) for i, o in enumerate(objects) if group_kind(o) in keys]
        assert list(of_kind(ObjectSet(objects), *keys)) == plain
        assert list(of_kind(objects, *keys)) == plain


def test_all_pods_read_once_per_set(objects: list[dict[str, Any]]) -> None:
    indexed = ObjectSet(objects)
    first = list(all_pods(indexed))
    assert first == list(all_pods(objects))
    assert [id(p) for p in all_pods(indexed)] == [id(p) for p in first]


def test_pods_in_namespace_and_service_pods_match_the_plain_walk(objects: list[dict[str, Any]]) -> None:
    pods = list(all_pods(objects))
    for obj in objects:
        namespace = metadata_of(obj).get("namespace")
        assert list(pods_in(pods, namespace)) == [p for p in pods if p.namespace == namespace]
        if group_kind(obj) != ("", "Service"):
            continue
        selector = obj.get("spec", {}).get("selector") if isinstance(obj.get("spec"), dict) else None
        expected = (
            [
                p
                for p in pods
                if p.namespace == namespace and matches_map(selector, p.labels, ANY_VALUE_LABELS)
            ]
            if isinstance(selector, dict) and selector
            else []
        )
        assert service_pods(obj, pods) == expected


def test_selected_pods_match_the_plain_walk(objects: list[dict[str, Any]]) -> None:
    pods = list(all_pods(objects))
    for obj in objects:
        namespace = metadata_of(obj).get("namespace")
        spec = obj.get("spec")
        for selector in (spec.get("selector"), spec.get("podSelector")) if isinstance(spec, dict) else ():
            for any_value in (frozenset(), ANY_VALUE_LABELS):
                expected = [
                    p for p in pods if p.namespace == namespace and matches(selector, p.labels, any_value)
                ]
                assert selected_pods(selector, pods, namespace, any_value) == expected


def test_object_index_first_matches_the_plain_walk(objects: list[dict[str, Any]]) -> None:
    index = ObjectIndex(objects, Facts())
    for obj in objects:
        kind, name = obj.get("kind"), metadata_of(obj).get("name")
        if not isinstance(kind, str) or not isinstance(name, str):
            continue
        for namespace in (metadata_of(obj).get("namespace"), None, "elsewhere", ["not", "hashable"]):
            expected = next(
                (
                    o
                    for o in objects
                    if o.get("kind") == kind
                    and metadata_of(o).get("name") == name
                    and (None if group_kind(o) in CLUSTER_SCOPED else metadata_of(o).get("namespace"))
                    == namespace
                ),
                None,
            )
            assert index.first(kind, name, namespace) is expected


def test_service_pods_with_unhashable_selector_values() -> None:
    objects = _objects(FIXTURES / "service-selects-pods" / "pass.yaml")
    pods = list(all_pods(objects))
    service = {"kind": "Service", "apiVersion": "v1", "metadata": {"namespace": ["x"]}, "spec": {}}
    service["spec"]["selector"] = {"app": ["a", "list"]}
    assert service_pods(service, pods) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [("a", True), (1, True), (("a", 1), True), (["a"], False), ({"a": 1}, False), (("a", []), False)],
)
def test_hashable(value: Any, expected: bool) -> None:
    assert hashable(value) is expected


def test_per_sequence_rebuilds_for_another_sequence() -> None:
    cache = PerSequence()
    calls: list[int] = []

    def build(items: Any) -> int:
        calls.append(len(items))
        return len(items)

    first, second = [1, 2], [1, 2, 3]
    assert cache.get(first, "n", build) == 2
    assert cache.get(first, "n", build) == 2
    assert cache.get(second, "n", build) == 3
    assert cache.get(first, "n", build) == 2
    assert calls == [2, 3, 2]


def test_rules_choose_objects_by_kind_alone(objects: list[dict[str, Any]]) -> None:
    """The engine's dispatch table asks ``Rule.applies_to`` once per (group, kind): it must not read more."""
    from trainops.policy.loader import default_pack

    rules = default_pack().rules.values()
    for obj in objects:
        bare = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind")}
        assert [r.applies_to(obj) for r in rules] == [r.applies_to(bare) for r in rules]


def test_service_monitor_candidates_hold_every_selected_service(objects: list[dict[str, Any]]) -> None:
    """servicemonitor-target looks only at the Services its label index offers: every Service a
    selector selects by its labels (and, for the near-miss hint, by its pod selector) is among them,
    in document order."""
    from trainops.policy.pack.servicemonitor_target import _Services

    services = _Services(objects)
    plain = [o for _, o in of_kind(objects, ("", "Service"))]
    selectors = [obj.get("spec", {}).get("selector") for obj in objects if isinstance(obj.get("spec"), dict)]
    selectors += [
        {"matchLabels": labels} for labels in (metadata_of(o).get("labels") for o in plain) if labels
    ]
    for selector in selectors:
        for by_pods in (False, True):
            offered = services.candidates(selector, by_pods=by_pods)
            assert [id(o) for o in offered] == [id(o) for o in plain if any(o is c for c in offered)]
            for obj in plain:
                labels = metadata_of(obj).get("labels")
                pods = obj.get("spec", {}).get("selector") if isinstance(obj.get("spec"), dict) else None
                chosen = matches(selector, labels if isinstance(labels, dict) else {})
                if by_pods and isinstance(pods, dict) and pods:
                    chosen = chosen or matches(selector, {str(k): str(v) for k, v in pods.items()})
                if chosen:
                    assert any(obj is o for o in offered), (selector, obj)


def test_object_index_first_finds_a_cluster_scoped_object_whatever_its_stray_namespace() -> None:
    """The API server drops the namespace of cluster-scoped objects: a ClusterRole written with one is
    the ClusterRole a binding names (issue 32), while a Role stays in its namespace."""
    objects = _objects(FIXTURES / "rbac-cluster-admin" / "fail.yaml")
    index = ObjectIndex(objects, Facts())
    role = index.first("ClusterRole", "spelled-out", None)
    assert role is not None and metadata_of(role)["namespace"] == "team-vision"
    assert index.first("ClusterRole", "spelled-out", "team-vision") is None
    assert index.first("Role", "everything", "team-vision") is not None
    assert index.first("Role", "everything", None) is None
