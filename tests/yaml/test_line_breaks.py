"""Line breaks and characters are read as go-yaml (kubectl, the API server) reads them, on every path
(one document at a time, large texts cut into documents, large files split across processes):

* CR LF, a lone CR, LF, NEL, LS and PS each end a line (go-yaml's ``is_break``, ``yaml.v3
  yaml_private.go``), so ``---`` after any of them starts a document and positions count them so;
* the characters go-yaml's reader refuses (``yaml.v3 readerc.go``, ``yaml_parser_update_buffer``:
  C0 controls but tab, LF and CR; DEL; C1 controls but NEL; U+FFFE, U+FFFF) and surrogate escapes
  (``scannerc.go``: "found invalid Unicode character escape code") are findings at their position,
  and the documents before them are still read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import trainops.pipeline as pipeline
from conftest import CliRun
from trainops.pipeline import Target, check
from trainops.validate import parallel
from trainops.yaml import limits
from trainops.yaml.load import Document, stream_text

Cli = Callable[..., CliRun]

CONFIGMAP = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: settings", "data:", "  k: v"]
PRIVILEGED_POD = [
    "apiVersion: v1",
    "kind: Pod",
    "metadata:",
    "  name: miner",
    "spec:",
    "  hostPID: true",
    "  containers:",
    "  - name: c",
    "    image: busybox:1.36",
    "    securityContext:",
    "      privileged: true",
]
NEWLINES = {"crlf": "\r\n", "cr": "\r", "lf": "\n", "nel": "\x85", "ls": "\u2028", "ps": "\u2029"}


@pytest.fixture(autouse=True, params=["1", "0"], ids=["accel", "plain"])
def _both_paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case on the faster path (``trainops._accel``) and on the plain one."""
    monkeypatch.setenv("TRAINOPS_ACCEL", request.param)


def _read(text: str) -> list[tuple[Any, ...]]:
    """What the loader yields: documents as (index, data, line), findings as (document, line, column, message)."""
    out: list[tuple[Any, ...]] = []
    for item in stream_text(text, "f.yaml"):
        if isinstance(item, Document) and item.rejected is None:
            out.append(("doc", item.index, item.data, item.line))
        else:
            found = item.rejected if isinstance(item, Document) else item
            assert found is not None
            out.append(("finding", found.document, found.line, found.column, found.message))
    return out


def _privileged_behind_configmap(newline: str) -> str:
    return newline.join([*CONFIGMAP, "---", *PRIVILEGED_POD]) + newline


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
@pytest.mark.parametrize("command", [("validate", "--policy"), ("policy", "check")])
def test_a_privileged_pod_behind_a_configmap_is_seen(
    cli: Cli, tmp_path: Path, newline: str, command: tuple[str, ...]
) -> None:
    """Issue 27: with CRLF line ends every document after the first was skipped (exit 0)."""
    path = tmp_path / "two.yaml"
    path.write_bytes(_privileged_behind_configmap(newline).encode())
    run = cli(*command, "--format", "json", str(path))
    assert run.code == 1, run.err
    report = json.loads(run.out)
    assert report["documents"] == 2
    privileged = [f for f in report["findings"] if f["rule"] == "no-privileged"]
    assert [(f["kind"], f["name"], f["document"], f["line"]) for f in privileged] == [("Pod", "miner", 1, 18)]


@pytest.mark.parametrize("newline", list(NEWLINES.values()), ids=list(NEWLINES))
def test_document_markers_after_every_line_break(newline: str) -> None:
    text = newline.join(["a: 1", "---", "b:", "  c: 2", "--- # x", "", "...", "---", "d: 3"]) + newline
    assert _read(text) == [
        ("doc", 0, {"a": 1}, 1),
        ("doc", 1, {"b": {"c": 2}}, 3),
        ("doc", 2, None, 7),  # an empty document's node starts where it ends
        ("doc", 3, {"d": 3}, 9),
    ]


def test_mixed_line_breaks_count_as_the_parser_counts_them() -> None:
    text = "a: 1\r\n---\nb: 2\r---\r\nc:\r  d: [1,\r\n   x\u2028]\n"
    assert _read(text) == [
        ("doc", 0, {"a": 1}, 1),
        ("doc", 1, {"b": 2}, 3),
        ("doc", 2, {"c": {"d": [1, "x"]}}, 5),
    ]
    (last,) = [d for d in stream_text(text, "f.yaml") if isinstance(d, Document) and d.index == 2]
    assert last.locate(("c", "d", 1)) == (7, 4)


def test_a_carriage_return_inside_a_scalar_folds_as_a_line_break() -> None:
    assert _read('a: "x\r\n  y"\r\nb: |\r\n  l1\r\n  l2\r\n') == [
        ("doc", 0, {"a": "x y", "b": "l1\nl2\n"}, 1)
    ]


