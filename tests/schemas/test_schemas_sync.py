"""`trainops schemas sync`: checksums, conversion semantics, cache index, errors."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import CRDS, needs_shared
from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog
from trainops.schemas.convert import convert_crd_schema
from trainops.schemas.registry import SchemaRegistry

pytestmark = needs_shared


def test_sync_from_mirror_indexes_every_served_version(cli: Any, tmp_path: Path) -> None:
    run = cli("schemas", "sync", "--from", str(CRDS), "--cache-dir", str(tmp_path))
    assert run.code == 0
    index = json.loads((tmp_path / "schemas" / "index.json").read_text())
    served = sum(len(e.versions) for e in load_catalog(PACKAGED_CATALOG))
    assert len(index["schemas"]) == served
    pairs = {(s["apiVersion"], s["kind"], s["operator"]) for s in index["schemas"]}
    assert ("kubeflow.org/v1", "PyTorchJob", "training-operator") in pairs
    assert ("kubeflow.org/v2beta1", "MPIJob", "mpi-operator") in pairs
    again = cli("schemas", "sync", "--from", str(CRDS), "--cache-dir", str(tmp_path))
    assert "up to date" in again.err


def test_checksum_mismatch_names_the_file(cli: Any, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    shutil.copytree(CRDS / "kueue", mirror / "kueue")
    shutil.copytree(CRDS / "training-operator", mirror / "training-operator")
    target = mirror / "training-operator" / "kubeflow.org_pytorchjobs.yaml"
    target.write_bytes(target.read_bytes() + b"\n# tampered\n")
    run = cli("schemas", "sync", "--from", str(mirror), "--cache-dir", str(tmp_path / "cache"))
    assert run.code == 2
    assert (
        f"{target}: sha256 mismatch for catalog entry training-operator/kubeflow.org_pytorchjobs" in run.err
    )
    assert not (tmp_path / "cache" / "schemas").exists()  # nothing half-written


def test_missing_mirror_dir_is_usage_error(cli: Any, tmp_path: Path) -> None:
    run = cli("schemas", "sync", "--from", str(tmp_path / "nope"), "--cache-dir", str(tmp_path))
    assert run.code == 2
    assert "no such directory" in run.err


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        ({"extra": 1}, "unknown field 'extra'"),
        ({"sha256": "xyz"}, "is not a hex sha256"),
    ],
)
def test_catalog_is_checked_strictly(
    cli: Any, tmp_path: Path, mutation: dict[str, object], message: str
) -> None:
    import yaml

    catalog = yaml.safe_load(PACKAGED_CATALOG.read_text())
    catalog["crds"][0].update(mutation)
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(catalog))
    run = cli("schemas", "sync", "--catalog", str(path), "--from", str(CRDS), "--cache-dir", str(tmp_path))
    assert run.code == 2
    assert f"{path}: crds[0]" in run.err and message in run.err


def test_list(cli: Any) -> None:
    run = cli("schemas", "list")
    assert run.code == 0
    assert any(
        line.split()[:3] == ["kubeflow.org/v1", "PyTorchJob", "training-operator"]
        for line in run.out.splitlines()
    )


STRUCTURAL = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "port": {
                    "x-kubernetes-int-or-string": True,
                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                },
                "note": {"type": "string", "nullable": True},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "empty": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "count": {"type": "integer", "format": "int32", "minimum": 0, "exclusiveMinimum": True},
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
            },
        }
    },
}


def _errors(spec: dict[str, Any]) -> list[str]:
    import jsonschema_rs

    schema = convert_crd_schema(STRUCTURAL, group="example.com", version="v1", kind="Widget")
    registry = SchemaRegistry("1.34", None)
    schema["$defs"] = registry.core.closure(["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"])
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}
    validator = jsonschema_rs.Draft202012Validator(schema)
    return [".".join(map(str, e.instance_path)) + ": " + e.message for e in validator.iter_errors(obj)]


@pytest.mark.parametrize(
    ("spec", "ok"),
    [
        ({"port": 8080}, True),
        ({"port": "http"}, True),
        ({"port": 1.5}, False),
        ({"note": None}, True),
        ({"free": {"anything": {"goes": 1}}}, True),
        ({"empty": {"x": 1}}, False),
        ({"unknown": 1}, False),
        ({"tags": ["a", "a"]}, False),
        ({"count": 0}, False),
        ({"count": 2**31}, False),
        ({"count": 1}, True),
        ({"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}, True),
        ({"template": {"kind": "Pod"}}, False),
        ({"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"nme": "p"}}}, False),
    ],
)
def test_structural_semantics(spec: dict[str, Any], ok: bool) -> None:
    assert (_errors(spec) == []) is ok, _errors(spec)


def test_list_reports_cel_census(cli: Any) -> None:
    run = cli("schemas", "list")
    assert run.code == 0
    assert (
        "CEL rules: 622 total, 558 evaluated, 64 skipped (transition rules need the old object: oldSelf), "
        "0 failed to compile"
    ) in run.err
    trainjob = next(
        line
        for line in run.out.splitlines()
        if line.split()[:2] == ["trainer.kubeflow.org/v1alpha1", "TrainJob"]
    )
    assert "cel 6/19" in trainjob


@functools.cache
def _lws_validator() -> Any:
    """A validator of LeaderWorkerSet v0.10.0's converted CRD schema (converted once per session)."""
    import jsonschema_rs
    import yaml

    crd = yaml.safe_load((CRDS / "lws" / "leaderworkerset.x-k8s.io_leaderworkersets.yaml").read_text())
    [version] = crd["spec"]["versions"]
    schema = convert_crd_schema(
        version["schema"]["openAPIV3Schema"],
        group="leaderworkerset.x-k8s.io",
        version="v1",
        kind="LeaderWorkerSet",
    )
    schema["$defs"] = SchemaRegistry("1.34", None).core.closure(
        ["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
    )
    return jsonschema_rs.Draft202012Validator(schema)


def _lws_strategy(rollout_strategy: dict[str, Any]) -> list[str]:
    """Errors of LeaderWorkerSet v0.10.0's converted CRD schema on a LeaderWorkerSet with this
    ``spec.rolloutStrategy``."""
    pod = {"spec": {"containers": [{"name": "c", "image": "registry.example.com/c:1"}]}}
    obj = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "lws"},
        "spec": {"rolloutStrategy": rollout_strategy, "leaderWorkerTemplate": {"workerTemplate": pod}},
    }
    return [e.message for e in _lws_validator().iter_errors(obj)]


@pytest.mark.parametrize(
    ("strategy", "ok"),
    [
        # ``type`` is required but defaulted to RollingUpdate: the API server fills it in first
        ({"rollingUpdateConfiguration": {"maxSurge": 1}}, True),
        ({"type": "RollingUpdate"}, True),
        ({"type": "Recreate"}, False),
    ],
)
def test_required_fields_with_a_default_are_defaulted_not_missing(strategy: dict[str, Any], ok: bool) -> None:
    """A required property whose schema has a ``default`` is filled in by structural defaulting
    before validation (the server accepts ``lws/config/samples/disaggregatedset_v1_3role.yaml``,
    which omits ``rolloutStrategy.type``)."""
    assert (_lws_strategy(strategy) == []) is ok, _lws_strategy(strategy)
