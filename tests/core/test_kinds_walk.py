"""``trainops.core.kinds.walk`` on real manifests: every value at a path of plain keys, ``"*"`` (each value
of a mapping) and ``"[]"`` (each item of a list), each with its parts from the document root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES
from trainops.core.kinds import EACH_ITEM, EACH_VALUE, walk

PYTORCH = EXAMPLES / "training-operator/examples/pytorch/simple.yaml"
STATEFULSET = EXAMPLES / "k8s-website/content/en/examples/controllers/statefulset.yaml"


def _document(path: Path, kind: str) -> dict[str, Any]:
    (found,) = [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc["kind"] == kind]
    return found


@pytest.mark.parametrize(
    ("path", "kind", "steps", "base", "expected"),
    [
        # plain keys: one value, its parts the path itself after the base
        (PYTORCH, "PyTorchJob", ("metadata", "name"), (), [("metadata", "name")]),
        (PYTORCH, "PyTorchJob", ("metadata", "name"), ("spec", 0), [("spec", 0, "metadata", "name")]),
        # "*" after plain keys: the keys before it stay in the parts (Kubeflow replica specs)
        (
            PYTORCH,
            "PyTorchJob",
            ("spec", "pytorchReplicaSpecs", EACH_VALUE, "template"),
            (),
            [
                ("spec", "pytorchReplicaSpecs", "Master", "template"),
                ("spec", "pytorchReplicaSpecs", "Worker", "template"),
            ],
        ),
        # "[]" after plain keys, then plain keys again (StatefulSet claim names)
        (
            STATEFULSET,
            "StatefulSet",
            ("spec", "volumeClaimTemplates", EACH_ITEM, "metadata", "name"),
            (),
            [("spec", "volumeClaimTemplates", 0, "metadata", "name")],
        ),
        # a missing key, a "*" on a list and a "[]" on a mapping find nothing
        (PYTORCH, "PyTorchJob", ("spec", "template"), (), []),
        (STATEFULSET, "StatefulSet", ("spec", "volumeClaimTemplates", EACH_VALUE), (), []),
        (PYTORCH, "PyTorchJob", ("spec", EACH_ITEM), (), []),
        # the empty path is the node itself
        (PYTORCH, "PyTorchJob", (), ("x",), [("x",)]),
    ],
)
def test_walk_gives_each_value_with_its_parts(
    path: Path,
    kind: str,
    steps: tuple[str, ...],
    base: tuple[str | int, ...],
    expected: list[tuple[str | int, ...]],
) -> None:
    document = _document(path, kind)
    found = list(walk(document, steps, base))
    assert [parts for _, parts in found] == expected
    for value, parts in found:  # each value is the one at its parts
        node: Any = document
        for part in parts[len(base) :]:
            node = node[part]
        assert value is node
