"""Mutation matrix: for each kind family, each check fires on a generated copy of a valid example.

Families: core workloads, Kubeflow v1 jobs, Trainer v2, Kueue, KServe, prometheus-operator,
Argo CD and Katib (local schema). Mutations: a wrong type, an unknown field, a missing required
field, an out-of-range int32, a bad date-time, a duplicate list-map key and a broken CEL rule
(where the family's CRDs have rules).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_files
from trainops.yaml.dump import dump_document

pytestmark = needs_shared

Path_ = list[str | int]
Mutation = Callable[[dict[str, Any]], None]

FAMILIES: dict[str, tuple[str, int]] = {
    "core": ("prometheus-operator/example/rbac/prometheus-operator/prometheus-operator-deployment.yaml", 0),
    "kubeflow-v1": ("training-operator/examples/pytorch/simple.yaml", 0),
    "trainer-v2": ("trainer/examples/flux/lammps-train-job.yaml", 0),
    "kueue": ("kueue/site/static/examples/admin/single-clusterqueue-setup.yaml", 1),
    "kserve": ("kserve/docs/samples/v1beta1/sklearn/v1/sklearn.yaml", 0),
    "prometheus-operator": (
        "prometheus-operator/example/user-guides/getting-started/example-app-service-monitor.yaml",
        0,
    ),
    "argo-cd": ("argo-cd/docs/operator-manual/application.yaml", 0),
    "katib": ("katib/examples/v1beta1/hp-tuning/random.yaml", 0),
}


def _get(doc: Any, path: Path_) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def setv(path: Path_, value: Any) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        parent = _get(doc, path[:-1])
        parent[path[-1]] = value

    return mutate


def delete(path: Path_) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        del _get(doc, path[:-1])[path[-1]]

    return mutate


def duplicate(path: Path_) -> Mutation:
    """Append a copy of the first item of the list at ``path``."""

    def mutate(doc: dict[str, Any]) -> None:
        items = _get(doc, path)
        items.append(copy.deepcopy(items[0]))

    return mutate


WRONG_TYPE = "expected"
UNKNOWN = 'unknown field "bogusField"'
REQUIRED = "missing required field"
INT32 = "is greater than the maximum of 2147483647"
DATE_TIME = 'is not a "date-time"'
DUPLICATE = "duplicate"

PYTORCH_MASTER: Path_ = ["spec", "pytorchReplicaSpecs", "Master"]

CASES = [
    # family, mutation id, mutation, expected JSON path, expected message part
    ("core", "wrong-type", setv(["spec", "replicas"], "two"), "$.spec.replicas", WRONG_TYPE),
    ("core", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("core", "missing-required", delete(["spec", "selector"]), "$.spec", REQUIRED),
    ("core", "int32", setv(["spec", "replicas"], 2**31), "$.spec.replicas", INT32),
    (
        "core",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    (
        "core",
        "list-map",
        duplicate(["spec", "template", "spec", "containers"]),
        "$.spec.template.spec.containers[1].name",
        "is already used",
    ),
    (
        "kubeflow-v1",
        "wrong-type",
        setv([*PYTORCH_MASTER, "replicas"], "one"),
        "$.spec.pytorchReplicaSpecs.Master.replicas",
        WRONG_TYPE,
    ),
    ("kubeflow-v1", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("kubeflow-v1", "missing-required", delete(["spec", "pytorchReplicaSpecs"]), "$.spec", REQUIRED),
    (
        "kubeflow-v1",
        "int32",
        setv([*PYTORCH_MASTER, "replicas"], 2**31),
        "$.spec.pytorchReplicaSpecs.Master.replicas",
        INT32,
    ),
    (
        "kubeflow-v1",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    (
        "kubeflow-v1",
        "list-map",
        duplicate([*PYTORCH_MASTER, "template", "spec", "containers"]),
        "$.spec.pytorchReplicaSpecs.Master.template.spec.containers[1]",
        DUPLICATE,
    ),
    (
        "trainer-v2",
        "wrong-type",
        setv(["spec", "trainer", "numNodes"], "four"),
        "$.spec.trainer.numNodes",
        WRONG_TYPE,
    ),
    ("trainer-v2", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("trainer-v2", "missing-required", delete(["spec", "runtimeRef", "name"]), "$.spec.runtimeRef", REQUIRED),
    ("trainer-v2", "int32", setv(["spec", "trainer", "numNodes"], 2**31), "$.spec.trainer.numNodes", INT32),
    (
        "trainer-v2",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    (
        "trainer-v2",
        "cel",
        setv(["spec", "managedBy"], "example.com/other"),
        "$.spec.managedBy",
        "ManagedBy must be",
    ),
    (
        "kueue",
        "wrong-type",
        setv(["spec", "resourceGroups", 0, "coveredResources"], "cpu"),
        "$.spec.resourceGroups[0].coveredResources",
        WRONG_TYPE,
    ),
    ("kueue", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    (
        "kueue",
        "missing-required",
        delete(["spec", "resourceGroups", 0, "flavors"]),
        "$.spec.resourceGroups[0]",
        REQUIRED,
    ),
    (
        "kueue",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    (
        "kueue",
        "list-map",
        duplicate(["spec", "resourceGroups", 0, "flavors"]),
        "$.spec.resourceGroups[0].flavors[1]",
        DUPLICATE,
    ),
    (
        "kserve",
        "wrong-type",
        setv(["spec", "predictor", "minReplicas"], "one"),
        "$.spec.predictor.minReplicas",
        WRONG_TYPE,
    ),
    ("kserve", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("kserve", "missing-required", delete(["spec", "predictor"]), "$.spec", REQUIRED),
    (
        "kserve",
        "int32",
        setv(["spec", "predictor", "minReplicas"], 2**31),
        "$.spec.predictor.minReplicas",
        INT32,
    ),
    (
        "kserve",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    (
        "prometheus-operator",
        "wrong-type",
        setv(["spec", "endpoints", 0, "interval"], 30),
        "$.spec.endpoints[0].interval",
        WRONG_TYPE,
    ),
    ("prometheus-operator", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("prometheus-operator", "missing-required", delete(["spec", "selector"]), "$.spec", REQUIRED),
    (
        "prometheus-operator",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    ("argo-cd", "wrong-type", setv(["spec", "project"], ["default"]), "$.spec.project", WRONG_TYPE),
    ("argo-cd", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("argo-cd", "missing-required", delete(["spec", "destination"]), "$.spec", REQUIRED),
    (
        "argo-cd",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
    ("katib", "wrong-type", setv(["spec", "maxTrialCount"], "12"), "$.spec.maxTrialCount", WRONG_TYPE),
    ("katib", "unknown-field", setv(["spec", "bogusField"], 1), "$.spec.bogusField", UNKNOWN),
    ("katib", "missing-required", delete(["spec", "objective"]), "$.spec", REQUIRED),
    ("katib", "int32", setv(["spec", "maxTrialCount"], 2**31), "$.spec.maxTrialCount", INT32),
    (
        "katib",
        "date-time",
        setv(["metadata", "creationTimestamp"], "yesterday"),
        "$.metadata.creationTimestamp",
        DATE_TIME,
    ),
]


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _errors(registry: SchemaRegistry, path: Path) -> list[str]:
    result = validate_files([str(path)], registry, ValidateOptions())
    return [f"{f.path}: {f.message}" for f in result.sorted() if f.level == "error"]


@pytest.mark.parametrize(
    ("family", "mutation", "mutate", "where", "message"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_mutation_is_caught(
    registry: SchemaRegistry,
    tmp_path: Path,
    family: str,
    mutation: str,
    mutate: Mutation,
    where: str,
    message: str,
) -> None:
    rel, index = FAMILIES[family]
    doc = list(yaml.safe_load_all((EXAMPLES / rel).read_text()))[index]
    original = tmp_path / "original.yaml"
    original.write_text(dump_document(doc))
    assert _errors(registry, original) == []
    mutate(doc)
    mutated = tmp_path / "mutated.yaml"
    mutated.write_text(dump_document(doc))
    errors = _errors(registry, mutated)
    assert any(e.startswith(f"{where}: ") and message in e for e in errors), errors


def test_every_family_has_the_core_mutations() -> None:
    for family in FAMILIES:
        kinds = {mutation for fam, mutation, *_ in CASES if fam == family}
        assert {"wrong-type", "unknown-field", "missing-required", "date-time"} <= kinds, family
