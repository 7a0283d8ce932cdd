"""Large-language-model servers as trainops reads them: the engine and parallelism of a vLLM or SGLang
command line, a model's size, and the startup window loading it needs.

One module so that the ``LLMServer`` construct and the policy rules ``llm-parallelism`` and
``llm-startup-probe`` agree: the construct writes the command line and probe these functions read
back.

* vLLM: ``vllm serve <model>`` or ``python3 -m vllm.entrypoints.openai.api_server --model <model>``;
  ``--tensor-parallel-size``/``-tp``, ``--pipeline-parallel-size``/``-pp``,
  ``--data-parallel-size``/``-dp`` (argparse also takes ``--opt=value``, and vLLM's
  ``FlexibleArgumentParser`` ``--opt_name`` with underscores). Source: vllm-project/vllm
  ``vllm/engine/arg_utils.py`` (``EngineArgs.add_cli_args``) and ``vllm/utils/__init__.py``
  (``FlexibleArgumentParser``).
* SGLang: ``python3 -m sglang.launch_server --model-path <model>``; ``--tp-size``/``--tp``,
  ``--pp-size``, ``--dp-size``/``--dp``; across nodes ``--nnodes`` with ``--tp`` counting every GPU of
  the group. Source: sgl-project/sglang ``python/sglang/srt/server_args.py`` (``ServerArgs.add_cli_args``).

The GPUs a server needs are ``tensor × pipeline × data`` parallel sizes (each defaulting to 1).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

Engine = Literal["vllm", "sglang"]

#: The annotation (on the serving object) giving the model's size in bytes as a quantity string, e.g.
#: ``"140Gi"``; read by ``llm-startup-probe`` before the size guessed from the model name.
MODEL_SIZE_ANNOTATION: Final = "trainops.dev/model-size"
#: Seconds an engine needs besides reading weights (CUDA graph capture, KV-cache profiling, Ray start).
BASE_STARTUP_SECONDS: Final = 180
#: Bytes per second a server reads weights at, worst case (network storage, one reader).
LOAD_BYTES_PER_SECOND: Final = 250 * 1000**2

_FLAGS: Final[Mapping[Engine, Mapping[str, str]]] = {
    "vllm": {
        "--tensor-parallel-size": "tensor",
        "-tp": "tensor",
        "--pipeline-parallel-size": "pipeline",
        "-pp": "pipeline",
        "--data-parallel-size": "data",
        "-dp": "data",
        "--model": "model",
        "--port": "port",
    },
    "sglang": {
        "--tp-size": "tensor",
        "--tp": "tensor",
        "--tensor-parallel-size": "tensor",
        "--pp-size": "pipeline",
        "--pipeline-parallel-size": "pipeline",
        "--dp-size": "data",
        "--dp": "data",
        "--data-parallel-size": "data",
        "--model-path": "model",
        "--model": "model",
        "--nnodes": "nodes",
        "--port": "port",
    },
}
#: Shell operators that end one command of a ``sh -c`` script.
_SEPARATORS: Final = frozenset({";", "&&", "||", "|", "&", "(", ")"})
_PARAMS: Final = re.compile(
    r"(?<![A-Za-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bBmM])(?![A-Za-z0-9])",
)
_QUANTISED: Final = (
    (re.compile(r"(?i)(?:awq|gptq|int4|w4a16|4bit|q4)"), 0.5),
    (re.compile(r"(?i)(?:fp8|int8|w8a8|8bit|q8)"), 1.0),
)


@dataclass(frozen=True)
class ServerCommand:
    """What an LLM server's command line says.

    Args:
        engine: ``vllm`` or ``sglang``.
        tensor: tensor-parallel size, ``None`` when not a number (e.g. ``$(LWS_GROUP_SIZE)``). Default 1.
        pipeline: pipeline-parallel size (same). Default 1.
        data: data-parallel size (same). Default 1.
        model: the model argument (path, Hugging Face ID), or ``None``.
        nodes: SGLang ``--nnodes`` when a number, else ``None``.
        nodes_text: SGLang ``--nnodes`` as written (``$(LWS_GROUP_SIZE)``), or ``None``.
    """

    engine: Engine
    tensor: int | None = 1
    pipeline: int | None = 1
    data: int | None = 1
    model: str | None = None
    nodes: int | None = None
    nodes_text: str | None = None

    @property
    def gpus(self) -> int | None:
        """GPUs the server shards the model over: tensor × pipeline × data, or ``None`` if one is unknown."""
        if self.tensor is None or self.pipeline is None or self.data is None:
            return None
        return self.tensor * self.pipeline * self.data

    def describe(self) -> str:
        """E.g. ``tensor-parallel-size 8 × pipeline-parallel-size 2``."""
        parts = [f"tensor-parallel-size {self.tensor}"]
        if self.pipeline != 1:
            parts.append(f"pipeline-parallel-size {self.pipeline}")
        if self.data != 1:
            parts.append(f"data-parallel-size {self.data}")
        return " × ".join(parts)


def tokens(command: Sequence[object], *, variables: Mapping[str, str] = {}) -> list[str]:
    """A container's ``command`` + ``args`` as words, ``sh -c`` scripts split as a shell would.

    Args:
        command: the strings of ``command`` then ``args`` (other values are skipped).
        variables: Kubernetes ``$(NAME)`` references to expand (e.g. ``LWS_GROUP_SIZE``).
    """
    words: list[str] = []
    for item in command:
        if not isinstance(item, str):
            continue
        for name, value in variables.items():
            item = item.replace(f"$({name})", value)
        if any(c.isspace() for c in item.strip()) or any(s in item for s in (";", "&&")):
            lexer = shlex.shlex(item, posix=True, punctuation_chars=";&|()")
            lexer.whitespace_split = True
            try:
                words.extend(list(lexer))
            except ValueError:  # an unbalanced quote: split on blanks
                words.extend(item.split())
        else:
            words.append(item)
    return words


def flag_field(engine: Engine, word: str) -> str | None:
    """What a command-line word sets for ``engine`` (``tensor``, ``pipeline``, ``data``, ``model``,
    ``nodes``, ``port``), or ``None``: ``--tensor-parallel-size=8``, ``--tensor_parallel_size`` and
    ``-tp`` all set ``tensor`` for vLLM."""
    name = word.partition("=")[0]
    if name.startswith("--"):
        name = "--" + name[2:].replace("_", "-")
    return _FLAGS[engine].get(name)


def _engine_start(words: Sequence[str]) -> tuple[Engine, int] | None:
    for index, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "vllm" and index + 1 < len(words) and words[index + 1] == "serve":
            return "vllm", index + 2
        if word in ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"):
            return "vllm", index + 1
        if word in ("sglang.launch_server",) or (
            base == "sglang" and index + 1 < len(words) and words[index + 1] == "serve"
        ):
            return "sglang", index + (1 if word == "sglang.launch_server" else 2)
    return None


def _number(text: str | None) -> int | None:
    if text is None:
        return 1
    return int(text) if text.isascii() and text.isdigit() else None


def parse_server(command: Sequence[object], *, variables: Mapping[str, str] = {}) -> ServerCommand | None:
    """The vLLM or SGLang server a container's command line starts, or ``None``.

    Args:
        command: ``command`` + ``args`` of the container.
        variables: ``$(NAME)`` references to expand first (see :func:`tokens`).

    Returns:
        The parsed :class:`ServerCommand`; sizes that are not plain numbers are ``None``.
    """
    words = tokens(command, variables=variables)
    found = _engine_start(words)
    if found is None:
        return None
    engine, start = found
    values: dict[str, str] = {}
    positional: str | None = None
    index = start
    while index < len(words) and words[index] not in _SEPARATORS:
        word = words[index]
        _, eq, inline = word.partition("=")
        field = flag_field(engine, word)
        if field is not None:
            if eq:
                values[field] = inline
            elif index + 1 < len(words) and words[index + 1] not in _SEPARATORS:
                values[field] = words[index + 1]
                index += 1
        elif not word.startswith("-") and positional is None and engine == "vllm" and index == start:
            positional = word
        index += 1
    return ServerCommand(
        engine=engine,
        tensor=_number(values.get("tensor")),
        pipeline=_number(values.get("pipeline")),
        data=_number(values.get("data")),
        model=values.get("model", positional),
        nodes=_number(values["nodes"]) if "nodes" in values else None,
        nodes_text=values.get("nodes"),
    )


def model_bytes(model: str) -> int | None:
    """A model's weight size in bytes guessed from its name: the parameter count it states (``8B``,
    ``70B``, ``8x7B``, ``350M``) × 2 bytes (bf16), 1 byte for FP8/INT8 names, ½ for AWQ/GPTQ/INT4 names.

    Args:
        model: e.g. ``meta-llama/Llama-3.1-70B-Instruct``.

    Returns:
        Bytes, or ``None`` when the name states no parameter count.
    """
    name = model.rsplit("/", 1)[-1] if "/" in model.rstrip("/") else model
    match = _PARAMS.search(name)  # ``Qwen2.5-Coder-32B``: 32B (``2.5`` has no unit)
    if match is None:
        return None
    experts, count, unit = match.groups()
    params = float(count) * (int(experts) if experts else 1) * (1e9 if unit in "bB" else 1e6)
    per_param = 2.0
    for pattern, size in _QUANTISED:
        if pattern.search(name):
            per_param = size
            break
    return int(params * per_param)


def startup_seconds(size: int | None) -> int:
    """The startup window a server loading ``size`` bytes of weights needs:
    :data:`BASE_STARTUP_SECONDS` + ``size`` / :data:`LOAD_BYTES_PER_SECOND`, rounded up.

    Args:
        size: weight bytes, or ``None`` (unknown: the base only).
    """
    return BASE_STARTUP_SECONDS + (math.ceil(size / LOAD_BYTES_PER_SECOND) if size else 0)


def probe_window(probe: Mapping[str, object]) -> int | None:
    """Seconds a probe lets a container start before it fails: ``initialDelaySeconds`` +
    ``periodSeconds`` × ``failureThreshold`` (Kubernetes defaults 0, 10, 3), or ``None`` for values of
    other types. Source: ``k8s.io/api/core/v1`` ``Probe``."""
    delay, period, threshold = (
        probe.get("initialDelaySeconds", 0),
        probe.get("periodSeconds", 10),
        probe.get("failureThreshold", 3),
    )
    if not all(type(v) is int for v in (delay, period, threshold)):
        return None
    assert isinstance(delay, int) and isinstance(period, int) and isinstance(threshold, int)
    return delay + period * threshold
