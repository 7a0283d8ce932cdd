"""Multi-pod Kubeflow jobs set ``runPolicy.schedulingPolicy`` (a PodGroup with minAvailable) when the
cluster runs a gang scheduler.

Why: without gang scheduling, pods of one job are placed one by one; two jobs that each got half
their workers hold their GPUs and wait for each other forever (a resource deadlock).

Options: none (the gang scheduler comes from the cluster facts; without one the rule is silent).

Default: enabled, level warning.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      runPolicy:
        schedulingPolicy: {minAvailable: 3}
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 4
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

Remediation: Set spec.runPolicy.schedulingPolicy.minAvailable to the number of pods the job needs to start.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/common_types.go (SchedulingPolicy)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import dig, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "gang-scheduling"
LEVEL: Level = "warning"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A job with more than one pod on a gang-scheduling cluster: schedulingPolicy and a sane minAvailable."""
    if not ctx.facts.gang_scheduler:
        return
    total = sum(r.replicas for r in replicas_of(obj))
    if total <= 1:
        return
    policy = dig(obj, "spec", "runPolicy", "schedulingPolicy")
    where = ("spec", "runPolicy", "schedulingPolicy")
    if not isinstance(policy, dict) or not policy:
        yield Issue(
            where,
            f"job of {total} pods sets no runPolicy.schedulingPolicy ({ctx.facts.gang_scheduler} gang scheduling)",
            ID,
        )
        return
    minimum = policy.get("minAvailable")
    if isinstance(minimum, int) and not isinstance(minimum, bool) and not 1 <= minimum <= total:
        yield Issue(
            (*where, "minAvailable"),
            f"schedulingPolicy.minAvailable {minimum} is not within 1..{total} pods",
            ID,
        )
