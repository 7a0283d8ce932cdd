"""Atomic replacement of files and directory trees: readers see the old tree or the new one, never a
half-written one (DESIGN.md decision 9). Used by ``trainops synth`` (``generated/<cluster>``) and
``trainops schemas sync`` (the schema cache)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
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


def normalise_modes(root: Path) -> None:
    """Set 0755 on directories and 0644 on files below ``root`` (``mkdtemp`` creates 0700), so the
    committed tree does not depend on the umask."""
    for directory, _, files in os.walk(root):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
