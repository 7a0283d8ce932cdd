"""``Autoscaler``: a HorizontalPodAutoscaler for anything :class:`~trainops.constructs._core.protocols.Scalable`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import plain, require_labels, require_quantity, require_whole
from trainops.constructs._core.protocols import Scalable
from trainops.core.naming import DNS1123_SUBDOMAIN

_KIND = "Autoscaler"
#: Longest ``stabilizationWindowSeconds`` and ``periodSeconds`` the API server accepts
#: (kubernetes ``pkg/apis/autoscaling/validation/validation.go``: ``MaxStabilizationWindowSeconds``,
#: ``MaxPeriodSeconds``).
MAX_STABILIZATION_SECONDS = 3600
MAX_PERIOD_SECONDS = 1800


@dataclass(frozen=True)
class PodsMetric:
    """A ``Pods`` metric: a per-pod custom metric averaged over the target's pods (e.g. the
    ``requests-per-second`` a Prometheus Adapter serves from the custom metrics API).

    Args:
        name: metric name, e.g. ``"requests-per-second"`` (a path segment: no ``/`` or ``%``).
        average_value: target average per pod as a quantity string, e.g. ``"100"`` or ``"500m"``.
        selector: extra label selector (``matchLabels``) on the metric series. Default: none.

    Source: https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/horizontal-pod-autoscaler-v2/
    (``PodsMetricSource``; the only target type is ``AverageValue``).
    """

    name: str
    average_value: str
    selector: Mapping[str, str] | None = None

    def spec(self, index: int) -> dict[str, Any]:
        """The ``MetricSpec`` entry; ``index`` names it in messages."""
        prop = f"metrics[{index}]"
        return {
            "type": "Pods",
            "pods": {
                "metric": _identifier(prop, self.name, self.selector),
                "target": {
                    "type": "AverageValue",
                    "averageValue": _quantity(f"{prop} average_value", self.average_value),
                },
            },
        }


@dataclass(frozen=True)
class ObjectMetric:
    """An ``Object`` metric: one metric describing a single Kubernetes object (e.g. an Ingress'
    ``requests-per-second``). Give exactly one of ``value`` (the object's total) and
    ``average_value`` (the total divided by the pod count).

    Args:
        name: metric name (a path segment: no ``/`` or ``%``).
        api_version: apiVersion of the described object, e.g. ``"networking.k8s.io/v1"``.
        kind: kind of the described object, e.g. ``"Ingress"``.
        object_name: ``metadata.name`` of the described object (same namespace as the HPA).
        value: target value as a quantity string. Default: none.
        average_value: target value per pod as a quantity string. Default: none.
        selector: extra label selector (``matchLabels``) on the metric series. Default: none.

    Source: ``ObjectMetricSource`` in autoscaling/v2 (``describedObject``, ``target``).
    """

    name: str
    api_version: str
    kind: str
    object_name: str
    value: str | None = None
    average_value: str | None = None
    selector: Mapping[str, str] | None = None

    def spec(self, index: int) -> dict[str, Any]:
        """The ``MetricSpec`` entry; ``index`` names it in messages."""
        prop = f"metrics[{index}]"
        for field_name, text in (("api_version", self.api_version), ("kind", self.kind)):
            if not isinstance(text, str) or not text or any(c.isspace() for c in text):
                raise ValueError(f"{_KIND} {prop} {field_name}={text!r}: must be a non-empty word")
        described = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": require_name(
                _KIND, f"{prop} object_name", self.object_name, max_length=253, syntax=DNS1123_SUBDOMAIN
            ),
        }
        return {
            "type": "Object",
            "object": {
                "describedObject": described,
                "metric": _identifier(prop, self.name, self.selector),
                "target": _value_target(prop, self.value, self.average_value),
            },
        }


@dataclass(frozen=True)
class ExternalMetric:
    """An ``External`` metric: a metric from outside the cluster (e.g. a queue length). Give exactly
    one of ``value`` and ``average_value``.

    Args:
        name: metric name (a path segment: no ``/`` or ``%``).
        value: target value as a quantity string. Default: none.
        average_value: target value per pod as a quantity string. Default: none.
        selector: label selector (``matchLabels``) picking the series. Default: none.

    Source: ``ExternalMetricSource`` in autoscaling/v2.
    """

    name: str
    value: str | None = None
    average_value: str | None = None
    selector: Mapping[str, str] | None = None

    def spec(self, index: int) -> dict[str, Any]:
        """The ``MetricSpec`` entry; ``index`` names it in messages."""
        prop = f"metrics[{index}]"
        return {
            "type": "External",
            "external": {
                "metric": _identifier(prop, self.name, self.selector),
                "target": _value_target(prop, self.value, self.average_value),
            },
        }


#: A custom metric of an :class:`Autoscaler` (beyond the cpu/memory utilization props).
Metric = PodsMetric | ObjectMetric | ExternalMetric


@dataclass(frozen=True)
class ScalingPolicy:
    """One ``HPAScalingPolicy``: change by at most ``value`` pods (``Pods``) or percent of the current
    replicas (``Percent``) per ``period_seconds``.

    Args:
        type: ``"Pods"`` or ``"Percent"``.
        value: amount, at least 1.
        period_seconds: window the policy holds over, 1..1800.
    """

    type: Literal["Pods", "Percent"]
    value: int
    period_seconds: int

    def spec(self, prop: str) -> dict[str, Any]:
        """The ``HPAScalingPolicy`` entry; ``prop`` names it in messages."""
        if self.type not in ("Pods", "Percent"):
            raise ValueError(f"{_KIND} {prop} type={self.type!r}: must be 'Pods' or 'Percent'")
        value = require_whole(_KIND, f"{prop} value", self.value, minimum=1)
        period = require_whole(_KIND, f"{prop} period_seconds", self.period_seconds, minimum=1)
        if period > MAX_PERIOD_SECONDS:
            raise ValueError(
                f"{_KIND} {prop} period_seconds={self.period_seconds!r}: must be at most {MAX_PERIOD_SECONDS}"
            )
        return {"type": self.type, "value": value, "periodSeconds": period}


@dataclass(frozen=True)
class ScalingRules:
    """``HPAScalingRules`` for one direction (``scale_up`` or ``scale_down`` of an :class:`Autoscaler`).

    Args:
        policies: at least one :class:`ScalingPolicy`.
        stabilization_seconds: ``stabilizationWindowSeconds``, 0..3600. Default: the Kubernetes default
            (0 for scale-up, 300 for scale-down).
        select_policy: ``"Max"`` (default in Kubernetes), ``"Min"`` or ``"Disabled"``. Default: unset.

    Source: kubernetes ``pkg/apis/autoscaling/validation/validation.go`` (``validateScalingRules``,
    ``validateScalingPolicy``).
    """

    policies: Sequence[ScalingPolicy]
    stabilization_seconds: int | None = None
    select_policy: Literal["Max", "Min", "Disabled"] | None = None

    def spec(self, prop: str) -> dict[str, Any]:
        """The ``HPAScalingRules`` object; ``prop`` (``scale_up``/``scale_down``) names it in messages."""
        if isinstance(self.policies, str | ScalingPolicy) or not self.policies:
            raise ValueError(
                f"{_KIND} {prop} policies={self.policies!r}: must list at least one ScalingPolicy"
            )
        out: dict[str, Any] = {}
        if self.stabilization_seconds is not None:
            window = require_whole(_KIND, f"{prop} stabilization_seconds", self.stabilization_seconds)
            if window > MAX_STABILIZATION_SECONDS:
                raise ValueError(
                    f"{_KIND} {prop} stabilization_seconds={self.stabilization_seconds!r}: must be at most "
                    f"{MAX_STABILIZATION_SECONDS}"
                )
            out["stabilizationWindowSeconds"] = window
        if self.select_policy is not None:
            if self.select_policy not in ("Max", "Min", "Disabled"):
                raise ValueError(
                    f"{_KIND} {prop} select_policy={self.select_policy!r}: must be 'Max', 'Min' or 'Disabled'"
                )
            out["selectPolicy"] = self.select_policy
        policies = []
        for i, policy in enumerate(self.policies):
            if not isinstance(policy, ScalingPolicy):
                raise ValueError(f"{_KIND} {prop} policies[{i}]={policy!r}: must be a ScalingPolicy")
            policies.append(policy.spec(f"{prop} policies[{i}]"))
        out["policies"] = policies
        return out


def _identifier(prop: str, name: str, selector: Mapping[str, str] | None) -> dict[str, Any]:
    # validateMetricIdentifier: a required name that is a valid path segment (IsValidPathSegmentName).
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "%" in name:
        raise ValueError(f"{_KIND} {prop} name={name!r}: must be a metric name without '/' or '%'")
    out: dict[str, Any] = {"name": name}
    if selector is not None:
        labels = require_labels(_KIND, f"{prop} selector", selector)
        if labels:
            out["selector"] = {"matchLabels": labels}
    return out


def _quantity(prop: str, value: str) -> str:
    return require_quantity(_KIND, prop, value).canonical()


def _value_target(prop: str, value: str | None, average_value: str | None) -> dict[str, Any]:
    if (value is None) == (average_value is None):
        raise ValueError(f"{_KIND} {prop} value, average_value: give exactly one of them")
    if value is not None:
        return {"type": "Value", "value": _quantity(f"{prop} value", value)}
    assert average_value is not None
    return {"type": "AverageValue", "averageValue": _quantity(f"{prop} average_value", average_value)}


class Autoscaler(ObjectConstruct):
    """An autoscaling/v2 HorizontalPodAutoscaler that scales a ``ModelServer`` (anything
    :class:`~trainops.constructs._core.protocols.Scalable`) on resource utilization and custom metrics.

    Utilization is a percentage of the pods' requests, so a utilization target for a resource that
    some container of the target does not request is refused (the HPA controller could never compute
    it: kubernetes ``pkg/controller/podautoscaler/replica_calculator.go`` ``calculatePodRequests``
    fails with "missing request for cpu"). ``ModelServer`` always requests cpu and memory. Creating
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
        metrics: custom metrics after the utilization ones: :class:`PodsMetric`,
            :class:`ObjectMetric`, :class:`ExternalMetric`. Default: none.
        scale_up: typed ``behavior.scaleUp`` (:class:`ScalingRules`), instead of ``behavior``.
            Default: the Kubernetes default (double or +4 pods per 15 s, no stabilization).
        scale_down: typed ``behavior.scaleDown``. Default: the Kubernetes default (300 s
            stabilization, down to the recommendation at once).

    Raises:
        ValueError: ``min_replicas`` < 1, ``min_replicas`` > ``max_replicas``, a utilization outside
            1..100 or for a resource the target's containers do not request, no metric at all, a bad
            custom metric or scaling rule, ``behavior`` together with ``scale_up``/``scale_down``, or a
            target another Autoscaler already scales.

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
        metrics: Sequence[Metric] = (),
        scale_up: ScalingRules | None = None,
        scale_down: ScalingRules | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", target.name if name is None else name)
        self._min = require_whole(_KIND, "min_replicas", min_replicas, minimum=1)
        self._max = require_whole(_KIND, "max_replicas", max_replicas, minimum=1)
        if self._min > self._max:
            raise ValueError(
                f"{_KIND} min_replicas={min_replicas!r}: must not exceed max_replicas={max_replicas!r}"
            )
        metrics_out: list[dict[str, Any]] = []
        for resource, prop, value in (
            ("cpu", "cpu_utilization", cpu_utilization),
            ("memory", "memory_utilization", memory_utilization),
        ):
            if value is None:
                continue
            percent = require_whole(_KIND, prop, value, minimum=1)
            if percent > 100:
                raise ValueError(f"{_KIND} {prop}={value!r}: must be at most 100 (percent of requests)")
            if resource not in target.requested_resources:
                raise ValueError(
                    f"{_KIND} {prop}={value!r}: {target.kind} {target.name!r} has a container without a "
                    f"{resource} request (utilization is a percentage of requests)"
                )
            metrics_out.append(
                {
                    "type": "Resource",
                    "resource": {
                        "name": resource,
                        "target": {"type": "Utilization", "averageUtilization": percent},
                    },
                }
            )
        if isinstance(metrics, str) or not isinstance(metrics, Sequence):
            raise ValueError(f"{_KIND} metrics={metrics!r}: must be a sequence of metrics")
        for index, metric in enumerate(metrics):
            if not isinstance(metric, PodsMetric | ObjectMetric | ExternalMetric):
                raise ValueError(
                    f"{_KIND} metrics[{index}]={metric!r}: must be a PodsMetric, ObjectMetric or ExternalMetric"
                )
            metrics_out.append(metric.spec(index))
        if not metrics_out:
            raise ValueError(
                f"{_KIND} cpu_utilization=None, memory_utilization=None: at least one metric is required"
            )
        if behavior is not None and not isinstance(behavior, Mapping):
            raise ValueError(f"{_KIND} behavior={behavior!r}: must be a mapping")
        if behavior is not None and (scale_up is not None or scale_down is not None):
            raise ValueError(f"{_KIND} behavior: give either behavior or scale_up/scale_down, not both")
        typed_behavior: dict[str, Any] = {}
        for prop_name, field_name, rules in (
            ("scale_up", "scaleUp", scale_up),
            ("scale_down", "scaleDown", scale_down),
        ):
            if rules is None:
                continue
            if not isinstance(rules, ScalingRules):
                raise ValueError(f"{_KIND} {prop_name}={rules!r}: must be a ScalingRules")
            typed_behavior[field_name] = rules.spec(prop_name)
        self._target = target
        spec: dict[str, Any] = {
            "scaleTargetRef": {"apiVersion": target.api_version, "kind": target.kind, "name": target.name},
            "minReplicas": self._min,
            "maxReplicas": self._max,
            "metrics": metrics_out,
        }
        if behavior:
            spec["behavior"] = plain(behavior)
        elif typed_behavior:
            spec["behavior"] = typed_behavior
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

    @property
    def ignore_differences(self) -> dict[str, Any]:
        """The Argo CD ``Application.spec.ignoreDifferences`` entry for the field this HPA owns
        (the target's ``/spec/replicas``), to use with the ``RespectIgnoreDifferences=true`` sync option.

        Source: https://argo-cd.readthedocs.io/en/stable/user-guide/diffing/ and
        https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#respect-ignore-difference-configs
        """
        group = self._target.api_version.rpartition("/")[0]
        return {
            "group": group,
            "kind": self._target.kind,
            "name": self._target.name,
            "jsonPointers": ["/spec/replicas"],
        }
