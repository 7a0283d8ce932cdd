"""The ``generated/`` tree: relative path → text, read from disk or written atomically per cluster."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from trainops.atomic import normalise_modes, staged_directory
from trainops.errors import UsageError
from trainops.synth.lockfile import lock_file
from trainops.synth.render import AppResult


def tree_for(results: Sequence[AppResult]) -> dict[str, str]:
    """Relative path under ``generated/`` → text, for every app file and each cluster's lock.json."""
    tree: dict[str, str] = {}
    for result in results:
        for name, text in result.files.items():
            tree[f"{result.cluster}/{result.app}/{name}"] = text
    for cluster in sorted({r.cluster for r in results}):
        tree[f"{cluster}/lock.json"] = lock_file(cluster, results)
    return tree


def write_tree(out: Path, tree: dict[str, str], clusters: Iterable[str]) -> None:
    """Replace ``out/<cluster>`` for each cluster with the files of ``tree``, atomically per cluster.

    Each cluster directory is written in full to a temporary sibling and renamed into place, so a
    failure never leaves a half-written ``generated/``. Paths are confined to ``out``.

    Raises:
        UsageError: a path in ``tree`` escapes ``out``.
    """
    root = out.resolve()
    for cluster in sorted(set(clusters)):
        with staged_directory(root / cluster) as staging:
            base = staging.resolve()
            for rel, text in tree.items():
                if not rel.startswith(f"{cluster}/"):
                    continue
                target = (staging / rel[len(cluster) + 1 :]).resolve()
                if not target.is_relative_to(base):
                    raise UsageError(f"refusing to write outside {out}: {rel}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))
            normalise_modes(staging)


def read_tree(out: Path, clusters: Iterable[str]) -> dict[str, str]:
    """Read the files under ``out/<cluster>`` for each cluster as relative path → text."""
    tree: dict[str, str] = {}
    for cluster in clusters:
        base = out / cluster
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file():
                tree[path.relative_to(out).as_posix()] = path.read_text(encoding="utf-8")
    return tree
