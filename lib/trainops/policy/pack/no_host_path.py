"""Pods mount no hostPath volumes, except paths on an allow-list; container runtime sockets never.

Why: a hostPath volume reads or writes the node's file system: node credentials, other pods' data,
and through a docker or containerd socket full control of the node. Training data belongs on a PVC;
driver paths (if any) go on the allow-list.

Options: ``allowed-paths``: path prefixes that may be mounted (e.g. ``/usr/local/nvidia``); a
prefix matches the path itself and everything below it.

Default: enabled, level error, ``allowed-paths: []``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - name: data
        persistentVolumeClaim: {claimName: data}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]
      volumes:
      - name: docker
        hostPath: {path: /var/run/docker.sock}

Remediation: Replace the hostPath volume with a PVC, ConfigMap or emptyDir, or add a needed driver path to allowed-paths.

Source: https://kubernetes.io/docs/concepts/storage/volumes/#hostpath
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "no-host-path"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"allowed-paths": {"type": "array", "items": {"type": "string"}}}
DEFAULT: dict[str, Any] = {"allowed-paths": []}
RULE = register(describe(ID, LEVEL, __doc__))

#: Container runtime sockets: never allowed, whatever the allow-list says.
SOCKETS = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/var/run/containerd",
    "/run/containerd",
    "/var/run/crio",
    "/run/crio",
    "/var/run/cri-dockerd.sock",
)


def _under(path: str, prefix: str) -> bool:
    prefix = posixpath.normpath(prefix)
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each hostPath volume whose path is a runtime socket or not under an allowed prefix."""
    allowed: list[str] = list(conf["allowed-paths"])
    for site in pod_templates(obj):
        volumes = site.spec.get("volumes")
        for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
            host = volume.get("hostPath") if isinstance(volume, dict) else None
            if not isinstance(host, dict):
                continue
            raw = host.get("path")
            path = posixpath.normpath(raw) if isinstance(raw, str) and raw else ""
            name = volume.get("name", "?")
            parts = (*site.parts, "volumes", index, "hostPath", "path")
            inside = [socket for socket in SOCKETS if _under(socket, path) and socket != path]
            if any(_under(path, socket) for socket in SOCKETS):
                yield Issue(parts, f'volume "{name}" mounts the container runtime at hostPath {path}', ID)
            elif path and inside:
                yield Issue(
                    parts,
                    f'volume "{name}" mounts hostPath {path}, which holds the container runtime at {inside[0]}',
                    ID,
                )
            elif not any(_under(path, prefix) for prefix in allowed):
                yield Issue(
                    parts, f'volume "{name}" mounts hostPath {path or "(empty)"} (not in allowed-paths)', ID
                )
