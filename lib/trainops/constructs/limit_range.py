"""``LimitRange``: default container requests and limits for a team namespace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import require_labels, require_quantity
from trainops.constructs.team_namespace import PLATFORM_WAVE
from trainops.core.quantity import Quantity

_KIND = "LimitRange"


class LimitRange(ObjectConstruct):
    """A v1 LimitRange giving every container without its own values default requests and limits
    (one ``type: Container`` item), so pods of third-party charts pass a ``ResourceQuota``.

    Default requests equal default limits (Guaranteed QoS, as trainops workloads use). Optional
    maxima cap any single container. Argo CD syncs it in wave ``-2``, with the Namespace.

    Args:
        scope: the parent construct (a Chart; its namespace is the LimitRange's).
        id: construct id.
        name: LimitRange name, a DNS-1123 label. Default: ``"container-defaults"``.
        cpu: default cpu limit per container in cores. Default: ``"1"``.
        memory: default memory limit per container in bytes. Default: ``"2Gi"``.
        request_cpu: default cpu request, at most ``cpu``. Default: ``cpu``.
        request_memory: default memory request, at most ``memory``. Default: ``memory``.
        max_cpu: largest cpu limit of one container, at least ``cpu``. Default: no maximum.
        max_memory: largest memory limit of one container, at least ``memory``. Default: no maximum.
        labels: extra labels. Default: none.

    Raises:
        ValueError: a bad or non-positive quantity; a default request above its default limit; a
            default limit above its maximum; a bad name or label.

    Source: https://kubernetes.io/docs/concepts/policy/limit-range/,
    https://kubernetes.io/docs/tasks/administer-cluster/manage-resources/memory-default-namespace/
    """

    KIND = "LimitRange"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str = "container-defaults",
        cpu: str = "1",
        memory: str = "2Gi",
        request_cpu: str | None = None,
        request_memory: str | None = None,
        max_cpu: str | None = None,
        max_memory: str | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        limits = {
            "cpu": require_quantity(_KIND, "cpu", cpu),
            "memory": require_quantity(_KIND, "memory", memory, whole_bytes=True),
        }
        requests = {
            "cpu": limits["cpu"]
            if request_cpu is None
            else require_quantity(_KIND, "request_cpu", request_cpu),
            "memory": limits["memory"]
            if request_memory is None
            else require_quantity(_KIND, "request_memory", request_memory, whole_bytes=True),
        }
        maxima: dict[str, Quantity] = {}
        if max_cpu is not None:
            maxima["cpu"] = require_quantity(_KIND, "max_cpu", max_cpu)
        if max_memory is not None:
            maxima["memory"] = require_quantity(_KIND, "max_memory", max_memory, whole_bytes=True)
        for resource in ("cpu", "memory"):
            if requests[resource].value > limits[resource].value:
                raise ValueError(
                    f"{_KIND} request_{resource}={requests[resource].canonical()!r}: must not exceed "
                    f"{resource}={limits[resource].canonical()!r}"
                )
            if resource in maxima and limits[resource].value > maxima[resource].value:
                raise ValueError(
                    f"{_KIND} max_{resource}={maxima[resource].canonical()!r}: must be at least "
                    f"{resource}={limits[resource].canonical()!r}"
                )
        item: dict[str, Any] = {
            "type": "Container",
            "default": {k: q.canonical() for k, q in limits.items()},
            "defaultRequest": {k: q.canonical() for k, q in requests.items()},
        }
        if maxima:
            item["max"] = {k: q.canonical() for k, q in maxima.items()}
        self.emit_object(
            {"spec": {"limits": [item]}},
            labels=require_labels(_KIND, "labels", labels or {}),
            annotations=argocd_annotations(wave=PLATFORM_WAVE),
        )
