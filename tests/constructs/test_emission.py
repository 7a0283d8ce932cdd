"""``trainops synth`` records objects in Python (``_core.emission``) and must render exactly what cdk8s
renders: compared with cdk8s's own ``Chart.to_json()`` for every bundled app and cluster, for the
jsii wire's value conversions and JSON patches, and falling back to cdk8s for charts holding
anything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.app import AppDef, build_chart
from trainops.cluster import Cluster
from trainops.constructs._core.base import emit, run_checks
from trainops.constructs._core.emission import (
    PatchOp,
    Unsupported,
    eager,
    recording,
    remove_op,
    replace_op,
    wire,
)
from trainops.project import Project, load_project
from trainops.synth.render import _recorded, render_objects, through_cdk8s

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project() -> Project:
    return load_project(SAMPLE)


def _pairs() -> list[tuple[str, str]]:
    project = load_project(SAMPLE)
    return [(c.name, a.name) for c in project.clusters for a in project.apps.values() if a.targets(c)]


def _cdk8s_documents(app_def: AppDef, cluster: Cluster) -> list[dict[str, Any]]:
    run_checks()
    _, chart = build_chart(app_def, cluster)
    run_checks()
    documents: list[dict[str, Any]] = json.loads(json.dumps(chart.to_json()))
    return documents


@pytest.mark.parametrize(("cluster", "app"), _pairs())
def test_recording_renders_what_cdk8s_renders(project: Project, cluster: str, app: str) -> None:
    target, app_def = project.cluster(cluster), project.apps[app]
    recorded = _recorded(app_def, target)
    assert recorded is not None, "a bundled app holds trainops constructs only: it must be recorded"
    expected = _cdk8s_documents(app_def, target)
    key = lambda d: (d["kind"], d["metadata"]["name"])  # noqa: E731
    assert sorted(recorded, key=key) == sorted(expected, key=key)
    # same types too (an int is not a float, a None is kept in a body), as the YAML shows them
    assert repr(sorted(recorded, key=key)) == repr(sorted(expected, key=key))


@pytest.mark.parametrize(("cluster", "app"), _pairs()[:6])
def test_render_objects_same_through_cdk8s(project: Project, cluster: str, app: str) -> None:
    target, app_def = project.cluster(cluster), project.apps[app]
    with through_cdk8s():
        expected = render_objects(app_def, target)
    assert render_objects(app_def, target) == expected


def _app(build: Any) -> AppDef:
    return AppDef(name="probe", build=build, namespace="ml", team="research")


CLUSTER = Cluster(name="lab", kubernetes_version="1.34")
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}


def _foreign_api_object(chart: Any, cluster: Cluster) -> None:
    from cdk8s import ApiObject

    ApiObject(chart, "raw", api_version="v1", kind="ConfigMap", metadata={"name": "raw"})


def _plain_construct(chart: Any, cluster: Cluster) -> None:
    from constructs import Construct

    emit(Construct(chart, "holder"), dict(CONFIG_MAP))


def _user_construct(chart: Any, cluster: Cluster) -> None:
    from trainops.constructs._core.base import ObjectConstruct

    class Probe(ObjectConstruct):
        pass

    emit(Probe(chart, "probe"), {**CONFIG_MAP, "metadata": {"name": "cfg", "labels": {"n": 1}}})


@pytest.mark.parametrize(
    ("build", "why"),
    [
        (_foreign_api_object, "an ApiObject made outside trainops"),
        (_plain_construct, "a construct that is not a trainops construct"),
        (_user_construct, "a construct class of the user's"),
    ],
)
def test_falls_back_to_cdk8s(build: Any, why: str) -> None:
    assert _recorded(_app(build), CLUSTER) is None, why


def test_fallback_still_renders_foreign_objects() -> None:
    objects = render_objects(_app(_foreign_api_object), CLUSTER)
    assert list(objects) == ["configmap_raw.yaml"]
    assert objects["configmap_raw.yaml"]["metadata"]["namespace"] == "ml"


def test_fallback_reports_the_cdk8s_error() -> None:
    from trainops.errors import TrainopsError

    with pytest.raises(TrainopsError, match="probe"):
        render_objects(_app(_user_construct), CLUSTER)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2.0, 2),
        (0.5, 0.5),
        (-0.0, 0),
        (True, True),
        ({"a": [1.0, {"b": None}, None]}, {"a": [1, {}, None]}),
        ("x", "x"),
    ],
)
def test_wire_matches_a_jsii_round_trip(value: Any, expected: Any) -> None:
    from cdk8s import JsonPatch

    through_node = JsonPatch.apply({}, JsonPatch.add("/v", value))["v"]
    assert wire(value) == through_node == expected
    assert repr(wire(value)) == repr(through_node)


@pytest.mark.parametrize("value", [(1, 2), {1: "a"}, 2**60, float("nan"), 1e22, object()])
def test_wire_refuses_what_jsii_changes(value: Any) -> None:
    with pytest.raises(Unsupported):
        wire(value)


@pytest.mark.parametrize(
    "ops",
    [
        [replace_op("/metadata/name", "other")],
        [remove_op("/metadata/namespace")],
        [remove_op("/data/a"), PatchOp("add", "/data/b", "2")],
        [PatchOp("add", "/list", [1, 2]), PatchOp("add", "/list/1", 9), PatchOp("add", "/list/-", 3)],
        [PatchOp("add", "/list", ["x", "y"]), remove_op("/list/0"), replace_op("/list/0", "z")],
        [PatchOp("add", "/data/a~1b", "slash")],
        [replace_op("/data", None)],
        [PatchOp("add", "/list", [None, {"k": None}]), PatchOp("add", "/list/-", None)],
    ],
)
def test_patches_match_cdk8s(ops: list[PatchOp]) -> None:
    assert _record_and_render(CONFIG_MAP, *ops) == _cdk8s_render(CONFIG_MAP, *ops)


def _record_and_render(obj: dict[str, Any], *ops: PatchOp) -> list[dict[str, Any]]:
    from cdk8s import App, Chart
    from constructs import Construct

    with recording("ml") as recorded:
        chart = Chart(App(), "t", namespace="ml", disable_resource_name_hashes=True)
        emit(Construct(chart, "c"), json.loads(json.dumps(obj))).patch(*ops)
    return recorded.documents()


def _cdk8s_render(obj: dict[str, Any], *ops: PatchOp) -> list[dict[str, Any]]:
    from cdk8s import App, Chart
    from constructs import Construct

    chart = Chart(App(), "t", namespace="ml", disable_resource_name_hashes=True)
    emit(Construct(chart, "c"), json.loads(json.dumps(obj))).patch(*ops)
    documents: list[dict[str, Any]] = json.loads(json.dumps(chart.to_json()))
    return documents


@pytest.mark.parametrize(
    "metadata",
    [
        {"name": "cfg", "namespace": "other", "labels": {}, "annotations": {"a": "b"}},
        {"name": "cfg", "finalizers": [], "labels": {"x": "y"}},
        {"name": "cfg", "namespace": None},
    ],
)
def test_metadata_matches_cdk8s(metadata: dict[str, Any]) -> None:
    obj = {**CONFIG_MAP, "metadata": metadata}
    assert repr(_record_and_render(obj)) == repr(_cdk8s_render(obj))


@pytest.mark.parametrize(
    "metadata",
    [
        {"name": "cfg", "labels": {"n": 1}},
        {"name": "cfg", "generateName": "x-"},
        {"labels": {"a": "b"}},
    ],
)
def test_metadata_cdk8s_would_change_is_unsupported(metadata: dict[str, Any]) -> None:
    with pytest.raises(Unsupported):
        _record_and_render({**CONFIG_MAP, "metadata": metadata})


def test_eager_inside_a_recording_creates_api_objects() -> None:
    from cdk8s import App, Chart
    from constructs import Construct

    with recording("ml") as recorded:
        chart = Chart(App(), "t", disable_resource_name_hashes=True)
        with eager():
            emitted = emit(Construct(chart, "c"), dict(CONFIG_MAP))
    assert emitted.api_object is not None
    assert recorded.records == []
    assert [d["metadata"]["name"] for d in chart.to_json()] == ["cfg"]


def test_cdk8s_json_patches_still_apply_through_cdk8s() -> None:
    from cdk8s import JsonPatch

    def build(chart: Any, cluster: Cluster) -> None:
        from trainops.constructs import ModelServer

        server = ModelServer(chart, "Server", cluster=cluster, name="web", image="registry.example.com/w:1")
        server._api_object.add_json_patch(JsonPatch.add("/metadata/labels/extra", "yes"))

    app_def = _app(build)
    assert _recorded(app_def, CLUSTER) is None  # the recording cannot read a JsonPatch
    objects = render_objects(app_def, CLUSTER)
    assert objects["deployment_web.yaml"]["metadata"]["labels"]["extra"] == "yes"
