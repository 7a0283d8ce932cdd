"""trainops.core.llm reads LLM servers' command lines as the engines parse them (upstream LWS and KServe
examples included), guesses model sizes from names and computes probe windows."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import EXAMPLES, documents_in, needs_shared
from trainops.core.llm import (
    BASE_STARTUP_SECONDS,
    flag_field,
    model_bytes,
    parse_server,
    probe_window,
    startup_seconds,
    tokens,
)


def _container(path: str, *keys: str) -> dict[str, Any]:
    (document, *_) = documents_in([EXAMPLES / path])
    node = document.data
    for key in keys:
        node = node[key]
    container: dict[str, Any] = node["containers"][0]
    return container


@needs_shared
@pytest.mark.parametrize(
    ("path", "keys", "variables", "expected"),
    [
        (
            "lws/docs/examples/vllm/GPU/lws.yaml",
            ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
            {"LWS_GROUP_SIZE": "2"},
            ("vllm", 8, 2, "meta-llama/Llama-3.1-405B-Instruct", None),
        ),
        (
            "lws/docs/examples/sglang/lws.yaml",
            ("spec", "leaderWorkerTemplate", "workerTemplate", "spec"),
            {"LWS_GROUP_SIZE": "2"},
            ("sglang", 2, 1, "meta-llama/Meta-Llama-3.1-8B-Instruct", 2),
        ),
        (
            "kserve/docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_default.yaml",
            ("spec", "template"),
            {},
            ("vllm", 1, 1, "/mnt/models", None),
        ),
    ],
)
def test_upstream_command_lines(
    path: str, keys: tuple[str, ...], variables: dict[str, str], expected: tuple[Any, ...]
) -> None:
    container = _container(path, *keys)
    command = parse_server([*container.get("command", []), *container.get("args", [])], variables=variables)
    assert command is not None
    assert (command.engine, command.tensor, command.pipeline, command.model, command.nodes) == expected


@needs_shared
def test_vllm_worker_of_the_lws_example_starts_no_server() -> None:
    worker = _container(
        "lws/docs/examples/vllm/GPU/lws.yaml", "spec", "leaderWorkerTemplate", "workerTemplate", "spec"
    )
    assert parse_server(worker["command"]) is None


@pytest.mark.parametrize(
    ("command", "sizes"),
    [
        (["vllm", "serve", "m", "-tp", "4", "-pp", "2"], (4, 2, 1)),
        (["vllm", "serve", "m", "--tensor-parallel-size=4", "--data-parallel-size", "2"], (4, 1, 2)),
        (["/usr/local/bin/vllm", "serve", "m", "--tensor_parallel_size", "2"], (2, 1, 1)),
        (["sh", "-c", "ray start --head; vllm serve m -tp $(TP) && echo done -tp 9"], (None, 1, 1)),
        (["sh", "-c", "vllm serve m -tp 2 | tee log; other -tp 8"], (2, 1, 1)),
        (
            ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp-size", "8", "--dp", "2"],
            (8, 1, 2),
        ),
        (["sh", "-c", "vllm serve 'unbalanced -tp 2"], (2, 1, 1)),
    ],
)
def test_parallel_sizes(command: list[str], sizes: tuple[int | None, ...]) -> None:
    parsed = parse_server(command)
    assert parsed is not None and (parsed.tensor, parsed.pipeline, parsed.data) == sizes


@pytest.mark.parametrize(
    "command",
    [["python3", "serve.py", "-tp", "4"], ["sh", "-c", "echo vllm"], [], [3, None], ["vllm", "--version"]],
)
def test_not_a_server(command: list[Any]) -> None:
    assert parse_server(command) is None


def test_tokens_expand_kubernetes_references_and_split_scripts() -> None:
    assert tokens(["sh", "-c", "a --n=$(N); b"], variables={"N": "2"}) == ["sh", "-c", "a", "--n=2", ";", "b"]


@pytest.mark.parametrize(
    ("word", "field"),
    [
        ("--tp", "tensor"),
        ("--port=9000", "port"),
        ("--pipeline_parallel_size", "pipeline"),
        ("--max-model-len", None),
    ],
)
def test_flag_field(word: str, field: str | None) -> None:
    assert flag_field("sglang" if word == "--tp" else "vllm", word) == field


@pytest.mark.parametrize(
    ("model", "size"),
    [
        ("meta-llama/Llama-3.1-405B-Instruct", 810 * 10**9),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", 64 * 10**9),
        ("Qwen3-30B-A3B", 60 * 10**9),
        ("mistralai/Mixtral-8x7B-v0.1", 112 * 10**9),
        ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", 70 * 10**9),
        ("TheBloke/Llama-2-13B-AWQ", 65 * 10**8),
        ("facebook/opt-125m", 250 * 10**6),
        ("/mnt/models", None),
        ("hf://org/model", None),
    ],
)
def test_model_bytes(model: str, size: int | None) -> None:
    assert model_bytes(model) == size


def test_startup_seconds_grow_with_the_model() -> None:
    assert startup_seconds(None) == BASE_STARTUP_SECONDS
    assert startup_seconds(140 * 10**9) == BASE_STARTUP_SECONDS + 560
    assert startup_seconds(10**9) < startup_seconds(10**12)


@pytest.mark.parametrize(
    ("probe", "window"),
    [
        ({}, 30),
        ({"periodSeconds": 10, "failureThreshold": 74}, 740),
        ({"initialDelaySeconds": 60, "periodSeconds": 5}, 75),
        ({"failureThreshold": "3"}, None),
    ],
)
def test_probe_window(probe: dict[str, Any], window: int | None) -> None:
    assert probe_window(probe) == window
