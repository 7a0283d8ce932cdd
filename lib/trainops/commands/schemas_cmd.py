"""``trainops schemas sync|list``."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from trainops.errors import SchemaError, UsageError
from trainops.schemas.catalog import CatalogEntry, default_cache_dir, default_catalog_path, load_catalog
from trainops.schemas.sync import sync


@dataclass(frozen=True)
class SyncCommand:
    """Options of ``schemas sync``: mirror directory, catalog file, cache directory, force."""

    mirror: Path | None
    catalog: Path | None
    cache_dir: Path | None
    force: bool = False


def run_sync(options: SyncCommand) -> int:
    """Sync the catalog into the cache; prints one summary line on stderr.

    Raises:
        UsageError: no catalog, or the mirror directory does not exist.
        SchemaError: a source fails to read, its checksum or its conversion.
    """
    catalog = options.catalog or default_catalog_path()
    if catalog is None:
        raise UsageError("no schemas/catalog.yaml here or above; pass --catalog")
    if options.mirror is not None and not options.mirror.is_dir():
        raise UsageError(f"--from {options.mirror}: no such directory")
    entries = load_catalog(catalog)
    cache = options.cache_dir or default_cache_dir()

    def progress(entry: CatalogEntry) -> None:
        if sys.stderr.isatty():
            print(f"\rconverting {entry.name:<70}", end="", file=sys.stderr, flush=True)

    report = sync(entries, cache, mirror=options.mirror, force=options.force, progress=progress)
    if sys.stderr.isatty() and not report.skipped:
        print("\r" + " " * 82 + "\r", end="", file=sys.stderr)
    state = "up to date" if report.skipped else "synced"
    source = f"mirror {options.mirror}" if options.mirror else "catalog URLs"
    print(
        f"schemas {state}: {report.crds} CRDs, {report.schemas} schemas in {report.cache / 'schemas'} (from {source})",
        file=sys.stderr,
    )
    return 0


def run_list(cache_dir: Path | None) -> int:
    """Print the cached (apiVersion, kind) schemas as a table on stdout.

    Raises:
        SchemaError: no cache index (run ``trainops schemas sync`` first).
    """
    index = (cache_dir or default_cache_dir()) / "schemas" / "index.json"
    if not index.is_file():
        raise SchemaError(f"{index}: no schema cache; run `trainops schemas sync`")
    rows = json.loads(index.read_text(encoding="utf-8"))["schemas"]
    totals = {"rules": 0, "evaluated": 0, "skipped": 0, "errors": 0}
    for row in rows:
        flag = " (deprecated)" if row.get("deprecated") else ""
        cel = row.get("cel") or {}
        for key in totals:
            totals[key] += int(cel.get(key, 0))
        rules = f"cel {cel['evaluated']}/{cel['rules']}" if cel.get("rules") else ""
        print(
            f"{row['apiVersion']:<40} {row['kind']:<28} {row['operator']:<20} {rules:<12} {row['source']}{flag}"
        )
    print(
        f"{len(rows)} schemas; CEL rules: {totals['rules']} total, {totals['evaluated']} evaluated, "
        f"{totals['skipped']} skipped (transition rules need the old object: oldSelf), "
        f"{totals['errors']} failed to compile",
        file=sys.stderr,
    )
    return 0