REFUSED = [
    ("nul-after-the-binary-sniff", "a: 1\n# " + "x" * 8100 + "\0\n", 0x0000, 2, 8103),
    ("soh", "a: \x01\n", 0x0001, 1, 4),
    ("escape", "a: '\x1b[0m'\n", 0x001B, 1, 5),
    ("del-in-a-plain-scalar", "a: b\x7fc\n", 0x007F, 1, 5),
    ("c1-control", "a: b\x80\n", 0x0080, 1, 5),
    ("c1-control-last", "a: b\x9f\n", 0x009F, 1, 5),
    ("fffe-in-a-quoted-scalar", 'a: "b\ufffe"\n', 0xFFFE, 1, 6),
    ("ffff", "a: 'b\uffff'\n", 0xFFFF, 1, 6),
    ("after-non-ascii", "é: 'ü\x7f'\n", 0x007F, 1, 6),
]


@pytest.mark.parametrize(
    ("text", "character", "line", "column"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_characters_go_yaml_refuses(text: str, character: int, line: int, column: int) -> None:
    assert _read(text) == [
        (
            "finding",
            0,
            line,
            column,
            f"invalid YAML: unacceptable character #x{character:04x}: control characters are not allowed",
        )
    ]


def test_an_escaped_surrogate_is_refused() -> None:
    (finding,) = _read('a: "\\ud800"\n')
    assert finding[0] == "finding" and finding[2:4] == (1, 7)
    assert "invalid Unicode character escape code" in finding[4]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 'x\ty'\n", "x\ty"),
        ("a: b\x85c: d\n", {"a": "b", "c": "d"}),  # NEL is a line break
        ("a: b\ufeffc\n", "b\ufeffc"),
        ("a: '\ue000\ufffd\U0001f600'\n", "\ue000\ufffd\U0001f600"),
        ('a: "\\0\\x7f\\ufffe"\n', "\0\x7f\ufffe"),  # escapes may name any character
    ],
)
def test_characters_go_yaml_accepts(text: str, value: Any) -> None:
    ((kind, _, data, _),) = _read(text)
    assert kind == "doc"
    assert data == (value if isinstance(value, dict) else {"a": value})


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_documents_before_a_refused_character_are_read(newline: str) -> None:
    """LibYAML refuses a character when reading ahead, before the parser reaches the documents before
    it; kubectl reads those (it splits the file first), so they are read and validated."""
    text = newline.join(["é: 1", "---", "b: 2", "---", "c: x\x7f"]) + newline
    assert _read(text) == [
        ("doc", 0, {"é": 1}, 1),
        ("doc", 1, {"b": 2}, 3),
        (
            "finding",
            2,
            5,
            5,
            "invalid YAML: unacceptable character #x007f: control characters are not allowed",
        ),
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_a_large_text_is_read_as_a_small_one(monkeypatch: pytest.MonkeyPatch, newline: str) -> None:
    """Texts larger than a document may be are cut into documents with the parser's events first:
    the same documents, indices and positions; a document over the limit is a finding and the next
    one is read; a syntax error still stops the file where it is."""
    big = newline.join(["big:", *(f"  k{i}: {'v' * 40}" for i in range(20))])
    text = newline.join([*CONFIGMAP, "---", big, "---", *PRIVILEGED_POD, "---", "x: [1", ""])
    small = _read(text)
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", 800)
    large = _read(text)
    assert len(text) > 800
    assert large[0] == small[0] and large[2:] == small[2:]
    assert small[1][:2] == ("doc", 1) and large[1][:3] == ("finding", 1, 7)
    assert large[1][4].startswith("document is ")
    assert large[-1][0] == "finding" and large[-1][1] == 3 and "invalid YAML" in large[-1][4]


def test_split_across_processes_as_read_serially(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, schema_cache: Path
) -> None:
    """A large CRLF file with lone CRs and NELs is split into units at ``---`` lines; every unit's
    findings have the line and document index of a serial run."""
    docs = [
        "\r".join(CONFIGMAP)
        if i % 3 == 0
        else "\r\n".join([*PRIVILEGED_POD, "  bogusField: 1"]).replace("miner", f"m{i}") + "\x85# x"
        for i in range(60)
    ]
    path = tmp_path / "many.yaml"
    path.write_bytes(("\r\n---\r\n".join(docs) + "\r\n").encode())
    target = Target("1.34", None, schema_cache)
    serial = check(target, [str(path)], workers=1)
    monkeypatch.setattr(pipeline, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 2000)
    monkeypatch.setattr(parallel, "MIN_CHUNK_BYTES", 1000)
    assert len(parallel.plan_units(str(path), path.read_bytes(), 2000)) > 3
    split = check(target, [str(path)], workers=2)
    assert serial.documents == split.documents == 60
    assert split.findings == serial.findings
    (last,) = [f for f in serial.findings if f.name == "m59" and f.path == "$.spec.bogusField"]
    assert (last.document, last.line) == (59, 1 + 20 * 6 + 39 * 13 + 59 + 11)


@pytest.mark.parametrize("bad", ["x\x7f", "[1,\n c: }"], ids=["refused-character", "syntax-error"])
def test_an_error_in_a_large_text_is_reported_where_it_is(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    """The error of a small document followed by more text than a document may hold is reported at
    its position (the parser stops there), not as an oversized document."""
    text = f"é: 1\r\n---\r\nb: {bad}\r\n---\r\nd: {'x' * 2000}\r\n"
    small = _read(text)
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", 800)
    assert _read(text) == small
    assert small[0] == ("doc", 0, {"é": 1}, 1) and small[1][:3] == ("finding", 1, 3 if "\x7f" in bad else 4)
