"""Pod-spec plumbing shared by the workload constructs (PyTorchJob, ModelServer).

Secure defaults that agree with the default rule pack (POLICIES.md):

* pod ``securityContext``: ``runAsNonRoot: true``, ``runAsUser``/``runAsGroup``/``fsGroup`` 1000,
  ``fsGroupChangePolicy: OnRootMismatch`` (no recursive chown of large dataset volumes on every
  start) and ``seccompProfile: RuntimeDefault`` (inherited by every container);
* container ``securityContext``: ``allowPrivilegeEscalation: false``, capabilities drop ``ALL``
  (``IPC_LOCK`` added only for RDMA memory registration), ``readOnlyRootFilesystem: true`` with an
  emptyDir at ``/tmp`` for scratch writes;
* ``automountServiceAccountToken: false``;
* cpu and memory requests equal to limits (Guaranteed QoS); extended resources (GPUs, RDMA HCAs)
  are written to both maps, as Kubernetes requires them to be equal.

Sources: https://kubernetes.io/docs/concepts/security/pod-security-standards/ (restricted profile),
https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/#guaranteed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.cluster import Cluster
from trainops.constructs._core.base import require_name
from trainops.constructs._core.props import require_path
from trainops.constructs._core.protocols import AccessMode, ClaimSource
from trainops.quantity import Quantity

ACCESS_MODES: tuple[AccessMode, ...] = ("ReadWriteOnce", "ReadWriteMany", "ReadOnlyMany", "ReadWriteOncePod")

#: User and group id the pods run as (any non-zero id satisfies ``run-as-non-root``).
RUN_AS_USER = 1000
#: Name and mount path of the shared-memory emptyDir used by NCCL and DataLoader workers.
SHM_VOLUME, SHM_PATH = "shm", "/dev/shm"
#: Name and mount path of the scratch emptyDir that a read-only root filesystem needs.
TMP_VOLUME, TMP_PATH = "tmp", "/tmp"
_RESERVED_VOLUMES = frozenset({SHM_VOLUME, TMP_VOLUME})


@dataclass(frozen=True)
class Mount:
    """One PersistentVolumeClaim mounted into the main container.

    Args:
        claim_name: the PVC name; also the pod volume name.
        path: absolute mount path in the container.
        read_only: mount read-only. Default: ``False``.
    """

    claim_name: str
    path: str
    read_only: bool = False

    def volume(self) -> dict[str, Any]:
        """The core/v1 Volume for this claim."""
        return {"name": self.claim_name, "persistentVolumeClaim": {"claimName": self.claim_name}}

    def volume_mount(self) -> dict[str, Any]:
        """The core/v1 VolumeMount for this claim."""
        mount: dict[str, Any] = {"name": self.claim_name, "mountPath": self.path}
        if self.read_only:
            mount["readOnly"] = True
        return mount


def resolve_mount(
    construct: str,
    prop: str,
    volume: ClaimSource | str,
    path: str,
    *,
    read_only: bool,
    pods: int,
    existing: Sequence[Mount] = (),
    reserved_paths: Sequence[str] = (),
) -> Mount:
    """Check one mount request and return it as a :class:`Mount`.

    Args:
        construct: construct class name for messages.
        prop: prop or method name for messages, e.g. ``"mount"``.
        volume: a ``ClaimSource`` (e.g. ``VolumeClaim``) or the name of an existing claim.
        path: absolute mount path.
        read_only: whether the mount is read-only.
        pods: how many pods mount the claim at once (checks the access mode of a ``ClaimSource``).
        existing: mounts already made, to reject duplicate paths.
        reserved_paths: paths the construct mounts itself (``/dev/shm``, ``/tmp``).

    Raises:
        ValueError: a bad claim name or path, a path already mounted, a claim called like a
            built-in volume, or an access mode the pods cannot share.
    """
    claim = volume if isinstance(volume, str) else volume.claim_name
    require_name(construct, f"{prop} volume", claim)
    if claim in _RESERVED_VOLUMES:
        raise ValueError(f"{construct} {prop} volume={claim!r}: the name is reserved for a built-in volume")
    require_path(construct, f"{prop} path", path)
    taken = [m.path for m in existing] + list(reserved_paths)
    if path in taken:
        raise ValueError(f"{construct} {prop} path={path!r}: already mounted")
    if not isinstance(volume, str):
        check_access(construct, prop, volume, pods=pods, read_only=read_only)
    return Mount(claim, path, read_only)


def check_access(construct: str, prop: str, volume: ClaimSource, *, pods: int, read_only: bool) -> None:
    """Check that ``pods`` pods can mount ``volume`` with its access mode.

    ReadWriteOnce and ReadWriteOncePod volumes attach to one node (one pod for ``...Pod``), so
    they cannot back several pods; ReadOnlyMany volumes must be mounted read-only.

    Raises:
        ValueError: quoting the claim, its access mode and the pod count.
    """
    mode = volume.access_mode
    if mode == "ReadOnlyMany" and not read_only:
        raise ValueError(
            f"{construct} {prop} volume={volume.claim_name!r}: access mode ReadOnlyMany needs read_only=True"
        )
    if pods > 1 and mode in ("ReadWriteOnce", "ReadWriteOncePod"):
        raise ValueError(
            f"{construct} {prop} volume={volume.claim_name!r}: access mode {mode} cannot be shared by "
            f"{pods} pods; use ReadWriteMany (or ReadOnlyMany for read-only data)"
        )


def pod_security_context() -> dict[str, Any]:
    """Pod-level ``securityContext``: non-root uid/gid 1000, fsGroup 1000, RuntimeDefault seccomp."""
    return {
        "runAsNonRoot": True,
        "runAsUser": RUN_AS_USER,
        "runAsGroup": RUN_AS_USER,
        "fsGroup": RUN_AS_USER,
        "fsGroupChangePolicy": "OnRootMismatch",
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def container_security_context(
    *, read_only_root_filesystem: bool = True, add_capabilities: Sequence[str] = ()
) -> dict[str, Any]:
    """Container-level ``securityContext``: no privilege escalation, drop ALL (+ ``add_capabilities``)."""
    capabilities: dict[str, list[str]] = {"drop": ["ALL"]}
    if add_capabilities:
        capabilities["add"] = sorted(add_capabilities)
    return {
        "allowPrivilegeEscalation": False,
        "capabilities": capabilities,
        "privileged": False,
        "readOnlyRootFilesystem": read_only_root_filesystem,
    }


def guaranteed_resources(cpu: Quantity, memory: Quantity, extended: Mapping[str, int]) -> dict[str, Any]:
    """``resources`` with requests equal to limits (Guaranteed QoS), canonical quantities.

    Args:
        cpu: cores.
        memory: bytes.
        extended: extended resource name → whole count (e.g. ``{"nvidia.com/gpu": 4}``); zero
            counts are left out.
    """
    amounts = {"cpu": cpu.canonical(), "memory": memory.canonical()}
    amounts.update({name: str(count) for name, count in sorted(extended.items()) if count})
    return {"requests": dict(amounts), "limits": dict(amounts)}


def gpu_placement(cluster: Cluster) -> dict[str, Any]:
    """Pod-spec fields that place a GPU pod: tolerations of ``cluster.gpu_taints`` and
    ``cluster.gpu_node_selector`` (each only when the cluster declares some)."""
    placement: dict[str, Any] = {}
    if cluster.gpu_taints:
        placement["tolerations"] = [taint.toleration() for taint in cluster.gpu_taints]
    if cluster.gpu_node_selector:
        placement["nodeSelector"] = dict(sorted(cluster.gpu_node_selector.items()))
    return placement


def env_entries(env: Mapping[str, str], defaults: Mapping[str, str] = {}) -> list[dict[str, str]]:
    """core/v1 EnvVar list: ``env`` exactly as given, then each default whose name ``env`` lacks."""
    entries = [{"name": name, "value": value} for name, value in env.items()]
    entries += [{"name": name, "value": value} for name, value in defaults.items() if name not in env]
    return entries


def scratch_volumes(
    *, shm_size: Quantity | None, tmp: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The built-in emptyDir volumes and their mounts.

    Args:
        shm_size: size limit of a ``medium: Memory`` emptyDir at ``/dev/shm``, or ``None`` for none.
        tmp: add a disk-backed emptyDir at ``/tmp`` (for a read-only root filesystem).

    Returns:
        ``(volumes, volumeMounts)``.
    """
    volumes: list[dict[str, Any]] = []
    mounts: list[dict[str, Any]] = []
    if shm_size is not None:
        volumes.append(
            {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": shm_size.canonical()}}
        )
        mounts.append({"name": SHM_VOLUME, "mountPath": SHM_PATH})
    if tmp:
        volumes.append({"name": TMP_VOLUME, "emptyDir": {}})
        mounts.append({"name": TMP_VOLUME, "mountPath": TMP_PATH})
    return volumes, mounts
