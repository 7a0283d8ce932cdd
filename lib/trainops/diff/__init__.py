"""``trainops diff``: what a change to ``apps/`` does to ``generated/``, by object identity.

- :mod:`~trainops.diff.snapshot`: ``generated/`` at a git revision (from git objects) or on disk;
- :mod:`~trainops.diff.compare`: identities, new runs, moves, renames, field diffs, attention flags;
- :mod:`~trainops.diff.present`: ``text``, ``markdown`` and ``json``.
"""

from __future__ import annotations

from pathlib import Path

from trainops.diff.compare import Change, FieldChange, Identity, TreeDiff, compare, field_diff, parse_tree
from trainops.diff.present import DIFF_FORMATS, summary
from trainops.diff.snapshot import default_base, repo_root, resolve, tree_at, working_tree

__all__ = [
    "DIFF_FORMATS",
    "Change",
    "FieldChange",
    "Identity",
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
    old = parse_tree(tree_at(root, commit, prefix), prefix)
    new = parse_tree(working_tree(root, prefix), prefix)
    label = base if base else f"merge-base {commit[:12]}"
    return compare(old, new, base=label, head="working tree", protected=protected)
