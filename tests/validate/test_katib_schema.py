"""The local Katib Experiment schema (lib/trainops/schemas/local/katib-experiment-v1beta1.json): every upstream
Experiment validates, and typos, wrong enums and wrong types fail at the right JSON path."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from trainops.schemas.convert import OBJECT_META_DEF
from trainops.schemas.local import LOCAL_SCHEMAS, load_local_schema, local_schema_dir
from trainops.schemas.registry import SchemaRegistry
from trainops.yaml.load import load_file

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"
KATIB = EXAMPLES / "katib"
RANDOM = "katib/examples/v1beta1/hp-tuning/random.yaml"

needs_examples = pytest.mark.skipif(
    not KATIB.is_dir(), reason="../shared/examples/katib is not beside the repo"
)


@cache
def _validator() -> Any:
    schema = load_local_schema("kubeflow.org/v1beta1", "Experiment")
    assert schema is not None
    schema["$defs"] = SchemaRegistry("1.34", None).core.closure([OBJECT_META_DEF])
    return jsonschema_rs.Draft202012Validator(schema, validate_formats=True)


def _errors(obj: Any) -> list[tuple[str, str]]:
    return [("/".join(map(str, e.instance_path)), e.message) for e in _validator().iter_errors(obj)]


def _experiments() -> list[str]:
    if not KATIB.is_dir():
        return []
    found = []
    for path in sorted(KATIB.rglob("*.yaml")):
        for document in load_file(str(path)).documents:
            if isinstance(document.data, dict) and document.data.get("kind") == "Experiment":
                found.append(str(path.relative_to(EXAMPLES)))
                break
    return found


def _load(rel: str) -> dict[str, Any]:
    (document,) = load_file(str(EXAMPLES / rel)).documents
    data = document.data
    assert isinstance(data, dict)
    return data


def test_every_listed_schema_loads() -> None:
    for (api_version, kind), name in LOCAL_SCHEMAS.items():
        assert (local_schema_dir() / name).is_file()
        schema = load_local_schema(api_version, kind)
        assert schema is not None and schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert "v0.19.0" in schema["description"] and "$defs" not in schema


def test_unlisted_kind_is_none() -> None:
    assert load_local_schema("kubeflow.org/v1beta1", "Suggestion") is None


def test_each_load_is_a_fresh_copy() -> None:
    first = load_local_schema("kubeflow.org/v1beta1", "Experiment")
    assert first is not None
    first["$defs"] = {}
    assert "$defs" not in (load_local_schema("kubeflow.org/v1beta1", "Experiment") or {})


def test_local_schemas_are_package_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trainops.schemas

    monkeypatch.chdir(tmp_path)
    assert local_schema_dir() == Path(trainops.schemas.__file__).parent / "local"
    assert load_local_schema("kubeflow.org/v1beta1", "Experiment") is not None


@needs_examples
def test_upstream_experiments_are_found() -> None:
    assert len(_experiments()) >= 10


@needs_examples
@pytest.mark.parametrize("rel", _experiments())
def test_upstream_experiment_validates(rel: str) -> None:
    assert _errors(_load(rel)) == []


def _set(obj: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node: Any = obj
    for step in parents:
        node = node[int(step)] if isinstance(node, list) else node[step]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _rename(obj: dict[str, Any], path: str, new: str) -> None:
    *parents, last = path.split(".")
    node: Any = obj
    for step in parents:
        node = node[int(step)] if isinstance(node, list) else node[step]
    node[new] = node.pop(last)


def _delete(obj: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    node: Any = obj
    for step in parents:
        node = node[int(step)] if isinstance(node, list) else node[step]
    del node[last]


#: (id, mutation of random.yaml, expected (instance path, message fragment))
MUTATIONS: list[tuple[str, Any, tuple[str, str]]] = [
    (
        "typo-objective-metric-name",
        lambda o: _rename(o, "spec.objective.objectiveMetricName", "objectiveMetricNam"),
        ("spec/objective", "objectiveMetricNam"),
    ),
    (
        "objective-type-enum",
        lambda o: _set(o, "spec.objective.type", "maximise"),
        ("spec/objective/type", "maximise"),
    ),
    ("max-trial-count-string", lambda o: _set(o, "spec.maxTrialCount", "10"), ("spec/maxTrialCount", '"10"')),
    (
        "parallel-trial-count-zero",
        lambda o: _set(o, "spec.parallelTrialCount", 0),
        ("spec/parallelTrialCount", "0"),
    ),
    (
        "max-failed-trial-count-int32",
        lambda o: _set(o, "spec.maxFailedTrialCount", 2**31),
        ("spec/maxFailedTrialCount", str(2**31)),
    ),
    (
        "parameter-type-enum",
        lambda o: _set(o, "spec.parameters.0.parameterType", "float"),
        ("spec/parameters/0/parameterType", "float"),
    ),
    (
        "feasible-space-number",
        lambda o: _set(o, "spec.parameters.0.feasibleSpace.min", 0.01),
        ("spec/parameters/0/feasibleSpace/min", "0.01"),
    ),
    (
        "feasible-space-typo",
        lambda o: _rename(o, "spec.parameters.0.feasibleSpace.max", "maximum"),
        ("spec/parameters/0/feasibleSpace", "maximum"),
    ),
    ("resume-policy-enum", lambda o: _set(o, "spec.resumePolicy", "Always"), ("spec/resumePolicy", "Always")),
    (
        "collector-kind-enum",
        lambda o: _set(o, "spec.metricsCollectorSpec", {"collector": {"kind": "Stdout"}}),
        ("spec/metricsCollectorSpec/collector/kind", "Stdout"),
    ),
    (
        "trial-spec-needs-kind",
        lambda o: _delete(o, "spec.trialTemplate.trialSpec.kind"),
        ("spec/trialTemplate/trialSpec", "kind"),
    ),
    (
        "trial-spec-and-config-map",
        lambda o: _set(
            o,
            "spec.trialTemplate.configMap",
            {"configMapName": "t", "configMapNamespace": "kubeflow", "templatePath": "t.yaml"},
        ),
        ("spec/trialTemplate/trialSpec", "False schema"),
    ),
    (
        "no-parameters-nor-nas-config",
        lambda o: _delete(o, "spec.parameters"),
        ("spec", "parameters"),
    ),
    ("objective-required", lambda o: _delete(o, "spec.objective"), ("spec", "objective")),
    ("unknown-spec-field", lambda o: _set(o, "spec.maxTrials", 3), ("spec", "maxTrials")),
    (
        "api-version-enum",
        lambda o: _set(o, "apiVersion", "kubeflow.org/v1"),
        ("apiVersion", "kubeflow.org/v1"),
    ),
    ("metadata-typo", lambda o: _rename(o, "metadata.namespace", "namespce"), ("metadata", "namespce")),
]


@needs_examples
@pytest.mark.parametrize(("mutate", "expected"), [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_mutation_fails_at_path(mutate: Any, expected: tuple[str, str]) -> None:
    obj = copy.deepcopy(_load(RANDOM))
    assert _errors(obj) == []
    mutate(obj)
    errors = _errors(obj)
    path, fragment = expected
    assert any(p == path and fragment in m for p, m in errors), errors


@needs_examples
def test_free_form_places_stay_free() -> None:
    obj = copy.deepcopy(_load(RANDOM))
    obj["spec"]["trialTemplate"]["trialSpec"]["spec"]["anything"] = {"goes": [1, 2]}
    obj["spec"]["metricsCollectorSpec"] = {
        "collector": {"kind": "Custom", "customCollector": {"name": "c", "image": "x", "whatever": 1}}
    }
    obj["status"] = {"trials": 3, "conditions": []}
    assert _errors(obj) == []
