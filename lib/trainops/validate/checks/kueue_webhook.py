"""``kueue-webhook``: what Kueue's validating webhooks reject when a job is created for its pod-set
topology annotations (``kueue.x-k8s.io/podset-*`` on pod templates), although the API server accepts
it: more than one of required/preferred/unconstrained, levels that are no label names, an
``unconstrained`` that is no boolean, a slice size that is no number, below 1, above the pod set's
pods or given without its slice level (or the level without it), a ``podset-group-name`` that is a
number, set with slices or without a required or preferred level, malformed multi-layer slice
constraints, and pod-set groups that are not two pod sets (one of them a single pod) asking for the
same level in the same mode.

Judged: every batch Job, JobSet, MPIJob, TrainJob and LeaderWorkerSet (Kueue's webhooks for the
integrations its shipped configuration enables run on every object of the kind, queued or not), and
queued Kubeflow v1 jobs (:func:`trainops.core.kueue_tas.judged`). What needs the cluster's Topology
(a level it lacks, a slice level above the pod set's) is the policy rule ``topology-placement``'s.

PASS::

    metadata: {labels: {kueue.x-k8s.io/queue-name: tas-user-queue}}
    spec:
      parallelism: 4
      template:
        metadata:
          annotations: {kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-rack}

FAIL::

    spec:
      parallelism: 4
      template:
        metadata:
          annotations:
            kueue.x-k8s.io/podset-required-topology: cloud.example.com/topology-rack
            kueue.x-k8s.io/podset-slice-size: "2"   # without podset-slice-required-topology

Remediation: change the annotations as the message says so that Kueue's webhook accepts the job.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas_validation.go``
(``ValidateTASPodSetRequest``, ``ValidateSliceSizeAnnotationUpperBound``,
``ValidatePodSetGroupingTopology``, ``topologyRequestsValid``), called by the ``validateTopologyRequest``
of ``pkg/controller/jobs/{job,jobset,mpijob,trainjob,leaderworkerset}`` and by
``pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go`` ``ValidateOnCreate``, through
:func:`trainops.core.kueue_tas.webhook_problems`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.core.findings import Issue
from trainops.core.kueue_tas import judged, webhook_problems
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="kueue-webhook",
        level="error",
        summary="A job's Kueue pod-set topology annotations pass Kueue's validating webhook on create.",
        rationale="Kueue's webhook (failurePolicy Fail) rejects a job whose podset-* annotations conflict or "
        "are malformed although its schema is valid: Argo CD's sync fails.",
        remediation="Change the annotations as the message says so that Kueue's webhook accepts the job.",
        source="https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobframework/tas_validation.go",
    )
)


def check(context: DocumentContext) -> Iterator[Issue]:
    """Issues for a job whose topology annotations Kueue's webhook rejects (other documents: none,
    and their pod specs are not looked for)."""
    if not judged(context.data):
        return
    for parts, message in webhook_problems(context.data, context.pod_sites()):
        yield Issue(parts, message, RULE.id)


CHECK = Check(RULE, check)
