"""Pods use only the volume types Pod Security "restricted" allows: configMap, csi, downwardAPI,
emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret.

Why: the other in-tree types (an inline ``nfs`` server for a NAS dataset, ``iscsi``, ``rbd``,
``cephfs``, ``gitRepo``...) mount storage straight from the node with the pod's say on server and
path, bypassing the PersistentVolume an administrator controls; a namespace enforcing
``restricted`` rejects the pod. Mount NAS datasets through a PersistentVolume and a claim.
``hostPath`` is rule ``no-host-path``'s.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - {name: data, persistentVolumeClaim: {claimName: imagenet}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - {name: data, nfs: {server: nas.example.com, path: /datasets/imagenet}}

Remediation: Define a PersistentVolume for the storage and mount it through a persistentVolumeClaim volume.

Source: k8s.io/pod-security-admission policy/check_restrictedVolumes.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, as_list, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "volume-types"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Volume sources Pod Security "restricted" allows (``restrictedVolumes_1_0``).
ALLOWED: Final = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
#: Every other volume source of core/v1 ``VolumeSource`` (hostPath is ``no-host-path``'s).
FORBIDDEN: Final = (
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "portworxVolume",
    "photonPersistentDisk",
    "scaleIO",
    "storageos",
)


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each volume with a source outside :data:`ALLOWED` (a volume without a source is defaulted to
    an emptyDir by the API server, ``SetDefaults_Volume``)."""
    for site in pod_templates(obj):
        for index, volume in enumerate(as_list(site.spec.get("volumes"))):
            if not isinstance(volume, dict):
                continue
            for source in FORBIDDEN:
                if volume.get(source) is not None:
                    yield Issue(
                        (*site.parts, "volumes", index, source),
                        f'volume "{volume.get("name", "?")}" is of type {source}, which Pod Security restricted forbids',
                        ID,
                    )
                    break
