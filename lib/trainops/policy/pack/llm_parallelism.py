"""An LLM server's tensor × pipeline (× data) parallel size equals the GPUs it runs on.

Why: vLLM and SGLang shard the model over exactly ``tensor-parallel-size × pipeline-parallel-size``
GPUs (times ``data-parallel-size``). Fewer GPUs than that and the engine fails at start after the
image pull and the model download (vLLM: "The number of required GPUs exceeds the total number of
available GPUs in the placement group"); more and the extra GPUs sit idle while billed. On a
LeaderWorkerSet the GPUs are those of the whole group: the leader's plus ``size - 1`` workers'.

Options: none (GPU resource names come from the cluster facts).

Default: enabled, level error. Checked: every container whose command line starts a vLLM server
(``vllm serve``, ``python3 -m vllm.entrypoints.openai.api_server``) or an SGLang server
(``python3 -m sglang.launch_server``), also inside ``sh -c`` scripts, against its own GPUs, and on a
LeaderWorkerSet the leader's (``$(LWS_GROUP_SIZE)`` is the group size) against the group's; for a
KServe LLMInferenceService (or its config), whose engine command KServe writes from
``spec.parallelism``, every ``template`` and ``worker`` pod against ``tensor`` (× ``dataLocal``) GPUs.
Sizes that are not numbers and pods without GPUs (CPU or TPU engines) are skipped.

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
            command: [vllm, serve, /models/llama, --tensor-parallel-size, "4"]
            resources: {limits: {nvidia.com/gpu: "4"}}

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
            command: [vllm, serve, /models/llama, --tensor-parallel-size, "8"]
            resources: {limits: {nvidia.com/gpu: "4"}}

Remediation: Set --tensor-parallel-size to the GPUs of one pod and --pipeline-parallel-size to the pods of a group, or change the GPU limits to match.

Source: https://docs.vllm.ai/en/latest/serving/distributed_serving.html; vllm-project/vllm vllm/engine/arg_utils.py (EngineArgs); sgl-project/sglang python/sglang/srt/server_args.py (ServerArgs)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any, Final

from trainops.core.findings import Issue, Level, json_path
from trainops.core.kinds import PodSite, group_kind
from trainops.core.llm import ServerCommand, parse_server
from trainops.core.rules import register
from trainops.policy.pods import POD_KINDS, Container, as_list, containers, dig, gpu_count, pod_templates
from trainops.policy.rule import Context, describe

ID = "llm-parallelism"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

LWS: Final = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
KSERVE: Final = frozenset(
    {("serving.kserve.io", "LLMInferenceService"), ("serving.kserve.io", "LLMInferenceServiceConfig")}
)


def server_command(container: Container, variables: Mapping[str, str] = {}) -> ServerCommand | None:
    """The vLLM/SGLang server a container starts (its ``command`` then ``args``), or ``None``."""
    words = [*as_list(container.get("command")), *as_list(container.get("args"))]
    return parse_server(words, variables=variables) if words else None


def pod_gpus(site: PodSite, gpus: tuple[str, ...]) -> Fraction:
    """GPUs of a pod: the sum over its regular containers."""
    return sum(
        (gpu_count(c, gpus) for c in containers(site, ephemeral=False) if c.field == "containers"),
        Fraction(0),
    )


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each server's parallel sizes against the GPUs of its pod, or of its LeaderWorkerSet group."""
    gpus = ctx.facts.gpu_resources
    sites = pod_templates(obj)
    key = group_kind(obj)
    if key == LWS:
        yield from _group(obj, sites, gpus)
        return
    if key in KSERVE:
        yield from _kserve(obj, sites, gpus)
        return
    for site in sites:
        for container in containers(site, ephemeral=False):
            if container.field != "containers":
                continue
            command = server_command(container)
            have = gpu_count(container, gpus)
            if command is None or command.gpus is None or not have or (command.nodes or 1) > 1:
                continue  # a multi-node SGLang outside a LeaderWorkerSet: its peers are elsewhere
            if command.gpus != have:
                yield Issue(
                    container.parts,
                    f'{command.engine} {command.describe()} = {command.gpus} GPUs, but container "{container.name}" '
                    f"has {_show(have)}",
                    ID,
                )


def _group(obj: dict[str, Any], sites: list[PodSite], gpus: tuple[str, ...]) -> Iterator[Issue]:
    """A LeaderWorkerSet: the leader's server against the GPUs of the leader plus ``size - 1`` workers."""
    size = dig(obj, "spec", "leaderWorkerTemplate", "size")
    size = 1 if size is None else size
    if type(size) is not int or size < 1:
        return
    by_role = {site.parts[-2]: site for site in sites if len(site.parts) >= 2}
    worker = by_role.get("workerTemplate")
    leader = by_role.get("leaderTemplate", worker)
    if leader is None or worker is None:
        return
    have = pod_gpus(leader, gpus) + (size - 1) * pod_gpus(worker, gpus)
    if not have:
        return
    for container in containers(leader, ephemeral=False):
        command = server_command(container, {"LWS_GROUP_SIZE": str(size)})
        if container.field != "containers" or command is None or command.gpus is None:
            continue
        if command.gpus != have:
            pods = f"leader {_show(pod_gpus(leader, gpus))}"
            if size > 1:
                pods += f" + {size - 1} worker(s) × {_show(pod_gpus(worker, gpus))}"
            yield Issue(
                container.parts,
                f"{command.engine} {command.describe()} = {command.gpus} GPUs, but the LeaderWorkerSet group "
                f"of size {size} has {_show(have)} ({pods})",
                ID,
            )


def _kserve(obj: dict[str, Any], sites: list[PodSite], gpus: tuple[str, ...]) -> Iterator[Issue]:
    """KServe's LLMInferenceService (and its config) builds the engine command from
    ``spec.parallelism`` (and ``spec.prefill.parallelism``): every pod of ``template`` and ``worker``
    holds ``tensor`` GPUs, ``tensor × dataLocal`` with data parallelism (``data / dataLocal`` pods,
    kserve ``pkg/apis/serving/v1alpha2/llm_inference_service_types_func.go`` ``ParallelismSpec.GetSize``)."""
    for prefix in (("spec",), ("spec", "prefill")):
        parallelism = dig(obj, *prefix, "parallelism")
        if not isinstance(parallelism, dict):
            continue
        tensor, local = parallelism.get("tensor", 1), parallelism.get("dataLocal", 1)
        if type(tensor) is not int or type(local) is not int or tensor < 1 or local < 1:
            continue
        wanted = tensor * local
        shape = f"tensor {tensor}" + (f" × dataLocal {local}" if "dataLocal" in parallelism else "")
        for site in sites:
            if site.parts[:-1] != prefix or site.parts[-1] not in ("template", "worker"):
                continue
            have = pod_gpus(site, gpus)
            if have and have != wanted:
                yield Issue(
                    site.parts,
                    f"{json_path((*prefix, 'parallelism'))[2:]} {shape} = {wanted} GPUs per pod, but the "
                    f"{site.parts[-1]} pod has {_show(have)}",
                    ID,
                )


def _show(count: Fraction) -> str:
    return str(count.numerator) if count.denominator == 1 else str(float(count))
