"""Argo CD sync waves order the set: namespaces, quotas, queues, runtimes and analysis templates
before the workloads;
PVCs in the wave of the workloads that mount them; monitors and autoscalers after the workloads.

Why: a workload synced in the same wave as its LocalQueue or ClusterTrainingRuntime races it: Kueue
rejects the job, or the TrainJob's webhook rejects the missing runtime and the sync fails (a Rollout
synced before its AnalysisTemplate is marked ``InvalidSpec`` until the controller retries); a
ServiceMonitor before its Service alerts on a missing target. A PVC in an earlier wave than the pod
that mounts it never lets the sync finish when its StorageClass binds on first consumer
(``WaitForFirstConsumer``): Argo CD waits for the earlier wave to be healthy, and the claim stays
Pending until a pod uses it (argo-cd issue 12840). Within one wave Argo CD applies the claim first.
A PVC in a later wave than its pods is no better: they stay Pending, so their wave never turns
healthy and the claim's never comes.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data, namespace: ml}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 10Gi}}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b, namespace: ml}
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
      namespace: ml
      annotations: {argocd.argoproj.io/sync-wave: "-1"}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 10Gi}}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b, namespace: ml}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]
          volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]

Remediation: Give prerequisites a lower argocd.argoproj.io/sync-wave than the workloads (e.g. -1), PVCs the wave of the workloads that mount them, and monitors/HPAs a higher one (e.g. 1).

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/, https://github.com/argoproj/argo-cd/issues/12840, https://kubernetes.io/docs/concepts/storage/storage-classes/#volume-binding-mode
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import KindGroup, group_kind
from trainops.core.rules import register
from trainops.policy.argocd import SYNC_WAVE, sync_wave
from trainops.policy.objects import hashable
from trainops.policy.pods import metadata_of, pod_templates
from trainops.policy.rule import Context, describe

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
        ("argoproj.io", "AnalysisTemplate"),
        ("argoproj.io", "ClusterAnalysisTemplate"),
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
_ISVC = ("serving.kserve.io", "InferenceService")
_ROLLOUT = ("argoproj.io", "Rollout")
MAIN = KindGroup(lambda info: info.workload or info.run_once or info.key in (_ISVC, _ROLLOUT))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Early objects below the lowest workload wave; late objects above the highest; PVCs neither
    before nor after their consumers; waves parse."""
    waves = [sync_wave(obj) for obj in objects]
    for index, wave in enumerate(waves):
        if wave is None:
            yield index, Issue(("metadata", "annotations", SYNC_WAVE), "sync-wave is not an integer", ID)
    yield from _claims_before_consumers(objects, waves)
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


def _claims_before_consumers(
    objects: Sequence[dict[str, Any]], waves: Sequence[int | None]
) -> Iterator[tuple[int, Issue]]:
    """Each PVC in an earlier wave than a pod template (same namespace) mounting it by claimName, or
    in a later wave than one."""
    consumer_wave: dict[tuple[Any, Any], tuple[int, str]] = {}
    first_consumer: dict[tuple[Any, Any], tuple[int, str]] = {}
    for obj, wave in zip(objects, waves, strict=True):
        if wave is None:
            continue
        namespace = metadata_of(obj).get("namespace")
        for site in pod_templates(obj):
            volumes = site.spec.get("volumes")
            for volume in volumes if isinstance(volumes, list) else []:
                claim = volume.get("persistentVolumeClaim") if isinstance(volume, dict) else None
                name = claim.get("claimName") if isinstance(claim, dict) else None
                if isinstance(name, str) and hashable(namespace):
                    key = (namespace, name)
                    label = f"{obj.get('kind')}/{metadata_of(obj).get('name')}"
                    if key not in consumer_wave or wave > consumer_wave[key][0]:
                        consumer_wave[key] = (wave, label)
                    if key not in first_consumer or wave < first_consumer[key][0]:
                        first_consumer[key] = (wave, label)
    for index, (obj, wave) in enumerate(zip(objects, waves, strict=True)):
        if wave is None or group_kind(obj) != ("", "PersistentVolumeClaim"):
            continue
        claim_key = (metadata_of(obj).get("namespace"), metadata_of(obj).get("name"))
        if not hashable(claim_key):
            continue
        found = consumer_wave.get(claim_key)
        first = first_consumer.get(claim_key)
        if found is not None and wave < found[0]:
            yield (
                index,
                Issue(
                    ("metadata", "annotations", SYNC_WAVE),
                    f"PersistentVolumeClaim in sync wave {wave}, before its consumer {found[1]} (wave "
                    f"{found[0]}): a WaitForFirstConsumer claim stays Pending and the sync never finishes",
                    ID,
                ),
            )
        elif first is not None and wave > first[0]:
            yield (
                index,
                Issue(
                    ("metadata", "annotations", SYNC_WAVE),
                    f"PersistentVolumeClaim in sync wave {wave}, after its consumer {first[1]} (wave "
                    f"{first[0]}): its pods stay Pending and their wave never turns healthy",
                    ID,
                ),
            )
