"""Argo CD sync waves order the set: namespaces, quotas, PVCs, queues and runtimes before the
workloads; monitors and autoscalers after them.

Why: a workload synced in the same wave as its PVC, LocalQueue or ClusterTrainingRuntime races it:
pods stay Pending, Kueue rejects the job, or the TrainJob's webhook rejects the missing runtime and
the sync fails; a ServiceMonitor before its Service alerts on a missing target.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: data
      annotations: {argocd.argoproj.io/sync-wave: "-1"}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 10Gi}}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

FAIL:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 10Gi}}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

Remediation: Give prerequisites a lower argocd.argoproj.io/sync-wave than the workloads (e.g. -1) and monitors/HPAs a higher one (e.g. 1).

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import RUN_ONCE, WORKLOADS, group_kind
from trainops.policy.argocd import SYNC_WAVE, sync_wave
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "sync-waves"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

EARLY = frozenset(
    {
        ("", "Namespace"),
        ("", "ResourceQuota"),
        ("", "LimitRange"),
        ("", "PersistentVolumeClaim"),
        ("kueue.x-k8s.io", "LocalQueue"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("trainer.kubeflow.org", "TrainingRuntime"),
        ("trainer.kubeflow.org", "ClusterTrainingRuntime"),
        ("scheduling.k8s.io", "PriorityClass"),
    }
)
LATE = frozenset(
    {
        ("monitoring.coreos.com", "ServiceMonitor"),
        ("monitoring.coreos.com", "PodMonitor"),
        ("monitoring.coreos.com", "PrometheusRule"),
        ("autoscaling", "HorizontalPodAutoscaler"),
    }
)
MAIN = WORKLOADS | RUN_ONCE | {("serving.kserve.io", "InferenceService")}


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Early objects below the lowest workload wave; late objects above the highest; waves parse."""
    waves = [sync_wave(obj) for obj in objects]
    for index, wave in enumerate(waves):
        if wave is None:
            yield index, Issue(("metadata", "annotations", SYNC_WAVE), "sync-wave is not an integer", ID)
    main = [w for obj, w in zip(objects, waves, strict=True) if group_kind(obj) in MAIN and w is not None]
    if not main:
        return
    lowest, highest = min(main), max(main)
    for index, (obj, wave) in enumerate(zip(objects, waves, strict=True)):
        key = group_kind(obj)
        if wave is None or key is None:
            continue
        if key in EARLY and wave >= lowest:
            yield (
                index,
                Issue(
                    ("metadata", "annotations", SYNC_WAVE),
                    f"{key[1]} in sync wave {wave}, not before the workloads (wave {lowest})",
                    ID,
                ),
            )
        elif key in LATE and wave <= highest:
            yield (
                index,
                Issue(
                    ("metadata", "annotations", SYNC_WAVE),
                    f"{key[1]} in sync wave {wave}, not after the workloads (wave {highest})",
                    ID,
                ),
            )
