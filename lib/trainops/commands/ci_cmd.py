"""``trainops ci``: synth into a temporary tree, fail on drift, validate ``generated/``."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from trainops.errors import EXIT_FINDINGS, EXIT_OK
from trainops.findings import Result
from trainops.report import render, resolve_format
from trainops.schemas.catalog import default_cache_dir
from trainops.schemas.registry import SchemaRegistry
from trainops.synth import AppResult, load_project, read_tree, render_project, tree_for
from trainops.validate.engine import ValidateOptions, validate_files


@dataclass(frozen=True)
class CiOptions:
    """Parsed options of ``trainops ci``."""

    cluster: str | None
    out: Path
    fmt: str = "auto"
    strict: bool = False


@dataclass(frozen=True)
class Drift:
    """Files that differ between a fresh synth and ``generated/`` (relative to it)."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]

    @property
    def stale(self) -> bool:
        """Whether anything differs."""
        return bool(self.added or self.removed or self.changed)


def drift(fresh: dict[str, str], committed: dict[str, str]) -> Drift:
    """Compare two trees of relative path → text."""
    return Drift(
        added=tuple(sorted(set(fresh) - set(committed))),
        removed=tuple(sorted(set(committed) - set(fresh))),
        changed=tuple(sorted(p for p in set(fresh) & set(committed) if fresh[p] != committed[p])),
    )


def run_ci(options: CiOptions, root: Path | None = None) -> int:
    """Run the CI pipeline; return 0 when fresh and valid, 1 on drift or error findings."""
    project = load_project(root or Path.cwd())
    results = render_project(project, cluster=options.cluster)
    clusters = [options.cluster] if options.cluster else [c.name for c in project.clusters]
    fresh = tree_for(results)
    found = drift(fresh, read_tree(options.out, clusters))
    if found.stale:
        _print_drift(found, options.out)
        return EXIT_FINDINGS
    total = Result()
    rows: list[tuple[AppResult, Result, float]] = []
    cache = default_cache_dir()
    for cluster_name in clusters:
        cluster = project.cluster(cluster_name)
        registry = SchemaRegistry(cluster.kubernetes_version, cache, cluster.operators)
        for app in (r for r in results if r.cluster == cluster_name):
            start = time.perf_counter()
            files = [str(options.out / app.cluster / app.app / name) for name in app.files]
            result = validate_files(files, registry, ValidateOptions())
            rows.append((app, result, time.perf_counter() - start))
            total.files += result.files
            total.documents += result.documents
            total.extend(result.findings)
    fmt = resolve_format(options.fmt)
    sys.stdout.write(render(total, fmt))
    _print_summary(rows, to_stderr=fmt != "text")
    return EXIT_FINDINGS if total.failed(strict=options.strict) else EXIT_OK


def _print_drift(found: Drift, out: Path) -> None:
    lines = [f"trainops: {out}/ is stale: it differs from a fresh synth (run `trainops synth` and commit):"]
    lines += [f"  changed  {out}/{p}" for p in found.changed]
    lines += [f"  missing  {out}/{p}" for p in found.added]
    lines += [f"  extra    {out}/{p}" for p in found.removed]
    print("\n".join(lines), file=sys.stderr)


def _print_summary(rows: list[tuple[AppResult, Result, float]], *, to_stderr: bool) -> None:
    console = Console(file=sys.stderr if to_stderr else sys.stdout, width=100, highlight=False)
    table = Table(title="trainops ci", title_justify="left")
    table.add_column("cluster")
    table.add_column("app")
    table.add_column("objects", justify="right")
    table.add_column("validation")
    table.add_column("seconds", justify="right")
    for app, result, seconds in rows:
        errors, warnings = result.count("error"), result.count("warning")
        verdict = "valid" if not errors and not warnings else f"{errors} errors, {warnings} warnings"
        table.add_row(app.cluster, app.app, str(len(app.files)), verdict, f"{app.seconds + seconds:.2f}")
    console.print(table)
