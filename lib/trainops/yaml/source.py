"""Read an input file as text the way kubectl does, turning every unreadable file into a finding.

A file that cannot be read (a symlink loop, a FIFO or device, a binary file, a file that is not
UTF-8) is a ``yaml`` finding naming the file and, where there is one, the line
and column of the offending byte; the other files of the run are still checked.

Encodings follow kubectl (``k8s.io/cli-runtime/pkg/resource/visitor.go``: ``FileVisitor.Visit``
reads through ``unicode.BOMOverride(unicode.UTF8.NewDecoder())``): a UTF-8 byte order mark is
dropped and UTF-16 with a byte order mark is decoded; anything else must be UTF-8. Both byte order
marks are reported as warnings, since git and diff tools treat UTF-16 files as binary.
"""

from __future__ import annotations

import codecs
import errno
import stat
from pathlib import Path
from typing import NamedTuple

from trainops.core.findings import Finding, Level
from trainops.yaml.load import YAML

#: Bytes looked at for a NUL byte, as git does to call a file binary (``buffer_is_binary``).
BINARY_SNIFF = 8000


class Source(NamedTuple):
    """One input file's text, or why it has none.

    Args:
        path: the path as given.
        text: the decoded text, or ``None`` when the file cannot be read as YAML text.
        findings: problems found while reading (an error when ``text`` is ``None``).
    """

    path: str
    text: str | None
    findings: list[Finding]


def finding(
    path: str, message: str, *, line: int | None = None, column: int | None = None, level: Level = "error"
) -> Finding:
    """A ``yaml`` finding about a whole file (document 0)."""
    return Finding(
        rule=YAML.id, level=level, message=message, file=path, line=line, column=column, document=0
    )


def path_problem(path: str, root: Path | None = None) -> Finding | None:
    """Why ``path`` must not be read: a symlink loop, a file that is not a regular file (a FIFO
    would block the read), or, when ``root`` is given, a symlink resolving outside ``root``.

    Args:
        root: a directory symbolic links in ``path`` must resolve inside, or ``None`` (default)
            for none: a path named on the command line is read wherever it points, and a
            directory walk has already left out links that leave it (:mod:`trainops.yaml.walk`).
    """
    candidate = Path(path)
    try:
        resolved = candidate.resolve(strict=True)
        mode = resolved.stat().st_mode
    except RuntimeError:  # pragma: no cover - Python < 3.13 raises this for loops in some cases
        return finding(path, "symlink loop: the link points back at itself")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return finding(path, "symlink loop: the link points back at itself")
        return finding(path, f"cannot read: {exc.strerror}")
    if not stat.S_ISREG(mode):
        return finding(path, "not a regular file (a FIFO, socket or device); not read")
    if root is not None and _has_symlink(candidate) and not resolved.is_relative_to(root.resolve()):
        return finding(path, f"symlink escapes {root.resolve()}; not read")
    return None


def _has_symlink(path: Path) -> bool:
    """Whether a component of ``path`` as written (not the directories above it) is a symlink."""
    return any(part.is_symlink() for part in (path, *path.parents) if part.name)


def read_source(path: str, root: Path | None = None) -> Source:
    """Read and decode ``path``; never raises for bad content or an unreadable file.

    Args:
        root: see :func:`path_problem`.
    """
    problem = path_problem(path, root)
    if problem is not None:
        return Source(path, None, [problem])
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return Source(path, None, [finding(path, f"cannot read: {exc.strerror}")])
    return decode(data, path)


def decode(
    data: bytes, path: str, *, byte_offset: int = 0, line_offset: int = 0, first: bool = True
) -> Source:
    """Decode file bytes as kubectl does (see the module docstring).

    Args:
        data: the bytes (a whole file, or a chunk of one starting at ``byte_offset``).
        byte_offset: bytes of the file before ``data`` (for positions in messages).
        line_offset: lines of the file before ``data``.
        first: whether ``data`` starts the file (only then is a byte order mark looked for).
    """
    if first:
        if data.startswith(codecs.BOM_UTF8):
            warn = finding(
                path,
                "UTF-8 byte order mark: kubectl drops it but some YAML tools read it as content; save without it",
                line=1,
                column=1,
                level="warning",
            )
            return _utf8(data[len(codecs.BOM_UTF8) :], path, byte_offset + 3, line_offset, [warn])
        for bom, encoding in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
            if data.startswith(bom):
                return _utf16(data[2:], path, encoding)
    nul = data.find(b"\0", 0, BINARY_SNIFF)
    if nul >= 0:
        line, column = _position(data, nul, line_offset)
        message = (
            f"binary file (NUL byte at byte {byte_offset + nul}), not YAML text; "
            "a UTF-16 file needs a byte order mark"
        )
        return Source(path, None, [finding(path, message, line=line, column=column)])
    return _utf8(data, path, byte_offset, line_offset, [])


def _utf8(data: bytes, path: str, byte_offset: int, line_offset: int, found: list[Finding]) -> Source:
    try:
        return Source(path, data.decode("utf-8"), found)
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start, line_offset)
        bad = data[exc.start : exc.start + (2 if "continuation" in exc.reason else 1)].hex()
        message = (
            f"not UTF-8 text at byte {byte_offset + exc.start} (0x{bad}: {exc.reason}); "
            "Kubernetes reads manifests as UTF-8: save the file as UTF-8"
        )
        return Source(path, None, [*found, finding(path, message, line=line, column=column)])


def _utf16(data: bytes, path: str, encoding: str) -> Source:
    warn = finding(
        path,
        f"{encoding.upper()} file: kubectl decodes it, but git, diffs and Argo CD tooling see binary; save it as UTF-8",
        line=1,
        column=1,
        level="warning",
    )
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        message = f"not {encoding.upper()} text: {exc.reason} at byte {exc.start + 2}; save the file as UTF-8"
        return Source(path, None, [finding(path, message)])
    if "\0" in text:
        return Source(
            path, None, [finding(path, f"binary file (NUL character in {encoding.upper()} text), not YAML")]
        )
    return Source(path, text, [warn])


def _position(data: bytes, offset: int, line_offset: int) -> tuple[int, int]:
    """1-based (line, byte column) of byte ``offset`` of ``data``."""
    line = data.count(b"\n", 0, offset) + 1 + line_offset
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def file_size(path: str) -> int:
    """Size of ``path`` in bytes, or 0 when it cannot be read (reading it then reports why)."""
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
