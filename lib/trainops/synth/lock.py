"""One ``trainops synth`` at a time per output root: a file lock on ``.<out>.lock`` beside it.

Two synths writing one ``generated/`` (a developer's editor hook and a terminal, two CI jobs on a
shared runner) would otherwise race on the swap of ``generated/<cluster>``. The second waits, saying
so on stderr, and fails with a one-line error after :data:`DEFAULT_TIMEOUT` seconds. The lock is an
``fcntl`` lock (``filelock.FileLock``), released by the kernel when its holder exits, so a killed
synth leaves no stale lock. The file sits beside the output root (``.generated.lock``, git-ignored),
not in it, so ``generated/`` holds only generated files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from trainops.errors import UsageError

#: Seconds a synth waits for another to finish; ``TRAINOPS_LOCK_TIMEOUT`` overrides it.
DEFAULT_TIMEOUT = 600.0
TIMEOUT_ENV = "TRAINOPS_LOCK_TIMEOUT"


def lock_path(out: Path) -> Path:
    """The lock file of output root ``out``: ``generated`` → ``.generated.lock`` beside it."""
    return out.parent / f".{out.name}.lock"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextmanager
def output_lock(
    out: Path, *, timeout: float | None = None, notify: Callable[[str], None] = _stderr
) -> Iterator[Path]:
    """Hold the lock of output root ``out`` for the block; yields the lock file's path.

    Args:
        out: the output root, e.g. ``generated`` (its parent is created when missing).
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
