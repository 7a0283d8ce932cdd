"""``Autoscaler``: a HorizontalPodAutoscaler for anything :class:`~trainops.constructs._core.protocols.Scalable`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import plain, require_whole
from trainops.constructs._core.protocols import Scalable

_KIND = "Autoscaler"


class Autoscaler(ObjectConstruct):
    """An autoscaling/v2 HorizontalPodAutoscaler that scales a ``ModelServer`` on resource utilization.

    Utilization is a percentage of the pods' requests (which ``ModelServer`` always sets). Creating
    the Autoscaler marks its target, whose Deployment then omits ``spec.replicas`` so Argo CD does
    not fight the HPA. Argo CD syncs it in wave ``1``, after the Deployment.

    Args:
        scope: the parent construct (a Chart).
        id: construct id.
        target: the ModelServer to scale.
        min_replicas: fewest pods. Default: 2 (survives one pod's loss).
        max_replicas: most pods. Default: 10.
        cpu_utilization: target average cpu utilization in percent of requests, or ``None`` for no
            cpu metric. Default: 70.
        memory_utilization: target average memory utilization in percent of requests, or ``None``.
            Default: 80.
        behavior: ``spec.behavior`` as the autoscaling/v2 API spells it (``scaleUp``/``scaleDown``
            with ``stabilizationWindowSeconds`` and ``policies``). Default: the Kubernetes default.
        name: HPA name, a DNS-1123 label. Default: the target's name.

    Raises:
        ValueError: ``min_replicas`` < 1, ``min_replicas`` > ``max_replicas``, a utilization outside
            1..100, no metric at all, or a target another Autoscaler already scales.

    Source: https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/horizontal-pod-autoscaler-v2/
    """

    KIND = "HorizontalPodAutoscaler"
    API_VERSION = "autoscaling/v2"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        target: Scalable,
        min_replicas: int = 2,
        max_replicas: int = 10,
        cpu_utilization: int | None = 70,
        memory_utilization: int | None = 80,
        behavior: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", target.name if name is None else name)
        self._min = require_whole(_KIND, "min_replicas", min_replicas, minimum=1)
        self._max = require_whole(_KIND, "max_replicas", max_replicas, minimum=1)
        if self._min > self._max:
            raise ValueError(
                f"{_KIND} min_replicas={min_replicas!r}: must not exceed max_replicas={max_replicas!r}"
            )
        metrics: list[dict[str, Any]] = []
        for resource, prop, value in (
            ("cpu", "cpu_utilization", cpu_utilization),
            ("memory", "memory_utilization", memory_utilization),
        ):
            if value is None:
                continue
            percent = require_whole(_KIND, prop, value, minimum=1)
            if percent > 100:
                raise ValueError(f"{_KIND} {prop}={value!r}: must be at most 100 (percent of requests)")
            metrics.append(
                {
                    "type": "Resource",
                    "resource": {
                        "name": resource,
                        "target": {"type": "Utilization", "averageUtilization": percent},
                    },
                }
            )
        if not metrics:
            raise ValueError(
                f"{_KIND} cpu_utilization=None, memory_utilization=None: at least one metric is required"
            )
        if behavior is not None and not isinstance(behavior, Mapping):
            raise ValueError(f"{_KIND} behavior={behavior!r}: must be a mapping")
        self._target = target
        spec: dict[str, Any] = {
            "scaleTargetRef": {"apiVersion": target.api_version, "kind": target.kind, "name": target.name},
            "minReplicas": self._min,
            "maxReplicas": self._max,
            "metrics": metrics,
        }
        if behavior:
            spec["behavior"] = plain(behavior)
        target.mark_autoscaled(self, max_replicas=self._max)
        emit(
            self,
            {
                "apiVersion": self.api_version,
                "kind": self.kind,
                "metadata": {"name": self._name, "annotations": argocd_annotations(wave=1)},
                "spec": spec,
            },
        )

    @property
    def target(self) -> Scalable:
        """The scaled workload (e.g. a ModelServer)."""
        return self._target

    @property
    def min_replicas(self) -> int:
        """Fewest pods."""
        return self._min

    @property
    def max_replicas(self) -> int:
        """Most pods."""
        return self._max
