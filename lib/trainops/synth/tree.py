"""The ``generated/`` tree: relative path → text, read from disk or written atomically per cluster."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from trainops.atomic import atomic_write, normalise_modes, remove_leftovers, staged_directories
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


def links_for(results: Sequence[AppResult]) -> dict[str, Path]:
    """Relative path under ``generated/`` → the file already holding its text, for the apps kept as
    they are (:attr:`AppResult.kept`), so :func:`write_tree` links them instead of rewriting them."""
    return {
        f"{result.cluster}/{result.app}/{name}": result.kept / name
        for result in results
        if result.kept is not None
        for name in result.files
    }


def write_tree(
    out: Path, tree: dict[str, str], clusters: Iterable[str], links: Mapping[str, Path] | None = None
) -> None:
    """Replace ``out/<cluster>`` for each cluster with the files of ``tree``, all clusters or none.

    Every cluster directory is written in full to a temporary sibling (each file through a temporary
    file and a rename, :func:`~trainops.atomic.atomic_write`), then all are swapped into place
    together with interrupts held (:func:`~trainops.atomic.staged_directories`): an exception or
    Ctrl-C at any point leaves ``out`` exactly as it was. Paths are confined to ``out``: every part
    of a path must be a plain file or directory name, whatever an object's name is.

    ``links`` (:func:`links_for`) names files that already hold their text: they get a hard link in
    the staging directory (one system call instead of a temporary file, a write and a rename; no file
    is ever changed in place, so sharing its inode is safe), or are written when linking fails.

    Directories a killed earlier write left beside a cluster's (``.<cluster>.old.<random>``) are
    removed first (:func:`~trainops.atomic.remove_leftovers`).

    Raises:
        UsageError: a cluster name or a path in ``tree`` is not a plain relative path inside ``out``.
        OSError: ``out`` cannot be written (read-only, full); ``out`` is then as it was.
    """
    root = out.resolve()
    names = sorted(set(clusters))
    for cluster in names:
        _check_relative(out, cluster)
        remove_leftovers(root / cluster)  # of a synth killed while it swapped (issue 27)
    with staged_directories([root / cluster for cluster in names]) as stagings:
        for cluster, staging in zip(names, stagings, strict=True):
            base = staging.resolve()
            made: set[Path] = {base}
            for rel, text in tree.items():
                if not rel.startswith(f"{cluster}/"):
                    continue
                _check_relative(out, rel)
                # plain names (checked above) in a directory this process just created: no link or
                # ".." can lead out, so the path needs no resolving (one lstat per part and file)
                target = base / rel[len(cluster) + 1 :]
                if not target.is_relative_to(base):
                    raise UsageError(f"refusing to write outside {out}: {rel}")
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                source = links.get(rel) if links else None
                if source is not None:
                    try:
                        os.link(source, target)
                        continue
                    except OSError:
                        pass
                atomic_write(target, text.encode("utf-8"))
            normalise_modes(staging)


def _check_relative(out: Path, rel: str) -> None:
    """Refuse a path that is absolute, has empty, ``.`` or ``..`` parts, or control characters."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") or not p.isprintable() or "\\" in p for p in parts):
        raise UsageError(f"refusing to write outside {out}: {rel!r} is not a plain relative path")


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
