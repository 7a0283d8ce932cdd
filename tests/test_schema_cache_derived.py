"""What the schema cache keeps besides the schemas: values derived from a minor's definitions (the GVK
index, ObjectMeta's closure), so a later process answers "is this kind built-in?" and builds CRD
schemas without reading all definitions; and each CRD version's CEL census, so validation does not
compile rules only to find that none is evaluated offline."""

from __future__ import annotations

import json
from pathlib import Path

from trainops.schemas.convert import OBJECT_META_DEF
from trainops.schemas.registry import CoreSchemas, SchemaRegistry, core_versions

MINOR = 34


def _core(cache: Path | None) -> CoreSchemas:
    return CoreSchemas(MINOR, core_versions()[MINOR], cache)


def test_a_later_process_reads_them_instead_of_the_definitions(tmp_path: Path) -> None:
    first = _core(tmp_path)
    index, meta = first.gvk_index, first.object_meta_defs
    assert index[("apps/v1", "Deployment")].endswith(".apps.v1.Deployment")
    assert ("kubeflow.org/v1", "PyTorchJob") not in index
    assert OBJECT_META_DEF in meta

    later = _core(tmp_path)
    assert later.gvk_index == index and later.object_meta_defs == meta
    assert later.kind_schema("kubeflow.org/v1", "PyTorchJob") is None
    assert "definitions" not in vars(later)  # the 1.5 MB of definitions were never parsed
    assert later.kind_schema("apps/v1", "Deployment") is not None


def test_without_a_cache_or_with_damaged_files_they_are_computed(tmp_path: Path) -> None:
    reference = _core(None)
    first = _core(tmp_path)
    assert first.gvk_index == reference.gvk_index
    for path in (tmp_path / "compiled").rglob("_*.json"):
        path.write_text("{not json", encoding="utf-8")
    damaged = _core(tmp_path)
    assert damaged.gvk_index == reference.gvk_index
    assert damaged.object_meta_defs == reference.closure([OBJECT_META_DEF])


def test_the_cel_census_of_the_cache_spares_compiling_exactly_the_rule_free_versions(
    schema_cache: Path,
) -> None:
    """``trainops schemas sync`` records each CRD version's CEL census; validation skips compiling the
    rules of a version whose census has nothing to evaluate. On every catalogued CRD version, that
    is exactly the versions whose compiled rules the validator would not evaluate."""
    from trainops.validate.cel import CelValidator

    registry = SchemaRegistry(f"1.{MINOR}", schema_cache)
    index = json.loads((schema_cache / "schemas" / "index.json").read_text(encoding="utf-8"))
    decided = {True: 0, False: 0}
    for row in index["schemas"]:
        schema = registry.get(row["apiVersion"], row["kind"])
        assert schema is not None
        if schema.openapi is None:  # a kind trainops checks with its own schema (Katib's)
            assert schema.source.startswith("trainops schemas/local")
            continue
        assert schema.cel_rules_to_evaluate is not None, row["file"]
        assert schema.cel_rules_to_evaluate == CelValidator.for_schema(schema.openapi).has_rules, row["file"]
        decided[schema.cel_rules_to_evaluate] += 1
    assert decided[True] > 0 and decided[False] > 0
