"""Containers set a memory limit; training pods set requests equal to limits (Guaranteed QoS).

Why: without a memory limit one leaking process takes the node's memory and the kubelet evicts
its neighbours; a training pod whose requests are below its limits is Burstable and is evicted
before Guaranteed pods, losing hours of progress since the last checkpoint. InferenceService pods are left to KServe, whose mutating webhook fills
the memory limit they leave out.

Options: ``guaranteed-training``: require requests == limits (cpu and memory) in training pods
(Kubeflow jobs, TrainJob, JobSet, Katib trials).

Default: enabled, level warning, ``guaranteed-training: true``.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources:
                  requests: {cpu: "8", memory: 64Gi}
                  limits: {cpu: "8", memory: 64Gi}

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources:
                  requests: {cpu: "8", memory: 32Gi}
                  limits: {memory: 64Gi}

Remediation: Set resources.limits.memory, and in training pods make requests equal to limits for cpu and memory.

Source: https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/#guaranteed
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, is_training, pod_templates, resource
from trainops.policy.rule import Context, describe
from trainops.rules import register

KSERVE = ("serving.kserve.io", "InferenceService")

ID = "memory-limits"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"guaranteed-training": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"guaranteed-training": True}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each container without a memory limit; in training pods, each cpu/memory request != limit."""
    for site in pod_templates(obj):
        if site.partial:  # resources come from the runtime and spec.trainer.resourcesPerNode
            continue
        if site.owner == KSERVE:
            continue  # KServe's defaulter fills the memory limit (see resource-requests)
        training = is_training(site)
        for container in containers(site, ephemeral=False):
            if container.get("resources", "limits", "memory") is None:
                yield Issue(
                    container.at("resources", "limits", "memory"),
                    f'container "{container.name}" sets no memory limit',
                    ID,
                )
                continue
            if not (training and conf["guaranteed-training"]) or container.field != "containers":
                continue
            for name in ("cpu", "memory"):
                raw_request = container.get("resources", "requests", name)
                raw_limit = container.get("resources", "limits", name)
                if raw_request is None:
                    continue  # unset: the API server copies the limit (if any) to the request
                if raw_limit is None or resource(container, "requests", name) != resource(
                    container, "limits", name
                ):
                    yield Issue(
                        container.at("resources", "limits", name),
                        f'training container "{container.name}" {name} request {raw_request} != limit '
                        f"{'unset' if raw_limit is None else raw_limit} (not Guaranteed QoS)",
                        ID,
                    )
