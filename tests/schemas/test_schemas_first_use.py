"""Schemas on first use (issue 24 point 4): a catalogued CRD kind missing from the cache is fetched,
checked and cached when a document first needs it, with one progress line on stderr; a mirror
(``TRAINOPS_CRD_MIRROR`` or ``--crd-mirror``) serves it offline; ``--offline`` names the command to
run. No test here uses the network: the catalog URLs are made unreachable.
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import CRDS, EXAMPLES, needs_shared
from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog
from trainops.schemas.fetch import SchemaSource
from trainops.schemas.index import INDEX_VERSION, read_index
from trainops.schemas.registry import SchemaRegistry
from trainops.schemas.sync import add_entry

pytestmark = needs_shared

PYTORCHJOB = EXAMPLES / "training-operator/examples/pytorch/simple.yaml"
KSERVE = EXAMPLES / "kserve/docs/samples/fluid/kserve-isvc.yaml"
DEPLOYMENT = EXAMPLES / "k8s-website/content/en/examples/application/deployment.yaml"
FIRST_USE = "trainops: caching CRD schemas on first use in "


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Any download fails the test; runs happen outside a repository (the all-operators target)."""
    import httpx

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network used: {args}")

    monkeypatch.setattr(httpx, "get", refuse)
    monkeypatch.delenv("TRAINOPS_CRD_MIRROR", raising=False)
    monkeypatch.chdir(tmp_path)


def _validate(cli: Any, cache: Path, *args: str) -> Any:
    return cli("validate", "--cache-dir", str(cache), *args, str(PYTORCHJOB), str(KSERVE))


