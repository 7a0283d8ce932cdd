"""The ``generated/`` tree at two points: a git revision (read from git objects, no checkout) and
the working tree (tracked or not), as repository-relative path → text.

Git is run as a subprocess with ``--no-pager`` semantics and a fixed environment; revisions are
resolved with ``git rev-parse --verify`` and blobs are read in one ``git cat-file --batch`` pass
(git-cat-file(1)).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

from trainops.errors import UsageError

#: Suffixes of files a generated tree holds that ``trainops diff`` compares.
DIFF_SUFFIXES = (".yaml", ".yml")

_GIT_ENV = {"GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run ``git -C root ARGS`` and return its stdout.

    Raises:
        UsageError: git is missing, ``root`` is not in a git repository, or the command fails
            (git's own first error line is quoted).
    """
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            input=stdin,
            capture_output=True,
            env={**os.environ, **_GIT_ENV},
            check=False,
            timeout=120,
        )
    except FileNotFoundError:
        raise UsageError("git is not installed (trainops diff reads revisions with git)") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {' '.join(args[:2])}: {message[0] if message else 'failed'}")
    return done.stdout


def default_base(root: Path) -> str:
    """The merge base of ``HEAD`` with the default branch, as a commit id.

    The default branch is ``origin/HEAD`` when the clone has it, else ``main``, else ``master``
    (the order GitHub and git 2.28+ ``init.defaultBranch`` use).

    Raises:
        UsageError: no default branch is found, or ``HEAD`` has no commit.
    """
    candidates = []
    with contextlib.suppress(UsageError):
        candidates.append(git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").decode().strip())
    candidates += [
        "refs/heads/main",
        "refs/heads/master",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
    ]
    for ref in candidates:
        try:
            git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        except UsageError:
            continue
        return git(root, "merge-base", "HEAD", ref).decode().strip()
    raise UsageError("no default branch (origin/HEAD, main or master) to take the merge base with; name BASE")


def resolve(root: Path, rev: str) -> str:
    """The commit id of ``rev`` (a branch, tag, ``HEAD~1``, a commit id).

    Raises:
        UsageError: ``rev`` names no commit.
    """
    try:
        return git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except UsageError:
        raise UsageError(f"unknown revision {rev!r} (not a commit in {root})") from None


def repo_root(start: Path) -> Path:
    """The top of the git work tree holding ``start``.

    Raises:
        UsageError: ``start`` is not inside a git work tree.
    """
    try:
        return Path(git(start, "rev-parse", "--show-toplevel").decode().strip())
    except UsageError:
        raise UsageError(
            f"{start}: not inside a git repository (trainops diff compares git revisions)"
        ) from None


def tree_at(root: Path, rev: str, prefix: str) -> dict[str, str]:
    """Files under ``prefix`` (repository-relative, e.g. ``generated``) at commit ``rev``, read from
    git objects: path → UTF-8 text. Only :data:`DIFF_SUFFIXES` files are returned."""
    listing = git(root, "ls-tree", "-r", "-z", "--full-tree", rev, "--", prefix.rstrip("/") + "/")
    entries: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        _, kind, sha = meta.split(b" ")
        name = path.decode("utf-8")
        if kind == b"blob" and name.endswith(DIFF_SUFFIXES):
            entries.append((name, sha.decode()))
    if not entries:
        return {}
    batch = git(root, "cat-file", "--batch", stdin="".join(f"{sha}\n" for _, sha in entries).encode())
    texts: dict[str, str] = {}
    offset = 0
    for name, _ in entries:
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split(b" ")[2])
        start = header_end + 1
        texts[name] = batch[start : start + size].decode("utf-8", "replace")
        offset = start + size + 1
    return texts


def working_tree(root: Path, prefix: str) -> dict[str, str]:
    """Files under ``root/prefix`` on disk (tracked or not; hidden entries skipped): path → text."""
    base = root / prefix
    texts: dict[str, str] = {}
    if not base.is_dir():
        return texts
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(root)
        if (
            path.is_file()
            and path.name.endswith(DIFF_SUFFIXES)
            and not any(p.startswith(".") for p in rel.parts)
        ):
            texts[rel.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return texts
