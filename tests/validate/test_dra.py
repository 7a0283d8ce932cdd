"""API-server checks of Dynamic Resource Allocation (trainops.validate.checks.dra, trainops.cel.dra):
the upstream ``resource.k8s.io/v1`` examples (Kueue's DRA samples, accepted by kube-apiserver v1.36.2
in ../shared/ground-truth) pass, and each is broken one way at a time the API server rejects."""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.cel.dra import selector_problem
from trainops.pipeline import Target, Text, check
from trainops.yaml.load import load_file

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DRA = SHARED / "examples" / "kueue" / "site" / "static" / "examples" / "dra"
VERDICTS = SHARED / "ground-truth" / "apiserver" / "verdicts.tsv"

Obj = dict[str, Any]


def _docs(name: str) -> list[Obj]:
    path = DRA / name
    if not path.is_file():
        pytest.skip(f"{path} is not there")
    return [copy.deepcopy(doc.data) for doc in load_file(str(path)).documents]


@pytest.fixture
def issues_of(schema_cache: Path) -> Callable[[Obj], list[tuple[str, str | None]]]:
    """``issues_of(obj)``: the (JSON path, keyword) of every error ``trainops validate`` reports for
    ``obj`` on a Kubernetes 1.34 target."""

    def run(obj: Obj) -> list[tuple[str, str | None]]:
        result = check(
            Target("1.34", {"kueue": "v0.19.2"}, schema_cache), [Text("doc.yaml", yaml.safe_dump(obj))]
        )
        return [(f.path, f.keyword) for f in result.findings if f.level == "error"]

    return run


def _messages(schema_cache: Path, obj: Obj) -> list[str]:
    result = check(
        Target("1.34", {"kueue": "v0.19.2"}, schema_cache), [Text("doc.yaml", yaml.safe_dump(obj))]
    )
    return [f.message for f in result.findings if f.level == "error"]


