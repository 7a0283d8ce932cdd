"""One ``trainops synth`` at a time per output root: a file lock that git does not see.

Two synths writing one ``generated/`` (a developer's editor hook and a terminal, two CI jobs on a
shared runner) would otherwise race on the swap of ``generated/<cluster>``. The second waits, saying
so on stderr, and fails with a one-line error after :data:`DEFAULT_TIMEOUT` seconds. The lock is an
``fcntl`` lock (``filelock.FileLock``), released by the kernel when its holder exits, so a killed
synth leaves no stale lock. The lock file is never removed (unlinking a file another process waits
on would let a third lock a new file), so it is kept where it bothers no one (:func:`lock_path`):
inside the git directory of the repository holding the output root (``.git/trainops-generated.lock``;
``git status`` never lists it, whatever the repository's ``.gitignore``), else beside the output
root (``.generated.lock``), never in it, so ``generated/`` holds only generated files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from trainops.core.errors import UsageError

#: Seconds a synth waits for another to finish; ``TRAINOPS_LOCK_TIMEOUT`` overrides it.
DEFAULT_TIMEOUT = 600.0
TIMEOUT_ENV = "TRAINOPS_LOCK_TIMEOUT"


def lock_path(out: Path) -> Path:
    """The lock file of output root ``out`` (a path that need not exist yet).

    In a git work tree (the nearest directory at or above ``out``'s parent holding ``.git``, a
    directory, or a file naming the git directory of a linked worktree or submodule): a file in the
    git directory named after ``out``'s path in the work tree, e.g. ``<root>/generated`` →
    ``<root>/.git/trainops-generated.lock``, ``<root>/deploy/out`` → ``.git/trainops-deploy-out.lock``.
    Elsewhere: ``.<name>.lock`` beside ``out``, e.g. ``generated`` → ``.generated.lock``.
    """
    parent = out.parent.resolve()
    for directory in (parent, *parent.parents):
        git_dir = _git_dir(directory)
        if git_dir is not None:
            where = (parent / out.name).relative_to(directory).as_posix().replace("/", "-")
            return git_dir / f"trainops-{where}.lock"
    return out.parent / f".{out.name}.lock"


def _git_dir(directory: Path) -> Path | None:
    """The git directory of the work tree rooted at ``directory``, or ``None`` when it is not one:
    ``directory/.git`` when that is a directory, the ``gitdir:`` it names when it is a file (git's
    ``read_gitfile``; a relative path is relative to ``directory``)."""
    dot_git = directory / ".git"
    if dot_git.is_dir():
        return dot_git
    if not dot_git.is_file():
        return None
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").partition("\n")[0]
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    named = directory / first.removeprefix("gitdir:").strip()
    return named if named.is_dir() else None


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextmanager
def output_lock(
    out: Path, *, timeout: float | None = None, notify: Callable[[str], None] = _stderr
) -> Iterator[Path]:
    """Hold the lock of output root ``out`` for the block; yields the lock file's path.

    Args:
        out: the output root, e.g. ``generated``; the directory of its lock file
            (:func:`lock_path`) is created when missing.
        timeout: seconds to wait for another holder; default ``TRAINOPS_LOCK_TIMEOUT`` or
            :data:`DEFAULT_TIMEOUT`.
        notify: told once, in one line, when the lock is held by another process and this one waits.

    Raises:
        UsageError: the lock is still held after ``timeout`` seconds, ``TRAINOPS_LOCK_TIMEOUT``
            is not a number, or the lock file cannot be created (a read-only checkout).
    """
    if timeout is None:
        raw = os.environ.get(TIMEOUT_ENV)
        try:
            timeout = float(raw) if raw else DEFAULT_TIMEOUT
        except ValueError:
            raise UsageError(f"{TIMEOUT_ENV}={raw!r}: expected seconds, e.g. 600") from None
    path = lock_path(out)
    lock = FileLock(str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire(blocking=False)
    except Timeout:
        notify(
            f"trainops: {out}/ is being written by another trainops synth ({path}); waiting up to {timeout:.0f} s"
        )
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            raise UsageError(
                f"{out}/ is still being written by another trainops synth after {timeout:.0f} s ({path}); "
                "wait for it to finish or stop it"
            ) from None
    except OSError as exc:  # after Timeout, which is one (a read-only checkout cannot hold the file)
        raise UsageError(
            f"cannot create the lock file {path}: {exc.strerror or exc}; {out}/ was not written"
        ) from None
    try:
        yield path
    finally:
        lock.release()
