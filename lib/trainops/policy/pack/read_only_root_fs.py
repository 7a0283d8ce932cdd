"""Containers set ``readOnlyRootFilesystem: true``; writes go to an emptyDir or a PVC.

Why: a writable root file system lets an attacker drop tools into the image's paths, and silently
fills the node's disk when a job writes checkpoints or caches there instead of to a volume.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        securityContext: {readOnlyRootFilesystem: true}
        volumeMounts: [{name: tmp, mountPath: /tmp}]
      volumes: [{name: tmp, emptyDir: {}}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]

Remediation: Set securityContext.readOnlyRootFilesystem to true and mount an emptyDir where the process writes.

Source: https://kubernetes.io/docs/tasks/configure-pod-container/security-context/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "read-only-root-fs"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each (non-ephemeral) container whose root file system is writable."""
    for container in all_containers(obj, ephemeral=False):
        value = container.get("securityContext", "readOnlyRootFilesystem")
        if value is None and container.site.partial:
            continue  # a patch: the pod spec it completes sets it
        if value is not True:
            yield Issue(
                container.at("securityContext", "readOnlyRootFilesystem"),
                f'container "{container.name}" has a writable root file system',
                ID,
            )
