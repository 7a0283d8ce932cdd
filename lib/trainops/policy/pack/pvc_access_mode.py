"""A PersistentVolumeClaim mounted by more than one pod is ``ReadWriteMany`` (or ``ReadOnlyMany``
with every mount read-only).

Why: a ReadWriteOnce volume attaches to one node: the second worker of a distributed job (or the
second model server replica) on another node stays ContainerCreating with a Multi-Attach error.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data, namespace: ml}
    spec: {accessModes: [ReadWriteMany], storageClassName: nfs, resources: {requests: {storage: 1Ti}}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            volumeMounts: [{name: models, mountPath: /models}]
          volumes: [{name: models, persistentVolumeClaim: {claimName: data}}]

FAIL:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data, namespace: ml}
    spec: {accessModes: [ReadWriteOnce], storageClassName: ssd, resources: {requests: {storage: 1Ti}}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers:
          - name: server
            image: registry.example.com/serve:1.0
            volumeMounts: [{name: models, mountPath: /models}]
          volumes: [{name: models, persistentVolumeClaim: {claimName: data}}]

Remediation: Use a ReadWriteMany storage class for shared claims (or ReadOnlyMany with read-only mounts), or give each pod its own claim.

Source: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.index import ObjectIndex
from trainops.policy.pods import as_list, as_str, containers, dig, metadata_of, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "pvc-access-mode"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per rendered PVC: the pods mounting it (and whether all read-only) against its access modes."""
    index_ = ObjectIndex(objects, ctx.facts)
    usage: dict[tuple[Any, str], list[tuple[int, bool]]] = {}
    for obj in objects:
        namespace = as_str(metadata_of(obj).get("namespace"))
        for site in pod_templates(obj):
            if site.templated:
                continue
            volumes = site.spec.get("volumes")
            for volume in volumes if isinstance(volumes, list) else []:
                claim = volume.get("persistentVolumeClaim") if isinstance(volume, dict) else None
                if not isinstance(claim, dict) or not isinstance(claim.get("claimName"), str):
                    continue
                name = claim["claimName"]
                mounts = [
                    m
                    for c in containers(site, ephemeral=False)
                    for m in as_list(c.get("volumeMounts"))
                    if isinstance(m, dict) and m.get("name") == volume.get("name")
                ]
                read_only = bool(claim.get("readOnly") is True) or (
                    bool(mounts) and all(m.get("readOnly") is True for m in mounts)
                )
                usage.setdefault((namespace, name), []).append((index_.pod_count(obj, site), read_only))
    for index, obj in enumerate(objects):
        if group_kind(obj) != ("", "PersistentVolumeClaim"):
            continue
        meta = metadata_of(obj)
        uses = usage.get((as_str(meta.get("namespace")), str(meta.get("name"))), [])
        pods = sum(count for count, _ in uses)
        if pods <= 1:
            continue
        modes = dig(obj, "spec", "accessModes")
        modes = modes if isinstance(modes, list) else []
        all_read_only = all(read_only for _, read_only in uses)
        if "ReadWriteMany" in modes or ("ReadOnlyMany" in modes and all_read_only):
            continue
        wanted = "ReadWriteMany or ReadOnlyMany" if all_read_only else "ReadWriteMany"
        yield (
            index,
            Issue(
                ("spec", "accessModes"),
                f"{pods} pods mount this claim but its access modes are {', '.join(map(str, modes)) or 'unset'} (want {wanted})",
                ID,
            ),
        )
