"""The kubeconform peer of ``make bench``: where its binary is found, its command line, the schemas it
is given (``bench/peer_schemas.py``) and how its json output maps to documents.

The schema tests run on real input, kubernetes-validate's strict schemas and CRDs of ../shared/crds,
with the Python jsonschema library; none needs the Go binary. The last test runs the binary itself
when ``$KUBECONFORM`` names one (bench/README.md says how to build it) and is skipped otherwise.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing
import yaml

from bench import kubeconform, peer_schemas
from bench.corpus import Expected
from bench.verdicts import compare
from conftest import CRDS, EXAMPLES

KUBERNETES_VERSION = "1.34"
DEPLOYMENT = (
    EXAMPLES / "k8s-website" / "content" / "en" / "examples" / "application" / "deployment-sidecar.yaml"
)
PYTORCHJOB = EXAMPLES / "training-operator" / "examples" / "pytorch" / "simple.yaml"
PYTORCHJOB_CRD = CRDS / "training-operator" / "kubeflow.org_pytorchjobs.yaml"
SERVICEMONITOR = (
    EXAMPLES
    / "prometheus-operator"
    / "example"
    / "user-guides"
    / "getting-started"
    / "example-app-service-monitor.yaml"
)
SERVICEMONITOR_CRD = CRDS / "prometheus-operator" / "monitoring.coreos.com_servicemonitors.yaml"

needs_inputs = pytest.mark.skipif(
    not (DEPLOYMENT.is_file() and PYTORCHJOB_CRD.is_file()),
    reason="../shared (examples, crds) is not beside the repo",
)


def _load(path: Path) -> dict[str, Any]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


# --- verdicts -------------------------------------------------------------------------------------------


def _record(document: int, name: str, verdict: str) -> Expected:
    return Expected(
        file="core/part-0000.yaml",
        document=document,
        line=1 + 10 * document,
        group="core",
        api_version="v1",
        kind="ConfigMap",
        name=name,
        verdict="valid" if verdict == "valid" else "invalid",
        category=None if verdict == "valid" else "wrong-type",
        path=None if verdict == "valid" else "$.data.k",
        error_line=None if verdict == "valid" else 5 + 10 * document,
    )


def _resource(path: Path, name: str, status: str) -> dict[str, str]:
    return {"filename": str(path), "kind": "ConfigMap", "name": name, "version": "v1", "status": status}


def test_resources_match_documents_by_file_kind_and_name(tmp_path: Path) -> None:
    records = [
        _record(0, "a", "valid"),
        _record(1, "b", "invalid"),
        _record(2, "same", "valid"),
        _record(3, "same", "invalid"),
        _record(4, "c", "invalid"),
        _record(5, "d", "valid"),
    ]
    path = tmp_path / "core" / "part-0000.yaml"
    resources = [  # kubeconform's workers report in any order
        _resource(path, "c", "statusError"),
        _resource(path, "same", "statusValid"),
        _resource(path, "a", "statusInvalid"),
        _resource(path, "same", "statusInvalid"),
        _resource(path, "b", "statusValid"),
        _resource(path, "d", "statusSkipped"),
        _resource(path, "unknown", "statusValid"),
    ]
    output = kubeconform.parse_kubeconform(json.dumps({"resources": resources}), tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == [
        "invalid",
        "valid",
        "valid",
        "invalid",
        "invalid",
        "unchecked",
    ]
    assert (output.unattributed, output.findings) == (1, 3)
    agreement = compare(records, output)
    assert (agreement.flagged_invalid, agreement.expected_invalid, agreement.false_positives) == (2, 3, 1)


def _broken(document: int, name: str, category: str, path: str, error_line: int) -> Expected:
    return Expected(
        file="core/part-0000.yaml",
        document=document,
        line=100 * document,
        group="core",
        api_version="apps/v1",
        kind="Deployment",
        name=name,
        verdict="invalid",
        category=category,
        path=path,
        error_line=100 * document + error_line - 1,
    )


def test_repeated_names_match_by_the_errors_path_or_line(tmp_path: Path) -> None:
    """Three broken Deployments of one name in one file (as the corpus has): kubeconform's error on
    the unknown field goes to that document, its duplicate-key error (line 65 of the document) to
    the duplicate key, and its valid verdict to the document it cannot see (an API-server rule)."""
    container = "$.spec.template.spec.containers[0]"
    records = [
        _broken(1, "x", "api-server", f"{container}.ports[0].containerPort", 40),
        _broken(2, "x", "duplicate-key", f"{container}.env[0].value", 65),
        _broken(3, "x", "unknown-field", f"{container}.resource", 50),
    ]
    file = str(tmp_path / "core" / "part-0000.yaml")
    unknown = {
        "path": "/spec/template/spec/containers/0",
        "msg": "additional properties 'resource' not allowed",
    }
    duplicate = 'error unmarshalling resource: error converting YAML to JSON: yaml: unmarshal errors:\n  line 65: key "value" already set in map'
    resources = [
        {"filename": file, "kind": "Deployment", "name": "x", "status": "statusValid"},
        {
            "filename": file,
            "kind": "Deployment",
            "name": "x",
            "status": "statusInvalid",
            "validationErrors": [unknown],
        },
        {"filename": file, "kind": "Deployment", "name": "x", "status": "statusError", "msg": duplicate},
    ]
    output = kubeconform.parse_kubeconform(json.dumps({"resources": resources}), tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == ["valid", "invalid", "invalid"]
    assert compare(records, output).by_category == {
        "api-server": (0, 1),
        "duplicate-key": (1, 1),
        "unknown-field": (1, 1),
    }


@pytest.mark.parametrize(
    ("json_path", "pointer"),
    [
        ("$.spec.template.spec.containers[0].resource", "/spec/template/spec/containers/0/resource"),
        ("$.metadata.labels['app.kubernetes.io/version']", "/metadata/labels/app.kubernetes.io/version"),
        ("$", ""),
    ],
)
def test_json_paths_as_kubeconform_writes_them(json_path: str, pointer: str) -> None:
    assert kubeconform.json_pointer(json_path) == pointer


# --- the binary and its command line --------------------------------------------------------------------


def test_schema_locations_are_go_templates() -> None:
    argv = kubeconform.argv(Path("/p/kubeconform"), ["dir"], Path("/s"), "1.34", 2)
    locations = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-schema-location"]
    assert locations == [
        "/s/kschemas/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json",
        "/s/crdschemas/{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}.json",
    ]
    assert argv[0] == "/p/kubeconform" and "-strict" in argv
    assert argv[argv.index("-kubernetes-version") + 1] == "1.34.0" and argv[-1] == "dir"


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho v0.7.0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_the_binary_is_kubeconform_env_var_first_then_path(tmp_path: Path) -> None:
    named = _executable(tmp_path / "built" / "kubeconform")
    on_path = _executable(tmp_path / "bin" / "kubeconform")
    path = str(on_path.parent)
    assert kubeconform.locate({"KUBECONFORM": str(named), "PATH": path}) == named
    assert kubeconform.locate({"PATH": path}) == on_path
    assert kubeconform.locate({"KUBECONFORM": "", "PATH": path}) == on_path
    assert kubeconform.locate({"PATH": str(tmp_path / "empty")}) is None
    assert kubeconform.missing_note(named, crds=tmp_path) is None
    assert kubeconform.version(named) == "v0.7.0"


@pytest.mark.parametrize(
    ("binary", "says"),
    [
        (None, "KUBECONFORM is not set and kubeconform is not on PATH"),
        (Path("/nonexistent/kubeconform"), "KUBECONFORM=/nonexistent/kubeconform is not an executable file"),
    ],
)
def test_without_the_binary_the_note_says_how_to_provide_it(
    binary: Path | None, says: str, tmp_path: Path
) -> None:
    note = kubeconform.missing_note(binary, crds=tmp_path)
    assert note is not None and "\n" not in note
    assert note.startswith("kubeconform not measured: ") and says in note
    assert "set KUBECONFORM=/path/to/kubeconform" in note and "bench/README.md" in note


def test_without_the_crds_the_note_names_them(tmp_path: Path) -> None:
    binary = _executable(tmp_path / "kubeconform")
    note = kubeconform.missing_note(binary, crds=tmp_path / "crds")
    assert (
        note
        == f"kubeconform not measured: {tmp_path / 'crds'} (the CRDs it is given) is not beside the repository."
    )


# --- core schemas: kubernetes-validate's, standalone ------------------------------------------------------


@pytest.fixture(scope="module")
def kv_dir() -> Path:
    return peer_schemas.kubernetes_validate_dir(KUBERNETES_VERSION)


def _refs(node: Any) -> int:
    """``$ref`` keywords in a schema (a property named ``$ref`` holds a schema, not a string)."""
    if isinstance(node, dict):
        return int(isinstance(node.get("$ref"), str)) + sum(_refs(v) for v in node.values())
    if isinstance(node, list):
        return sum(_refs(v) for v in node)
    return 0


def _errors(validator: jsonschema.protocols.Validator, document: Any) -> list[tuple[str, str]]:
    return sorted((error.json_path, error.message) for error in validator.iter_errors(document))


def _set(document: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(document)
    node: Any = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def _drop(document: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
    document = copy.deepcopy(document)
    node: Any = document
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return document


Mutation = Callable[[dict[str, Any]], dict[str, Any]]
CONTAINER = ("spec", "template", "spec", "containers", 0)


@needs_inputs
@pytest.mark.parametrize(
    ("mutation", "valid"),
    [
        (lambda d: d, True),
        (lambda d: _set(d, ("spec", "replicas"), "one"), False),  # wrong type
        (lambda d: _set(d, (*CONTAINER, "imagePullPolcy"), "Always"), False),  # unknown field
        (lambda d: _set(d, ("spec", "template", "spec", "restartPolicy"), "Always"), True),
        (lambda d: _drop(d, (*CONTAINER, "name")), False),  # missing required
        (lambda d: _drop(d, ("spec", "selector")), False),  # missing required
    ],
    ids=[
        "example",
        "wrong-type",
        "unknown-field",
        "known-field",
        "missing-container-name",
        "missing-selector",
    ],
)
def test_standalone_core_schema_gives_kubernetes_validates_errors(
    kv_dir: Path, mutation: Mutation, valid: bool
) -> None:
    """The standalone Deployment schema reports exactly the errors of kubernetes-validate's schema with
    its ``_definitions.json`` registry (how kubernetes-validate validates), on a real Deployment."""
    original = json.loads((kv_dir / "deployment-apps-v1.json").read_text(encoding="utf-8"))
    definitions = json.loads((kv_dir / "_definitions.json").read_text(encoding="utf-8"))
    registry: referencing.Registry[Any] = referencing.Registry().with_resources(
        [
            (original["$id"], referencing.Resource.from_contents(original)),
            (definitions["$id"], referencing.Resource.from_contents(definitions)),
        ]
    )
    standalone = peer_schemas.standalone(original, definitions["$defs"])
    assert _refs(standalone) == 0 and "$id" not in standalone
    assert standalone["$schema"] == original["$schema"] and standalone["additionalProperties"] is False
    document = mutation(_load(DEPLOYMENT))
    expected = _errors(jsonschema.Draft202012Validator(original, registry=registry), document)
    assert _errors(jsonschema.Draft202012Validator(standalone), document) == expected
    assert (expected == []) is valid


@needs_inputs
def test_recursive_definitions_are_cut_once(kv_dir: Path) -> None:
    """``JSONSchemaProps`` refers to itself: inlined once, its self-references are ``{}``."""
    definitions = json.loads((kv_dir / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    crd = json.loads((kv_dir / "customresourcedefinition-apiextensions-v1.json").read_text(encoding="utf-8"))
    standalone = peer_schemas.standalone(crd, definitions)
    assert _refs(standalone) == 0
    props = standalone["properties"]["spec"]["properties"]["versions"]["items"]["properties"]["schema"][
        "properties"
    ]
    open_api = props["openAPIV3Schema"]
    assert open_api["properties"]["type"] == {"type": ["string", "null"]}  # JSONSchemaProps, inlined
    assert open_api["properties"]["not"] == {}  # JSONSchemaProps within itself
    assert open_api["properties"]["properties"]["additionalProperties"] == {}
    assert open_api["properties"]["allOf"]["items"] == {}


@needs_inputs
def test_core_files_are_in_kubeconforms_layout(kv_dir: Path, tmp_path: Path) -> None:
    count = peer_schemas.write_core(KUBERNETES_VERSION, tmp_path)
    folder = tmp_path / "v1.34.0-standalone-strict"
    names = {p.name for p in folder.iterdir()}
    assert count == len(names) == len(list(kv_dir.glob("*.json"))) - 2  # less _definitions.json, all.json
    # {{.ResourceKind}}{{.KindSuffix}}: lower-case kind, first part of the group, version
    assert {
        "deployment-apps-v1.json",
        "configmap-v1.json",
        "horizontalpodautoscaler-autoscaling-v2.json",
    } <= names
    assert "networkpolicy-networking-v1.json" in names and "poddisruptionbudget-policy-v1.json" in names
    schema = json.loads((folder / "configmap-v1.json").read_text(encoding="utf-8"))
    assert _refs(schema) == 0 and schema["properties"]["metadata"]["additionalProperties"] is False


# --- CRD schemas: as kubeconform's scripts/openapi2jsonschema.py writes them ------------------------------


@pytest.fixture(scope="module")
def pytorchjob_schema() -> dict[str, Any]:
    if not PYTORCHJOB_CRD.is_file():
        pytest.skip("../shared/crds is not beside the repo")
    converted = dict(peer_schemas.crd_schemas(PYTORCHJOB_CRD.read_text(encoding="utf-8")))
    assert list(converted) == ["pytorchjob-kubeflow.org-v1.json"]
    return converted["pytorchjob-kubeflow.org-v1.json"]


def _objects_without_additional_properties(node: Any) -> int:
    if isinstance(node, dict):
        own = int("properties" in node and "additionalProperties" not in node)
        return own + sum(_objects_without_additional_properties(v) for v in node.values())
    if isinstance(node, list):
        return sum(_objects_without_additional_properties(v) for v in node)
    return 0


def test_crd_schema_is_strict_from_the_root(pytorchjob_schema: dict[str, Any]) -> None:
    assert pytorchjob_schema["additionalProperties"] is False
    assert pytorchjob_schema["properties"]["spec"]["additionalProperties"] is False
    assert _objects_without_additional_properties(pytorchjob_schema) == 0
    limits = pytorchjob_schema["properties"]["spec"]["properties"]["pytorchReplicaSpecs"][
        "additionalProperties"
    ]
    container = limits["properties"]["template"]["properties"]["spec"]["properties"]["containers"]["items"]
    quantity = container["properties"]["resources"]["properties"]["limits"]["additionalProperties"]
    assert quantity["anyOf"] == [{"type": "integer"}, {"type": "string"}] and quantity["pattern"].startswith(
        "^("
    )


@pytest.mark.parametrize(
    ("schema", "converted"),
    [  # openapi2jsonschema.py's own test cases (test_additional_properties, test_replace_int_or_string)
        ({"something": {"properties": {}}}, {"something": {"properties": {}, "additionalProperties": False}}),
        ({"something": {"somethingelse": {}}}, {"something": {"somethingelse": {}}}),
        (
            {"properties": {"port": {"format": "int-or-string", "description": "d"}}},
            {
                "properties": {"port": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
                "additionalProperties": False,
            },
        ),
        ({"something": {"format": "string"}}, {"something": {"format": "string"}}),
        (
            {"properties": {"a": {"properties": {}, "additionalProperties": True}}},
            {
                "properties": {"a": {"properties": {}, "additionalProperties": True}},
                "additionalProperties": False,
            },
        ),
    ],
)
def test_crd_schema_conversion_rules(schema: dict[str, Any], converted: dict[str, Any]) -> None:
    assert peer_schemas.crd_schema(schema) == converted


REPLICA = ("spec", "pytorchReplicaSpecs", "Worker")


@needs_inputs
@pytest.mark.parametrize(
    ("mutation", "valid"),
    [
        (lambda d: d, True),
        (lambda d: _set(d, (*REPLICA, "replicas"), "one"), False),  # wrong type
        (lambda d: _set(d, ("spec", "runPolicyy"), {}), False),  # unknown field
        (
            lambda d: _set(d, ("extra",), 1),
            False,
        ),  # unknown field at the root (DENY_ROOT_ADDITIONAL_PROPERTIES)
        (
            lambda d: _drop(d, (*REPLICA, "template", "spec", "containers", 0, "name")),
            False,
        ),  # missing required
        (lambda d: _drop(d, ("spec", "pytorchReplicaSpecs")), False),  # missing required
    ],
    ids=[
        "example",
        "wrong-type",
        "unknown-field",
        "unknown-root-field",
        "missing-container-name",
        "missing-replica-specs",
    ],
)
def test_crd_schema_validates_a_real_custom_resource(
    pytorchjob_schema: dict[str, Any], mutation: Mutation, valid: bool
) -> None:
    """kubeconform compiles a schema without ``$schema`` as draft 4 (``downloadSchema`` of
    pkg/validator/validator.go, v0.7.0)."""
    assert "$schema" not in pytorchjob_schema
    errors = list(jsonschema.Draft4Validator(pytorchjob_schema).iter_errors(mutation(_load(PYTORCHJOB))))
    assert (errors == []) is valid, [e.message for e in errors]


@needs_inputs
def test_crd_files_written_once_per_kind_group_version(tmp_path: Path) -> None:
    files = peer_schemas.crd_files(CRDS)
    count = peer_schemas.write_crds(files, tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    with (CRDS / "catalog.tsv").open(encoding="utf-8") as handle:
        installed = sum(1 for _ in handle) - 1  # one row per CRD file, after the header
    assert count == len(names) and len(files) == installed
    # both MPIJob CRDs (training-operator v1, mpi-operator v2beta1); multi-version CRDs give one file each
    assert {"mpijob-kubeflow.org-v1.json", "mpijob-kubeflow.org-v2beta1.json"} <= set(names)
    assert {"servicemonitor-monitoring.coreos.com-v1.json", "pytorchjob-kubeflow.org-v1.json"} <= set(names)
    assert all(name == name.lower() for name in names)


UPSTREAM = Path(os.environ.get("KUBECONFORM_SRC", "/nonexistent")) / "scripts" / "openapi2jsonschema.py"


@needs_inputs
@pytest.mark.skipif(
    not UPSTREAM.is_file(), reason="KUBECONFORM_SRC (kubeconform's source checkout) is not set"
)
@pytest.mark.parametrize("crd", [PYTORCHJOB_CRD, SERVICEMONITOR_CRD], ids=["pytorchjob", "servicemonitor"])
def test_crd_conversion_is_byte_identical_to_upstreams_script(crd: Path, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    theirs.mkdir()
    peer_schemas.write_crds([crd], ours)
    env = {
        **os.environ,
        "FILENAME_FORMAT": "{kind}-{fullgroup}-{version}",
        "DENY_ROOT_ADDITIONAL_PROPERTIES": "1",
    }
    subprocess.run(
        [sys.executable, str(UPSTREAM), str(crd)], cwd=theirs, env=env, check=True, capture_output=True
    )
    assert {p.name: p.read_bytes() for p in ours.iterdir()} == {
        p.name: p.read_bytes() for p in theirs.iterdir()
    }


def test_prepare_keeps_schemas_while_inputs_are_unchanged(tmp_path: Path) -> None:
    crds = tmp_path / "crds" / "training-operator"
    crds.mkdir(parents=True)
    if not PYTORCHJOB_CRD.is_file():
        pytest.skip("../shared/crds is not beside the repo")
    shutil.copyfile(PYTORCHJOB_CRD, crds / PYTORCHJOB_CRD.name)
    root = peer_schemas.prepare(tmp_path / "out", KUBERNETES_VERSION, crds.parent)
    schema = root / "crdschemas" / "pytorchjob-kubeflow.org-v1.json"
    stamp = (root / "stamp").read_text(encoding="utf-8")
    schema.write_text("{}", encoding="utf-8")  # kept: the stamp still matches the inputs
    assert peer_schemas.prepare(tmp_path / "out", KUBERNETES_VERSION, crds.parent) == root
    assert schema.read_text(encoding="utf-8") == "{}"
    (crds / PYTORCHJOB_CRD.name).write_text(
        PYTORCHJOB_CRD.read_text(encoding="utf-8") + "\n", encoding="utf-8"
    )
    peer_schemas.prepare(tmp_path / "out", KUBERNETES_VERSION, crds.parent)  # input changed: rewritten
    assert json.loads(schema.read_text(encoding="utf-8"))["additionalProperties"] is False
    assert (root / "stamp").read_text(encoding="utf-8") != stamp


# --- the binary itself, when it is there -----------------------------------------------------------------

BINARY = kubeconform.locate()


@needs_inputs
@pytest.mark.skipif(
    BINARY is None or kubeconform.missing_note(BINARY) is not None,
    reason="no kubeconform binary: set KUBECONFORM (bench/README.md says how to build it)",
)
def test_kubeconform_reads_the_schemas(tmp_path: Path) -> None:
    """kubeconform finds a schema for a real Deployment, PyTorchJob and ServiceMonitor, passes them, and
    fails a wrong type, an unknown field and a missing required field."""
    assert BINARY is not None
    crds = tmp_path / "crds" / "x"
    crds.mkdir(parents=True)
    for crd in (PYTORCHJOB_CRD, SERVICEMONITOR_CRD):
        shutil.copyfile(crd, crds / crd.name)
    root = peer_schemas.prepare(tmp_path / "schemas", KUBERNETES_VERSION, crds.parent)
    deployment, job = _load(DEPLOYMENT), _load(PYTORCHJOB)
    documents = {
        "deployment": deployment,
        "pytorchjob": job,
        "servicemonitor": _load(SERVICEMONITOR),
        "wrong-type": _set(deployment, ("spec", "replicas"), "one"),
        "unknown-field": _set(job, ("spec", "runPolicyy"), {}),
        "missing-required": _drop(deployment, ("spec", "selector")),
    }
    files = tmp_path / "docs"
    files.mkdir()
    for name, document in documents.items():
        (files / f"{name}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    done = subprocess.run(
        kubeconform.argv(BINARY, [str(files)], root, KUBERNETES_VERSION, 1),
        capture_output=True,
        text=True,
        check=False,
    )
    statuses = {Path(r["filename"]).stem: r["status"] for r in json.loads(done.stdout)["resources"]}
    assert statuses == {
        "deployment": "statusValid",
        "pytorchjob": "statusValid",
        "servicemonitor": "statusValid",
        "wrong-type": "statusInvalid",
        "unknown-field": "statusInvalid",
        "missing-required": "statusInvalid",
    }, done.stderr
    assert done.returncode == 1
