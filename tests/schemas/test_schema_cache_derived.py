"""What the schema cache keeps besides the schemas: values derived from a minor's definitions (the GVK
index, ObjectMeta's closure), so a later process answers "is this kind built-in?" and builds CRD
schemas without reading all definitions; and each CRD version's CEL census, so validation does not
compile rules only to find that none is evaluated offline."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from trainops.schemas.convert import OBJECT_META_DEF
from trainops.schemas.registry import BUNDLE_FORMAT, CoreSchemas, SchemaRegistry, core_versions

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
    from trainops.cel.crd_rules import CelValidator

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


def test_crd_schemas_refer_only_to_their_local_object_meta(schema_cache: Path) -> None:
    """A CRD schema gets ObjectMeta's closure as ``$defs`` (references made local once per registry),
    without rewriting its own body: every catalogued CRD version's schema is the one that rewriting
    the whole schema gives, and refers only to those definitions."""
    from trainops.schemas.registry import _relocal

    registry = SchemaRegistry(f"1.{MINOR}", schema_cache)
    index = json.loads((schema_cache / "schemas" / "index.json").read_text(encoding="utf-8"))
    compared = 0
    for row in index["schemas"]:
        schema = registry.get(row["apiVersion"], row["kind"])
        assert schema is not None
        if schema.openapi is None:
            continue
        document = json.loads((schema_cache / "schemas" / row["file"]).read_text(encoding="utf-8"))
        whole = _relocal({**document["schema"], "$defs": registry.core.object_meta_defs})
        assert schema.schema == whole, row["file"]
        refs = {ref for ref in re.findall(r'"\$ref": "([^"]*)"', json.dumps(schema.schema))}
        assert refs and all(ref.removeprefix("#/$defs/") in schema.schema["$defs"] for ref in refs), row[
            "file"
        ]
        compared += 1
    assert compared > 50


def test_bundles_are_kept_per_definitions_file_by_its_size_and_mtime(tmp_path: Path) -> None:
    """The disk cache of a minor's bundles is keyed as Python keys its bytecode cache: the same file
    reuses them; a definitions file of another size or modification time (a reinstall, an edit)
    gets a directory of its own, so no bundle of the old file is read for the new one."""
    source = tmp_path / "v1.34.0-local-strict"
    source.mkdir()
    definitions = source / "_definitions.json"
    definitions.write_bytes((core_versions()[MINOR] / "_definitions.json").read_bytes())
    cache = tmp_path / "cache"

    first = CoreSchemas(MINOR, source, cache)
    assert first.kind_schema("apps/v1", "Deployment") is not None
    (directory,) = (cache / "compiled").iterdir()
    assert directory.name == f"core-1.{MINOR}-{BUNDLE_FORMAT}-{first.digest}"
    assert (directory / "apps_v1_Deployment.json").is_file()
    assert CoreSchemas(MINOR, source, cache).digest == first.digest  # the same file, the same bundles

    stat = definitions.stat()
    os.utime(definitions, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    touched = CoreSchemas(MINOR, source, cache)
    assert touched.digest != first.digest
    data = json.loads(definitions.read_text(encoding="utf-8"))
    definitions.write_text(json.dumps(data, indent=1), encoding="utf-8")  # same content, other size
    resized = CoreSchemas(MINOR, source, cache)
    assert len({first.digest, touched.digest, resized.digest}) == 3
    assert resized.kind_schema("apps/v1", "Deployment") == first.kind_schema("apps/v1", "Deployment")
    assert len(list((cache / "compiled").iterdir())) == 2  # touched was never asked for a bundle
