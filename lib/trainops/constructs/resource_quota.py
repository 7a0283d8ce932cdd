"""``ResourceQuota``: a team namespace's compute, GPU and storage quota."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import require_labels, require_quantity, require_whole
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.cluster import Cluster
from trainops.core.naming import qualified_name_problem
from trainops.core.quantity import Quantity

_KIND = "ResourceQuota"


class ResourceQuota(ObjectConstruct):
    """A v1 ResourceQuota capping what one team's namespace may request.

    Keys of ``spec.hard``: ``requests.cpu``/``requests.memory`` (``cpu``, ``memory``),
    ``limits.cpu``/``limits.memory`` (``limits_cpu``, ``limits_memory``),
    ``requests.<cluster.gpu_resource>`` (``gpus``; extended resources are quota'd by requests only),
    ``persistentvolumeclaims`` (``pvcs``), ``requests.storage`` (``storage``) and ``pods``.
    Quantities are written canonically. A quota on cpu or memory makes the API server reject pods
    that do not set them: pair it with a ``LimitRange`` (trainops workloads always set them).
    Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (a Chart; its namespace is the quota's).
        id: construct id.
        cluster: target cluster; supplies the GPU resource name.
        name: quota name, a DNS-1123 label. Default: ``"team-quota"``.
        cpu: total cpu requests in cores, e.g. ``"64"``. Default: no cap.
        memory: total memory requests in bytes, e.g. ``"512Gi"``. Default: no cap.
        limits_cpu: total cpu limits, at least ``cpu``. Default: no cap.
        limits_memory: total memory limits, at least ``memory``. Default: no cap.
        gpus: total GPUs requested (whole). Default: no cap.
        pvcs: number of PersistentVolumeClaims. Default: no cap.
        storage: total storage requested by PVCs in bytes, e.g. ``"10Ti"``. Default: no cap.
        pods: number of pods. Default: no cap.
        hard: further ``spec.hard`` entries (resource name → quantity), e.g.
            ``{"count/services": "10"}``; must not repeat a key set by the props above. Default: none.
        labels: extra labels. Default: none.

    Raises:
        ValueError: no cap at all; a bad or non-positive quantity or count; a limit below its
            request cap; a bad or repeated ``hard`` key; a bad name or label.

    Source: https://kubernetes.io/docs/concepts/policy/resource-quotas/,
    https://kubernetes.io/docs/concepts/policy/resource-quotas/#resource-quota-for-extended-resources
    """

    KIND = "ResourceQuota"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str = "team-quota",
        cpu: str | None = None,
        memory: str | None = None,
        limits_cpu: str | None = None,
        limits_memory: str | None = None,
        gpus: int | None = None,
        pvcs: int | None = None,
        storage: str | None = None,
        pods: int | None = None,
        hard: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        caps: dict[str, str] = {}
        requests_cpu = _quantity("cpu", cpu)
        requests_memory = _quantity("memory", memory, whole_bytes=True)
        limit_cpu = _quantity("limits_cpu", limits_cpu)
        limit_memory = _quantity("limits_memory", limits_memory, whole_bytes=True)
        for prop, limit, request, request_prop in (
            ("limits_cpu", limit_cpu, requests_cpu, "cpu"),
            ("limits_memory", limit_memory, requests_memory, "memory"),
        ):
            if limit is not None and request is not None and limit.value < request.value:
                raise ValueError(
                    f"{_KIND} {prop}={limit.canonical()!r}: must be at least {request_prop}={request.canonical()!r}"
                )
        for key, quantity in (
            ("requests.cpu", requests_cpu),
            ("requests.memory", requests_memory),
            ("limits.cpu", limit_cpu),
            ("limits.memory", limit_memory),
        ):
            if quantity is not None:
                caps[key] = quantity.canonical()
        if gpus is not None:
            caps[f"requests.{cluster.gpu_resource}"] = str(require_whole(_KIND, "gpus", gpus, minimum=0))
        if pvcs is not None:
            caps["persistentvolumeclaims"] = str(require_whole(_KIND, "pvcs", pvcs, minimum=0))
        storage_q = _quantity("storage", storage, whole_bytes=True)
        if storage_q is not None:
            caps["requests.storage"] = storage_q.canonical()
        if pods is not None:
            caps["pods"] = str(require_whole(_KIND, "pods", pods, minimum=0))
        for key, value in (hard or {}).items():
            if not isinstance(key, str) or qualified_name_problem(key.replace("requests.", "", 1)):
                raise ValueError(f"{_KIND} hard: {key!r} is not a resource name")
            if key in caps:
                raise ValueError(f"{_KIND} hard: {key!r} is already set by a prop")
            caps[key] = require_quantity(_KIND, f"hard[{key!r}]", value).canonical()
        if not caps:
            raise ValueError(f"{_KIND} {self._name!r}: give at least one cap (cpu, memory, gpus, pvcs, ...)")
        self._hard = dict(sorted(caps.items()))
        self.emit_object(
            {"spec": {"hard": self._hard}},
            labels=require_labels(_KIND, "labels", labels or {}),
            annotations=argocd_annotations(wave=PLATFORM_WAVE),
        )

    @property
    def hard(self) -> dict[str, str]:
        """``spec.hard`` (a copy): resource name → canonical quantity."""
        return dict(self._hard)


def _quantity(prop: str, value: str | None, *, whole_bytes: bool = False) -> Quantity | None:
    return None if value is None else require_quantity(_KIND, prop, value, whole_bytes=whole_bytes)
