"""Write a set of new files under a directory safely: plan every write, check every path, then
write (``trainops init``).

:func:`plan_files` checks all paths before anything is written: a directory component that is a
file, a file path that is a directory, or a symlink that is dangling or leaves the root directory is
a one-line :class:`~trainops.core.errors.UsageError`, and nothing has been written. :func:`write_files`
then writes each file atomically (:func:`trainops.core.atomic.atomic_write`: a rename, which replaces a
path and never writes through a symlink), and when a write fails it removes what it wrote and
created, so a run writes all of its files or none.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from trainops.core.atomic import atomic_write
from trainops.core.errors import UsageError

#: What happens to a planned file: written as new, overwritten (``--force``), left as it is because
#: it exists with other content (``kept``) or already holds exactly that content (``unchanged``).
State = Literal["new", "overwrite", "kept", "unchanged"]
#: Mode of written files and created directories (git records only the executable bit).
FILE_MODE = 0o644
DIR_MODE = 0o755


@dataclass(frozen=True)
class File:
    """A file to write.

    Args:
        path: POSIX path relative to the root, e.g. ``.github/workflows/trainops.yml``.
        text: its content (written as UTF-8).
        replaceable: ``force`` may overwrite it when it exists. Default: ``False``.
    """

    path: str
    text: str
    replaceable: bool = False


@dataclass(frozen=True)
class Planned:
    """A checked :class:`File` and what :func:`write_files` will do with it."""

    file: File
    state: State
    data: bytes


def plan_files(root: Path, files: Sequence[File], *, force: bool = False) -> list[Planned]:
    """Check where each of ``files`` would go under ``root`` and decide what to do with it.

    Args:
        root: the directory the paths are relative to; it may not exist yet (it is then created
            by :func:`write_files`), and it may itself be reached through a symlink.
        files: the files, in the order they are reported.
        force: overwrite existing regular files whose :attr:`File.replaceable` is set.

    Returns:
        One :class:`Planned` per file, same order.

    Raises:
        UsageError: ``root`` is not a directory; a path component that must be a directory is
            something else; a file path is a directory (or a FIFO, socket, device); a path
            component or a file path is a symlink that is dangling, leaves ``root`` or (for a
            directory component) is not a directory; a text is not encodable as UTF-8.
    """
    base = _root(root)
    planned: list[Planned] = []
    for file in files:
        parts = PurePosixPath(file.path).parts
        if not parts or PurePosixPath(file.path).is_absolute() or ".." in parts:
            raise UsageError(f"init: {file.path!r}: not a path inside the directory")  # a bug if seen
        current = base
        for index, part in enumerate(parts[:-1]):
            current = current / part
            if not _check_directory(base, current, "/".join(parts[: index + 1]), file.path):
                break
        state = _check_file(base, base.joinpath(*parts), file, force)
        try:
            data = file.text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UsageError(
                f"init: {file.path}: {exc.reason} (an option that is not valid UTF-8?)"
            ) from None
        if state in ("kept", "overwrite") and _read(base.joinpath(*parts)) == data:
            state = "unchanged"
        planned.append(Planned(file, state, data))
    return planned


def write_files(root: Path, planned: Sequence[Planned]) -> None:
    """Write the ``new`` and ``overwrite`` files of ``planned`` (from :func:`plan_files`) under
    ``root``, creating directories as needed (mode 0755; files 0644).

    All or nothing: when a write fails, the files written so far are removed (or their previous
    content restored) and the directories created are removed, then the error is raised.

    Raises:
        UsageError: a file or directory cannot be written (the message names it and the reason);
            nothing is left of this run.
    """
    base = Path(os.path.abspath(root))
    created_dirs: list[Path] = []
    done: list[tuple[Path, bytes | None]] = []
    try:
        if not base.exists():
            _make_dirs(base, created_dirs)
        for item in planned:
            if item.state not in ("new", "overwrite"):
                continue
            path = base.joinpath(*PurePosixPath(item.file.path).parts)
            _make_dirs(path.parent, created_dirs)
            previous = path.read_bytes() if item.state == "overwrite" else None
            atomic_write(path, item.data, mode=FILE_MODE)
            done.append((path, previous))
    except OSError as exc:
        _undo(done, created_dirs)
        where = exc.filename or base
        reason = exc.strerror or type(exc).__name__
        raise UsageError(f"init: cannot write {where}: {reason}; nothing was written") from None
    except BaseException:
        _undo(done, created_dirs)
        raise


def _root(root: Path) -> Path:
    """``root`` made absolute with its symlinks resolved; it must be a directory or not exist
    (then its nearest existing ancestor must be a directory)."""
    base = Path(os.path.realpath(root))
    probe = base
    while not probe.exists():
        if probe.is_symlink():
            raise UsageError(f"init: {probe} is a dangling symlink; expected a directory")
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"init: {probe} is not a directory")
    return base


def _check_directory(base: Path, path: Path, rel: str, needed_by: str) -> bool:
    """Check a directory component; ``False`` when it does not exist (nor anything below it)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        target = Path(os.path.realpath(path))
        if not _inside(target, base):
            raise UsageError(
                f"init: {rel} is a symlink to {os.readlink(path)}, outside {base}: "
                "init never writes through it (replace it with a directory)"
            )
        if not target.is_dir():
            raise UsageError(f"init: {rel} is a symlink to {os.readlink(path)}, not a directory")
        return True
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"init: {rel} is a {_type(info.st_mode)}: {needed_by} needs a directory there")
    return True


def _check_file(base: Path, path: Path, file: File, force: bool) -> State:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return "new"
    if stat.S_ISLNK(info.st_mode):
        target = Path(os.path.realpath(path))
        if not target.is_file():
            where = "outside " + str(base) if not _inside(target, base) else "a missing file"
            raise UsageError(
                f"init: {file.path} is a symlink to {os.readlink(path)} ({where}): "
                "init never writes through a symlink (remove it, or point it at a file)"
            )
        return "kept"  # an existing file reached through a symlink: never written through
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"init: {file.path} is a {_type(info.st_mode)}; expected a file")
    return "overwrite" if force and file.replaceable else "kept"


def _inside(path: Path, base: Path) -> bool:
    return path == base or path.is_relative_to(base)


def _type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _make_dirs(path: Path, created: list[Path]) -> None:
    """``mkdir -p path``, recording each directory created (outermost first)."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE)
        os.chmod(directory, DIR_MODE)  # mkdir's mode is masked by the umask
        created.append(directory)


def _undo(done: list[tuple[Path, bytes | None]], created_dirs: list[Path]) -> None:
    for path, previous in reversed(done):
        with contextlib.suppress(OSError):
            if previous is None:
                path.unlink()
            else:
                atomic_write(path, previous, mode=FILE_MODE)
    for directory in reversed(created_dirs):
        with contextlib.suppress(OSError):
            directory.rmdir()
