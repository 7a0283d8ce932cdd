"""The client's endpoints, models and the fake server's bodies checked against Argo CD's swagger.json (v3.5.1)."""

from __future__ import annotations

import dataclasses
import json
import re
import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import fakeargocd as fake
import pytest
import yaml

from conftest import SAMPLE
from trainops.argocd import client, models

SWAGGER_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "argocd" / "swagger.json"
pytestmark = pytest.mark.skipif(
    not SWAGGER_PATH.is_file(), reason="../shared/reference/argocd/swagger.json is absent"
)

MODELS = [
    models.HealthStatus,
    models.SyncStatus,
    models.OperationState,
    models.ResourceStatus,
    models.Application,
    models.ApplicationList,
    models.ResourceNode,
    models.ApplicationTree,
    models.SyncRequest,
    models.ResourceActionRequest,
    models.ErrorBody,
]
RESPONSE_MODELS = {
    client.LIST_APPLICATIONS: models.ApplicationList,
    client.GET_APPLICATION: models.Application,
    client.RESOURCE_TREE: models.ApplicationTree,
    client.SYNC: models.Application,
}


@pytest.fixture(scope="module")
def swagger() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SWAGGER_PATH.read_text(encoding="utf-8"))
    return data


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rpartition("/")[2] if isinstance(ref, str) else None


def properties(swagger: dict[str, Any], name: str) -> dict[str, Any]:
    """A definition's properties, including those it inherits through ``allOf``."""
    definition = swagger["definitions"][name]
    props: dict[str, Any] = dict(definition.get("properties", {}))
    for part in definition.get("allOf", []):
        ref = _ref_name(part)
        props.update(properties(swagger, ref) if ref else part.get("properties", {}))
    return props


def _model_fields() -> list[Any]:
    return [
        pytest.param(model, swagger_name, fld, id=f"{swagger_name}.{'.'.join(fld.metadata['json'])}")
        for model in MODELS
        for swagger_name in model.SWAGGER
        for fld in dataclasses.fields(model)
    ]


@pytest.mark.parametrize(("model", "definition", "fld"), _model_fields())
def test_model_field_exists_in_swagger_with_compatible_type(
    swagger: dict[str, Any], model: type, definition: str, fld: dataclasses.Field[Any]
) -> None:
    path: tuple[str, ...] = fld.metadata["json"]
    current = definition
    for key in path[:-1]:
        schema = properties(swagger, current)[key]
        ref = _ref_name(schema)
        assert ref is not None, f"{current}.{key} is not an object reference"
        current = ref
    schema = properties(swagger, current)[path[-1]]
    tp = get_type_hints(model)[fld.name]
    if get_origin(tp) in (Union, types.UnionType):
        (tp,) = (arg for arg in get_args(tp) if arg is not type(None))
    if get_origin(tp) is tuple:
        assert schema["type"] == "array"
        item_model = get_args(tp)[0]
        assert _ref_name(schema["items"]) in item_model.SWAGGER
    elif tp is str:
        assert (
            schema.get("type") == "string"
            or swagger["definitions"][_ref_name(schema) or ""]["type"] == "string"
        )
    elif tp is bool:
        assert schema["type"] == "boolean"
    else:
        assert _ref_name(schema) in tp.SWAGGER


@pytest.mark.parametrize("endpoint", client.ENDPOINTS, ids=lambda e: f"{e.method} {e.path}")
def test_endpoint_exists_in_swagger(swagger: dict[str, Any], endpoint: client.Endpoint) -> None:
    operation = swagger["paths"][endpoint.path][endpoint.method.lower()]
    params = operation.get("parameters", [])
    query = {p["name"] for p in params if p["in"] == "query"}
    assert set(endpoint.query) <= query
    path_params = {p["name"] for p in params if p["in"] == "path"}
    assert path_params == set(re.findall(r"\{(\w+)\}", endpoint.path))
    bodies = [_ref_name(p["schema"]) for p in params if p["in"] == "body"]
    assert bodies == ([endpoint.body] if endpoint.body else [])
    assert _ref_name(operation["responses"]["200"]["schema"]) == endpoint.response
    if endpoint in RESPONSE_MODELS:
        assert endpoint.response in RESPONSE_MODELS[endpoint].SWAGGER
    if endpoint.body:
        assert endpoint.body in models.SyncRequest.SWAGGER + models.ResourceActionRequest.SWAGGER


def _check_body(swagger: dict[str, Any], value: Any, definition: str, where: str) -> None:
    if definition == "runtimeRawExtension":
        return  # Helm valuesObject: RawExtension.MarshalJSON writes the raw object itself (apimachinery runtime)
    props = properties(swagger, definition)
    for key, item in value.items():
        assert key in props, f"{where}.{key} is not in swagger {definition}"
        schema = props[key]
        ref = _ref_name(schema)
        if schema.get("type") == "array" and _ref_name(schema["items"]):
            for i, element in enumerate(item):
                _check_body(swagger, element, _ref_name(schema["items"]) or "", f"{where}.{key}[{i}]")
        elif ref and isinstance(item, dict) and set(swagger["definitions"][ref]) & {"properties", "allOf"}:
            _check_body(swagger, item, ref, f"{where}.{key}")


def _generated_platform_app(cluster: str, name: str) -> dict[str, Any]:
    path = SAMPLE / "generated" / cluster / "argocd" / f"application_{name}.yaml"
    return fake.synced_platform_application(yaml.safe_load(path.read_text(encoding="utf-8")))


FAKE_BODIES = [
    pytest.param(
        _generated_platform_app("gpu-next", "gpu-next-kueue"), "v1alpha1Application", id="platform-oci"
    ),
    pytest.param(
        _generated_platform_app("gpu-prod", "gpu-prod-training-operator"),
        "v1alpha1Application",
        id="platform-git",
    ),
    pytest.param(
        fake.application(
            operation_phase="Succeeded",
            resources=[fake.resource("PyTorchJob", "a-123abc", requires_pruning=True)],
            health_message="x",
        ),
        "v1alpha1Application",
        id="application",
    ),
    pytest.param({"items": [fake.application()], "metadata": {}}, "v1alpha1ApplicationList", id="list"),
    pytest.param(
        {"nodes": [fake.node("PyTorchJob", "a-123abc", "Healthy", "done")]},
        "v1alpha1ApplicationTree",
        id="tree",
    ),
    pytest.param(fake.error_body("boom", 2), "runtimeError", id="error"),
]


@pytest.mark.parametrize(("body", "definition"), FAKE_BODIES)
def test_fake_server_bodies_follow_swagger(
    swagger: dict[str, Any], body: dict[str, Any], definition: str
) -> None:
    _check_body(swagger, body, definition, definition)


def test_sync_request_body_uses_swagger_names(swagger: dict[str, Any]) -> None:
    body = models.dump_model(models.SyncRequest(name="train", revision="main", prune=True, dry_run=True))
    assert body == {"name": "train", "revision": "main", "prune": True, "dryRun": True}
    assert set(body) <= set(properties(swagger, "applicationApplicationSyncRequest"))


def test_fake_action_fields_are_swagger_properties(swagger: dict[str, Any]) -> None:
    assert set(properties(swagger, "applicationResourceActionRunRequestV2")) == fake.ACTION_V2_FIELDS
