"""Values derived from a minor's definitions (the GVK index, ObjectMeta's closure) are kept in the
disk cache: a later process answers "is this kind built-in?" and builds CRD schemas without reading
all definitions, and gets the same values."""

from __future__ import annotations

from pathlib import Path

from trainops.schemas.convert import OBJECT_META_DEF
from trainops.schemas.registry import CoreSchemas, core_versions

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