def test_first_use_from_the_mirror_matches_a_synced_cache(
    cli: Any, schema_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _validate(cli, schema_cache)
    assert synced.code == 0 and FIRST_USE not in synced.err
    monkeypatch.setenv("TRAINOPS_CRD_MIRROR", str(CRDS))
    fresh = tmp_path / "fresh-cache"
    first = _validate(cli, fresh)
    assert (first.code, first.out) == (synced.code, synced.out)
    progress = [line for line in first.err.splitlines() if line.startswith(FIRST_USE)]
    assert progress == [
        f"{FIRST_USE}{fresh / 'schemas'} (from mirror {CRDS}), starting with kubeflow.org/v1 PyTorchJob "
        "(training-operator/kubeflow.org_pytorchjobs); `trainops schemas sync` caches them all ahead"
    ]
    index = read_index(fresh)
    assert index is not None and index["format"] == INDEX_VERSION and not index["complete"]
    assert sorted(index["entries"]) == [
        "kserve/serving.kserve.io_inferenceservices",
        "training-operator/kubeflow.org_pytorchjobs",
    ]
    again = _validate(cli, fresh)
    assert (again.code, again.out) == (synced.code, synced.out)
    assert FIRST_USE not in again.err


def test_crd_mirror_option_serves_without_the_environment(cli: Any, tmp_path: Path) -> None:
    run = _validate(cli, tmp_path / "cache", "--crd-mirror", str(CRDS))
    assert run.code == 0, run.err
    assert run.err.count(FIRST_USE) == 1


def test_offline_with_an_empty_cache_names_the_command(cli: Any, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run = _validate(cli, cache, "--offline")
    assert run.code == 2
    assert run.out == ""
    assert run.err == (
        "trainops: kubeflow.org/v1 PyTorchJob: its CRD schema (training-operator/kubeflow.org_pytorchjobs) "
        f"is not in the schema cache {cache} and --offline fetches nothing; run "
        f"`trainops schemas sync --cache-dir {cache}` first\n"
    )


def test_offline_names_the_mirror_given_as_an_option(cli: Any, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run = _validate(cli, cache, "--offline", "--crd-mirror", str(CRDS))
    assert run.code == 2
    assert f"run `trainops schemas sync --from {CRDS} --cache-dir {cache}` first" in run.err


def test_built_in_kinds_need_no_cache(cli: Any, tmp_path: Path) -> None:
    run = cli("validate", "--offline", "--cache-dir", str(tmp_path / "cache"), str(DEPLOYMENT))
    assert (run.code, run.err) == (0, "")


def test_a_tampered_mirror_file_is_refused_and_nothing_cached(cli: Any, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    shutil.copytree(CRDS / "training-operator", mirror / "training-operator")
    crd = mirror / "training-operator" / "kubeflow.org_pytorchjobs.yaml"
    crd.write_bytes(crd.read_bytes() + b"\n# tampered\n")
    cache = tmp_path / "cache"
    run = cli("validate", "--cache-dir", str(cache), "--crd-mirror", str(mirror), str(PYTORCHJOB))
    assert run.code == 2
    assert f"{crd}: sha256 mismatch for catalog entry training-operator/kubeflow.org_pytorchjobs" in run.err
    assert read_index(cache) is None
    assert not (cache / "schemas" / "crds").exists()


def test_unknown_kinds_are_still_unknown(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "widget.yaml"
    path.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", encoding="utf-8")
    run = cli("validate", "--offline", "--cache-dir", str(tmp_path / "cache"), str(path))
    assert run.code == 1
    assert "no schema for example.com/v1 Widget on Kubernetes" in run.out


def test_a_cache_of_an_older_catalog_revision_is_refetched(schema_cache: Path, tmp_path: Path) -> None:
    """After an upgrade that changes a CRD's checksum, the old rows are not used."""
    cache = tmp_path / "cache"
    shutil.copytree(schema_cache, cache)
    index_path = cache / "schemas" / "index.json"
    index = json.loads(index_path.read_text())
    index["catalogFile"] = "0" * 64  # written from another revision of the shipped catalog
    index["entries"]["training-operator/kubeflow.org_pytorchjobs"] = "1" * 64
    index_path.write_text(json.dumps(index))
    lines: list[str] = []
    source = SchemaSource(mirror=CRDS, progress=lines.append)
    registry = SchemaRegistry("1.36", cache, source=source)
    assert registry.get("apps/v1", "Deployment") is not None and lines == []
    assert registry.get("kubeflow.org/v1", "TFJob") is not None and lines == []  # unchanged: kept
    assert registry.get("kubeflow.org/v1", "PyTorchJob") is not None
    assert len(lines) == 1 and "kubeflow.org/v1 PyTorchJob" in lines[0]
    fixed = read_index(cache)
    assert fixed is not None
    assert fixed["entries"]["training-operator/kubeflow.org_pytorchjobs"] == next(
        e.sha256
        for e in load_catalog(PACKAGED_CATALOG)
        if e.name == "training-operator/kubeflow.org_pytorchjobs"
    )


def test_an_index_of_another_format_is_ignored(schema_cache: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(schema_cache, cache)
    index_path = cache / "schemas" / "index.json"
    index = json.loads(index_path.read_text())
    index["format"] = INDEX_VERSION - 1
    index_path.write_text(json.dumps(index))
    with pytest.raises(Exception, match="--offline fetches nothing"):
        SchemaRegistry("1.36", cache, source=SchemaSource(offline=True)).get("kubeflow.org/v1", "PyTorchJob")


def test_installed_operators_choose_the_crd(tmp_path: Path) -> None:
    """MPIJob kubeflow.org/v2beta1 is mpi-operator's: a Training Operator cluster has no such kind,
    and nothing is fetched for it."""
    lines: list[str] = []
    source = SchemaSource(mirror=CRDS, progress=lines.append)
    registry = SchemaRegistry("1.36", tmp_path, {"training-operator": "v1.9.4"}, source=source)
    assert registry.get("kubeflow.org/v2beta1", "MPIJob") is None and lines == []
    assert registry.not_installed("kubeflow.org/v2beta1", "MPIJob") == ["mpi-operator"]
    assert registry.get("kubeflow.org/v1", "MPIJob") is not None and len(lines) == 1


def _add(name: str, cache: str) -> None:
    catalog = load_catalog(PACKAGED_CATALOG)
    entry = next(e for e in catalog if e.name == name)
    add_entry(entry, catalog, Path(cache), mirror=CRDS)


def test_concurrent_first_uses_lose_nothing(tmp_path: Path) -> None:
    """Processes caching different CRDs at once into one cache: every entry is indexed (the lock),
    every file complete (atomic writes)."""
    names = [e.name for e in load_catalog(PACKAGED_CATALOG)][:6]
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_add, args=(name, str(tmp_path))) for name in names + names]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * len(processes)
    index = read_index(tmp_path)
    assert index is not None and sorted(index["entries"]) == sorted(names)
    for row in index["schemas"]:
        json.loads((tmp_path / "schemas" / row["file"]).read_text())
    assert not list((tmp_path / "schemas").rglob("*.tmp"))


def test_sync_after_first_use_completes_the_cache(cli: Any, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _validate(cli, cache, "--crd-mirror", str(CRDS)).code == 0
    run = cli("schemas", "sync", "--from", str(CRDS), "--cache-dir", str(cache))
    assert run.code == 0 and "schemas synced" in run.err
    index = read_index(cache)
    assert index is not None and index["complete"] and index["catalog"]
    assert "up to date" in cli("schemas", "sync", "--from", str(CRDS), "--cache-dir", str(cache)).err


def test_a_cache_synced_from_another_catalog_is_used_as_it_is(cli: Any, tmp_path: Path) -> None:
    """``schemas sync --catalog`` (a user's own pins): its rows are trusted, not refetched."""
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(PACKAGED_CATALOG.read_text(encoding="utf-8") + "\n# pinned by us\n", encoding="utf-8")
    cache = tmp_path / "cache"
    run = cli("schemas", "sync", "--catalog", str(catalog), "--from", str(CRDS), "--cache-dir", str(cache))
    assert run.code == 0
    index = read_index(cache)
    assert index is not None and index["custom"] and index["complete"]
    again = _validate(cli, cache, "--offline")
    assert again.code == 0 and again.err == ""
