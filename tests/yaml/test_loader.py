"""The YAML loader reads documents as the API server does and keeps positions."""

from __future__ import annotations

import pytest

from trainops.core.findings import json_path
from trainops.yaml.load import load_text


def test_timestamps_and_sexagesimal_stay_strings() -> None:
    data = load_text("a: 2024-01-02\nb: 1:30\nc: 0755\nd: 1_000\n").documents[0].data
    assert data == {"a": "2024-01-02", "b": "1:30", "c": 493, "d": 1000}


def test_non_string_keys_become_strings() -> None:
    data = load_text("1: one\ntrue: yes\n~: nothing\n").documents[0].data
    assert data == {"1": "one", "true": True, "null": "nothing"}


def test_merge_keys_apply_and_explicit_keys_win() -> None:
    doc = load_text("base: &b {cpu: 1, memory: 2Gi}\nres: {<<: *b, cpu: 2}\n").documents[0]
    assert doc.data["res"] == {"cpu": 2, "memory": "2Gi"}
    assert doc.problems == []


def test_duplicate_keys_are_problems_with_position() -> None:
    doc = load_text("metadata:\n  labels:\n    a: x\n    a: z\n").documents[0]
    assert [(i.parts, i.message, i.level) for i in doc.problems] == [
        (("metadata", "labels", "a"), 'duplicate key "a" (the API server rejects duplicate fields)', "error")
    ]
    assert doc.locate(("metadata", "labels", "a")) == (4, 5)


def test_documents_keep_index_and_error_stops_reading() -> None:
    loaded = load_text("a: 1\n---\nb: 2\n---\nc: [\n")
    assert [d.index for d in loaded.documents] == [0, 1]
    assert loaded.error is not None
    assert (loaded.error.document, loaded.error.line) == (2, 6)


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((), "$"),
        (("spec", "containers", 0, "name"), "$.spec.containers[0].name"),
        (("metadata", "labels", "app.kubernetes.io/name"), "$.metadata.labels['app.kubernetes.io/name']"),
        (("data", "it's"), "$.data['it\\'s']"),
    ],
)
def test_json_path(parts: tuple[str | int, ...], expected: str) -> None:
    assert json_path(parts) == expected


def test_locate_falls_back_to_deepest_ancestor() -> None:
    doc = load_text("spec:\n  template:\n    spec: {}\n").documents[0]
    assert doc.locate(("spec", "template", "spec", "containers", 0)) == (3, 5)


@pytest.mark.parametrize(
    ("text", "value", "message"),
    [
        ("v: y", True, "unquoted y is the boolean true for the API server (YAML 1.1); quote it for a string"),
        (
            "v: N",
            False,
            "unquoted N is the boolean false for the API server (YAML 1.1); quote it for a string",
        ),
        (
            "v: on",
            True,
            "unquoted on is the boolean true for the API server (YAML 1.1) but a string for YAML 1.2",
        ),
        (
            "v: 0755",
            493,
            "unquoted 0755 is the octal number 493 for the API server (YAML 1.1) but 755 for YAML 1.2",
        ),
        (
            "v: 1:20",
            "1:20",
            "unquoted 1:20 is a base-60 number for YAML 1.1 tools but a string for the API server",
        ),
    ],
)
def test_yaml11_traps_are_warnings(text: str, value: object, message: str) -> None:
    doc = load_text(text + "\n").documents[0]
    assert doc.data == {"v": value}
    assert len(doc.problems) == 1
    problem = doc.problems[0]
    assert (problem.parts, problem.level, problem.keyword) == (("v",), "warning", "yaml-1.1")
    assert problem.message.startswith(message)


@pytest.mark.parametrize(
    "text", ['v: "y"', "v: 'on'", "v: true", "v: 0", "v: 0.5", "v: 10", "v: 0x1F", "v: yes-please"]
)
def test_unambiguous_scalars_are_not_flagged(text: str) -> None:
    assert load_text(text + "\n").documents[0].problems == []
