"""Jobs in Kueue-managed namespaces carry ``kueue.x-k8s.io/queue-name``, and the queue exists (a
rendered LocalQueue in the job's namespace, or one the cluster declares as external).

Why: Kueue admits only jobs that name a LocalQueue; in a managed namespace a job without one is
never admitted (or bypasses quota, depending on ``manageJobsWithoutQueueName``), and a job naming a
missing queue waits forever with no error on the job itself.

Options: none (managed namespaces and external queues come from the cluster facts).

Default: enabled, level error.

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: eval
      namespace: ml-queued
      labels: {kueue.x-k8s.io/queue-name: gpu-queue}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval, namespace: ml-queued}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

Remediation: Add the label kueue.x-k8s.io/queue-name naming a LocalQueue of the job's namespace (render it, or declare it as external in apps/clusters.py).

Source: https://kueue.sigs.k8s.io/docs/concepts/local_queue/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KindGroup, group_kind
from trainops.policy.index import where as index_where
from trainops.policy.pods import as_str, labels_of, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "kueue-queue"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
#: Kinds Kueue's job integrations manage (kueue ``pkg/controller/jobs``).
_ALSO_QUEUED = frozenset({("batch", "Job"), ("ray.io", "RayJob"), ("ray.io", "RayCluster")})
#: (training jobs, :data:`trainops.kinds.TRAINING_JOBS`, and the others Kueue integrates).
QUEUED_KINDS = KindGroup(lambda info: info.training or info.key in _ALSO_QUEUED)
LOCAL_QUEUE = ("kueue.x-k8s.io", "LocalQueue")


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per queued job: the label in managed namespaces; the named queue among rendered or external LocalQueues."""
    queues = {
        (as_str(metadata_of(o).get("namespace")), as_str(metadata_of(o).get("name")))
        for o in objects
        if group_kind(o) == LOCAL_QUEUE
    }
    for index, obj in enumerate(objects):
        if group_kind(obj) not in QUEUED_KINDS:
            continue
        namespace = as_str(metadata_of(obj).get("namespace"))
        queue = as_str(labels_of(obj).get(QUEUE_LABEL))
        where = ("metadata", "labels", QUEUE_LABEL)
        if queue is None:
            if namespace in ctx.facts.kueue_namespaces:
                yield (
                    index,
                    Issue(
                        ("metadata", "labels"),
                        f'job in Kueue-managed namespace "{namespace}" has no {QUEUE_LABEL} label',
                        ID,
                    ),
                )
            continue
        if (namespace, queue) not in queues and not ctx.facts.has_external(
            "LocalQueue", str(queue), namespace
        ):
            yield index, Issue(where, f'LocalQueue "{queue}" does not exist in {index_where(namespace)}', ID)
