"""One check path: texts in memory and the same files on disk give the same findings; the project
loader reads clusters one way; the atomic directory swap leaves the old tree on failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SAMPLE
from trainops.atomic import staged_directory
from trainops.errors import UsageError
from trainops.pipeline import Target, Text, check
from trainops.project import declared_clusters, load_clusters, load_project


def test_in_memory_and_on_disk_agree(schema_cache: Path, tmp_path: Path) -> None:
    target = Target("1.34", None, schema_cache)
    files = sorted(str(p) for p in (SAMPLE / "generated").rglob("*.yaml"))
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: Bad_Name\nspec:\n  ports: [{port: 0}]\n"
    )
    files.append(str(broken))
    on_disk = check(target, files)
    in_memory = check(target, [Text(f, Path(f).read_text(encoding="utf-8")) for f in files])
    assert on_disk.sorted() == in_memory.sorted()
    assert (on_disk.files, on_disk.documents) == (in_memory.files, in_memory.documents)
    assert on_disk.count("error") >= 2


def test_clusters_are_loaded_once_and_shared_with_the_project() -> None:
    clusters = declared_clusters(SAMPLE)
    project = load_project(SAMPLE)
    assert [c.name for c in clusters] == [c.name for c in project.clusters]
    assert project.clusters == load_clusters(SAMPLE)


def test_broken_clusters_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "clusters.py").write_text("raise RuntimeError('no cluster today')\n")
    with pytest.raises(UsageError, match=r"clusters.py: failed to load: RuntimeError: no cluster today"):
        load_clusters(tmp_path)


def test_staged_directory_swaps_on_success_and_keeps_old_tree_on_failure(tmp_path: Path) -> None:
    final = tmp_path / "out" / "gpu-prod"
    with staged_directory(final) as staging:
        (staging / "a.yaml").write_text("one")
    assert (final / "a.yaml").read_text() == "one"
    with pytest.raises(RuntimeError), staged_directory(final) as staging:
        (staging / "a.yaml").write_text("two")
        raise RuntimeError("interrupted")
    assert (final / "a.yaml").read_text() == "one"
    assert sorted(p.name for p in final.parent.iterdir()) == ["gpu-prod"]
