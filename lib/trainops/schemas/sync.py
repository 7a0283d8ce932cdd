"""``trainops schemas sync``: fetch catalog CRDs, verify checksums, convert, write the cache.

Cache layout (default: the user cache directory, see ``catalog.default_cache_dir``)::

    schemas.lock                             held while the cache is written (filelock)
    schemas/index.json                       what is cached (:func:`index_document`) + one row per
                                             (apiVersion, kind, operator)
    schemas/crds/<group>/<version>/<Kind>.<operator>.json
                                             {"schema": <JSON Schema>, "openAPIV3Schema": <raw>}

``sync`` replaces the ``schemas/`` directory atomically (temporary sibling + rename);
:func:`add_entry` (schemas on first use, :mod:`trainops.schemas.fetch`) adds one CRD's files and
then rewrites the index atomically. Both hold the lock, so concurrent runs never lose or half-write
an entry; readers need no lock (every file they can see is complete).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainops.atomic import atomic_write, staged_directory
from trainops.errors import SchemaError
from trainops.schemas.catalog import PACKAGED_CATALOG, CatalogEntry
from trainops.schemas.convert import convert_crd_schema
from trainops.schemas.index import INDEX_VERSION, index_document, read_index
from trainops.yaml.load import load_text

#: Counts a CRD version's CEL rules (``rules``, ``evaluated``, ``skipped``, ``errors``) from its raw
#: ``openAPIV3Schema``; supplied by the caller (the validator owns CEL), recorded in the index.
CelCensus = Callable[[dict[str, Any]], dict[str, int]]

#: The lock file beside ``schemas/`` (not inside: ``sync`` replaces that directory).
LOCK_FILE = "schemas.lock"
#: How long a run waits for another run writing the cache (seconds).
LOCK_SECONDS = 600.0


@dataclass(frozen=True)
class SyncReport:
    """What a sync did: the entries converted and the number of (apiVersion, kind) schemas written."""

    crds: int
    schemas: int
    skipped: bool
    cache: Path


def catalog_digest(entries: list[CatalogEntry], *, census: bool = False) -> str:
    """sha256 over the entries' names and checksums (and whether CEL rules were counted): the cache
    is current when it matches."""
    text = "\n".join(f"{e.name} {e.sha256}" for e in entries)
    return hashlib.sha256(f"{INDEX_VERSION}\n{'cel' if census else ''}\n{text}".encode()).hexdigest()


def fetch_entry(entry: CatalogEntry, mirror: Path | None, timeout: float = 60.0) -> bytes:
    """Return the bytes of ``entry`` from ``mirror/<mirror_path>`` or its URL.

    Raises:
        SchemaError: the file cannot be read or downloaded, or its sha256 does not match.
    """
    if mirror is not None:
        path = mirror / entry.mirror_path
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SchemaError(f"{path}: {exc.strerror} (catalog entry {entry.name})") from None
        source = str(path)
    else:
        import httpx

        try:
            response = httpx.get(entry.url, timeout=timeout, follow_redirects=True)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise SchemaError(f"{entry.url}: download failed: {exc} (catalog entry {entry.name})") from None
        data = response.content
        source = entry.url
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry.sha256:
        raise SchemaError(
            f"{source}: sha256 mismatch for catalog entry {entry.name}: expected {entry.sha256}, got {digest}"
        )
    return data


def convert_entry(
    entry: CatalogEntry, data: bytes, census: CelCensus | None = None
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Convert every served version of the CRD in ``data``.

    Returns:
        ``(index_entry, cache_document)`` pairs, one per served version.

    Raises:
        SchemaError: the file is not one CustomResourceDefinition of the catalogued group and kind.
    """
    loaded = load_text(data.decode("utf-8"), entry.mirror_path)
    if loaded.error is not None:
        raise SchemaError(f"{entry.mirror_path}:{loaded.error.line}: {loaded.error.message}")
    crd = loaded.documents[0].data if len(loaded.documents) == 1 else None
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise SchemaError(f"{entry.mirror_path}: not a CustomResourceDefinition")
    spec = crd.get("spec") or {}
    group = spec.get("group")
    kind = (spec.get("names") or {}).get("kind")
    if group != entry.group or kind != entry.kind:
        raise SchemaError(
            f"{entry.mirror_path}: defines {group}/{kind}, catalog entry {entry.name} says {entry.group}/{entry.kind}"
        )
    out = []
    for version in spec.get("versions") or []:
        if not version.get("served", False):
            continue
        name = version["name"]
        raw = ((version.get("schema") or {}).get("openAPIV3Schema")) or {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
        }
        scale = (version.get("subresources") or spec.get("subresources") or {}).get("scale") or {}
        replicas_path = scale.get("specReplicasPath") if isinstance(scale, dict) else None
        converted = convert_crd_schema(
            raw,
            group=group,
            version=name,
            kind=kind,
            spec_replicas_path=replicas_path if isinstance(replicas_path, str) else None,
        )
        cel = census(raw) if census is not None else None
        rel = f"crds/{group}/{name}/{kind}.{entry.operator}.json"
        index_entry = {
            "apiVersion": f"{group}/{name}",
            "kind": kind,
            "operator": entry.operator,
            "source": f"{entry.repo}@{entry.tag}",
            "catalog": entry.name,
            "file": rel,
            "storage": bool(version.get("storage", False)),
            "deprecated": bool(version.get("deprecated", False)),
            "deprecationWarning": version.get("deprecationWarning"),
            "scope": spec.get("scope", "Namespaced"),
        }
        if cel is not None:
            index_entry["cel"] = cel
        document = {"schema": converted, "openAPIV3Schema": raw}
        out.append((index_entry, document))
    return out


