"""``PodDisruptionBudget``: a policy/v1 PodDisruptionBudget for anything
:class:`~trainops.constructs._core.protocols.Selectable` with a replica count (e.g. ``ModelServer``)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from constructs import IValidation
from jsii import implements

from trainops.constructs._core.base import Construct, ObjectConstruct, add_check, require_name
from trainops.constructs._core.props import require_labels, require_whole
from trainops.constructs._core.protocols import Selectable

_KIND = "PodDisruptionBudget"
_PERCENT = re.compile(r"^(\d{1,3})%$")

#: ``spec.unhealthyPodEvictionPolicy`` values (policy/v1 ``UnhealthyPodEvictionPolicyType``).
EvictionPolicy = Literal["IfHealthyBudget", "AlwaysAllow"]
#: First Kubernetes minor on which ``unhealthyPodEvictionPolicy`` is on by default (beta in 1.27).
EVICTION_POLICY_MINOR = 27


class ReplicaFloor(Protocol):
    """Anything that bounds a workload's replicas from below (an ``Autoscaler``)."""

    @property
    def min_replicas(self) -> int:
        """Fewest pods."""
        ...


class Disruptable(Selectable, Protocol):
    """A :class:`Selectable` workload that knows its replicas and its autoscaler (``ModelServer``)."""

    @property
    def replicas(self) -> int | None:
        """``spec.replicas``, or ``None`` when an autoscaler owns it."""
        ...

    @property
    def autoscaler(self) -> ReplicaFloor | None:
        """The autoscaler scaling the workload, if any."""
        ...


IntOrPercent = int | str

if TYPE_CHECKING:
    from trainops.constructs.model_server import ModelServer

    def _model_server_is_disruptable(server: ModelServer) -> Disruptable:  # checked by mypy
        return server


def scaled(value: IntOrPercent, expected: int) -> int:
    """An int-or-percent budget field as a pod count of ``expected`` pods, rounded up.

    Mirrors ``intstr.GetScaledValueFromIntOrPercent(value, expected, true)`` as the disruption
    controller calls it in ``getExpectedPodCount`` (kubernetes ``pkg/controller/disruption/disruption.go``).
    """
    if isinstance(value, int):
        return value
    match = _PERCENT.match(value)
    assert match is not None
    return math.ceil(int(match.group(1)) * expected / 100)


def disruptions_possible(
    *, expected: int, min_available: IntOrPercent | None, max_unavailable: IntOrPercent | None
) -> bool:
    """Whether a budget lets at least one of ``expected`` healthy pods be evicted.

    The disruption controller allows ``currentHealthy - desiredHealthy`` disruptions, where
    ``desiredHealthy`` is ``minAvailable`` or ``expected - maxUnavailable`` (both scaled, rounded up).
    Source: kubernetes ``pkg/controller/disruption/disruption.go`` ``getExpectedPodCount`` and
    ``updatePdbStatus``.
    """
    if max_unavailable is not None:
        desired = expected - scaled(max_unavailable, expected)
    else:
        assert min_available is not None
        desired = scaled(min_available, expected)
    return expected - desired >= 1


def _int_or_percent(prop: str, value: object) -> IntOrPercent:
    if isinstance(value, str):
        match = _PERCENT.match(value)
        if match is None or int(match.group(1)) > 100:
            raise ValueError(f"{_KIND} {prop}={value!r}: must be a pod count or a percentage such as '50%'")
        return value
    return require_whole(_KIND, prop, value, minimum=0)


@implements(IValidation)
class _BudgetValidation:
    """Re-check the budget at synth (``node.validate()``), for an Autoscaler added after the budget."""

    def __init__(self, budget: PodDisruptionBudget) -> None:
        self._budget = budget

    def validate(self) -> list[str]:
        problem = self._budget.problem()
        return [] if problem is None else [problem]


