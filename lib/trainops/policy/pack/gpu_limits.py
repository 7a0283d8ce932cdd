"""GPU containers set GPU limits on the cluster's GPU resource; requests equal limits when both are set.

Why: GPUs are extended resources: the scheduler only reserves what the limit says, a request
without a limit is rejected at apply time, and a GPU resource name the cluster does not expose
(``amd.com/gpu`` on an NVIDIA cluster, ``nvidia.com/gpus``) leaves the pod Pending forever.

Options: none (the GPU resource names come from the cluster facts).

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          limits: {nvidia.com/gpu: "4"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          requests: {nvidia.com/gpu: "4"}

Remediation: Set resources.limits for the cluster's GPU resource (requests, if set, equal to the limit).

Source: https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers, resource
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "gpu-limits"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


#: Domains of GPU vendors' device plugins (NVIDIA, AMD, Intel): a GPU-like name there that the cluster
#: does not expose is a typo or the wrong vendor. Other names with "gpu" in them (a DRA extended
#: resource such as ``example.com/gpu``, a site's own device plugin) are the cluster's business.
GPU_VENDOR_DOMAINS = ("nvidia.com", "amd.com", "gpu.intel.com")


def vendor_gpu(name: str) -> bool:
    """Whether ``name`` is a GPU resource of a known vendor's domain (``nvidia.com/gpus``, ``amd.com/gpu``)."""
    domain, slash, rest = name.partition("/")
    return (
        bool(slash) and domain in GPU_VENDOR_DOMAINS and ("gpu" in rest.lower() or domain == "gpu.intel.com")
    )


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per container: vendor GPU resource names the cluster lacks (once per name, at its limit if
    set); GPU requests without or unequal to limits."""
    gpus = ctx.facts.gpu_resources
    for container in all_containers(obj):
        named: dict[str, str] = {}  # resource name → the section it is reported in (limits first)
        for section in ("limits", "requests"):
            values = container.get("resources", section)
            for name in values if isinstance(values, dict) else {}:
                if isinstance(name, str) and vendor_gpu(name) and name not in gpus:
                    named.setdefault(name, section)
        for name, section in named.items():
            yield Issue(
                container.at("resources", section, name),
                f'container "{container.name}" asks for {name}, which is not a GPU resource of the '
                f"cluster ({', '.join(gpus)})",
                ID,
            )
        for name in gpus:
            request = container.get("resources", "requests", name)
            limit = container.get("resources", "limits", name)
            if request is not None and limit is None:
                yield Issue(
                    container.at("resources", "limits", name),
                    f'container "{container.name}" requests {name} {request} without a limit',
                    ID,
                )
            elif request is not None and resource(container, "requests", name) != resource(
                container, "limits", name
            ):
                yield Issue(
                    container.at("resources", "requests", name),
                    f'container "{container.name}" {name} request {request} != limit {limit}',
                    ID,
                )
