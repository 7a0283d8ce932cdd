"""``trainops synth``: render every app, validate it in memory, and only then replace
``generated/<cluster>`` atomically."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli import options
from trainops.core.errors import EXIT_FINDINGS, UsageError
from trainops.project import check_cluster_option, load_project
from trainops.report import render
from trainops.schemas.catalog import default_cache_dir
from trainops.synth import render_project, tree_for, write_tree
from trainops.synth.lock import output_lock
from trainops.synth.lockfile import hand_edits
from trainops.synth.partial import render_some
from trainops.synth.render import AppResult
from trainops.synth.tree import links_for
from trainops.workflow import check_rendered, policy_hook


@dataclass(frozen=True)
class SynthOptions:
    """Parsed options of ``trainops synth``.

    Args:
        cluster: only this cluster; ``None`` for all.
        out: the output root. Default: ``generated``.
        force: overwrite a ``generated/`` edited by hand (a lock mismatch). Default: refuse.
        validate: validate the output (and run the policy pack on a full synth) before writing it.
            Default: ``True``.
        cache_dir: schema cache for that validation. Default: the usual cache.
        check: write nothing; exit 1 when ``out`` differs from a fresh synth (pre-commit hook).
        changed: render only the apps whose sources changed since ``base`` (the others' files are
            kept as they are in ``out``, already checked against lock.json).
        base: the revision ``changed`` compares with; ``None`` for the merge base with the
            default branch.
        verbose: per-app timings on stderr.
        workers: processes to render in and for the policy pack; ``None`` for the number of CPUs.
            The output is the same for any number.
    """

    cluster: str | None = None
    out: Path = Path("generated")
    force: bool = False
    validate: bool = True
    cache_dir: Path | None = None
    check: bool = False
    changed: bool = False
    base: str | None = None
    verbose: bool = False
    workers: int | None = None


def run_synth(opts: SynthOptions, root: Path | None = None) -> int:
    """Run :func:`synth_locked` holding the output root's lock (``.git/trainops-generated.lock``,
    :func:`~trainops.synth.lock.output_lock`): one synth at a time per output root.

    ``--check`` writes nothing and takes no lock, so it runs in a read-only checkout.

    Raises:
        UsageError: ``cluster`` is not a cluster of ``apps/clusters.py`` (checked before anything
            under ``out`` is touched: ``--cluster ..`` must not name a directory); another synth
            holds the lock, or the lock file cannot be created; see :func:`synth_locked`.
    """
    if opts.cluster is not None:
        check_cluster_option(opts.cluster, root or Path.cwd())
    if opts.check:  # writes nothing: no lock, so it runs in a read-only checkout
        return synth_locked(opts, root)
    with output_lock(opts.out):
        return synth_locked(opts, root)


def synth_locked(opts: SynthOptions, root: Path | None = None) -> int:
    """Render every app, validate it, and replace ``out/<cluster>`` atomically; print a count line on
    stderr. Nothing is written when validation finds errors (the report goes to stdout, exit 1).

    Raises:
        UsageError: ``out/<cluster>`` differs from its lock.json (edited by hand) and ``force`` is
            off, naming the files; the apps fail to load; a construct rejects a prop; ``out``
            cannot be written (read-only, disk full: ``out`` is left as it was).
    """
    project = load_project(root or Path.cwd())
    workers = options.workers_or_cpus(opts.workers)
    clusters = [opts.cluster] if opts.cluster else [c.name for c in project.clusters]
    if not opts.force and not opts.check:
        edits = [line for cluster in clusters for line in hand_edits(opts.out / cluster)]
        if edits:
            raise UsageError(
                f"{opts.out}/ was edited by hand (it differs from lock.json): {', '.join(edits)}; "
                "move the change into apps/, or re-run with --force to overwrite it"
            )
    first_commit = False
    if opts.changed:
        from trainops.diff.snapshot import has_commit

        first_commit = not has_commit(project.root)  # nothing to compare with: every app is new
    if opts.changed and not first_commit:
        from trainops.diff.changed import changed_apps
        from trainops.diff.snapshot import default_base, resolve

        base = resolve(project.root, opts.base) if opts.base else default_base(project.root)
        wanted = changed_apps(project, base, opts.out)
        results, rendered = render_some(
            project, opts.out, cluster=opts.cluster, render=lambda a: a.name in wanted, workers=workers
        )
        print(f"synth: --changed since {base[:12]}: {changed_line(results, rendered)}", file=sys.stderr)
    else:
        results = render_project(project, cluster=opts.cluster, workers=workers)
        rendered = {(r.cluster, r.app) for r in results}
        if first_commit:
            print(
                f"synth: --changed before the first commit: {changed_line(results, rendered)}",
                file=sys.stderr,
            )
    if opts.check:
        from trainops.cli.ci import drift, print_drift
        from trainops.synth import read_tree

        found = drift(tree_for(results), read_tree(opts.out, clusters))
        if found.stale:
            print_drift(found, opts.out)
            return EXIT_FINDINGS
        print(f"synth: {opts.out}/ is fresh", file=sys.stderr)
        return 0
    checks: dict[tuple[str, str], float] = {}
    if opts.validate:
        fresh = [r for r in results if (r.cluster, r.app) in rendered]
        # Policies see a cluster's whole rendered set (cross-object rules), so they run on a full
        # synth; with --changed only the re-rendered apps are validated.
        result, per_app = check_rendered(
            project,
            fresh,
            out=opts.out,
            cache_dir=opts.cache_dir or default_cache_dir(),
            workers=workers,
            policy=policy_hook(project.root, workers=workers) if len(fresh) == len(results) else None,
        )
        checks = {(c.app.cluster, c.app.app): c.seconds for c in per_app}
        if result.failed():
            sys.stdout.write(render(result, "auto"))
            print(
                f"synth: the output is invalid ({result.count('error')} errors); {opts.out}/ was not written",
                file=sys.stderr,
            )
            return EXIT_FINDINGS
    try:
        write_tree(opts.out, tree_for(results), clusters, links=links_for(results))
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise UsageError(
            f"cannot write {opts.out}/: {exc.strerror or exc}{where}; {opts.out}/ was left as it was"
        ) from None
    if opts.verbose:
        for r in results:
            if (r.cluster, r.app) not in rendered:
                print(f"synth: {r.cluster}/{r.app}: {len(r.files)} objects kept (unchanged)", file=sys.stderr)
                continue
            validated = (
                f", validate {checks[(r.cluster, r.app)]:.3f} s" if (r.cluster, r.app) in checks else ""
            )
            print(
                f"synth: {r.cluster}/{r.app}: {len(r.files)} objects, render {r.seconds:.3f} s{validated}",
                file=sys.stderr,
            )
    objects = sum(len(r.files) for r in results)
    fresh_note = (
        f" ({len(rendered)} rendered, {len(results) - len(rendered)} unchanged)" if opts.changed else ""
    )
    print(
        f"synth: {objects} objects from {len(results)} apps{fresh_note} written to {opts.out}/",
        file=sys.stderr,
    )
    return 0


def changed_line(results: list[AppResult], rendered: set[tuple[str, str]]) -> str:
    """What ``synth --changed`` re-rendered, for its stderr line: ``re-rendered <cluster>/<app>, ...``
    in render order, or ``nothing to re-render``."""
    names = [f"{r.cluster}/{r.app}" for r in results if (r.cluster, r.app) in rendered]
    return f"re-rendered {', '.join(names)}" if names else "nothing to re-render"


@click.command("synth")
@options.only_cluster
@options.out
@click.option("--force", is_flag=True, help="Overwrite OUT even when it was edited by hand (lock mismatch).")
@click.option(
    "--validate/--no-validate", default=True, show_default=True, help="Validate the output before writing it."
)
@options.cache_dir
@options.schema_source
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when OUT differs from a fresh synth.")
@click.option("--changed", is_flag=True, help="Render only apps whose sources changed since --base.")
@click.option("--base", help="Revision for --changed. Default: the merge base with the default branch.")
@click.option("--verbose", "-v", is_flag=True, help="Per-app timings on stderr.")
@options.render_workers
def command(**kwargs: Any) -> None:
    """Synthesise every app into OUT/<cluster>/<app>/, validated, atomically and deterministically."""
    with options.using_schema_source(kwargs):
        sys.exit(run_synth(SynthOptions(**kwargs)))