@contextmanager
def cache_lock(cache: Path, timeout: float = LOCK_SECONDS) -> Iterator[None]:
    """Hold ``cache/schemas.lock`` (:data:`LOCK_FILE`) while the block writes the cache.

    Raises:
        SchemaError: another run held the lock for ``timeout`` seconds; the cache directory cannot
            be created.
    """
    from filelock import FileLock, Timeout  # only when the cache is written

    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SchemaError(f"{cache}: cannot create the schema cache ({exc.strerror})") from None
    lock = FileLock(cache / LOCK_FILE, timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise SchemaError(
            f"{cache / LOCK_FILE}: another trainops run has been writing the schema cache for "
            f"{timeout:.0f} s; try again when it ends"
        ) from None
    try:
        yield
    finally:
        lock.release()


def add_entry(
    entry: CatalogEntry,
    catalog_entries: list[CatalogEntry],
    cache: Path,
    *,
    mirror: Path | None,
    census: CelCensus | None = None,
    progress: Callable[[CatalogEntry], None] | None = None,
) -> list[dict[str, Any]]:
    """Fetch, verify and convert one catalog entry into the cache (schemas on first use).

    Under :func:`cache_lock`: when another run cached the entry meanwhile, its rows are returned and
    nothing is fetched; otherwise the CRD is fetched (``mirror`` or its URL, sha256 checked as
    :func:`sync` does), each served version's file written atomically, and the index rewritten
    atomically with the entry's rows replacing any older ones. A cache of another
    :data:`INDEX_VERSION` is started afresh.

    Args:
        entry: the entry to cache.
        catalog_entries: every entry of the shipped catalog (for the index's ``complete``).
        cache: the cache root.
        mirror: read CRD files from this directory instead of their URLs.
        census: counts each version's CEL rules for the index; ``None`` skips it.
        progress: called with ``entry`` just before it is fetched (not when another run did).

    Returns:
        The index rows of the entry's served versions.

    Raises:
        SchemaError: the CRD cannot be read or downloaded, fails its checksum or conversion; the
            cache cannot be written; the lock is held too long.
    """
    with cache_lock(cache):
        index = read_index(cache) or {"entries": {}, "schemas": []}
        cached: dict[str, str] = dict(index["entries"])
        if cached.get(entry.name) == entry.sha256:
            return [row for row in index["schemas"] if row.get("catalog") == entry.name]
        if progress is not None:
            progress(entry)
        data = fetch_entry(entry, mirror)
        rows = []
        try:
            for row, document in convert_entry(entry, data, census):
                path = cache / "schemas" / row["file"]
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(path, json.dumps(document, separators=(",", ":"), sort_keys=True).encode())
                rows.append(row)
            cached[entry.name] = entry.sha256
            kept = [row for row in index["schemas"] if row.get("catalog") != entry.name]
            document = index_document(
                catalog_entries, cached, kept + rows, catalog=PACKAGED_CATALOG, digest=None
            )
            atomic_write(
                cache / "schemas" / "index.json",
                (json.dumps(document, indent=1, sort_keys=True) + "\n").encode(),
            )
        except OSError as exc:
            raise SchemaError(
                f"{cache / 'schemas'}: cannot write the schema cache ({exc.strerror})"
            ) from None
        return rows


def sync(
    entries: list[CatalogEntry],
    cache: Path,
    *,
    mirror: Path | None,
    force: bool = False,
    progress: Callable[[CatalogEntry], None] | None = None,
    census: CelCensus | None = None,
    catalog: Path = PACKAGED_CATALOG,
) -> SyncReport:
    """Fetch, verify and convert every catalog entry into ``cache/schemas``.

    Skips the work when the cache index already matches the catalog digest, unless ``force``. The
    cache directory is replaced atomically (:func:`trainops.atomic.staged_directory`) while
    :func:`cache_lock` is held.

    Args:
        entries: catalog entries (:func:`trainops.schemas.catalog.load_catalog`).
        cache: the cache root; schemas go to ``cache/schemas``.
        mirror: read CRD files from this directory instead of their URLs.
        force: convert even when the cache is current.
        progress: called with each entry before it is converted.
        census: counts each version's CEL rules for the index (``schemas list``); ``None`` skips it.
        catalog: the file ``entries`` were read from (recorded in the index). Default: the shipped one.

    Raises:
        SchemaError: a source cannot be read, fails its checksum or is not the catalogued CRD.
    """
    target = cache / "schemas"
    digest = catalog_digest(entries, census=census is not None)
    with cache_lock(cache):
        current = read_index(cache)
        if not force and current is not None and current.get("catalog") == digest:
            return SyncReport(len(entries), len(current["schemas"]), True, cache)
        index: list[dict[str, Any]] = []
        with staged_directory(target) as staging:
            for entry in entries:
                if progress:
                    progress(entry)
                data = fetch_entry(entry, mirror)
                for index_entry, document in convert_entry(entry, data, census):
                    path = staging / index_entry["file"]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(
                        json.dumps(document, separators=(",", ":"), sort_keys=True), encoding="utf-8"
                    )
                    index.append(index_entry)
            cached = {entry.name: entry.sha256 for entry in entries}
            (staging / "index.json").write_text(
                json.dumps(
                    index_document(entries, cached, index, catalog=catalog, digest=digest),
                    indent=1,
                    sort_keys=True,
                )
                + "\n",
                encoding="utf-8",
            )
    return SyncReport(len(entries), len(index), False, cache)
