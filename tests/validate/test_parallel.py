"""Parallel validation gives exactly the serial findings, chunks included."""

from __future__ import annotations

import math
import mmap
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_files
from trainops.validate.parallel import plan_units, validate_parallel

GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: v\n"
BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: 1\n"


def _corpus(path: Path, broken_yaml_at: int | None = None) -> Path:
    docs = []
    for i in range(60):
        docs.append((BAD if i % 7 == 0 else GOOD).format(i=i))
        if i == broken_yaml_at:
            docs.append("kind: [unclosed\n")
    path.write_text("---\n".join(docs))
    return path


def test_plan_units_cut_at_document_starts(tmp_path: Path) -> None:
    data = _corpus(tmp_path / "c.yaml").read_bytes()
    units = plan_units("c.yaml", data, chunk_bytes=500)
    assert len(units) > 3
    assert b"".join(data[u.start : u.end] for u in units) == data
    assert all(data[u.start : u.start + 4] == b"---\n" for u in units[1:])
    assert all(u.line_offset == data.count(b"\n", 0, u.start) for u in units)


_LINE_START = re.compile(rb"^---(?:[ \t\r]|$)", re.MULTILINE)  # a document start, as a line regex


def _plan_by_lines(data: bytes, chunk_bytes: int) -> list[tuple[int, int, int]]:
    """The cuts of plan_units found the slow way: every line-start ``---`` regex match in turn, cut
    once the unit holds the size divided by the number of units ``chunk_bytes`` gives."""
    least = math.ceil(len(data) / math.ceil(len(data) / chunk_bytes))
    cuts: list[tuple[int, int, int]] = []
    start = 0
    for match in _LINE_START.finditer(data, least):
        if match.start() - start >= least:
            cuts.append((start, match.start(), data.count(b"\n", 0, start)))
            start = match.start()
    return [*cuts, (start, len(data), data.count(b"\n", 0, start))]


_PIECES = st.sampled_from(
    [b"---", b"---\n", b"--- \n", b"---\r\n", b"----\n", b"a: ---\n", b" ---\n", b"\n", b"x\n"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40), st.integers(min_value=1, max_value=40))
def test_plan_units_cuts_where_every_line_start_would(pieces: list[bytes], chunk_bytes: int) -> None:
    data = b"".join(pieces)
    planned = [(u.start, u.end, u.line_offset) for u in plan_units("p.yaml", data, chunk_bytes)]
    assert planned == (_plan_by_lines(data, chunk_bytes) if len(data) > chunk_bytes else [(0, len(data), 0)])


def test_plan_units_of_an_mmap_and_of_bytes_agree(tmp_path: Path) -> None:
    path = _corpus(tmp_path / "c.yaml")
    data = path.read_bytes()
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert plan_units("c.yaml", mapped, chunk_bytes=700) == plan_units("c.yaml", data, chunk_bytes=700)


def test_units_are_balanced_with_no_small_leftover(tmp_path: Path) -> None:
    data = _corpus(tmp_path / "c.yaml").read_bytes()
    sizes = [u.end - u.start for u in plan_units("c.yaml", data, chunk_bytes=math.ceil(len(data) / 4))]
    assert len(sizes) == 4 and max(sizes) - min(sizes) < 2 * max(len(doc) for doc in data.split(b"---\n"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", "\x85\u2028\u2029é".encode()]), max_size=60).map(
        b"".join
    ),
    st.integers(-5, 310),
    st.integers(-5, 310),
)
def test_count_breaks_counts_as_the_parser(data: bytes, start: int, end: int) -> None:
    """Units after the first start at the line the YAML parser gives their first document (CR LF once,
    lone CR, LF, NEL, LS, PS)."""
    from trainops.validate.parallel import count_breaks

    piece = data[max(start, 0) : max(end, 0)]
    text = piece.decode("utf-8", "replace")
    assert count_breaks(piece) == len(re.findall("\r\n|[\r\n\x85\u2028\u2029]", text))


@pytest.mark.parametrize(
    ("total", "workers", "expected"),
    [
        (150 << 20, 2, 4 << 20),  # the bench's core kinds: whole 1.5 MB files, 4 MiB cap
        (21_400_000, 2, 21_400_000 // 32),  # five 4.4 MB files of custom resources: 0.7 MB units
        (3 << 20, 2, 256 << 10),  # never under 256 KiB
        (10 << 20, 1, 640 << 10),  # one worker: sixteen units
    ],
)
def test_chunk_size_gives_each_worker_several_units(total: int, workers: int, expected: int) -> None:
    from trainops.validate.parallel import chunk_size

    assert chunk_size(total, workers) == expected


@pytest.mark.parametrize("broken", [None, 30], ids=["valid-yaml", "yaml-error-mid-file"])
def test_parallel_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: int | None) -> None:
    import trainops.validate.parallel as engine

    path = str(_corpus(tmp_path / "c.yaml", broken))
    registry = SchemaRegistry("1.34", None)
    serial = validate_files([path], registry, ValidateOptions())
    monkeypatch.setattr(engine, "CHUNK_BYTES", 400)
    parallel = validate_parallel([path], registry, ValidateOptions(), workers=2)
    assert parallel.sorted() == serial.sorted()
    assert (parallel.documents, parallel.files) == (serial.documents, serial.files)
    assert serial.count("error") > 0


def test_parallel_non_utf8_is_a_finding_and_other_files_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trainops.validate.parallel as engine

    path = tmp_path / "latin1.yaml"
    path.write_bytes(GOOD.format(i=1).encode() + b"---\nkind: caf\xe9\n")
    other = _corpus(tmp_path / "other.yaml")
    files = [str(path), str(other)]
    registry = SchemaRegistry("1.34", None)
    serial = validate_files(files, registry, ValidateOptions())
    monkeypatch.setattr(engine, "CHUNK_BYTES", 10)
    parallel = validate_parallel(files, registry, ValidateOptions(), workers=2)
    assert parallel.sorted() == serial.sorted()
    utf8 = [f for f in parallel.findings if f.file == str(path) and "not UTF-8" in f.message]
    assert [(f.line, f.column) for f in utf8] == [(8, 10)]
    assert any(f.file == str(other) for f in parallel.findings)


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from trainops.cli import validate as validate_cmd

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with validate_cmd._progress() as update:
        assert update is None
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with validate_cmd._progress() as update:
        assert update is not None
        update(1, 4)
        update(4, 4)
    assert "validating" in terminal.getvalue()
