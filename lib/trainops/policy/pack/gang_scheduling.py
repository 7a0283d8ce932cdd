"""Multi-pod training jobs are admitted all or nothing: through Kueue (a ``kueue.x-k8s.io/queue-name``
label) where the cluster runs it, else through the cluster's gang scheduler (Kubeflow jobs set
``runPolicy.schedulingPolicy``, a PodGroup with minAvailable; the pods of a JobSet or of an Indexed
batch Job of several pods name their PodGroup and the scheduler: Volcano's
``scheduling.k8s.io/group-name`` annotation and ``schedulerName: volcano``, scheduler-plugins'
``scheduling.x-k8s.io/pod-group`` label and ``schedulerName: scheduler-plugins-scheduler``).

Why: without gang admission, pods of one job are placed one by one; two jobs that each got half
their workers hold their GPUs and wait for each other forever (a resource deadlock). Kueue admits a
queued workload's pods together (with ``waitForPodsReady`` in Kueue's configuration it also evicts a
workload whose pods do not all start); a gang scheduler (Volcano, scheduler-plugins coscheduling)
binds none of a PodGroup's pods until all fit. A multi-pod job (Kubeflow jobs, JobSet, TrainJob, an
Indexed batch Job with ``parallelism`` > 1) on a cluster known to run neither, or on a Kueue cluster without a queue label and without a gang
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

Remediation: Queue the job in Kueue (queue-name label), or on a gang-scheduling cluster set spec.runPolicy.schedulingPolicy.minAvailable (Kubeflow jobs) or make the pods name their PodGroup and the gang scheduler (JobSet, batch Job).

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/common_types.go (SchedulingPolicy); https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/; https://github.com/volcano-sh/apis/blob/master/pkg/apis/scheduling/v1beta1/labels.go (KubeGroupNameAnnotationKey); https://github.com/kubernetes-sigs/scheduler-plugins/blob/v0.34.7/apis/scheduling/v1alpha1/types.go (PodGroupLabel)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.gang import SCHEDULERS, reference_problem
from trainops.core.kinds import KUBEFLOW_JOBS, KindGroup, group_kind
from trainops.core.rules import register
from trainops.policy.placement import pod_sets, queued, total_pods
from trainops.policy.pods import dig, replicas_of
from trainops.policy.rule import Context, describe

ID = "gang-scheduling"
LEVEL: Level = "warning"
_JOB = ("batch", "Job")
#: Training jobs (:data:`trainops.core.kinds.TRAINING_JOBS`) and batch Jobs.
KINDS = KindGroup(lambda info: info.training or info.key == _JOB)
#: Kinds whose pods name their PodGroup themselves (the others: the operator creates it, or, for a
#: TrainJob, the runtime's ``podGroupPolicy`` does).
_POD_GROUP_KINDS = frozenset({("jobset.x-k8s.io", "JobSet"), _JOB})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A job of several pods: admitted by Kueue, or gang-scheduled with a sane minAvailable."""
    facts = ctx.facts
    if group_kind(obj) == _JOB and dig(obj, "spec", "completionMode") != "Indexed":
        return  # a work-queue or fixed-count Job, not one program over several pods
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
        if group_kind(obj) in _POD_GROUP_KINDS and facts.gang_scheduler in SCHEDULERS:
            yield from _pod_group_references(obj, facts.gang_scheduler, total)
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


def _pod_group_references(obj: dict[str, Any], scheduler: str, total: int) -> Iterator[Issue]:
    """Each pod template of a JobSet or batch Job names its PodGroup and the gang scheduler
    (:func:`trainops.core.gang.reference_problem`)."""
    for pod_set in pod_sets(obj):
        parts = pod_set.site.parts
        template = dig(obj, *parts[:-1])
        if not isinstance(template, dict):
            continue
        metadata, spec = template.get("metadata"), template.get("spec")
        problem = reference_problem(
            scheduler, metadata if isinstance(metadata, dict) else {}, spec if isinstance(spec, dict) else {}
        )
        if problem:
            yield Issue(parts[:-1], f"job of {total} pods without a queue: {problem}", ID)
