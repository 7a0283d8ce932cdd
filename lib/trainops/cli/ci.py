"""``trainops ci``: the single CI entry point. Synth in memory, fail on drift, validate the fresh
objects in memory (policies join once the repository has them), summarise the diff against the
base, and write each requested report format to stdout or a file."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from trainops.cli import options
from trainops.core.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from trainops.project import check_cluster_option, load_project
from trainops.report import REPORTERS, render, resolve_format
from trainops.schemas.catalog import default_cache_dir
from trainops.synth import AppResult, read_tree, render_project, tree_for
from trainops.validate.context import UnknownKinds, ValidateOptions
from trainops.workflow import AppCheck, Shard, check_rendered, policy_hook


@dataclass(frozen=True)
class CiOptions:
    """Parsed options of ``trainops ci``.

    Args:
        cluster: only this cluster; ``None`` for all.
        out: the committed output root compared with a fresh synth. Default: ``generated``.
        fmt: report formats, in order (``auto`` picks ``github`` inside GitHub Actions).
            Default: ``("auto",)``.
        output: files for the formats, paired in order; formats without a file go to stdout
            (at most one). Default: none.
        strict: warnings fail the run too.
        kubernetes_version: overrides each cluster's Kubernetes minor, e.g. ``"1.33"``.
        unknown_kinds: what a kind with no schema is: ``error``, ``warning`` or ``skip``.
        cache_dir: schema cache directory. Default: the usual cache.
        diff_base: the revision the diff summary compares with; ``None`` for the merge base with
            the default branch.
        diff: print the diff summary. Default: ``True``.
        shard: check only this shard's apps (``--shard K/N``, :class:`~trainops.workflow.Shard`):
            their drift, validation, policy findings and diff; the Argo CD objects and
            ``lock.json`` go to the shard of ``argocd``. Default: every app.
        diff_output: also write the diff (of this shard's apps) as JSON to this file, for
            ``--merge``. Default: none.
        merge: join the reports of shards found in this directory instead of checking anything
            (:func:`run_merge`). Default: none.
        workers: processes to render in and for the policy pack; ``None`` for the number of CPUs.
    """

    cluster: str | None = None
    out: Path = Path("generated")
    fmt: tuple[str, ...] = ("auto",)
    output: tuple[Path, ...] = ()
    strict: bool = False
    kubernetes_version: str | None = None
    unknown_kinds: UnknownKinds = "error"
    cache_dir: Path | None = None
    diff_base: str | None = None
    diff: bool = True
    shard: Shard | None = None
    diff_output: Path | None = None
    merge: Path | None = None
    workers: int | None = None


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


def report_targets(fmt: tuple[str, ...], output: tuple[Path, ...]) -> list[tuple[str, Path | None]]:
    """Pair formats with output files in order: ``--format sarif --output a.sarif --format text``
    gives ``[("sarif", a.sarif), ("text", None)]`` (``None`` is stdout).

    Raises:
        UsageError: more files than formats, or more than one format left for stdout.
    """
    formats = fmt or ("auto",)
    if len(output) > len(formats):
        raise UsageError(f"--output given {len(output)} times but --format only {len(formats)} times")
    pairs: list[tuple[str, Path | None]] = [
        (resolve_format(f), output[i] if i < len(output) else None) for i, f in enumerate(formats)
    ]
    if sum(1 for _, path in pairs if path is None) > 1:
        raise UsageError("only one --format can go to stdout; give the others an --output FILE")
    return pairs


def run_ci(opts: CiOptions, root: Path | None = None) -> int:
    """Run the CI pipeline; return 0 when fresh and valid, 1 on drift or error findings.

    The rendered objects are validated in memory (they equal the committed files once the drift
    check passed), against each cluster's own target; then, when the repository has a ``policies/``
    pack, its rules run over all rendered objects of each cluster at once, with that cluster's facts.

    Raises:
        UsageError: bad option pairs, unknown cluster, apps that fail to load.
    """
    if opts.merge is not None:
        asked = opts.fmt != ("auto",) or bool(opts.output)
        return run_merge(
            opts.merge, report_targets(opts.fmt, opts.output) if asked else [], diff_output=opts.diff_output
        )
    targets = report_targets(opts.fmt, opts.output)
    start = root or Path.cwd()
    if opts.cluster is not None:
        check_cluster_option(opts.cluster, start)
    project = load_project(start)
    workers = options.workers_or_cpus(opts.workers)
    shard = opts.shard
    if shard is None:
        results = render_project(project, cluster=opts.cluster, workers=workers)
    else:
        from trainops.synth.partial import render_some

        results, _ = render_some(
            project,
            opts.out,
            cluster=opts.cluster,
            render=lambda app: shard.holds(app.name),
            workers=workers,
        )
        print(
            f"trainops ci: shard {shard.index}/{shard.count}: {_shard_apps(results, shard)}", file=sys.stderr
        )
    clusters = [opts.cluster] if opts.cluster else [c.name for c in project.clusters]
    fresh, committed = tree_for(results), read_tree(opts.out, clusters)
    if shard is not None:
        fresh = {rel: text for rel, text in _lock_entries(fresh).items() if shard.holds_path(rel)}
        committed = {rel: text for rel, text in _lock_entries(committed).items() if shard.holds_path(rel)}
    found = drift(fresh, committed)
    if found.stale:
        print_drift(found, opts.out)
        return EXIT_FINDINGS
    total, rows = check_rendered(
        project,
        results,
        out=opts.out,
        cache_dir=opts.cache_dir or default_cache_dir(),
        kubernetes_version=opts.kubernetes_version,
        options=ValidateOptions(unknown_kinds=opts.unknown_kinds),
        workers=workers,
        policy=policy_hook(project.root, workers=workers),
        only=None if shard is None else lambda app: shard.holds(app.app),
    )
    for fmt, path in targets:
        text = render(total, fmt)
        if path is None:
            sys.stdout.write(text)
        else:
            path.write_text(text, encoding="utf-8")
    stdout_format = next((fmt for fmt, path in targets if path is None), None)
    _print_summary(rows, to_stderr=stdout_format not in (None, "text"))
    if opts.diff or opts.diff_output is not None:
        _diff_summary(start, opts)
    return EXIT_FINDINGS if total.failed(strict=opts.strict) else EXIT_OK


def _lock_entries(tree: dict[str, str]) -> dict[str, str]:
    """``tree`` with each ``<cluster>/lock.json`` split by app, so that a shard compares the lock
    entries of its own apps (``<cluster>/<app>/lock.json entry <file>``) and the shard of ``argocd``
    the rest (``<cluster>/lock.json``): a kept app's files are another shard's to check, and so are
    their lock entries. A lock that is not JSON stays whole."""
    out: dict[str, str] = {}
    for rel, text in tree.items():
        cluster, _, name = rel.partition("/")
        if name != "lock.json":
            out[rel] = text
            continue
        try:
            lock = json.loads(text)
            entries = lock.pop("objects")
            for entry in entries:
                app, _, file = str(entry["file"]).partition("/")
                out[f"{cluster}/{app}/lock.json entry {file}"] = json.dumps(entry, sort_keys=True)
        except (ValueError, KeyError, TypeError, AttributeError):
            out[rel] = text
            continue
        out[rel] = json.dumps(lock, sort_keys=True)
    return out


def _shard_apps(results: list[AppResult], shard: Shard) -> str:
    """``N apps (a, b, ...)``: the apps a shard checks, for its stderr line."""
    apps = sorted({r.app for r in results if shard.holds(r.app)})
    return f"{len(apps)} apps ({', '.join(apps)})" if apps else "no apps"


def run_merge(directory: Path, targets: list[tuple[str, Path | None]], *, diff_output: Path | None) -> int:
    """``trainops ci --merge DIR``: join the reports the shards wrote into ``directory`` (searched
    recursively, as CI artifacts arrive: ``*.sarif``, JUnit ``*.xml``, diff ``*.diff.json``) into one
    report per requested format (``sarif`` or ``junit``), and the diffs into ``diff_output``
    (markdown when it ends in ``.md``, else JSON). The joined reports equal those of one unsharded
    run: the shards' files are disjoint, and results are ordered by file as one run orders them.

    Returns:
        1 when a joined report holds an error-level finding (SARIF ``level: error``, JUnit failure),
        else 0.

    Raises:
        UsageError: ``directory`` is missing or holds no report of a requested format, a format
            other than sarif/junit is requested, or a report is not one trainops wrote.
    """
    from trainops.diff import DIFF_FORMATS
    from trainops.diff.shards import merge_diffs, read_json
    from trainops.report.merge import MERGERS

    if not directory.is_dir():
        raise UsageError(f"--merge: {directory} is not a directory")
    failed = False
    for fmt, path in targets:
        merger = MERGERS.get(fmt)
        if merger is None:
            raise UsageError(f"--merge: joins {' and '.join(sorted(MERGERS))} reports, not {fmt}")
        files = sorted(directory.rglob(merger.pattern))
        if not files:
            raise UsageError(f"--merge: no {fmt} report ({merger.pattern}) under {directory}")
        text, errors = merger.join([(str(f), f.read_text(encoding="utf-8")) for f in files])
        failed = failed or errors
        if path is None:
            sys.stdout.write(text)
        else:
            path.write_text(text, encoding="utf-8")
    if diff_output is not None:
        files = sorted(directory.rglob("*.diff.json"))
        if not files:
            raise UsageError(f"--merge: no diff (*.diff.json) under {directory}")
        diff = merge_diffs([read_json(f.read_text(encoding="utf-8"), str(f)) for f in files])
        fmt = "markdown" if diff_output.suffix == ".md" else "json"
        diff_output.write_text(DIFF_FORMATS[fmt](diff), encoding="utf-8")
    return EXIT_FINDINGS if failed else EXIT_OK


def print_drift(found: Drift, out: Path) -> None:
    """List the stale files on stderr, with what to do."""
    lines = [f"trainops: {out}/ is stale: it differs from a fresh synth (run `trainops synth` and commit):"]
    lines += [f"  changed  {out}/{p}" for p in found.changed]
    lines += [f"  missing  {out}/{p}" for p in found.added]
    lines += [f"  extra    {out}/{p}" for p in found.removed]
    print("\n".join(lines), file=sys.stderr)


def _print_summary(rows: list[AppCheck], *, to_stderr: bool) -> None:
    console = Console(file=sys.stderr if to_stderr else sys.stdout, width=100, highlight=False)
    table = Table(title="trainops ci", title_justify="left")
    table.add_column("cluster")
    table.add_column("app")
    table.add_column("objects", justify="right")
    table.add_column("validation")
    table.add_column("seconds", justify="right")
    for row in rows:
        app, result = row.app, row.result
        errors, warnings = result.count("error"), result.count("warning")
        verdict = "valid" if not errors and not warnings else f"{errors} errors, {warnings} warnings"
        table.add_row(app.cluster, app.app, str(len(app.files)), verdict, f"{app.seconds + row.seconds:.2f}")
    console.print(table)


def _diff_summary(start: Path, opts: CiOptions) -> None:
    """The diff summary and review items on stderr (with ``--diff``), and the diff as JSON in
    ``--diff-output``; a shard's diff holds its own apps only. A note instead when there is no base
    to compare with (not a git repository, no default branch)."""
    from trainops.diff import diff_revisions, summary
    from trainops.diff.present import render_json, skipped_line
    from trainops.diff.shards import within
    from trainops.project import declared_clusters

    try:
        protected = tuple(c.name for c in declared_clusters(start) if c.protected)
        diff = diff_revisions(start, opts.diff_base, opts.out.as_posix(), protected=protected)
    except UsageError as exc:
        print(f"diff: skipped ({exc.message})", file=sys.stderr)
        return
    if opts.shard is not None:
        diff = within(diff, opts.shard.holds_path, opts.out.as_posix())
    if opts.diff_output is not None:
        opts.diff_output.write_text(render_json(diff), encoding="utf-8")
    if not opts.diff:
        return
    lines = [f"diff: {summary(diff)}"]
    lines += [f"  ! [{kind}] {c.identity.cluster}/{c.app}: {why}" for c, kind, why in diff.attention()]
    lines += [f"  ? {skipped_line(item)}" for item in diff.skipped]
    print("\n".join(lines), file=sys.stderr)


@click.command("ci")
@options.only_cluster
@options.out
@click.option(
    "--format",
    "-o",
    "fmt",
    type=click.Choice(("auto", *REPORTERS)),
    multiple=True,
    help="Report format; repeat for several, each paired in order with an --output (default: auto).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    multiple=True,
    help="Write the report of the matching --format to FILE (repeatable).",
)
@options.strict
@options.kubernetes_version
@options.unknown_kinds
@options.cache_dir
@options.schema_source
@click.option("--diff-base", help="Revision the diff summary compares with. Default: merge base with main.")
@click.option("--diff/--no-diff", default=True, show_default=True, help="Print the diff summary on stderr.")
@click.option(
    "--diff-output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the diff to FILE: JSON (for --merge); with --merge, markdown if FILE ends in .md.",
)
@click.option(
    "--shard",
    metavar="K/N",
    help="Check only shard K of N of the apps (stable: by the hash of each app's name).",
)
@click.option(
    "--merge",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Join the shards' reports under DIR (*.sarif, *.xml, *.diff.json) instead of checking.",
)
@options.render_workers
def command(**kwargs: Any) -> None:
    """Synth into memory, fail if OUT is stale, validate the fresh objects, summarise the diff."""
    kwargs["fmt"] = tuple(kwargs["fmt"]) or ("auto",)
    kwargs["output"] = tuple(kwargs["output"])
    if kwargs["shard"] is not None:
        if kwargs["merge"] is not None:
            raise UsageError("--shard and --merge exclude each other: shards check, --merge joins")
        kwargs["shard"] = Shard.parse(kwargs["shard"])
    with options.using_schema_source(kwargs):
        sys.exit(run_ci(CiOptions(**kwargs)))
