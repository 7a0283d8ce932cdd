"""``trainops diff [BASE]``: what changed in ``generated/`` since BASE, by object identity."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import click

from trainops.cli import options
from trainops.diff import DIFF_FORMATS, diff_revisions
from trainops.errors import EXIT_FINDINGS, EXIT_OK
from trainops.project import declared_clusters

DiffFormat = Literal["text", "markdown", "json"]


@dataclass(frozen=True)
class DiffOptions:
    """Parsed options of ``trainops diff``.

    Args:
        base: the revision compared with the working tree; ``None`` for the merge base of ``HEAD``
            with the default branch.
        out: the generated root. Default: ``generated``.
        fmt: ``text``, ``markdown`` (a PR comment) or ``json``. Default: ``text``.
        output: write the report to this file instead of stdout.
        protected: extra protected cluster names (besides ``Cluster(protected=True)``).
    """

    base: str | None = None
    out: Path = Path("generated")
    fmt: DiffFormat = "text"
    output: Path | None = None
    protected: tuple[str, ...] = ()


def run_diff(opts: DiffOptions, root: Path | None = None) -> int:
    """Compare and print; 0, or 1 when a file that differs could not be compared (binary, over the
    size limit, a symbolic link, not YAML): the diff is then incomplete. Changes themselves never
    fail it (a diff informs, ``trainops ci`` decides).

    Raises:
        UsageError: not a git repository, unknown revision, no default branch, bad clusters file.
    """
    start = root or Path.cwd()
    protected = {c.name for c in declared_clusters(start) if c.protected} | set(opts.protected)
    diff = diff_revisions(start, opts.base, opts.out.as_posix(), protected=tuple(sorted(protected)))
    text = DIFF_FORMATS[opts.fmt](diff)
    if opts.output is not None:
        opts.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_FINDINGS if diff.skipped else EXIT_OK


@click.command("diff")
@click.argument("base", required=False)
@options.out
@click.option(
    "--format",
    "-o",
    "fmt",
    type=click.Choice(list(DIFF_FORMATS)),
    default="text",
    show_default=True,
    help="text for a terminal, markdown for a PR comment, json for tools.",
)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE, not stdout.")
@click.option("--protected", multiple=True, help="Treat this cluster as protected too (repeatable).")
def command(**kwargs: Any) -> None:
    """Compare OUT at BASE (default: merge base with the default branch) with the working tree.

    Objects are matched by identity (cluster, group, kind, namespace, name; the base name for
    training runs), so a re-hashed job shows as "new run of <base>" with the fields that changed.
    New runs, deleted PVCs, immutable-field changes, moves between clusters and changes to
    protected clusters are listed first.
    """
    kwargs["protected"] = tuple(kwargs["protected"])
    sys.exit(run_diff(DiffOptions(**kwargs)))
