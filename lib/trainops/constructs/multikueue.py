"""``MultiKueue``: the objects a MultiKueue manager cluster needs to dispatch queued jobs to its
workers (Kueue ``kueue.x-k8s.io``), all cluster-scoped."""

from __future__ import annotations

from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, emit
from trainops.constructs._core.kueue import GROUP, kueue_api_version
from trainops.core.cluster import MULTIKUEUE_CONTROLLER, Cluster

_KIND = "MultiKueue"
#: The key of the kubeconfig in a worker's Secret (kueue ``MultiKueueCluster`` ``kubeConfig``).
KUBECONFIG_KEY = "kubeconfig"


class MultiKueue(Construct):
    """On a MultiKueue manager (``Cluster.multikueue``): an AdmissionCheck with controller
    ``kueue.x-k8s.io/multikueue`` whose parameters name a MultiKueueConfig listing every worker, and
    one MultiKueueCluster per worker reading its kubeconfig from the Secret
    ``<worker>-kubeconfig`` in Kueue's namespace. The Secret is referenced, never rendered (declare
    it as an ``ExternalObject`` of the manager; create it out of band). On any other cluster (a
    worker, or a cluster without MultiKueue) it emits nothing, so one app serves the manager and
    its workers. Every ClusterQueue on the manager lists the AdmissionCheck
    (:class:`~trainops.constructs.cluster_queue.ClusterQueue`). Sync wave ``-2``: before the
    ClusterQueues that name the check.

    Args:
        scope: the parent construct (the objects are cluster-scoped).
        id: construct id.
        cluster: the target.

    Raises:
        ValueError: the manager does not run Kueue.

    Source: https://kueue.sigs.k8s.io/docs/concepts/multikueue/, kubernetes-sigs/kueue v0.19.2
    ``apis/kueue/v1beta2/multikueue_types.go``, ``admissioncheck_types.go``,
    ``site/static/examples/multikueue``
    """

    def __init__(self, scope: Construct, id: str, *, cluster: Cluster) -> None:
        super().__init__(scope, id)
        self._objects: list[dict[str, Any]] = []
        setup = cluster.multikueue
        if setup is None:
            return
        api_version = kueue_api_version(_KIND, cluster)
        annotations = argocd_annotations(wave=-2)

        def add(id: str, kind: str, name: str, spec: dict[str, Any]) -> None:
            obj = {
                "apiVersion": api_version,
                "kind": kind,
                "metadata": {"name": name, "annotations": dict(annotations)},
                "spec": spec,
            }
            self._objects.append(obj)
            emit(self, obj, id)

        name = setup.admission_check
        add(
            "AdmissionCheck",
            "AdmissionCheck",
            name,
            {
                "controllerName": MULTIKUEUE_CONTROLLER,
                "parameters": {"apiGroup": GROUP, "kind": "MultiKueueConfig", "name": name},
            },
        )
        add("Config", "MultiKueueConfig", name, {"clusters": list(setup.workers)})
        for worker in setup.workers:
            location = setup.kubeconfig_secret(worker)
            kubeconfig = {"locationType": "Secret", "location": location}
            source: dict[str, Any] = {"clusterSource": {"kubeConfig": kubeconfig}}
            if api_version.endswith("v1beta1"):
                source = {"kubeConfig": kubeconfig}
            add(f"Cluster-{worker}", "MultiKueueCluster", worker, source)

    @property
    def objects(self) -> tuple[dict[str, Any], ...]:
        """The emitted objects (empty off a manager)."""
        return tuple(self._objects)
