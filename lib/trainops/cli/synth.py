"""``trainops synth``: render every app and replace ``generated/<cluster>`` atomically."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli import options
from trainops.project import load_project
from trainops.synth import render_project, tree_for, write_tree
from trainops.synth.lock import output_lock


@dataclass(frozen=True)
class SynthOptions:
    """Parsed options of ``trainops synth``.

    Args:
        cluster: only this cluster; ``None`` for all.
        out: the output root. Default: ``generated``.
    """

    cluster: str | None = None
    out: Path = Path("generated")


def run_synth(opts: SynthOptions, root: Path | None = None) -> int:
    """Render every app and replace ``out/<cluster>`` atomically; print a count line on stderr.

    Holds the output root's lock (``.generated.lock``) throughout (:func:`~trainops.synth.lock.output_lock`).

    Raises:
        UsageError: the apps fail to load, a construct rejects a prop, or another synth holds the lock.
    """
    with output_lock(opts.out):  # one synth at a time per output root
        project = load_project(root or Path.cwd())
        results = render_project(project, cluster=opts.cluster)
        tree = tree_for(results)
        clusters = [opts.cluster] if opts.cluster else [c.name for c in project.clusters]
        write_tree(opts.out, tree, clusters)
    objects = sum(len(r.files) for r in results)
    print(f"synth: {objects} objects from {len(results)} apps written to {opts.out}/", file=sys.stderr)
    return 0


@click.command("synth")
@options.only_cluster
@options.out
def command(**kwargs: Any) -> None:
    """Synthesise every app into OUT/<cluster>/<app>/, atomically and deterministically."""
    sys.exit(run_synth(SynthOptions(**kwargs)))
