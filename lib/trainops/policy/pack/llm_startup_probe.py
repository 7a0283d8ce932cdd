"""An LLM server's startup probe allows the time loading its model takes.

Why: a server loading tens or hundreds of gigabytes of weights answers no probe for minutes; a
startup probe (or, without one, the liveness probe) that gives up earlier has the kubelet kill the
container in the middle of loading, and it loops in CrashLoopBackOff for ever. The window a probe
allows is ``initialDelaySeconds + periodSeconds × failureThreshold``; the load needs
``base-seconds`` (engine start, CUDA graphs, KV-cache profiling) plus the model's size read at
``load-mb-per-second``.

Options: ``base-seconds`` (default 180) and ``load-mb-per-second`` (default 250, a network volume or
object store; raise it for local NVMe). The model's size is the ``trainops.dev/model-size``
annotation of the object (a byte quantity, which ``LLMServer`` writes), else the parameter count in
the model's name (``Llama-3.1-70B``: 70 × 10⁹ × 2 bytes; FP8/INT8 names 1 byte, AWQ/GPTQ/INT4
names ½); a server whose model size is unknown is not checked.

Default: enabled, level warning. Checked: containers that start a vLLM or SGLang server (see
``llm-parallelism``) and have a startup or liveness probe.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: llama}
    spec:
      selector: {matchLabels: {app: llama}}
      template:
        metadata: {labels: {app: llama}}
        spec:
          containers:
          - name: main
            image: vllm/vllm-openai:v0.8.5
            command: [vllm, serve, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4"]
            startupProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 80}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: llama}
    spec:
      selector: {matchLabels: {app: llama}}
      template:
        metadata: {labels: {app: llama}}
        spec:
          containers:
          - name: main
            image: vllm/vllm-openai:v0.8.5
            command: [vllm, serve, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4"]
            startupProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 30}

Remediation: Raise the startup probe's failureThreshold (or periodSeconds) until its window covers the model's load time.

Source: https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.llm import (
    BASE_STARTUP_SECONDS,
    LOAD_BYTES_PER_SECOND,
    MODEL_SIZE_ANNOTATION,
    model_bytes,
    probe_window,
)
from trainops.core.rules import register
from trainops.policy.pack.llm_parallelism import LWS, server_command
from trainops.policy.pods import POD_KINDS, annotations_of, containers, dig, pod_templates, quantity
from trainops.policy.rule import Context, describe

ID = "llm-startup-probe"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {
    "base-seconds": {"type": "integer", "minimum": 0},
    "load-mb-per-second": {"type": "integer", "minimum": 1},
}
DEFAULT: dict[str, Any] = {
    "base-seconds": BASE_STARTUP_SECONDS,
    "load-mb-per-second": LOAD_BYTES_PER_SECOND // 1000**2,
}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each server's startup (else liveness) probe window against its model's load time."""
    declared = quantity(annotations_of(obj).get(MODEL_SIZE_ANNOTATION))
    size = dig(obj, "spec", "leaderWorkerTemplate", "size")
    variables = {"LWS_GROUP_SIZE": str(size)} if obj.get("kind") == LWS[1] and type(size) is int else {}
    for site in pod_templates(obj):
        for container in containers(site, ephemeral=False):
            if container.field != "containers":
                continue
            command = server_command(container, variables)
            if command is None:
                continue
            weights = int(declared) if declared else (model_bytes(command.model) if command.model else None)
            probe_name = (
                "startupProbe" if isinstance(container.get("startupProbe"), dict) else "livenessProbe"
            )
            probe = container.get(probe_name)
            if not weights or not isinstance(probe, dict):
                continue
            window = probe_window(probe)
            needed = conf["base-seconds"] + math.ceil(weights / (conf["load-mb-per-second"] * 1000**2))
            if window is not None and window < needed:
                source = "trainops.dev/model-size" if declared else f"model {command.model}"
                yield Issue(
                    container.at(probe_name),
                    f'{probe_name} of container "{container.name}" allows {window} s, but loading '
                    f"{weights / 1e9:.0f} GB ({source}) needs about {needed} s",
                    ID,
                )
