"""The input files of ``validate`` and ``policy check``: paths named on the command line, and the
YAML files of the directories among them.

Two rules (issue 24 point 6, issue 27):

* **What is named is read wherever it points.** A file or directory given as an argument is taken
  as the user's choice, even through a symbolic link that leaves the working directory (a
  symlinked ``../shared``, ``/tmp`` on macOS being ``/private/tmp``).
* **A walk stays inside the walked directory.** Walking a named directory follows a symbolic link
  only when it resolves inside that directory (so a pull request cannot make CI read a runner's
  credentials through a link, and a link cannot make the walk loop); any other link is left out
  with a ``yaml`` error finding naming the link and the directory. A link named like a YAML file
  (``*.yaml``, ``*.yml``) that points to a directory is not followed either: a finding says so, as
  for every other entry with a YAML name that is not read (a broken link, a FIFO). Entries whose
  name starts with a dot are skipped, as ``git`` tools and ``kubectl apply -R`` users expect.

Only regular files are ever opened: a FIFO, socket or device found by a walk is left out with a
finding (opening a FIFO blocks until something writes to it); one named on the command line is a
usage error (exit 2) telling the user to pipe it to ``-`` instead.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from trainops.core.errors import UsageError
from trainops.core.findings import Finding
from trainops.yaml.load import YAML_SUFFIXES
from trainops.yaml.source import finding


class Inputs(NamedTuple):
    """The files a command reads, and what it left out.

    Args:
        files: paths to read, as named or as found under a named directory (joined to it), in
            argument order and sorted within each directory walk.
        findings: ``yaml`` error findings for entries a walk left out (links leaving the walked
            directory, broken or looping links, links named ``*.yaml`` to a directory, FIFOs,
            sockets and devices).
    """

    files: list[str]
    findings: list[Finding]


def walk_inputs(paths: Sequence[str]) -> Inputs:
    """Expand ``paths`` into the files to read (see the module docstring).

    A named file is taken whatever its suffix; a named directory is walked recursively for
    ``*.yaml``/``*.yml`` files. A named symbolic link that is broken or loops is kept as a file,
    so that reading it reports why (:func:`trainops.yaml.source.read_source`).

    Raises:
        UsageError: no paths, a path that does not exist, or a named path that is not a regular
            file or directory (a FIFO, socket or device).
    """
    if not paths:
        raise UsageError("no paths given")
    found = Inputs([], [])
    for raw in paths:
        path = Path(raw)
        try:
            mode = path.stat().st_mode
        except OSError:
            if path.is_symlink():  # broken or looping: reading it says which
                found.files.append(raw)
                continue
            raise UsageError(f"{raw}: no such file or directory") from None
        if stat.S_ISDIR(mode):
            _walk(path, path.resolve(), found)
        elif stat.S_ISREG(mode):
            found.files.append(raw)
        else:
            raise UsageError(
                f"{raw}: not a regular file ({_file_type(mode)}); not read "
                f"(to validate a stream, pipe it to `-`: cat {raw} | trainops validate -)"
            )
    return found


def expand_paths(paths: Sequence[str]) -> list[str]:
    """The files of :func:`walk_inputs`, without its findings (for tests and tools that only list).

    Raises:
        UsageError: see :func:`walk_inputs`.
    """
    return walk_inputs(paths).files


def _walk(top: Path, boundary: Path, found: Inputs) -> None:
    """Add the YAML files under ``top`` (named as ``top`` is) to ``found``; links must resolve
    inside ``boundary`` (the named directory, resolved), which also keeps the walk finite.

    Real directories and files are taken first; a link is followed afterwards, and only when what
    it points to was not taken already (a link to a directory or file of the walk adds nothing, so
    no document is read twice)."""
    files: dict[Path, Path] = {}  # resolved → as named
    seen: set[Path] = {boundary}
    pending = [top]
    links: list[tuple[Path, Path]] = []  # (link as named, resolved target), followed last
    while pending or links:
        if pending:
            directory = pending.pop()
        else:
            link, linked = links.pop(0)
            if linked in seen or linked in files:
                continue
            if not linked.is_dir():
                files[linked] = link
                continue
            seen.add(linked)
            directory = link
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            found.findings.append(finding(str(directory), f"cannot list directory: {exc.strerror}"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            candidate = entry.name.endswith(YAML_SUFFIXES)
            try:
                followed = (
                    _link_target(path, boundary, top, found, report=candidate) if entry.is_symlink() else None
                )
                mode = (
                    followed.stat().st_mode
                    if followed is not None
                    else entry.stat(follow_symlinks=False).st_mode
                )
            except OSError as exc:  # removed or made unreadable while the walk runs
                if candidate:
                    found.findings.append(finding(str(path), f"cannot read: {exc.strerror}"))
                continue
            if entry.is_symlink() and followed is None:
                continue
            if followed is not None and candidate and stat.S_ISDIR(mode):
                found.findings.append(
                    finding(str(path), f"symlink to the directory {followed}, not a YAML file; not read")
                )
                continue
            if followed is not None and (stat.S_ISDIR(mode) or (candidate and stat.S_ISREG(mode))):
                links.append((path, followed))  # followed once the real entries are taken
                continue
            if stat.S_ISDIR(mode):
                seen.add(path.resolve())
                pending.append(path)
                continue
            if not candidate:
                continue
            if stat.S_ISREG(mode):
                files.setdefault(path.resolve(), path)
            else:
                found.findings.append(
                    finding(str(path), f"not a regular file ({_file_type(mode)}); not read")
                )
    found.files.extend(str(p) for p in sorted(files.values()))


def _link_target(path: Path, boundary: Path, top: Path, found: Inputs, *, report: bool) -> Path | None:
    """Where the link ``path`` resolves, when the walk may follow it; otherwise ``None``, with a
    finding when ``report`` (a YAML file name: a link to a directory is always reported)."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        if report:
            looping = isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP
            why = "symlink loop: the link points back at itself" if looping else "broken symlink"
            found.findings.append(finding(str(path), f"{why}; not read"))
        return None
    if not target.is_relative_to(boundary):
        if report or target.is_dir():
            found.findings.append(
                finding(
                    str(path),
                    f"symlink to {target} leaves the walked directory {top}; not followed "
                    "(name it on the command line to read it)",
                )
            )
        return None
    return target


def _file_type(mode: int) -> str:
    """``FIFO``, ``socket``, ``character device``, ``block device`` or ``special file``."""
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "special file"
