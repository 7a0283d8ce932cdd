"""``trainops schemas sync|list``: the CRD schema catalog and cache."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli import options
from trainops.errors import SchemaError, UsageError
from trainops.pipeline import sync_schemas
from trainops.schemas.catalog import CatalogEntry, default_cache_dir, default_catalog_path, load_catalog


@dataclass(frozen=True)
class SyncCommand:
    """Options of ``schemas sync``.

    Args:
        mirror: read CRD files from this directory instead of their URLs (env ``TRAINOPS_CRD_MIRROR``).
        catalog: the catalog file; default: the one shipped with trainops.
        cache_dir: the schema cache; default ``$TRAINOPS_CACHE_DIR``, else the user cache directory.
        force: convert even when the cache matches the catalog.
    """

    mirror: Path | None = None
    catalog: Path | None = None
    cache_dir: Path | None = None
    force: bool = False


def run_sync(opts: SyncCommand) -> int:
    """Sync the catalog into the cache; prints one summary line on stderr.

    Raises:
        UsageError: the mirror directory does not exist.
        SchemaError: a source fails to read, its checksum or its conversion.
    """
    catalog = opts.catalog or default_catalog_path()
    if opts.mirror is not None and not opts.mirror.is_dir():
        raise UsageError(f"--from {opts.mirror}: no such directory")
    entries = load_catalog(catalog)
    cache = opts.cache_dir or default_cache_dir()

    def progress(entry: CatalogEntry) -> None:
        if sys.stderr.isatty():
            print(f"\rconverting {entry.name:<70}", end="", file=sys.stderr, flush=True)

    report = sync_schemas(
        entries, cache, mirror=opts.mirror, force=opts.force, progress=progress, catalog=catalog
    )
    if sys.stderr.isatty() and not report.skipped:
        print("\r" + " " * 82 + "\r", end="", file=sys.stderr)
    state = "up to date" if report.skipped else "synced"
    source = f"mirror {opts.mirror}" if opts.mirror else "catalog URLs"
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


@click.group("schemas")
def group() -> None:
    """Manage the CRD schema catalog and cache."""


@group.command("sync")
@click.option(
    "--from",
    "mirror",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TRAINOPS_CRD_MIRROR",
    help="Read CRD files from this mirror directory instead of their URLs (env: TRAINOPS_CRD_MIRROR).",
)
@click.option(
    "--catalog",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Catalog file (default: the catalog shipped with trainops).",
)
@options.cache_dir
@click.option("--force", is_flag=True, help="Re-convert even when the cache matches the catalog.")
def sync_command(**kwargs: Any) -> None:
    """Fetch catalog CRDs (checksums verified) and convert them into the schema cache."""
    sys.exit(run_sync(SyncCommand(**kwargs)))


@group.command("list")
@options.cache_dir
def list_command(cache_dir: Path | None) -> None:
    """List the cached CRD schemas: apiVersion, kind, operator, source."""
    sys.exit(run_list(cache_dir))
