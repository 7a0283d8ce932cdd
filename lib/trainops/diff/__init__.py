"""``trainops diff``: what a change to ``apps/`` does to ``generated/``, by object identity.

- :mod:`~trainops.diff.snapshot`: ``generated/`` at a git revision (from git objects) or on disk;
- :mod:`~trainops.diff.compare`: identities, new runs, moves, renames, field diffs, attention flags;
- :mod:`~trainops.diff.present`: ``text``, ``markdown`` and ``json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from trainops.diff.compare import (
    Change,
    FieldChange,
    Identity,
    Skipped,
    TreeDiff,
    compare,
    field_diff,
    parse_tree,
)
from trainops.diff.present import DIFF_FORMATS, summary
from trainops.diff.snapshot import Tree, blob_id, default_base, repo_root, resolve, tree_at, working_tree

__all__ = [
    "DIFF_FORMATS",
    "Change",
    "FieldChange",
    "Identity",
    "Skipped",
    "TreeDiff",
    "compare",
    "diff_revisions",
    "field_diff",
    "parse_tree",
    "summary",
]


def diff_revisions(
    start: Path, base: str | None, generated: str = "generated", *, protected: tuple[str, ...] = ()
) -> TreeDiff:
    """Compare ``generated/`` at ``base`` (default: the merge base with the default branch) with
    the working tree of the repository holding ``start``.

    Args:
        start: a directory inside the repository (the working directory, normally).
        base: a revision, or ``None`` for :func:`~trainops.diff.snapshot.default_base`.
        generated: the generated root, relative to ``start``. Default: ``generated``.
        protected: names of protected clusters.

    Raises:
        UsageError: not a git repository, unknown revision, no default branch.
    """
    root = repo_root(start)
    commit = resolve(root, base) if base else default_base(root)
    prefix = (start.resolve() / generated).relative_to(root.resolve()).as_posix()
    before, after = tree_at(root, commit, prefix), working_tree(root, prefix)
    old_unparsed: dict[str, str] = {}
    new_unparsed: dict[str, str] = {}
    old = parse_tree(before.texts, prefix, old_unparsed)
    new = parse_tree(after.texts, prefix, new_unparsed)
    label = base if base else f"merge-base {commit[:12]}"
    diff = compare(old, new, base=label, head="working tree", protected=protected)
    return replace(diff, skipped=tuple(skipped_files(before, after, old_unparsed, new_unparsed)))


def skipped_files(
    before: Tree, after: Tree, old_unparsed: Mapping[str, str], new_unparsed: Mapping[str, str]
) -> list[Skipped]:
    """The files not compared that differ between ``before`` and ``after`` (a file unread or
    unparsed on one side and the same on the other is left out), sorted by path."""
    out: list[Skipped] = []
    paths = set(before.unread) | set(after.unread) | set(old_unparsed) | set(new_unparsed)
    for path in sorted(paths):
        old_blob = _identity(before, path)
        new_blob = _identity(after, path)
        if old_blob == new_blob:
            continue
        reason = (
            (after.unread[path].reason if path in after.unread else None)
            or new_unparsed.get(path)
            or (before.unread[path].reason if path in before.unread else None)
            or old_unparsed.get(path, "")
        )
        on_head = path in after.unread or path in new_unparsed
        on_base = path in before.unread or path in old_unparsed
        side = "both" if on_head and on_base else "head" if on_head else "base"
        out.append(Skipped(path, side, reason))
    return out


def _identity(tree: Tree, path: str) -> str | None:
    """What a side holds at ``path``: its blob id, its text, or ``None`` when absent."""
    if path in tree.unread:
        return "blob:" + tree.unread[path].blob
    text = tree.texts.get(path)
    return None if text is None else "blob:" + blob_id(text.encode("utf-8"))
