"""``WorkloadPriorityClass``: a Kueue priority for queueing and preemption, cluster-scoped."""

from __future__ import annotations

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.kueue import kueue_api_version
from trainops.core.cluster import Cluster

_KIND = "WorkloadPriorityClass"
#: PriorityClass values above this are reserved for system classes (scheduling/v1 HighestUserDefinablePriority).
MAX_VALUE = 1_000_000_000


class WorkloadPriorityClass(ObjectConstruct):
    """A ``kueue.x-k8s.io`` WorkloadPriorityClass: orders and preempts workloads in Kueue only (it
    does not change the pods' scheduling priority). Workloads name it with the
    ``kueue.x-k8s.io/priority-class`` label. Sync wave ``-1``.

    Args:
        scope: the parent construct (cluster-scoped object).
        id: construct id.
        cluster: the target; must run Kueue.
        name: class name, a DNS-1123 label.
        value: the priority, an integer ≤ 1,000,000,000 (higher goes first).
        description: one line for humans. Default: empty (left out).

    Raises:
        ValueError: no Kueue on the cluster; a bad name; a value that is not an integer or above the limit.

    Source: https://kueue.sigs.k8s.io/docs/concepts/workload_priority_class/
    """

    KIND = "WorkloadPriorityClass"

    def __init__(
        self, scope: Construct, id: str, *, cluster: Cluster, name: str, value: int, description: str = ""
    ) -> None:
        super().__init__(scope, id)
        self._api_version = kueue_api_version(_KIND, cluster)
        self._name = require_name(_KIND, "name", name)
        if isinstance(value, bool) or not isinstance(value, int) or value > MAX_VALUE:
            raise ValueError(f"{_KIND} value={value!r}: must be an integer of at most {MAX_VALUE}")
        self._value = value
        body: dict[str, object] = {"value": value}
        if description:
            body["description"] = description
        self.emit_object(body, annotations=argocd_annotations(wave=-1))

    @property
    def api_version(self) -> str:
        """``kueue.x-k8s.io/v1beta2`` or ``v1beta1``, by the cluster's Kueue version."""
        return self._api_version

    @property
    def value(self) -> int:
        """The priority value."""
        return self._value
