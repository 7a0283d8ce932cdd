"""The schema family asks jsonschema-rs ``is_valid`` before ``iter_errors``: the two agree on every
upstream example and on mutated documents (a wrong type, an unknown field, a missing field)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, needs_shared
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.checks.schema import validator_for
from trainops.yaml.load import load_file


def _documents() -> list[dict[str, Any]]:
    if not EXAMPLES.is_dir():
        return []
    return [
        d.data
        for path in sorted(EXAMPLES.rglob("*.y*ml"))
        for d in load_file(str(path)).documents
        if isinstance(d.data, dict)
        and isinstance(d.data.get("apiVersion"), str)
        and isinstance(d.data.get("kind"), str)
    ]


def _mutations(doc: dict[str, Any]) -> list[dict[str, Any]]:
    wrong_type = copy.deepcopy(doc)
    wrong_type["metadata"] = ["not", "a", "mapping"]
    unknown = copy.deepcopy(doc)
    unknown["unknownTopLevelField"] = 1
    missing = copy.deepcopy(doc)
    missing.pop("spec", None)
    return [doc, wrong_type, unknown, missing]


@needs_shared
def test_is_valid_agrees_with_iter_errors(schema_cache: Path) -> None:
    registry = SchemaRegistry("1.34", schema_cache)
    checked = invalid = 0
    for doc in _documents():
        schema = registry.get(doc["apiVersion"], doc["kind"])
        if schema is None:
            continue
        validator = validator_for(schema)
        for variant in _mutations(doc):
            errors = list(validator.iter_errors(variant))
            assert validator.is_valid(variant) == (not errors)
            checked += 1
            invalid += bool(errors)
    assert checked > 400
    assert 0 < invalid < checked
