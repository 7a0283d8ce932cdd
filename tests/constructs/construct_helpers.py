"""Construct-test helpers (imported by the test modules, not a conftest, so that the top-level
``conftest`` module stays importable): validate synthesised YAML with ``trainops validate`` and
compare a construct's object with an upstream example after normalisation (parity tests)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"


def validate_docs(
    cli: Any, tmp_path: Path, docs: Mapping[str, str], kubernetes_version: str = "1.34"
) -> None:
    """Write the synthesised documents (``{"Kind/name": YAML}``) to files and assert that
    ``trainops validate -k <version>`` (every catalogued operator) finds no error or warning
    (``info`` findings, e.g. that PyTorchJob has a Trainer v2 successor, are allowed)."""
    out = tmp_path / f"generated-{kubernetes_version}"
    out.mkdir()
    for key, text in docs.items():
        (out / (key.replace("/", "_").lower() + ".yaml")).write_text(text, encoding="utf-8")
    with contextlib.chdir(tmp_path):  # outside the repository: the all-operators target
        result = cli("validate", "-k", kubernetes_version, "-o", "json", str(out))
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert report["documents"] == len(docs)
    assert [f for f in report["findings"] if f["level"] != "info"] == []


def upstream_doc(rel: str, index: int = 0) -> dict[str, Any]:
    """Document ``index`` of the upstream example ``../shared/examples/<rel>``."""
    path = EXAMPLES / rel
    if not path.is_file():
        pytest.skip(f"{path} is not there")
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    doc: dict[str, Any] = docs[index]
    return doc


def raw_object(chart: Any, key: str) -> dict[str, Any]:
    """The un-normalised object ``Kind/name`` of ``chart`` exactly as cdk8s renders it."""
    docs = json.loads(json.dumps(chart.to_json()))
    found: dict[str, Any] = next(d for d in docs if f"{d['kind']}/{d['metadata']['name']}" == key)
    return found


def without_paths(obj: dict[str, Any], paths: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` with each dotted path removed, asserting it held the expected value first
    (``paths`` are a parity test's intended differences: path → the value trainops emits).
    Under ``metadata.labels`` and ``metadata.annotations`` the rest of the path is one key (keys
    there contain dots); a number indexes a list. A mapping left empty by a removal is removed too."""
    copy: dict[str, Any] = json.loads(json.dumps(obj))
    for path, expected in paths.items():
        head = path.split(".", 2)
        if head[:2] in (["metadata", "labels"], ["metadata", "annotations"]) and len(head) == 3:
            parents, leaf = head[:2], head[2]
        else:
            *parents, leaf = path.split(".")
        node: Any = copy
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert node.get(leaf) == expected, f"{path}: {node.get(leaf)!r} != {expected!r}"
        del node[leaf]
        if not node and parents:
            _drop_empty(copy, parents)
    return copy


def _drop_empty(obj: dict[str, Any], parents: list[str]) -> None:
    node = obj
    for part in parents[:-1]:
        node = node[part]
    if not node[parents[-1]]:
        del node[parents[-1]]