def _recorded() -> list[tuple[str, int, str]]:
    if not VERDICTS.is_file():
        return []
    with VERDICTS.open(encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return [
            (row["file"], int(row["document"]), row["server"])
            for row in rows
            if row["file"].startswith("examples/kueue/site/static/examples/dra/")
        ]


@pytest.mark.parametrize(("file", "document", "server"), _recorded())
def test_agrees_with_the_recorded_verdicts(
    file: str, document: int, server: str, issues_of: Callable[[Obj], list[tuple[str, str | None]]]
) -> None:
    docs = [d.data for d in load_file(str(SHARED / file)).documents]
    obj = docs[document]
    assert server == "accept"
    assert issues_of(obj) == []


def _template() -> Obj:
    return _docs("sample-dra-capacity-job.yaml")[0]


def _job() -> Obj:
    return _docs("sample-dra-rct-job.yaml")[1]


def _request(obj: Obj) -> Obj:
    request: Obj = obj["spec"]["spec"]["devices"]["requests"][0]
    return request


def _set(path: str, value: Any) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        node = obj
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[int(key)] if key.isdigit() else node[key]
        node[keys[-1]] = value

    return change


REQUEST = "spec.spec.devices.requests.0"


@pytest.mark.parametrize(
    ("change", "path", "keyword"),
    [
        (
            _set(f"{REQUEST}.exactly.allocationMode", "All"),
            f"$.{REQUEST}.exactly.count".replace(".0.", "[0]."),
            "dra-request",
        ),
        (
            _set(f"{REQUEST}.exactly.count", -1),
            f"$.{REQUEST}.exactly.count".replace(".0.", "[0]."),
            "dra-request",
        ),
        (
            _set(f"{REQUEST}.exactly.allocationMode", "Some"),
            f"$.{REQUEST}.exactly.allocationMode".replace(".0.", "[0]."),
            "dra-request",
        ),
        (_set(f"{REQUEST}.name", "GPU"), f"$.{REQUEST}.name".replace(".0.", "[0]."), "dra-request"),
        (
            _set(f"{REQUEST}.exactly.deviceClassName", ""),
            f"$.{REQUEST}.exactly.deviceClassName".replace(".0.", "[0]."),
            "dra-request",
        ),
        (
            _set(f"{REQUEST}.exactly.selectors", [{"cel": {"expression": "device.driver =="}}]),
            "$.spec.spec.devices.requests[0].exactly.selectors[0].cel.expression",
            "dra-selector",
        ),
        (
            _set(f"{REQUEST}.exactly.selectors", [{"cel": {"expression": "device.driver"}}]),
            "$.spec.spec.devices.requests[0].exactly.selectors[0].cel.expression",
            "dra-selector",
        ),
        (
            _set(f"{REQUEST}.firstAvailable", [{"name": "a", "deviceClassName": "gpu.example.com"}]),
            "$.spec.spec.devices.requests[0]",
            "dra-request",
        ),
        (
            _set(
                "spec.spec.devices.constraints",
                [{"requests": ["cpu"], "matchAttribute": "gpu.example.com/model"}],
            ),
            "$.spec.spec.devices.constraints[0].requests[0]",
            "dra-request",
        ),
    ],
)
def test_template_broken_one_way(
    change: Callable[[Obj], None], path: str, keyword: str, issues_of: Callable[[Obj], Any]
) -> None:
    obj = _template()
    change(obj)
    assert issues_of(obj) == [(path, keyword)]


@pytest.mark.parametrize(
    ("change", "paths"),
    [
        (
            _set("spec.template.spec.containers.0.resources.claims", [{"name": "gpus"}]),
            ["$.spec.template.spec.containers[0].resources.claims[0].name"],
        ),
        (
            _set("spec.template.spec.resourceClaims.0.resourceClaimName", "shared"),
            ["$.spec.template.spec.resourceClaims[0]"],
        ),
        (  # the pod's claim is invalid, so the container names no claim of the pod either
            _set("spec.template.spec.resourceClaims.0.name", "GPU"),
            [
                "$.spec.template.spec.resourceClaims[0].name",
                "$.spec.template.spec.containers[0].resources.claims[0].name",
            ],
        ),
    ],
)
def test_pod_claims_broken_one_way(
    change: Callable[[Obj], None], paths: list[str], issues_of: Callable[[Obj], Any]
) -> None:
    obj = _job()
    change(obj)
    assert issues_of(obj) == [(path, "pod-claims") for path in paths]


def test_a_container_claim_without_pod_claims(schema_cache: Path) -> None:
    obj = _job()
    del obj["spec"]["template"]["spec"]["resourceClaims"]
    (message,) = _messages(schema_cache, obj)
    assert "which is not one of the names in pod.spec.resourceClaims (none)" in message


def test_device_class_selectors_compile(issues_of: Callable[[Obj], Any]) -> None:
    device_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.nvidia.com"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.nvidia.com"'}}]},
    }
    assert issues_of(device_class) == []
    device_class["spec"]["selectors"][0]["cel"]["expression"] = "device.vendor == 'x'"
    assert issues_of(device_class) == [("$.spec.selectors[0].cel.expression", "dra-selector")]


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ('device.attributes["gpu.nvidia.com"].productName == "H100"', None),
        ('device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0', None),
        ('cel.bind(gpu, device.attributes["gpu.nvidia.com"], gpu.index < 4)', None),
        ('device.attributes["gpu.nvidia.com"].productName', None),  # dyn: judged when evaluated
        ("device.driver", "must evaluate to bool or the unknown type, not string"),
        ("device.model == 'x'", "compilation failed: ERROR: <input>: undefined field 'model'"),
        ("x" * 10241, "Too long: may not be more than 10240 bytes"),
    ],
)
def test_selector_environment(expression: str, problem: str | None) -> None:
    assert selector_problem(expression) == problem
