"""Multi-node GPU jobs queued on a cluster with a Kueue Topology ask for a placement.

Why: without a ``kueue.x-k8s.io/podset-required-topology`` (or preferred, or slice) annotation Kueue
admits a 4-node x 8-GPU job wherever quota is free, and its all-reduce crosses the spine instead of
staying inside one rack or NVLink/InfiniBand block. The cluster declares its topology levels; the job
should say at which one its pods sit together (``placement=TopologyPlacement(required="rack")`` on
the construct), or ask for ``unconstrained`` placement on purpose.

Options: none (the Topology comes from the cluster facts; without one the rule is silent).

Default: enabled, level warning.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata:
      name: llm
      labels: {kueue.x-k8s.io/queue-name: training}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 4
          restartPolicy: OnFailure
          template:
            metadata:
              annotations: {kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-block}
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources: {limits: {nvidia.com/gpu: 8}}

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata:
      name: llm
      labels: {kueue.x-k8s.io/queue-name: training}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 4
          restartPolicy: OnFailure
          template:
            spec:
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                resources: {limits: {nvidia.com/gpu: 8}}

Remediation: Give the job a placement at a level of the cluster's Topology (e.g. required rack), or an unconstrained one on purpose.

Source: https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import TRAINING_JOBS
from trainops.core.rules import register
from trainops.core.topology import PLACEMENT
from trainops.policy.placement import pod_sets, queued, total_pods
from trainops.policy.pods import as_dict, containers, dig, gpu_count, quantity
from trainops.policy.rule import Context, describe

ID = "topology-unplaced"
LEVEL: Level = "warning"
KINDS = TRAINING_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A queued job of several pods with GPUs, on a cluster with a Topology, with no placement annotation."""
    if not ctx.facts.topology_levels or not queued(obj):
        return
    pods = total_pods(obj)
    if pods <= 1:
        return
    sets = list(pod_sets(obj))
    if any(key in p.annotations for p in sets for key in PLACEMENT):
        return
    gpus = any(
        gpu_count(c, ctx.facts.gpu_resources) > 0 for p in sets for c in containers(p.site, ephemeral=False)
    ) or _trainer_gpus(obj, ctx.facts.gpu_resources)
    if not gpus:
        return
    yield Issue(
        ("metadata",),
        f"job of {pods} GPU pods asks for no topology placement on a cluster with Topology "
        f"{ctx.facts.topology_name!r} (levels: {', '.join(ctx.facts.topology_levels)})",
        ID,
    )


def _trainer_gpus(obj: dict[str, Any], gpu_resources: tuple[str, ...]) -> bool:
    """A TrainJob's ``spec.trainer.resourcesPerNode`` asks for GPUs."""
    resources = as_dict(dig(obj, "spec", "trainer", "resourcesPerNode"))
    asked = {**as_dict(resources.get("requests")), **as_dict(resources.get("limits"))}
    return any(quantity(asked.get(name)) for name in gpu_resources)