class PodDisruptionBudget(ObjectConstruct):
    """A policy/v1 PodDisruptionBudget that keeps voluntary disruptions (node drains, cluster
    upgrades) from taking down too many of a workload's pods, and never blocks them all.

    Selects the target's pods by its (immutable) selector labels. The budget is one of
    ``max_unavailable`` (default ``1``: drains evict one pod at a time) or ``min_available``, each a
    pod count or a percentage. It is checked against the fewest pods the target can run: its
    ``replicas``, or the ``min_replicas`` of the Autoscaler scaling it. A budget that allows no
    eviction at that count (``min_available`` >= replicas, ``"100%"``, ``max_unavailable=0``) is
    refused: it would stall every node drain. The check runs at construction and again at
    ``node.validate()`` (``App.synth()``) for an Autoscaler created after the budget.

    On Kubernetes 1.27+ ``unhealthyPodEvictionPolicy`` is ``AlwaysAllow``, so pods that are not
    ready (crash-looping) can always be evicted and never hold up a drain.
    The budget syncs with its workload (Argo CD wave 0, the default; no annotation).

    Args:
        scope: the parent construct (a Chart in the target's namespace).
        id: construct id.
        target: the workload (e.g. a ``ModelServer``).
        max_unavailable: most pods evicted at once, a count or ``"N%"``. Default: ``1`` (unless
            ``min_available`` is given).
        min_available: fewest pods kept, a count (at least 1) or ``"N%"``. Default: none.
        unhealthy_pod_eviction_policy: ``AlwaysAllow`` | ``IfHealthyBudget``, emitted on 1.27+.
            Default: ``AlwaysAllow``.
        labels: extra labels on the budget. Default: none.
        name: budget name, a DNS-1123 label. Default: the target's name.

    Raises:
        ValueError: both ``min_available`` and ``max_unavailable``; a value that is neither a count
            nor a percentage; ``min_available=0``; a budget that allows no eviction at the target's
            fewest replicas; an unknown eviction policy; a bad name or label.

    Source: https://kubernetes.io/docs/tasks/run-application/configure-pdb/,
    https://kubernetes.io/docs/reference/kubernetes-api/policy-resources/pod-disruption-budget-v1/,
    kubernetes ``pkg/controller/disruption/disruption.go`` (``getExpectedPodCount``).
    """

    KIND = "PodDisruptionBudget"
    API_VERSION = "policy/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        target: Disruptable,
        max_unavailable: IntOrPercent | None = None,
        min_available: IntOrPercent | None = None,
        unhealthy_pod_eviction_policy: EvictionPolicy = "AlwaysAllow",
        labels: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", target.name if name is None else name)
        if min_available is not None and max_unavailable is not None:
            raise ValueError(
                f"{_KIND} min_available={min_available!r}, max_unavailable={max_unavailable!r}: "
                "give only one of them"
            )
        self._target = target
        self._min: IntOrPercent | None = None
        self._max: IntOrPercent | None = None
        if min_available is not None:
            self._min = _int_or_percent("min_available", min_available)
            if self._min == 0 or self._min == "0%":
                raise ValueError(f"{_KIND} min_available={min_available!r}: must keep at least one pod")
        else:
            self._max = _int_or_percent("max_unavailable", 1 if max_unavailable is None else max_unavailable)
        if unhealthy_pod_eviction_policy not in ("AlwaysAllow", "IfHealthyBudget"):
            raise ValueError(
                f"{_KIND} unhealthy_pod_eviction_policy={unhealthy_pod_eviction_policy!r}: "
                "must be AlwaysAllow or IfHealthyBudget"
            )
        meta_labels = require_labels(_KIND, "labels", labels or {})
        problem = self.problem()
        if problem is not None:
            raise ValueError(problem)
        spec: dict[str, object] = {"selector": {"matchLabels": target.selector_labels}}
        if self._min is not None:
            spec["minAvailable"] = self._min
        else:
            spec["maxUnavailable"] = self._max
        if target.cluster.kubernetes_minor >= EVICTION_POLICY_MINOR:
            spec["unhealthyPodEvictionPolicy"] = unhealthy_pod_eviction_policy
        self.emit_object({"spec": spec}, labels=meta_labels)
        add_check(self, _BudgetValidation(self))

    @property
    def target(self) -> Disruptable:
        """The protected workload."""
        return self._target

    @property
    def fewest_replicas(self) -> int:
        """The fewest pods the target runs: its replicas or its Autoscaler's ``min_replicas``."""
        autoscaler = self._target.autoscaler
        if autoscaler is not None:
            return autoscaler.min_replicas
        replicas = self._target.replicas
        return 1 if replicas is None else replicas

    def problem(self) -> str | None:
        """The reason the budget blocks every eviction of the target's fewest replicas, or ``None``."""
        fewest = self.fewest_replicas
        if disruptions_possible(expected=fewest, min_available=self._min, max_unavailable=self._max):
            return None
        source = "Autoscaler min_replicas" if self._target.autoscaler is not None else "replicas"
        if self._min is not None:
            return (
                f"{_KIND} min_available={self._min!r}: allows no eviction of {self._target.name!r} at "
                f"{source}={fewest}; every node drain would block"
            )
        return (
            f"{_KIND} max_unavailable={self._max!r}: allows no eviction of {self._target.name!r} at "
            f"{source}={fewest}; every node drain would block"
        )
