"""The rapidyaml fast path gives exactly the values of the PyYAML path, or steps aside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trainops.yaml.load as loader
from conftest import EXAMPLES, needs_shared
from trainops.yaml import fast
from trainops.yaml.fast import fast_value, split_documents
from trainops.yaml.load import Document, stream_text


def _values(text: str, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, Any, int]]:
    monkeypatch.setattr(loader, "FAST_PATH", fast)
    out = []
    for item in stream_text(text, "f.yaml"):
        if isinstance(item, Document):
            out.append((item.index, item.data, item.line))
        else:
            out.append((item.document or 0, item.message, item.line or 0))
    return out


def _example_files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.y*ml"))


@needs_shared
@pytest.mark.parametrize("rel", _example_files())
def test_fast_path_agrees_with_pyyaml_on_upstream_examples(rel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (EXAMPLES / rel).read_text(encoding="utf-8")
    assert _values(text, fast=True, monkeypatch=monkeypatch) == _values(
        text, fast=False, monkeypatch=monkeypatch
    )


@pytest.mark.parametrize(
    "text",
    [
        "a: yes\n",
        'a: "yes"\n',
        "a: 0755\n",
        "a: 1e3\n",
        "on: 1\n",
        "a: &x 1\nb: *x\n",
        "base: &b {x: 1}\nc: {<<: *b}\n",
        "a: ~\n",
        "a: 1:20\n",
        "a: +1\n",
        "a: 0x1F\n",
        "a: .inf\n",
        "a: !!str 1\n",
        "a: 1\na: 2\n",
        "a: [1,\n",
    ],
)
def test_ambiguous_or_special_documents_take_the_pyyaml_path(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rapidyaml's screen (the C block reader, tried first, has its own tests: test_blockyaml.py)."""
    monkeypatch.setattr(fast, "BLOCK_READER", False)
    assert fast_value(text) == (False, None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "a: 1\nb: 1.5\nc: -2\nd: true\ne: null\nf:\n",
            {"a": 1, "b": 1.5, "c": -2, "d": True, "e": None, "f": None},
        ),
        ("image: nginx:1.27\ndate: 2024-01-01\n", {"image": "nginx:1.27", "date": "2024-01-01"}),
        ("cmd: [python, -m, 'train']\n", {"cmd": ["python", "-m", "train"]}),
        ("script: |\n  echo hi\n", {"script": "echo hi\n"}),
        ("---\n", None),
    ],
)
def test_plain_documents_take_the_fast_path(text: str, value: Any) -> None:
    assert fast_value(text) == (True, value)


def test_split_documents_keeps_line_offsets_and_empty_documents() -> None:
    text = "# header\n---\na: 1\n---\n---\nb: 2\n"
    chunks = split_documents(text)
    assert chunks is not None
    assert [(c.line_offset, c.text) for c in chunks] == [(1, "---\na: 1\n"), (3, "---\n"), (4, "---\nb: 2\n")]
    assert split_documents("%YAML 1.1\n---\na: 1\n") is None
    assert split_documents("a: 1\n...\n") is None


@pytest.mark.parametrize("text", ["\xa0: null\n", "\xa0x: 1\n", "# c\n\u3000k: v\n"])
def test_a_first_document_starting_with_unicode_space_is_read(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only space and tab are YAML white space: a document whose first key starts with a no-break
    (or ideographic) space is a mapping on both paths, not an empty document (hypothesis found it)."""
    assert _values(text, fast=True, monkeypatch=monkeypatch) == _values(
        text, fast=False, monkeypatch=monkeypatch
    )
    assert len(_values(text, fast=True, monkeypatch=monkeypatch)) == 1


def test_positions_of_fast_documents_are_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: 1\n---\nkind: X\nspec:\n  replicas: 2\n"
    docs = [d for d in stream_text(text, "f.yaml") if isinstance(d, Document)]
    assert docs[1].node is None  # composed only when a position is asked for
    assert docs[1].locate(("spec", "replicas")) == (5, 3)


def test_rapidyaml_is_imported_only_when_a_document_needs_it(tmp_path: Path) -> None:
    """The block reader reads plain manifests: validating one does not import rapidyaml (~10 ms of
    start-up); a document it refuses (an anchor) does."""
    import subprocess
    import sys

    plain = tmp_path / "plain.yaml"
    plain.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n", encoding="utf-8"
    )
    anchored = tmp_path / "anchored.yaml"
    anchored.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n a\ndata:\n  k: *n\n", encoding="utf-8"
    )
    code = (
        "import sys\n"
        "from trainops.yaml.load import stream_text\n"
        "list(stream_text(open(sys.argv[1]).read(), sys.argv[1]))\n"
        "print('ryml' in sys.modules)\n"
    )
    seen = {
        path.name: subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        ).stdout.strip()
        for path in (plain, anchored)
    }
    assert seen == {"plain.yaml": "False", "anchored.yaml": "True"}
