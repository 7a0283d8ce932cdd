"""Multi-pod training jobs are admitted all or nothing: through Kueue (a ``kueue.x-k8s.io/queue-name``
label) where the cluster runs it, else through the cluster's gang scheduler (Kubeflow jobs set
``runPolicy.schedulingPolicy``, a PodGroup with minAvailable).

Why: without gang admission, pods of one job are placed one by one; two jobs that each got half
their workers hold their GPUs and wait for each other forever (a resource deadlock). Kueue admits a
queued workload's pods together (with ``waitForPodsReady`` in Kueue's configuration it also evicts a
workload whose pods do not all start); a gang scheduler (Volcano, scheduler-plugins coscheduling)
binds none of a PodGroup's pods until all fit. A multi-pod job (Kubeflow jobs, JobSet, TrainJob) on
a cluster known to run neither, or on a Kueue cluster without a queue label and without a gang
scheduler, is flagged.

Options: none (the gang scheduler and Kueue come from the cluster facts; when it is not known
whether the cluster runs Kueue, only the schedulingPolicy of Kubeflow jobs on a gang-scheduling
cluster is checked).

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

Remediation: Queue the job in Kueue (queue-name label), or set spec.runPolicy.schedulingPolicy.minAvailable to the pods the job needs on a gang-scheduling cluster.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/common_types.go (SchedulingPolicy); https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import KUBEFLOW_JOBS, TRAINING_JOBS, group_kind
from trainops.core.rules import register
from trainops.policy.placement import queued, total_pods
from trainops.policy.pods import dig, replicas_of
from trainops.policy.rule import Context, describe

ID = "gang-scheduling"
LEVEL: Level = "warning"
KINDS = TRAINING_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A job of several pods: admitted by Kueue, or gang-scheduled with a sane minAvailable."""
    facts = ctx.facts
    kubeflow = group_kind(obj) in KUBEFLOW_JOBS
    total = sum(r.replicas for r in replicas_of(obj)) if kubeflow else total_pods(obj)
    if total <= 1:
        return
    if facts.kueue and queued(obj):
        return
    if not facts.gang_scheduler:
        if facts.kueue is None:
            return
        labels: tuple[str, ...] = ("metadata", "labels")
        if facts.kueue:
            yield Issue(
                labels,
                f"job of {total} pods has no kueue.x-k8s.io/queue-name label: Kueue does not admit it and "
                "the cluster declares no gang scheduler, so its pods may start one by one",
                ID,
            )
        else:
            yield Issue(
                labels,
                f"job of {total} pods on a cluster with neither Kueue nor a gang scheduler: its pods may start one by one",
                ID,
            )
        return
    if not kubeflow:
        return
    policy = dig(obj, "spec", "runPolicy", "schedulingPolicy")
    where = ("spec", "runPolicy", "schedulingPolicy")
    if not isinstance(policy, dict) or not policy:
        yield Issue(
            where,
            f"job of {total} pods sets no runPolicy.schedulingPolicy ({facts.gang_scheduler} gang scheduling)",
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
