"""``Topology``: the Kueue Topology of a cluster's accelerator nodes (cluster-scoped)."""

from __future__ import annotations

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct
from trainops.constructs._core.kueue import kueue_api_version
from trainops.core.cluster import Cluster

_KIND = "Topology"


class Topology(ObjectConstruct):
    """A ``kueue.x-k8s.io`` Topology with the levels the cluster declares
    (:attr:`~trainops.core.cluster.Cluster.topology`), broadest first: Kueue Topology Aware
    Scheduling places a job's pods inside one domain of a level (one rack, one network block) when
    the job asks for it (:class:`~trainops.constructs.TopologyPlacement`). A GPU ResourceFlavor links
    to it (``ResourceFlavor(..., topology=...)``). Sync wave ``-1``, with the queues.

    Args:
        scope: the parent construct (cluster-scoped object: the Chart's namespace is not used).
        id: construct id.
        cluster: the target; must run Kueue and declare a topology.

    Raises:
        ValueError: the cluster does not run Kueue or declares no topology.

    Source: https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/,
    kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/topology_types.go``
    """

    KIND = _KIND

    def __init__(self, scope: Construct, id: str, *, cluster: Cluster) -> None:
        super().__init__(scope, id)
        self._api_version = kueue_api_version(_KIND, cluster)
        if cluster.topology is None:
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster declares no topology (Cluster.topology)"
            )
        self._name = cluster.topology.name
        self._levels = cluster.topology.node_labels
        self.emit_object(
            {"spec": {"levels": [{"nodeLabel": label} for label in self._levels]}},
            annotations=argocd_annotations(wave=-1),
        )

    @property
    def api_version(self) -> str:
        """``kueue.x-k8s.io/v1beta2`` or ``v1beta1``, by the cluster's Kueue version."""
        return self._api_version

    @property
    def levels(self) -> tuple[str, ...]:
        """The levels' node labels, broadest first."""
        return self._levels
