"""``trainops ci``: synth in memory, fail on drift, validate the fresh objects in memory."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from trainops.cli import options
from trainops.errors import EXIT_FINDINGS, EXIT_OK
from trainops.findings import Result
from trainops.pipeline import Target, Text, check, policy_check
from trainops.policy.config import load_config
from trainops.policy.engine import PolicyRun
from trainops.policy.facts import Facts
from trainops.policy.pack import PACKAGE, load_pack
from trainops.project import load_project
from trainops.report import render, resolve_format
from trainops.schemas.catalog import default_cache_dir
from trainops.synth import AppResult, read_tree, render_project, tree_for


@dataclass(frozen=True)
class CiOptions:
    """Parsed options of ``trainops ci``.

    Args:
        cluster: only this cluster; ``None`` for all.
        out: the committed output root compared with a fresh synth. Default: ``generated``.
        fmt: report format.
        strict: warnings fail the run too.
    """

    cluster: str | None = None
    out: Path = Path("generated")
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


def run_ci(opts: CiOptions, root: Path | None = None) -> int:
    """Run the CI pipeline; return 0 when fresh and valid, 1 on drift or error findings.

    The rendered objects are validated in memory (they equal the committed files once the drift
    check passed), against each cluster's own target; then, when the repository has a ``policies/``
    pack, its rules run over all rendered objects of each cluster at once, with that cluster's facts.
    """
    project = load_project(root or Path.cwd())
    results = render_project(project, cluster=opts.cluster)
    clusters = [opts.cluster] if opts.cluster else [c.name for c in project.clusters]
    found = drift(tree_for(results), read_tree(opts.out, clusters))
    if found.stale:
        _print_drift(found, opts.out)
        return EXIT_FINDINGS
    total = Result()
    rows: list[tuple[AppResult, Result, float]] = []
    cache = default_cache_dir()
    has_pack = (project.root / PACKAGE / "__init__.py").is_file()
    pack = load_pack(project.root / PACKAGE) if has_pack else None
    config = load_config(pack) if pack is not None else None
    for cluster_name in clusters:
        target = Target.of_cluster(project.cluster(cluster_name), cache)
        cluster_texts: list[Text] = []
        for app in (r for r in results if r.cluster == cluster_name):
            start = time.perf_counter()
            texts = [
                Text(str(opts.out / app.cluster / app.app / name), text) for name, text in app.files.items()
            ]
            result = check(target, texts)
            rows.append((app, result, time.perf_counter() - start))
            total.files += result.files
            total.documents += result.documents
            total.extend(result.findings)
            cluster_texts.extend(texts)
        if pack is not None and config is not None:
            facts = Facts.of_cluster(project.cluster(cluster_name))
            total.extend(policy_check(cluster_texts, PolicyRun(pack, config, facts)).findings)
    fmt = resolve_format(opts.fmt)
    sys.stdout.write(render(total, fmt))
    _print_summary(rows, to_stderr=fmt != "text")
    return EXIT_FINDINGS if total.failed(strict=opts.strict) else EXIT_OK


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


@click.command("ci")
@options.only_cluster
@options.out
@options.report
def command(**kwargs: Any) -> None:
    """Synth into memory, fail if OUT is stale, then validate the fresh objects."""
    sys.exit(run_ci(CiOptions(**kwargs)))
