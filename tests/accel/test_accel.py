"""The faster paths (``trainops._accel``) give byte-identical reports: ``validate --policy`` of every
file of ../shared/examples and of the bundled output (generated/), with ``TRAINOPS_ACCEL`` on and off;
``TRAINOPS_ACCEL=0`` turns them off."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, SAMPLE, documents_in, needs_shared
from trainops import _accel
from trainops.core import credentials
from trainops.core.credentials import document_secrets
from trainops.pipeline import Target, check, policy_run
from trainops.report import render
from trainops.validate.scan import scan
from trainops.yaml.dump import KubeDumper
from trainops.yaml.load import Document, stream_text

MANY = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

pytestmark = pytest.mark.skipif(_accel._parse() is None, reason="trainops._accel._blockyaml is not built")


def parse(text: str) -> Any:
    """``trainops._accel._blockyaml.parse``."""
    reader = _accel._parse()
    assert reader is not None
    return reader(text)


def _report(files: list[str], schema_cache: Path, accel: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(_accel.ACCEL_ENV, accel)
    result = check(Target("1.34", None, schema_cache), files, workers=1, policy=policy_run())
    return render(result, "json")


def _groups() -> list[str]:
    return sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) if EXAMPLES.is_dir() else []


@needs_shared
@pytest.mark.parametrize("group", _groups())
def test_examples_report_the_same_both_ways(
    group: str, schema_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted(str(p) for p in (EXAMPLES / group).rglob("*.y*ml"))
    assert files
    assert _report(files, schema_cache, "1", monkeypatch) == _report(files, schema_cache, "0", monkeypatch)


def test_bundled_output_reports_the_same_both_ways(
    schema_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted(str(p) for p in (SAMPLE / "generated").rglob("*.yaml"))
    assert len(files) > 20
    assert _report(files, schema_cache, "1", monkeypatch) == _report(files, schema_cache, "0", monkeypatch)


def _read_by_block_reader(text: str) -> list[bool]:
    """Per document: whether the block reader read it (its node is composed only when needed)."""
    return [d.node is None for d in stream_text(text, "f.yaml") if isinstance(d, Document)]


def test_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: X\nmetadata: &m {}\n"
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    assert _read_by_block_reader(text) == [True, False]  # an anchor is outside its subset
    monkeypatch.setenv(_accel.ACCEL_ENV, "0")
    assert _read_by_block_reader(text) == [False, False]


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\r\n---\r\nb: 2\r\n",  # CR LF
        "a: 1\n---\rb: 2\n",  # a lone CR
        "a: 1\n---\nb: c\x7fd\n",  # DEL
        "a: 1\n---\nb: c\x00d\n",  # NUL
        "a: 1\n---\nb: 'é'\n",  # not ASCII
        "%YAML 1.1\n---\na: 1\n",  # a directive
    ],
)
def test_texts_outside_the_subset_take_the_plain_path(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    assert _accel.block_pieces(text) is None


@pytest.mark.parametrize("code", range(128))
def test_each_ascii_character(code: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    readable = code in (0x09, 0x0A) or 0x20 <= code <= 0x7E
    assert (_accel.block_pieces(f"a: 1\n---\nb: c{chr(code)}d\n") is not None) is readable


# The C reader against the plain loader, document by document (from the tests of the reader as it was
# before it moved to trainops._accel).

#: The loader's answer when it does not read the text as one clean document.
NOT_ONE = object()


@contextmanager
def _without_block_reader() -> Iterator[None]:
    saved = os.environ.get(_accel.ACCEL_ENV)
    os.environ[_accel.ACCEL_ENV] = "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[_accel.ACCEL_ENV]
        else:
            os.environ[_accel.ACCEL_ENV] = saved


def _reference(text: str) -> Any:
    """The value the plain loader (PyYAML) builds for ``text``, or :data:`NOT_ONE`."""
    with _without_block_reader():
        items = list(stream_text(text, "f.yaml"))
    if len(items) != 1 or not isinstance(items[0], Document):
        return NOT_ONE
    document = items[0]
    if document.problems or document.rejected is not None:
        return NOT_ONE
    return document.data


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (``1 == 1.0 == True`` in Python), floats by ``repr``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)


def _check(text: str) -> bool:
    """Assert the block reader's answer on ``text`` is the plain loader's; whether it read it."""
    parsed = parse(text)
    if parsed is None:
        return False
    value, strings, envs = parsed
    reference = _reference(text)
    assert reference is not NOT_ONE, f"read text the loader rejects: {text!r}"
    assert _same(value, reference), f"{text!r}: {value!r} != {reference!r}"
    scanned = scan(value)  # what validation would collect walking the value
    assert Counter(strings) == Counter(scanned.strings), text
    assert Counter(map(id, envs)) == Counter(map(id, scanned.envs)), text
    assert not scanned.huge
    return True


def _chunks(paths: list[Path]) -> list[str]:
    texts = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        texts.extend(piece for piece, _ in _accel.block_pieces(text) or [])
    return texts


def _example_folders_() -> list[str]:
    return sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) if EXAMPLES.is_dir() else []


@needs_shared
@pytest.mark.parametrize("folder", _example_folders_())
def test_block_reader_agrees_with_the_loader_on_upstream_examples(folder: str) -> None:
    texts = _chunks(sorted((EXAMPLES / folder).rglob("*.y*ml")))
    read = [_check(text) for text in texts]
    assert texts
    # Upstream examples are mostly in the subset (a reader that refused everything would pass above).
    assert sum(read) >= len(read) // 3, f"read {sum(read)} of {len(read)}"


def test_block_reader_reads_every_document_trainops_generates() -> None:
    texts = _chunks(sorted((SAMPLE / "generated").rglob("*.yaml")))
    assert len(texts) > 100
    assert all(_check(text) for text in texts)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 1\n", {"a": 1}),
        ("---\na: -0\n", {"a": 0}),
        ("a: 1.50\nb: -0.0\n", {"a": 1.5, "b": -0.0}),
        ("a: true\nb: false\nc: null\nd:\ne: ''\n", {"a": True, "b": False, "c": None, "d": None, "e": ""}),
        ("v: 0.1.0\nh: 87f8544f68ae5697\np: .spec.x[].r\nq: 10.0.0.0/8\n", None),
        ("a:\n- x\n- w: 1\n  z: [a, 'b', \"c\"]\nb: {k: v, m: 2}\n", None),
        ("s: |\n  one\n\n  two\n    three\nf: >-\n  a\n  b\nk: |+\n  x\n\nz: 1\n", None),
        ("q: \"a\\\"b\\\\c\\nd\\te\\/\"\nr: 'it''s'\nc: a#b # comment\n", None),
        ("args:\n  - --lr=0.1\n  - -Xmx1g\n  -\n    nested: 1\n  - []\n  - {}\n", None),
        ("- a\n- 1\n", ["a", 1]),
        ("a: \"yes\"\nb: '0755'\n", {"a": "yes", "b": "0755"}),
        ("# only a comment\nkey:   # and another\n  # and one more\n  x: z\n", None),
    ],
)
def test_block_reader_values(text: str, value: Any) -> None:
    assert _check(text)
    if value is not None:
        parsed = parse(text)
        assert parsed is not None
        assert _same(parsed[0], value)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: yes\n", 0),  # YAML 1.1 boolean
        ("y: 1\n", 0),  # a boolean key for go-yaml
        ("a: 0755\n", 0),  # YAML 1.1 octal
        ("a: 1e3\n", 0),  # a string for PyYAML, a number for others
        ("a: 2024-01-01\n", 0),  # a timestamp in YAML 1.1
        ("a: .5\n", 0),
        ("a: 1\nb: &x 1\nc: *x\n", 1),
        ("a: !!str 1\n", 0),
        ("a: 1\nb: 2\na: 3\n", 2),  # duplicate: the loader names it
        ("a: b: c\n", 0),  # an error
        ("a: one\n  two\n", 1),  # a multi-line plain scalar
        ('a: "one\n  two"\n', 0),  # a multi-line quoted scalar
        ("a: [1, [2]]\n", 0),  # nested flow
        ("  a: 1\n", -1),  # an indented root
        ("a:\n\tb: 1\n", -1),  # a tab
        ("a: caf\u00e9\n", -1),  # not ASCII
        ("a: 1", -1),  # no final line break
    ],
)
def test_block_reader_refuses_what_it_does_not_model(text: str, line: int) -> None:
    """Refused (PyYAML reads it, or reports it)."""
    assert parse(text) is None


TRICKY = [
    *[
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "n",
        "~",
        "null",
        "Null",
        "NULL",
        "true",
        "True",
        "TRUE",
        "false",
        "1",
        "-1",
        "+1",
        "0",
        "-0",
        "00",
        "0755",
        "08",
        "0x1F",
        "0x1g",
        "0b101",
    ],
    *[
        "0b12",
        "0o17",
        "1.5",
        "1.",
        "1.0.0",
        ".5",
        "-.5",
        "1e3",
        "1E-3",
        "1_000",
        "1:20",
        "12:30:45",
        "2024-01-01",
        "2024-01-01T00:00:00Z",
    ],
    *[
        "nan",
        "NaN",
        ".nan",
        ".inf",
        "-.inf",
        "inf",
        "Infinity",
        "87f8544f68ae5697",
        "0e3e3",
        "--lr=0.1",
        "-x",
        "<<",
    ],
    "a: b",
    "a #b",
    "a#b",
    "'q'",
    '"q"',
    "a'b",
    'a"b',
    "\\",
    "a\\nb",
    "",
    " ",
    "x:",
    "- x",
    "[a]",
    "{a}",
    "a,b",
    "line\nbreak",
    "tail\n",
    "two\n\nbreaks\n\n",
]
SCALARS = (
    st.sampled_from(TRICKY)
    | st.text(alphabet="ab09 .:-#'\"\\,[]{}&*!|>%@`?\n", max_size=10)
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.none()
)
KEYS = st.sampled_from(TRICKY) | st.text(alphabet="ab09 .:-#'\"/", min_size=0, max_size=8)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=20,
)


@MANY
@given(
    value=st.dictionaries(KEYS, VALUES, min_size=1, max_size=5),
    kube=st.booleans(),
    flow=st.sampled_from([False, None]),
    style=st.sampled_from([None, '"', "'", "|"]),
    width=st.sampled_from([80, 12]),
)
def test_block_reader_agrees_on_dumped_values(
    value: dict[Any, Any], kube: bool, flow: bool | None, style: str | None, width: int
) -> None:
    """Values written by PyYAML in every style it has (sequences indented or not, flow at the leaves,
    every scalar quoted or literal, folded long lines)."""
    dumper = KubeDumper if kube else yaml.SafeDumper
    text = yaml.dump(value, Dumper=dumper, default_flow_style=flow, default_style=style, width=width)
    _check(text)


def _seed_texts() -> list[str]:
    if _accel._parse() is None:
        return []
    paths = sorted((SAMPLE / "generated").rglob("*.yaml"))[:40]
    if EXAMPLES.is_dir():
        paths += sorted(EXAMPLES.rglob("*.yaml"))[::10]
    return [t for t in _chunks(paths) if parse(t) is not None]


SEEDS = _seed_texts()
#: What a mutation inserts: indicators, quotes, breaks, indentation and scalar characters.
INSERTS = st.sampled_from([*"-:#'\"\\,[]{}&*!|>%@`?~ \n\t", ": ", "- ", "  ", "\n  ", "yes", "0", ".", "1e3"])


@MANY
@given(data=st.data())
def test_block_reader_refuses_or_agrees_on_mutated_documents(data: st.DataObject) -> None:
    """Real documents with a character inserted, a range deleted, a line re-indented or repeated: the
    block reader either refuses or builds what the loader builds (and never reads what it rejects)."""
    text = data.draw(st.sampled_from(SEEDS))
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        at = data.draw(st.integers(min_value=0, max_value=len(text)))
        kind = data.draw(st.sampled_from(["insert", "delete", "indent", "repeat"]))
        if kind == "insert":
            text = text[:at] + data.draw(INSERTS) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(min_value=1, max_value=4)) :]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end + 1
            line = text[start:end]
            replacement = " " * data.draw(st.integers(0, 3)) + line if kind == "indent" else line + line
            text = text[:start] + replacement + text[end:]
    _check(text)


# Positions: the C reader's locate against PyYAML's marks, for every node of every document it reads.


def _paths(value: Any, parts: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every path in ``value``, and below each a missing key and an index past the end."""
    yield parts
    if isinstance(value, dict):
        yield (*parts, "no-such-key")
        for key, child in value.items():
            yield from _paths(child, (*parts, key))
    elif isinstance(value, list):
        yield (*parts, len(value))
        yield (*parts, "0")
        for index, child in enumerate(value):
            yield from _paths(child, (*parts, index))
    else:
        yield (*parts, 0)


