"""Atomic replacement of files and directory trees: readers see the old tree or the new one, never a
half-written one (DESIGN.md decision 9). Used by ``trainops synth`` (``generated/<cluster>``) and
``trainops schemas sync`` (the schema cache)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def staged_directory(final: Path) -> Iterator[Path]:
    """Yield a new empty directory beside ``final``; when the block ends normally, swap it into
    place with renames (``final`` moved aside, staging renamed to ``final``, the old tree removed).

    If the block raises (or is interrupted), the staging directory is removed and ``final`` is left
    exactly as it was. The parent of ``final`` is created when missing.

    Args:
        final: the directory to replace, e.g. ``generated/gpu-prod``.

    Raises:
        OSError: the parent directory cannot be written.
    """
    parent = final.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=parent))
    try:
        yield staging
        if final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old.", dir=parent))
            old.rmdir()
            final.rename(old)
            staging.rename(final)
            shutil.rmtree(old)
        else:
            staging.rename(final)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def remove_leftovers(final: Path) -> list[Path]:
    """Remove what an earlier replacement of ``final`` killed mid-way (SIGKILL, power loss) left
    beside it: the staging directory ``.<name>.<random>`` and the moved-aside old tree
    ``.<name>.old.<random>`` (``tempfile.mkdtemp`` names: 8 random characters). Call it only while
    no other process replaces ``final`` (``trainops synth`` holds the output lock).

    Returns:
        The directories removed.
    """
    parent = final.parent
    pattern = re.compile(rf"\.{re.escape(final.name)}\.(?:old\.)?[a-z0-9_]{{8}}")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        if pattern.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def normalise_modes(root: Path) -> None:
    """Set 0755 on directories and 0644 on files below ``root`` (``mkdtemp`` creates 0700), so the
    committed tree does not depend on the umask."""
    for directory, _, files in os.walk(root):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename, so
    ``path`` holds either its old content or all of ``data`` (never a prefix). A symlink at
    ``path`` is replaced, never written through.

    The temporary file is ``.<name>.<random>.tmp`` and is removed if writing fails.

    Args:
        path: the file to write.
        data: its new content.
        mode: permission bits of the file, e.g. ``0o644``. Default: ``mkstemp``'s ``0o600``.

    Raises:
        OSError: the directory cannot be written.
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT and SIGTERM for the duration of the block (a few renames), then deliver them.

    An interrupt during a multi-directory swap would otherwise leave some directories new and some
    old; held, it arrives once the swap is complete (Python then raises ``KeyboardInterrupt``).
    """
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def staged_directories(finals: Sequence[Path]) -> Iterator[list[Path]]:
    """:func:`staged_directory` for several directories replaced together: all or none.

    Yields one new empty staging directory per entry of ``finals`` (same order). When the block
    ends normally every ``final`` is swapped for its staging directory with interrupts held
    (:func:`deferred_signals`); if a rename fails, the swaps already made are undone. If the block
    raises or is interrupted, every ``final`` is left exactly as it was.

    Raises:
        OSError: a parent directory cannot be written (after undoing any swap).
    """
    stagings: list[Path] = []
    try:
        for final in finals:
            final.parent.mkdir(parents=True, exist_ok=True)
            stagings.append(Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent)))
        yield stagings
        with deferred_signals():
            _swap_all(list(finals), stagings)
    finally:
        for staging in stagings:
            if staging.exists():
                shutil.rmtree(staging)


def _swap_all(finals: list[Path], stagings: list[Path]) -> None:
    done: list[tuple[Path, Path, Path | None]] = []  # (final, staging, old)
    try:
        for final, staging in zip(finals, stagings, strict=True):
            old: Path | None = None
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old.", dir=final.parent))
                old.rmdir()
                final.rename(old)
            try:
                staging.rename(final)
            except OSError:
                if old is not None:
                    old.rename(final)
                raise
            done.append((final, staging, old))
    except OSError:
        for final, staging, old in reversed(done):
            final.rename(staging)
            if old is not None:
                old.rename(final)
        raise
    for _, _, old in done:
        if old is not None:
            shutil.rmtree(old)
