"""Argo CD sync waves order the set: namespaces, quotas, queues and runtimes before the workloads;
monitors and autoscalers after them; a PersistentVolumeClaim not after the pods that mount it.

Why: a workload synced in the same wave as its LocalQueue or ClusterTrainingRuntime races it: Kueue
rejects the job, or the TrainJob's webhook rejects the missing runtime and the sync fails; a
ServiceMonitor before its Service alerts on a missing target; pods in a wave before their claim stay
Pending, so their wave never turns healthy and the claim's wave never comes. A claim does not need
an earlier wave (Argo CD applies PVCs before Deployments within a wave), and with a
WaitForFirstConsumer StorageClass an earlier wave deadlocks: the claim stays Pending until a pod
uses it (argo-cd issue 12840).

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: kueue.x-k8s.io/v1beta1
    kind: LocalQueue
    metadata:
      name: team
      annotations: {argocd.argoproj.io/sync-wave: "-1"}
    spec: {clusterQueue: gpus}
    ---
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
    metadata:
      name: eval-3f2a1b
      labels: {kueue.x-k8s.io/queue-name: team}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]
          volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]

FAIL:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: data
      annotations: {argocd.argoproj.io/sync-wave: "1"}
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
          volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]

Remediation: Give prerequisites a lower argocd.argoproj.io/sync-wave than the workloads (e.g. -1), monitors and HPAs a higher one (e.g. 1), and claims the wave of the pods that mount them.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/; https://github.com/argoproj/argo-cd/issues/12840
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import RUN_ONCE, WORKLOADS, group_kind
from trainops.policy.argocd import SYNC_WAVE, sync_wave
from trainops.policy.pods import as_list, dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import all_pods
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
    """Early objects below the lowest workload wave; late objects above the highest; claims not
    after the pods mounting them; waves parse."""
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
    yield from _claims(objects, waves)


PVC = ("", "PersistentVolumeClaim")


def _claims(objects: Sequence[dict[str, Any]], waves: Sequence[int | None]) -> Iterator[tuple[int, Issue]]:
    """Each PVC in a later wave than an object whose pods mount it (same namespace)."""
    mounted: dict[tuple[Any, Any], list[tuple[int, str]]] = {}
    for pods in all_pods(objects):
        wave = waves[pods.index]
        if wave is None:
            continue
        for volume in as_list(pods.site.spec.get("volumes")):
            claim = dig(volume, "persistentVolumeClaim", "claimName")
            if isinstance(claim, str):
                owner = f"{pods.obj.get('kind')}/{metadata_of(pods.obj).get('name')}"
                mounted.setdefault((pods.namespace, claim), []).append((wave, owner))
    for index, obj in enumerate(objects):
        wave = waves[index]
        if group_kind(obj) != PVC or wave is None:
            continue
        meta = metadata_of(obj)
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        earlier = sorted(m for m in mounted.get((namespace, meta.get("name")), []) if m[0] < wave)
        if earlier:
            first_wave, owner = earlier[0]
            yield (
                index,
                Issue(
                    ("metadata", "annotations", SYNC_WAVE),
                    f"PersistentVolumeClaim in sync wave {wave}, after the pods of {owner} (wave {first_wave}) "
                    "that mount it: they stay Pending and their wave never turns healthy",
                    ID,
                ),
            )
