"""PyTorch ``nprocPerNode`` (TrainJob ``numProcPerNode``) equals the GPU limit of the training
container, or is ``auto``/``gpu``.

Why: torchrun starts nprocPerNode processes per pod; more than the pod's GPUs and two ranks share a
GPU (out of memory, or NCCL refuses duplicate devices), fewer and GPUs sit idle while billed.

Options: none (GPU resource names come from the cluster facts).

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      nprocPerNode: "4"
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources: {limits: {nvidia.com/gpu: "4"}}

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      nprocPerNode: "8"
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources: {limits: {nvidia.com/gpu: "4"}}

Remediation: Set nprocPerNode to the training container's GPU limit, or to auto.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/pytorch_types.go (NprocPerNode)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import (
    Container,
    dig,
    gpu_count,
    main_container,
    pod_templates,
    quantity,
    replicas_of,
)
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "nproc-per-node"
LEVEL: Level = "error"
KINDS = frozenset({("kubeflow.org", "PyTorchJob"), ("trainer.kubeflow.org", "TrainJob")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_SYMBOLIC = ("auto", "gpu", "cpu")


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """nprocPerNode against each replica's (or the TrainJob trainer's) GPU count."""
    gpus = ctx.facts.gpu_resources
    if obj.get("kind") == "TrainJob":
        value = dig(obj, "spec", "trainer", "numProcPerNode")
        limits = dig(obj, "spec", "trainer", "resourcesPerNode", "limits")
        count = sum(
            (q for q in (quantity(limits.get(g)) for g in gpus) if q is not None)
            if isinstance(limits, dict)
            else []
        )
        wanted = _count(value)
        if value is None or value in _SYMBOLIC or wanted is None or not count:
            return
        if wanted != count:
            yield Issue(
                ("spec", "trainer", "numProcPerNode"),
                f"numProcPerNode {value} != {count} GPUs per node (resourcesPerNode)",
                ID,
            )
        return
    value = dig(obj, "spec", "nprocPerNode")
    wanted = _count(value)
    if value is None or value in _SYMBOLIC or wanted is None:
        return
    sites = {site.parts: site for site in pod_templates(obj)}
    for replica in replicas_of(obj):
        found = main_container(replica.pod, "PyTorchJob")
        site = sites.get((*replica.parts, "template", "spec"))
        if found is None or site is None:
            continue
        index, spec = found
        count = gpu_count(Container(site, "containers", index, spec), gpus)
        if count and count != wanted:
            yield Issue(
                ("spec", "nprocPerNode"),
                f'nprocPerNode {value} != {count} GPUs of {replica.type} container "{spec.get("name")}"',
                ID,
            )
