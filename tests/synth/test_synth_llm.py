"""`trainops synth` of an app whose LLM server's parallelism does not match its GPUs, or that needs an
operator its cluster lacks: one line naming the app, the cluster and the prop, exit 2, no traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs import LLMServer

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34", operators={operators}),)


def build(chart, cluster):
    LLMServer(chart, "Llm", cluster=cluster, name="llama", image="vllm/vllm-openai:v0.8.5",
              model_uri="hf://meta-llama/Llama-3.1-70B-Instruct", {props})


APPS = (AppDef(name="llm", build=build, namespace="ml", team="research"),)
"""


@pytest.mark.parametrize(
    ("operators", "props", "message"),
    [
        (
            {"lws": "v0.10.0"},
            "gpus_per_node=8, nodes=2, tensor_parallel_size=8, pipeline_parallel_size=1",
            "LLMServer tensor_parallel_size=8 × pipeline_parallel_size=1 = 8 GPUs, but gpus_per_node=8 × "
            "nodes=2 = 16: tensor parallelism spans the GPUs of a node, pipeline parallelism the nodes",
        ),
        (
            {},
            "gpus_per_node=8, nodes=2",
            "LLMServer nodes=2: a multi-node server is a LeaderWorkerSet, but cluster 'lab' does not list lws "
            "in operators",
        ),
    ],
)
def test_bad_llm_server_is_one_line(
    cli: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    operators: dict[str, str],
    props: str,
    message: str,
) -> None:
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "__init__.py").write_text(
        textwrap.dedent(APPS_INIT.format(operators=operators, props=props))
    )
    monkeypatch.chdir(root)
    run = cli("synth")
    assert run.code == 2
    assert run.err.strip() == f"trainops: apps/__init__.py:10: app 'llm' on cluster 'lab': {message}"
    assert not (root / "generated").exists()
