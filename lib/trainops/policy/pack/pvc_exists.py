"""Every ``persistentVolumeClaim.claimName`` a pod template mounts exists: rendered in its namespace,
or declared as an external object of the cluster.

Why: a pod mounting a missing claim stays ContainerCreating forever; for a training job that is a
quiet hang holding the other workers' GPUs, found hours later.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: checkpoints, namespace: ml}
    spec: {accessModes: [ReadWriteMany], storageClassName: nfs, resources: {requests: {storage: 1Ti}}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: train, namespace: ml}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - {name: ckpt, persistentVolumeClaim: {claimName: checkpoints}}
      - {name: data, persistentVolumeClaim: {claimName: datasets}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train, namespace: ml}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - {name: ckpt, persistentVolumeClaim: {claimName: checkpoint}}

Remediation: Render the PersistentVolumeClaim (a VolumeClaim construct), fix the claim name, or declare the existing claim as external in apps/clusters.py.

Source: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#claims-as-volumes
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.index import ObjectIndex, where
from trainops.policy.pods import metadata_of, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "pvc-exists"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each claimName of each pod template that no rendered or external PVC has."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, obj in enumerate(objects):
        namespace = metadata_of(obj).get("namespace")
        for site in pod_templates(obj):
            volumes = site.spec.get("volumes")
            for number, volume in enumerate(volumes if isinstance(volumes, list) else []):
                claim = volume.get("persistentVolumeClaim") if isinstance(volume, dict) else None
                name = claim.get("claimName") if isinstance(claim, dict) else None
                if not isinstance(name, str) or "${" in name:
                    continue
                if not index_.exists("PersistentVolumeClaim", name, namespace):
                    yield (
                        index,
                        Issue(
                            (*site.parts, "volumes", number, "persistentVolumeClaim", "claimName"),
                            f'PersistentVolumeClaim "{name}" does not exist in {where(namespace)}',
                            ID,
                        ),
                    )
