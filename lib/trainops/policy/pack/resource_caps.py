"""Containers stay within per-container caps on GPUs, cpu and memory (options).

Why: a typo (``memory: 640Gi`` for ``64Gi``, ``nvidia.com/gpu: 80``) produces a pod that never
schedules, or one that takes a whole node pool; caps catch it in review.

Options: ``max-gpus``: GPUs per container (over the cluster's GPU resources). ``max-cpu``: cpu per
container (a quantity). ``max-memory``: memory per container (a quantity).

Default: enabled, level error, ``max-gpus: 8``, ``max-cpu: "192"``, ``max-memory: 2Ti``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          limits: {cpu: "32", memory: 256Gi, nvidia.com/gpu: "8"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          limits: {nvidia.com/gpu: "80"}

Remediation: Lower the request or limit below the cap, or raise the cap in policies/config.yaml for this repository.

Source: https://kubernetes.io/docs/concepts/policy/limit-range/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers, quantity, resource
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "resource-caps"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {
    "max-gpus": {"type": "integer", "minimum": 0},
    "max-cpu": {"type": ["string", "integer"]},
    "max-memory": {"type": ["string", "integer"]},
}
DEFAULT: dict[str, Any] = {"max-gpus": 8, "max-cpu": "192", "max-memory": "2Ti"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each cpu, memory or GPU request/limit above its cap."""
    caps = [
        ("cpu", quantity(conf["max-cpu"]), conf["max-cpu"]),
        ("memory", quantity(conf["max-memory"]), conf["max-memory"]),
    ]
    caps += [(gpu, quantity(conf["max-gpus"]), conf["max-gpus"]) for gpu in ctx.facts.gpu_resources]
    for container in all_containers(obj):
        for name, cap, shown in caps:
            if cap is None:
                continue
            for section in ("limits", "requests"):
                value = resource(container, section, name)
                if value is not None and value > cap:
                    raw = container.get("resources", section, name)
                    yield Issue(
                        container.at("resources", section, name),
                        f'container "{container.name}" {section}.{name} {raw} exceeds the cap {shown}',
                        ID,
                    )
                    break
