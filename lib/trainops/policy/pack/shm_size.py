"""Multi-GPU and multi-worker training pods mount a memory emptyDir at ``/dev/shm`` whose sizeLimit
is at most the container's memory limit.

Why: the container runtime gives ``/dev/shm`` 64 MiB; PyTorch DataLoader workers and NCCL's shared
memory transport need far more and crash with "Bus error" or hang. The emptyDir's memory counts
against the container's memory limit, so an unbounded or larger one invites an OOM kill.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources: {limits: {memory: 64Gi, nvidia.com/gpu: "4"}}
        volumeMounts: [{name: shm, mountPath: /dev/shm}]
      volumes:
      - {name: shm, emptyDir: {medium: Memory, sizeLimit: 32Gi}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources: {limits: {memory: 64Gi, nvidia.com/gpu: "4"}}

Remediation: Mount an emptyDir with medium Memory and a sizeLimit no larger than the memory limit at /dev/shm.

Source: https://pytorch.org/docs/stable/data.html#multi-process-data-loading
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import (
    POD_KINDS,
    Container,
    containers,
    gpu_count,
    is_training,
    pod_templates,
    quantity,
    replicas_of,
    resource,
)
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "shm-size"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def _shm_volume(
    container: Container, volumes: dict[str, tuple[int, dict[str, Any]]]
) -> tuple[int, dict[str, Any]] | None:
    mounts = container.get("volumeMounts")
    for mount in mounts if isinstance(mounts, list) else []:
        if isinstance(mount, dict) and mount.get("mountPath") in ("/dev/shm", "/dev/shm/"):
            return volumes.get(str(mount.get("name")))
    return None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per training container with >1 GPU, or in a job with >1 pod: a memory emptyDir at /dev/shm, bounded."""
    total = sum(r.replicas for r in replicas_of(obj))
    for site in pod_templates(obj):
        volumes_list = site.spec.get("volumes")
        volumes = {
            str(v.get("name")): (i, v)
            for i, v in enumerate(volumes_list if isinstance(volumes_list, list) else [])
            if isinstance(v, dict)
        }
        for container in containers(site, ephemeral=False):
            if container.field != "containers":
                continue
            gpus = gpu_count(container, ctx.facts.gpu_resources)
            if not (gpus > 1 or (is_training(site) and total > 1 and gpus > 0)):
                continue
            found = _shm_volume(container, volumes)
            empty_dir = found[1].get("emptyDir") if found else None
            if found is None or not isinstance(empty_dir, dict) or empty_dir.get("medium") != "Memory":
                yield Issue(
                    container.at("volumeMounts"),
                    f'container "{container.name}" ({gpus} GPUs) mounts no memory emptyDir at /dev/shm',
                    ID,
                )
                continue
            index = found[0]
            size = quantity(empty_dir.get("sizeLimit"))
            limit = resource(container, "limits", "memory")
            where = (*site.parts, "volumes", index, "emptyDir", "sizeLimit")
            if size is None:
                yield Issue(where, f'/dev/shm of container "{container.name}" has no sizeLimit', ID)
            elif limit is not None and size > limit:
                yield Issue(
                    where,
                    f"/dev/shm sizeLimit {empty_dir.get('sizeLimit')} exceeds the memory limit "
                    f'{container.get("resources", "limits", "memory")} of container "{container.name}"',
                    ID,
                )
