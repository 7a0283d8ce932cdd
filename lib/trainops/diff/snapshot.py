"""The ``generated/`` tree at two points: a git revision (read from git objects, no checkout) and
the working tree (tracked or not), as repository-relative path → text, plus the files that are not
read, each with its reason and git blob id (so a side can tell whether the other holds the same).

Not read (issue 27): a symbolic link (synth writes none; one may point at a kubeconfig outside the
repository, so its target is never opened), a file over :data:`MAX_FILE_BYTES`, and binary content
(a NUL byte, or bytes that are not UTF-8) in any file. Text files other than YAML (``lock.json``)
are not compared and not reported.

Git is run as a subprocess with ``--no-pager`` semantics and a fixed environment; revisions are
resolved with ``git rev-parse --verify`` and blobs are read in one ``git cat-file --batch`` pass
(git-cat-file(1)).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from trainops.core.errors import UsageError

#: Suffixes of files a generated tree holds that ``trainops diff`` compares.
DIFF_SUFFIXES = (".yaml", ".yml")

#: Largest file ``trainops diff`` reads (bytes): a bigger one is reported, not parsed.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: How much of a non-YAML file is read to tell text from binary.
_SNIFF_BYTES = 8192

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


def has_commit(root: Path) -> bool:
    """Whether ``HEAD`` of the repository holding ``root`` is a commit (``False`` in a repository
    before its first commit).

    Raises:
        UsageError: git is missing or ``root`` is not in a git repository.
    """
    try:
        git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except UsageError:
        git(root, "rev-parse", "--git-dir")  # not a repository: that error, not "no commit"
        return False
    return True


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


@dataclass(frozen=True)
class Unread:
    """A file under the generated root that is not read: why (one line), and its git blob id."""

    reason: str
    blob: str


@dataclass(frozen=True)
class Tree:
    """One side of a diff: YAML ``texts`` by repository-relative path, and ``unread`` files."""

    texts: dict[str, str] = field(default_factory=dict)
    unread: dict[str, Unread] = field(default_factory=dict)


def content_problem(name: str, data: bytes, size: int) -> str | None:
    """Why the content of file ``name`` (``data``: all of it, or its first bytes for a non-YAML
    file; ``size``: its full size) is not read, or ``None``."""
    if size > MAX_FILE_BYTES:
        return f"{size} bytes, over the {MAX_FILE_BYTES} bytes trainops diff reads; not compared"
    nul = data.find(b"\0")
    if nul >= 0:
        return f"binary content (NUL byte at byte {nul}); not compared"
    if name.endswith(DIFF_SUFFIXES):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"not UTF-8 text at byte {exc.start}; not compared"
    return None


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def tree_at(root: Path, rev: str, prefix: str) -> Tree:
    """Files under ``prefix`` (repository-relative, e.g. ``generated``) at commit ``rev``, read from
    git objects: YAML texts, and the files not read (symbolic links, files over
    :data:`MAX_FILE_BYTES`, binary content); sizes come from ``git cat-file --batch-check`` first,
    so a large blob is never loaded."""
    listing = git(root, "ls-tree", "-r", "-z", "-l", "--full-tree", rev, "--", prefix.rstrip("/") + "/")
    tree = Tree()
    wanted: list[tuple[str, str, int]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha, size_text = meta.split()
        name = path.decode("utf-8", "replace")
        if kind != b"blob" or any(part.startswith(".") for part in name.split("/")):
            continue
        if mode == b"120000":
            tree.unread[name] = Unread("a symbolic link (synth writes none); not followed", sha.decode())
            continue
        size = int(size_text)
        if size > MAX_FILE_BYTES:
            tree.unread[name] = Unread(str(content_problem(name, b"", size)), sha.decode())
            continue
        wanted.append((name, sha.decode(), size))
    if not wanted:
        return tree
    batch = git(root, "cat-file", "--batch", stdin="".join(f"{blob}\n" for _, blob, _ in wanted).encode())
    offset = 0
    for name, blob, _ in wanted:
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split(b" ")[2])
        start = header_end + 1
        data = batch[start : start + size]
        offset = start + size + 1
        problem = content_problem(name, data if name.endswith(DIFF_SUFFIXES) else data[:_SNIFF_BYTES], size)
        if problem is not None:
            tree.unread[name] = Unread(problem, blob)
        elif name.endswith(DIFF_SUFFIXES):
            tree.texts[name] = data.decode("utf-8")
    return tree


def working_tree(root: Path, prefix: str) -> Tree:
    """Files under ``root/prefix`` on disk (tracked or not; hidden entries skipped): YAML texts, and
    the files not read. Symbolic links are reported, never followed (``os.walk`` does not enter
    linked directories, and a linked file is not opened); sizes are checked before reading."""
    base = root / prefix
    tree = Tree()
    if base.is_symlink():
        link = os.fsencode(os.readlink(base))
        tree.unread[prefix] = Unread("a symbolic link (synth writes none); not followed", blob_id(link))
        return tree
    if not base.is_dir():
        return tree
    for directory, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(directory)
        linked = [d for d in dirs if (here / d).is_symlink()]
        dirs[:] = [d for d in dirs if d not in linked]
        for name in sorted([*files, *linked]):
            if name.startswith("."):
                continue
            path = here / name
            rel = path.relative_to(root).as_posix()
            try:
                info = path.lstat()
                if stat.S_ISLNK(info.st_mode):
                    target = os.readlink(path)
                    tree.unread[rel] = Unread(
                        "a symbolic link (synth writes none); not followed", blob_id(os.fsencode(target))
                    )
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                yaml_file = name.endswith(DIFF_SUFFIXES)
                if info.st_size > MAX_FILE_BYTES:
                    tree.unread[rel] = Unread(str(content_problem(name, b"", info.st_size)), _hash_file(path))
                    continue
                with path.open("rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1 if yaml_file else _SNIFF_BYTES)
            except OSError as exc:
                tree.unread[rel] = Unread(f"cannot be read ({exc.strerror or exc}); not compared", "")
                continue
            problem = content_problem(name, data, max(len(data), info.st_size))
            if problem is not None:
                tree.unread[rel] = Unread(problem, _hash_file(path) if not yaml_file else blob_id(data))
            elif yaml_file:
                tree.texts[rel] = data.decode("utf-8")
    return tree


def _hash_file(path: Path) -> str:
    """The git blob id of a regular file, read in blocks (any size, constant memory)."""
    size = path.stat().st_size
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