def _block_documents(paths: list[Path]) -> list[Document]:
    """The documents of ``paths`` that the block reader read (no PyYAML node)."""
    return [d for d in documents_in(paths) if d.node is None]


def _block_documents_of(where: str, monkeypatch: pytest.MonkeyPatch) -> list[Document]:
    """:func:`_block_documents` of ../shared/examples (``examples``, skipped without it) or of the
    bundled output (``generated``), with the faster path on."""
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    if where == "examples" and not EXAMPLES.is_dir():
        pytest.skip("../shared/examples is not there")
    root = EXAMPLES if where == "examples" else SAMPLE / "generated"
    return _block_documents(sorted(root.rglob("*.y*ml")))


@pytest.mark.parametrize("where", ["examples", "generated"])
def test_locate_agrees_with_pyyaml_marks_at_every_node(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    documents = _block_documents_of(where, monkeypatch)
    assert len(documents) > 100
    checked = 0
    for document in documents:
        assert document.text is not None
        plain = Document(
            document.file, document.index, document.data, None, [], document.line_offset, document.text
        )
        node = plain._node()  # composed by PyYAML, as the plain path has it
        plain.node = node
        for parts in _paths(document.data):
            assert document.locate(parts) == plain.locate(parts), (document.file, document.index, parts)
            checked += 1
    assert checked > 10_000


@pytest.mark.parametrize(
    "text",
    [
        "a:\n- b\n- c\nd: {e: f, g: h}\n",
        "---\n# c\nspec:\n  list:\n  - >-\n    text\n  - 'q'\n  - [e, f]\n  - k: v\n    l: w\n",
        "- a\n- b: c\n  d: e\n",
    ],
)
def test_locate_agrees_with_pyyaml_marks_on_small_documents(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    (document,) = [d for d in stream_text(text, "f.yaml") if isinstance(d, Document)]
    assert document.node is None  # read by the block reader
    plain = Document("f.yaml", 0, document.data, None, [], 0, text)
    plain.node = plain._node()
    for parts in _paths(document.data):
        assert document.locate(parts) == plain.locate(parts), parts


# Literal credentials of a document the block reader read: from the strings it collected and the
# document's text (no walk when no key or name can look like a credential's), the same as the walk.

_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape, not a real one


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: Pod\nspec:\n  image: busybox\n", ()),  # screened: no name looks like a credential's
        (f"kind: ConfigMap\ndata:\n  note: {_TOKEN}\n", (_TOKEN,)),  # screened, a credential in a value
        ("kind: ConfigMap\ndata:\n  DB_PASSWORD: hunter22\n", ("hunter22",)),  # a key named like one
        ("env:\n- name: API_TOKEN\n  value: s3cr3tvalue\n", ("s3cr3tvalue",)),  # an entry named like one
        ("kind: ConfigMap\ndata:\n  path: 'C:\\dir'\n", ()),  # a backslash: walked
        ("kind: Secret\ndata:\n  a: dmFsdWU=\n", ("dmFsdWU=",)),  # a Secret: every data value
    ],
)
def test_document_secrets_from_what_the_reader_collected(
    text: str, expected: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_accel.ACCEL_ENV, "1")
    (document,) = [d for d in stream_text(text, "f.yaml") if isinstance(d, Document)]
    assert document.values is not None and document.text is not None  # read by the block reader
    fast = document_secrets(document.data, strings=document.values[0], text=document.text)
    assert fast == document_secrets(document.data) == expected


@pytest.mark.parametrize("where", ["examples", "generated"])
def test_document_secrets_agree_on_every_document_read(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    documents = _block_documents_of(where, monkeypatch)
    screened = 0
    for document in documents:
        assert document.values is not None and document.text is not None
        fast = document_secrets(document.data, strings=document.values[0], text=document.text)
        assert fast == document_secrets(document.data), (document.file, document.index)
        screened += credentials.secret_like_anywhere(document.text) is False
    assert len(documents) > 100
    assert 0 < screened < len(documents)  # both ways taken
