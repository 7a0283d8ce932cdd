"""``ResourceFlavor``: a Kueue flavor of nodes (e.g. one GPU model), cluster-scoped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.kueue import kueue_api_version
from trainops.constructs._core.props import require_labels
from trainops.core.cluster import Cluster, Taint

if TYPE_CHECKING:
    from trainops.constructs.topology import Topology

_KIND = "ResourceFlavor"


class ResourceFlavor(ObjectConstruct):
    """A ``kueue.x-k8s.io`` ResourceFlavor: the node labels (and taints) of one kind of node.

    Kueue injects ``nodeLabels`` into admitted pods as a node selector and, with ``node_taints``,
    only admits pods that tolerate them. By default a flavor for GPU nodes takes the cluster's
    GPU node selector and GPU taints (``gpu=True``). Sync wave ``-1``: queues exist before the
    workloads that name them.

    Args:
        scope: the parent construct (cluster-scoped object: the Chart's namespace is not used).
        id: construct id.
        cluster: the target; must run Kueue.
        name: flavor name, a DNS-1123 label (e.g. ``a100``).
        gpu: take ``cluster.gpu_node_selector`` and ``cluster.gpu_taints``. Default: ``False``.
        node_labels: node labels of the flavor, added to (and overriding) the GPU ones. Default: none.
        node_taints: taints of the flavor's nodes. Default: the GPU taints when ``gpu``, else none.
        tolerations: taints whose tolerations Kueue adds to every pod it admits to the flavor (e.g.
            spot nodes), instead of each workload declaring them. Default: none.
        topology: the cluster's :class:`~trainops.constructs.Topology`: the flavor's nodes are placed
            by topology (``spec.topologyName``), so jobs admitted to it can ask for a placement.
            Default: none.

    Raises:
        ValueError: the cluster does not run Kueue; a bad name or label; a ``topology`` on a flavor
            without node labels (the CRD's rule: "at least one nodeLabel is required when topology
            is set").

    Source: https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#resourceflavor-object,
    kubernetes-sigs/kueue ``apis/kueue/v1beta2/resourceflavor_types.go``
    """

    KIND = "ResourceFlavor"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        gpu: bool = False,
        node_labels: Mapping[str, str] | None = None,
        node_taints: tuple[Taint, ...] | None = None,
        tolerations: tuple[Taint, ...] = (),
        topology: Topology | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._api_version = kueue_api_version(_KIND, cluster)
        self._name = require_name(_KIND, "name", name)
        labels = dict(cluster.gpu_node_selector) if gpu else {}
        labels.update(require_labels(_KIND, "node_labels", node_labels or {}))
        taints = node_taints if node_taints is not None else (cluster.gpu_taints if gpu else ())
        spec: dict[str, Any] = {}
        if labels:
            spec["nodeLabels"] = labels
        if taints:
            spec["nodeTaints"] = [_taint(t) for t in taints]
        if tolerations:
            spec["tolerations"] = [t.toleration() for t in tolerations]
        if topology is not None:
            if not labels:
                raise ValueError(
                    f"{_KIND} topology={topology.name!r}: a flavor placed by topology needs node labels "
                    "(gpu=True or node_labels)"
                )
            spec["topologyName"] = topology.name
        self._node_labels = labels
        self.emit_object({"spec": spec}, annotations=argocd_annotations(wave=-1))

    @property
    def api_version(self) -> str:
        """``kueue.x-k8s.io/v1beta2`` or ``v1beta1``, by the cluster's Kueue version."""
        return self._api_version

    @property
    def node_labels(self) -> dict[str, str]:
        """The flavor's node labels."""
        return dict(self._node_labels)


def _taint(taint: Taint) -> dict[str, str]:
    out = {"key": taint.key, "effect": taint.effect}
    if taint.value:
        out["value"] = taint.value
    return out
