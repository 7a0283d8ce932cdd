"""``LocalQueue``: a team's namespaced entry point to a Kueue ClusterQueue."""

from __future__ import annotations

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.kueue import kueue_api_version
from trainops.constructs.cluster_queue import ClusterQueue
from trainops.core.cluster import Cluster

_KIND = "LocalQueue"


class LocalQueue(ObjectConstruct):
    """A ``kueue.x-k8s.io`` LocalQueue in the Chart's namespace, pointing at a ClusterQueue.

    Workloads name it with the ``kueue.x-k8s.io/queue-name`` label (:data:`QUEUE_LABEL` in
    ``constructs._core.kueue``). Sync wave ``-1``: the queue exists before the jobs that name it.

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: the target; must run Kueue.
        name: queue name, a DNS-1123 label.
        cluster_queue: a :class:`ClusterQueue` or the name of one another app creates.

    Raises:
        ValueError: no Kueue on the cluster; a bad name.

    Source: https://kueue.sigs.k8s.io/docs/concepts/local_queue/
    """

    KIND = "LocalQueue"

    def __init__(
        self, scope: Construct, id: str, *, cluster: Cluster, name: str, cluster_queue: ClusterQueue | str
    ) -> None:
        super().__init__(scope, id)
        self._api_version = kueue_api_version(_KIND, cluster)
        self._name = require_name(_KIND, "name", name)
        target = cluster_queue if isinstance(cluster_queue, str) else cluster_queue.name
        self._cluster_queue = require_name(_KIND, "cluster_queue", target)
        self.emit_object(
            {"spec": {"clusterQueue": self._cluster_queue}}, annotations=argocd_annotations(wave=-1)
        )

    @property
    def api_version(self) -> str:
        """``kueue.x-k8s.io/v1beta2`` or ``v1beta1``, by the cluster's Kueue version."""
        return self._api_version

    @property
    def cluster_queue(self) -> str:
        """The ClusterQueue's name."""
        return self._cluster_queue
