"""The schema cache's index, ``<cache>/schemas/index.json``: what is cached, and from which catalog.

Read by every run that validates (:func:`read_index`, kept light: no conversion or file-writing
modules); written by ``trainops schemas sync`` and by schemas on first use
(:mod:`trainops.schemas.sync`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from trainops.core.errors import SchemaError
from trainops.schemas.catalog import PACKAGED_CATALOG, CatalogEntry

#: Bump when what the index records or the conversion changes meaning, so caches are synced again:
#: validation trusts each version's CEL census to skip compiling rules it would not evaluate
#: (:attr:`trainops.schemas.registry.KindSchema.cel_rules_to_evaluate`); 3: the scale subresource's
#: ``specReplicasPath`` is bounded (:func:`trainops.schemas.convert.scale_replicas_schema`); 4: a
#: required property with a ``default`` is not required (structural defaulting).
INDEX_VERSION = 4


def catalog_file_digest(catalog: Path) -> str:
    """sha256 (hex) of the catalog file's bytes: the index records it, and the registry compares it
    with the shipped catalog's to tell a cache made from this catalog (cheaper than parsing it).

    Raises:
        SchemaError: the file cannot be read.
    """
    try:
        return hashlib.sha256(catalog.read_bytes()).hexdigest()
    except OSError as exc:
        raise SchemaError(f"{catalog}: {exc.strerror}") from None


def index_document(
    catalog_entries: list[CatalogEntry],
    cached: dict[str, str],
    rows: list[dict[str, Any]],
    *,
    catalog: Path,
    digest: str | None,
) -> dict[str, Any]:
    """The content of ``schemas/index.json``.

    Args:
        catalog_entries: every entry of the catalog the cache follows.
        cached: catalog entry name → sha256 of the CRD file its rows were converted from.
        rows: one per (apiVersion, kind, operator) (:func:`trainops.schemas.sync.convert_entry`).
        catalog: the catalog file (the shipped one, or ``schemas sync --catalog``'s).
        digest: :func:`trainops.schemas.sync.catalog_digest` when a full ``sync`` wrote the cache (its "up to date" check),
            else ``None``.

    Returns:
        ``format`` (:data:`INDEX_VERSION`), ``catalog`` (``digest``), ``catalogFile``
        (:func:`catalog_file_digest`), ``custom`` (not the shipped catalog), ``complete`` (every
        catalog entry is cached), ``entries`` (``cached``) and ``schemas`` (``rows``, sorted).
    """
    return {
        "format": INDEX_VERSION,
        "catalog": digest,
        "catalogFile": catalog_file_digest(catalog),
        "custom": catalog.resolve() != PACKAGED_CATALOG.resolve(),
        "complete": cached == {e.name: e.sha256 for e in catalog_entries},
        "entries": dict(sorted(cached.items())),
        "schemas": sorted(rows, key=lambda e: (e["apiVersion"], e["kind"], e["operator"])),
    }


def read_index(cache: Path) -> dict[str, Any] | None:
    """``cache/schemas/index.json`` when it is readable and of this :data:`INDEX_VERSION`, else
    ``None`` (no cache, a damaged one, or one written by another trainops version)."""
    try:
        data = json.loads((cache / "schemas" / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != INDEX_VERSION:
        return None
    if not isinstance(data.get("schemas"), list) or not isinstance(data.get("entries"), dict):
        return None
    return data
