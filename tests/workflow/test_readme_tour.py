"""The README's 30-second tour, step by step, on a copy of the sample repository in a temporary git
repository (issue 15: "the README tour uses `trainops diff` and each of its steps is run by a test")."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SAMPLE
from tests.workflow.project import init_repo

MULTI_NODE = "apps/pytorch_ddp_multi_node.py"


def tour_steps() -> list[str]:
    """The commands of the README's tour code block (comments stripped)."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"## A 30-second tour\n\n```sh\n(.*?)```", text, re.S)
    assert block is not None
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def edit(root: Path) -> None:
    """The tour's ``$EDITOR`` step: 8 workers and a new image tag."""
    path = root / MULTI_NODE
    text = path.read_text()
    for old, new in (
        ("workers=4,", "workers=8,"),
        ("pytorch-train:2.2.0-cuda12.1", "pytorch-train:2.3.0-cuda12.1"),
    ):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)


@pytest.fixture(scope="module")
def steps() -> list[str]:
    return tour_steps()


def test_tour_lists_the_loop(steps: list[str]) -> None:
    assert steps == [
        "source .venv/bin/activate",
        "cd examples/ml-platform",
        f"$EDITOR {MULTI_NODE}",
        "trainops synth",
        "trainops diff",
        "trainops validate --cluster gpu-prod generated/gpu-prod/",
        "trainops ci",
    ]


def test_tour(cli: Any, steps: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE / "apps", root / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SAMPLE / "generated", root / "generated")
    init_repo(root)
    monkeypatch.chdir(root)
    outputs: dict[str, Any] = {}
    for step in steps:
        if step.startswith("source "):
            continue  # the test already runs inside .venv
        if step.startswith("cd "):
            continue  # the test already runs in a copy of the sample repository
        if step.startswith("$EDITOR "):
            edit(root)
            continue
        argv = shlex.split(step)
        assert argv[0] == "trainops"
        outputs[step] = cli(*argv[1:])
        assert outputs[step].code == 0, f"{step}: {outputs[step].out}{outputs[step].err}"
    diff = outputs["trainops diff"].out
    assert "1 new run" in diff
    assert "new run of pytorch-ddp-multi-node: PyTorchJob ml-training/pytorch-ddp-multi-node-" in diff
    assert "$.spec.pytorchReplicaSpecs.Worker.replicas: 4 → 8" in diff
    assert (
        '"registry.example.com/ml/pytorch-train:2.2.0-cuda12.1" → "registry.example.com/ml/pytorch-train:2.3.0-cuda12.1"'
        in diff
    )
    assert "! [new-run] gpu-prod/pytorch-ddp-multi-node: new training run" in diff
    assert "0 errors" in outputs["trainops validate --cluster gpu-prod generated/gpu-prod/"].out
    assert "new run" in outputs["trainops ci"].err
