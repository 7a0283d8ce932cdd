"""On a MultiKueue manager, a queued job carries ``managedBy: kueue.x-k8s.io/multikueue`` where its
kind has the field: batch Job and JobSet ``spec.managedBy``, Trainer v2 TrainJob ``spec.managedBy``,
Kubeflow v1 jobs and the mpi-operator's MPIJob ``spec.runPolicy.managedBy``.

Why: on a manager, Kueue admits a queued job through the MultiKueue AdmissionCheck and runs a copy on
a worker. A job without ``managedBy`` is also run by its own controller on the manager (which has no
GPU nodes for it, or runs it twice), and the field is immutable: Kueue's defaulting webhook sets it
only when the job is created through it, and Argo CD then reports a diff on every sync.

Options: none (whether the cluster is a manager comes from the cluster facts: ``Cluster.multikueue``,
or ``multikueueManager: true`` in a facts file).

Default: enabled, level error.

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: eval
      namespace: ml
      labels: {kueue.x-k8s.io/queue-name: gpu-queue}
    spec:
      managedBy: kueue.x-k8s.io/multikueue
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: eval
      namespace: ml
      labels: {kueue.x-k8s.io/queue-name: gpu-queue}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

Remediation: Set managedBy to kueue.x-k8s.io/multikueue on queued jobs of a MultiKueue manager (trainops constructs do it when the cluster declares multikueue).

Source: https://kueue.sigs.k8s.io/docs/concepts/multikueue/ (kubernetes-sigs/kueue v0.19.2
``pkg/controller/jobframework`` ``ApplyDefaultForManagedBy``)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import KUBEFLOW_JOBS, KindGroup, group_kind
from trainops.core.rules import register
from trainops.policy.pack.kueue_queue import QUEUE_LABEL
from trainops.policy.pods import labels_of
from trainops.policy.rule import Context, describe

ID = "multikueue-managed-by"
LEVEL: Level = "error"
#: Jobs with a ``managedBy`` field MultiKueue honours: batch Job, JobSet, TrainJob, Kubeflow jobs.
_SPEC_FIELD = frozenset(
    {("batch", "Job"), ("jobset.x-k8s.io", "JobSet"), ("trainer.kubeflow.org", "TrainJob")}
)
KINDS = KindGroup(lambda info: info.key in _SPEC_FIELD or info.replica_field is not None)
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

MULTIKUEUE = "kueue.x-k8s.io/multikueue"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A queued job on a manager whose ``managedBy`` is not MultiKueue's."""
    if not ctx.facts.multikueue_manager or not labels_of(obj).get(QUEUE_LABEL):
        return
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    path: tuple[str, ...] = ("spec", "managedBy")
    holder: Any = spec
    if group_kind(obj) in KUBEFLOW_JOBS:
        path, holder = ("spec", "runPolicy", "managedBy"), spec.get("runPolicy")
    value = holder.get("managedBy") if isinstance(holder, dict) else None
    if value != MULTIKUEUE:
        shown = "no managedBy" if value is None else f'managedBy "{value}"'
        yield Issue(
            path,
            f"queued job on a MultiKueue manager has {shown}; it must be {MULTIKUEUE} so the job runs on a worker",
            ID,
        )
