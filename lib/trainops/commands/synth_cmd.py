"""``trainops synth``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from trainops.synth import load_project, render_project, tree_for, write_tree


@dataclass(frozen=True)
class SynthOptions:
    """Parsed options of ``trainops synth``: one cluster or all, and the output root."""

    cluster: str | None
    out: Path


def run_synth(options: SynthOptions, root: Path | None = None) -> int:
    """Render every app and replace ``out/<cluster>`` atomically; print a count line on stderr."""
    project = load_project(root or Path.cwd())
    results = render_project(project, cluster=options.cluster)
    tree = tree_for(results)
    clusters = [options.cluster] if options.cluster else [c.name for c in project.clusters]
    write_tree(options.out, tree, clusters)
    objects = sum(len(r.files) for r in results)
    print(f"synth: {objects} objects from {len(results)} apps written to {options.out}/", file=sys.stderr)
    return 0
