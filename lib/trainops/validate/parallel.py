"""Validate large inputs across forked processes: the scheduler concerns of the engine.

Inputs of :data:`trainops.pipeline.PARALLEL_BYTES` or more are split into units (whole files up to
:data:`CHUNK_BYTES`, larger files at ``---`` document boundaries) and validated by forked workers (:mod:`trainops.core.forking`);
findings come back in the order and with the document indices of a serial run. Imported only
when an input is that large.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from trainops.core.errors import UsageError
from trainops.core.findings import Finding, Result
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.context import ValidateOptions
from trainops.validate.engine import relax_gc, validate_guarded
from trainops.yaml.load import stream_text
from trainops.yaml.source import decode, path_problem
from trainops.yaml.template import template_hint

#: Files larger than this (bytes) are split at document boundaries into chunks of about this size;
#: smaller files are whole units (the parent then reads nothing before the workers start).
CHUNK_BYTES = 4 << 20
#: A line that starts a YAML document, from its newline: ``---`` at column 0, then a blank, a line end
#: or the end of the data. The literal ``\n---`` lets the search skip ahead (a ``^`` in MULTILINE mode is
#: tried at every position, before any worker can start).
_NEXT_DOC_START = re.compile(rb"\n---(?=[ \t\r\n]|\Z)")
#: Units per worker that :func:`chunk_size` aims at, and the smallest chunk it makes (bytes).
UNITS_PER_WORKER = 16
MIN_CHUNK_BYTES = 256 << 10


def chunk_size(total: int, workers: int) -> int:
    """Bytes per unit for ``total`` input bytes on ``workers`` processes: :data:`CHUNK_BYTES`, or less
    so that there are about :data:`UNITS_PER_WORKER` units per worker (but not under
    :data:`MIN_CHUNK_BYTES` unless :data:`CHUNK_BYTES` is). The pool hands out units one at a time, so the last unit to finish is
    what keeps a worker busy while the other waits (a few large units can leave a worker idle for a
    good part of the run)."""
    return min(CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // max(1, workers * UNITS_PER_WORKER)))


@dataclass(frozen=True)
class Unit:
    """A piece of work: the bytes of ``path`` from ``start`` to ``end``.

    ``line_offset`` is the number of lines before ``start``; ``chunk`` orders the units of a file.
    """

    path: str
    chunk: int
    start: int
    end: int
    line_offset: int


#: What :func:`plan_units` splits: a file's bytes, or a read-only mmap of them.
Buffer = bytes | mmap.mmap


def plan_units(path: str, data: Buffer, chunk_bytes: int = CHUNK_BYTES) -> list[Unit]:
    """Split ``data`` (the file's bytes, or an mmap of them) into units at ``---`` lines: as many as
    ``chunk_bytes`` gives (the size rounded up), of about equal size (each at least the size divided
    by their number, but the last), so that no small leftover unit comes last.

    A line starting with ``---`` at column 0 always starts a YAML document (the spec forbids
    document markers inside scalars and flow collections), so chunks parse on their own.
    """
    size = len(data)
    if size <= chunk_bytes:
        return [Unit(path, 0, 0, size, 0)]
    parts = -(-size // chunk_bytes)
    least = -(-size // parts)
    units: list[Unit] = []
    start = 0
    lines_before = 0
    while True:
        match = _NEXT_DOC_START.search(data, start + least - 1)
        if match is None:
            break
        cut = match.start() + 1
        units.append(Unit(path, len(units), start, cut, lines_before))
        lines_before += count_breaks(data[start:cut])
        start = cut
    units.append(Unit(path, len(units), start, size, lines_before))
    return units


def count_breaks(data: bytes) -> int:
    """Line breaks in UTF-8 ``data`` as the YAML parser counts them (go-yaml's ``is_break``): CR LF
    once, a lone CR, LF, NEL (U+0085), LS (U+2028) and PS (U+2029)."""
    breaks = data.count(b"\n")
    if b"\r" in data:
        breaks += data.count(b"\r") - data.count(b"\r\n")
    if not data.isascii():  # the other breaks are not ASCII
        breaks += data.count(b"\xc2\x85") + data.count(b"\xe2\x80\xa8") + data.count(b"\xe2\x80\xa9")
    return breaks


_WORKER: tuple[SchemaRegistry, ValidateOptions] | None = None


def _init_worker() -> None:
    relax_gc()


@dataclass
class _UnitResult:
    unit: Unit
    findings: list[Finding]
    documents: int
    nodes: int
    stopped: bool
    unreadable: bool


def _run_unit(unit: Unit) -> _UnitResult:
    assert _WORKER is not None
    registry, options = _WORKER
    with open(unit.path, "rb") as handle:
        handle.seek(unit.start)
        data = handle.read(unit.end - unit.start)
    source = decode(
        data, unit.path, byte_offset=unit.start, line_offset=unit.line_offset, first=unit.start == 0
    )
    if source.text is None:  # the file is unreadable from here on: a finding, then stop the file
        return _UnitResult(unit, source.findings, 0, 0, True, True)
    result = Result(findings=list(source.findings))
    nodes = 0
    stopped = False
    for item in stream_text(source.text, unit.path, line_offset=unit.line_offset):
        if isinstance(item, Finding):
            result.findings.append(item)
            stopped = True
            continue
        nodes += 1
        if item.rejected is not None:
            result.findings.append(item.rejected)
        elif item.data is not None:
            result.documents += 1
            result.extend(validate_guarded(item, registry, options))
    hint = template_hint(source.text, unit.path, line_offset=unit.line_offset) if unit.chunk == 0 else None
    if hint is not None:
        result.findings.append(hint)
    return _UnitResult(unit, result.findings, result.documents, nodes, stopped, False)


def validate_parallel(
    files: Sequence[str],
    registry: SchemaRegistry,
    options: ValidateOptions,
    *,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """Validate ``files`` across ``workers`` forked processes; same findings as :func:`validate_files`.

    Large files are split into chunks at document boundaries; document indices are renumbered and
    a YAML error stops its file exactly as in a serial run.

    Args:
        progress: called as ``progress(done_units, total_units)`` after each unit.
    """
    from trainops.core.forking import fork_map  # here, not at module level: most runs never fork (start-up)

    global _WORKER
    units: list[Unit] = []
    unreadable: dict[str, Finding] = {}
    sizes: dict[str, int] = {}
    for path in files:
        problem = path_problem(path)
        if problem is not None:
            unreadable[path] = problem
            continue
        try:
            sizes[path] = os.path.getsize(path)
        except OSError as exc:
            raise UsageError(f"{path}: {exc.strerror}") from None
    chunk_bytes = chunk_size(sum(sizes.values()), workers)
    for path, size in sizes.items():
        if size <= chunk_bytes:
            units.append(Unit(path, 0, 0, size, 0))
            continue
        try:
            with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                units.extend(plan_units(path, data, chunk_bytes))  # mapped, not copied into the parent
        except OSError as exc:
            raise UsageError(f"{path}: {exc.strerror}") from None
        except ValueError:  # mmap of a file that shrank to nothing since its size was read
            units.append(Unit(path, 0, 0, size, 0))
    _WORKER = (registry, options)
    results: list[_UnitResult] = []
    try:
        for done, (_, unit_result) in enumerate(
            fork_map(_run_unit, units, workers, initializer=_init_worker), start=1
        ):
            results.append(unit_result)
            if progress:
                progress(done, len(units))
    finally:
        _WORKER = None
    total = Result(files=len(files))
    by_file: dict[str, list[_UnitResult]] = {}
    for unit_result in results:
        by_file.setdefault(unit_result.unit.path, []).append(unit_result)
    for path in files:
        if path in unreadable:
            total.findings.append(unreadable[path])
        unit_results = sorted(by_file.get(path, []), key=lambda r: r.unit.chunk)
        unreadable_units = [r for r in unit_results if r.unreadable]
        if unreadable_units:  # as in a serial run: the file is not read at all
            total.findings.extend(replace(f, document=0) for f in unreadable_units[0].findings)
            continue
        offset = 0
        for unit_result in unit_results:
            total.documents += unit_result.documents
            total.findings.extend(
                replace(f, document=(f.document or 0) + offset) if offset else f for f in unit_result.findings
            )
            unit_result.findings = []  # renumbered copies replace them: one unit's worth held twice at most
            offset += unit_result.nodes
            if unit_result.stopped:
                break
    return total
