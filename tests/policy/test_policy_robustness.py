"""No rule raises on values of the wrong type (the schema check reports those): every field of every
failing fixture is replaced in turn by a string, a number, a list, a mapping and null, and the whole pack
runs over each variant (a property over the real fixtures, one fixture per test)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.policy.test_policy_rules import FACTS, FIXTURES, PACK
from trainops.policy.config import DEFAULT_CONFIG, load_config
from trainops.policy.engine import PolicyRun, run_policies
from trainops.yaml.load import Document, stream_text

REPO = Path(__file__).resolve().parents[2]
RUN = PolicyRun(PACK, load_config(PACK, DEFAULT_CONFIG), FACTS)
WRONG_TYPES: tuple[Any, ...] = ("x", 7, [], {}, None)


def _paths(node: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield (*prefix, key)
        yield from _paths(value, (*prefix, key))


def _replaced(data: Any, path: tuple[str | int, ...], value: Any) -> Any:
    copied = copy.deepcopy(data)
    node = copied
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return copied


def _variants(fixture: Path) -> Iterator[Document]:
    documents = [
        d for d in stream_text(fixture.read_text(encoding="utf-8"), str(fixture)) if isinstance(d, Document)
    ]
    for document in documents:
        for path in _paths(document.data):
            for value in WRONG_TYPES:
                yield Document(
                    document.file, document.index, _replaced(document.data, path, value), None, [], 0, "{}"
                )


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*/fail.yaml")), ids=lambda p: p.parent.name)
def test_no_rule_raises_on_wrong_types(fixture: Path) -> None:
    variants = list(_variants(fixture))
    assert variants
    for variant in variants:
        run_policies([variant], RUN)  # raises RuleFailure naming the rule on a crash


EXAMPLES = REPO.parent / "shared" / "examples"
#: A protected, named cluster: the facts under which rules such as pinned-revision read the most.
PROTECTED = replace(FACTS, cluster="gpu-prod", protected=True)


@pytest.mark.parametrize("folder", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_no_rule_raises_on_upstream_examples(folder: str) -> None:
    """Upstream manifests as users have them (e.g. an Argo CD docs ApplicationSet with ``spec:`` left
    null) never make a rule raise, on a protected cluster."""
    documents = [
        d
        for path in sorted((EXAMPLES / folder).rglob("*.yaml"))
        for d in stream_text(path.read_text(encoding="utf-8"), str(path))
        if isinstance(d, Document)
    ]
    assert documents
    run_policies(documents, replace(RUN, facts=PROTECTED))  # raises RuleFailure naming the rule
