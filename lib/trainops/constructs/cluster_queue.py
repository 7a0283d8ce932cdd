"""``ClusterQueue``: a Kueue pool of quota (cpu, memory, GPUs per flavor), cluster-scoped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.kueue import kueue_api_version
from trainops.constructs._core.props import require_quantity, require_whole
from trainops.constructs.resource_flavor import ResourceFlavor
from trainops.core.cluster import Cluster

_KIND = "ClusterQueue"

ReclaimPolicy = Literal["Never", "LowerPriority", "Any"]
WithinQueuePolicy = Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"]


@dataclass(frozen=True)
class FlavorQuota:
    """The nominal quota of one flavor in a ClusterQueue.

    Args:
        flavor: a :class:`ResourceFlavor` or the name of one another app creates.
        cpu: cpu cores as a quantity string, e.g. ``"256"``.
        memory: memory bytes as a quantity string, e.g. ``"2Ti"``.
        gpus: whole GPUs (of ``cluster.gpu_resource``). Default: 0.
        borrowing_limit_gpus: GPUs this queue may borrow from its cohort beyond ``gpus``, or
            ``None`` for no limit (Kueue's default). Default: ``None``.
    """

    flavor: ResourceFlavor | str
    cpu: str
    memory: str
    gpus: int = 0
    borrowing_limit_gpus: int | None = None

    @property
    def flavor_name(self) -> str:
        """The flavor's name."""
        return self.flavor if isinstance(self.flavor, str) else self.flavor.name


class ClusterQueue(ObjectConstruct):
    """A ``kueue.x-k8s.io`` ClusterQueue with one resource group covering cpu, memory and (when any
    flavor has GPUs) ``cluster.gpu_resource``, in the order the flavors are given (Kueue tries them
    in order).

    Every flavor lists every covered resource (a flavor without GPUs gets a GPU quota of 0): the
    CRD's CEL rule ``self.flavors.all(x, size(x.resources) == size(self.coveredResources))``
    requires it. Defaults favour fairness within a cohort: reclaim lent quota from lower-priority
    borrowers (``reclaimWithinCohort: LowerPriority``) and preempt lower-priority workloads in the
    queue (``withinClusterQueue: LowerPriority``); ``BestEffortFIFO`` so a large job that does not
    fit does not block smaller ones. On a MultiKueue manager (``Cluster.multikueue``) the queue
    lists the MultiKueue AdmissionCheck (``admissionChecksStrategy``; v1beta1 ``admissionChecks``),
    so its workloads run on the workers (render the check with
    :class:`~trainops.constructs.multikueue.MultiKueue`). Sync wave ``-1``.

    Args:
        scope: the parent construct (cluster-scoped object).
        id: construct id.
        cluster: the target; must run Kueue (v1beta2 ``cohortName`` from v0.16.0, else ``cohort``).
        name: queue name, a DNS-1123 label.
        flavors: quotas per flavor, at least one, each flavor once.
        cohort: the cohort to borrow from and lend to, or ``None``. Default: ``None``.
        all_namespaces: admit LocalQueues of every namespace (``namespaceSelector: {}``); ``False``
            leaves the selector out (no namespace). Default: ``True``.
        reclaim_within_cohort: ``Never`` | ``LowerPriority`` | ``Any``. Default: ``LowerPriority``.
        within_cluster_queue: ``Never`` | ``LowerPriority`` | ``LowerOrNewerEqualPriority``.
            Default: ``LowerPriority``.
        queueing_strategy: ``BestEffortFIFO`` | ``StrictFIFO``. Default: ``BestEffortFIFO``.

    Raises:
        ValueError: no Kueue on the cluster; no flavors or a flavor twice; a bad quantity or name.

    Source: https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/, kubernetes-sigs/kueue
    ``apis/kueue/v1beta2/clusterqueue_types.go``
    """

    KIND = "ClusterQueue"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        flavors: Sequence[FlavorQuota],
        cohort: str | None = None,
        all_namespaces: bool = True,
        reclaim_within_cohort: ReclaimPolicy = "LowerPriority",
        within_cluster_queue: WithinQueuePolicy = "LowerPriority",
        queueing_strategy: Literal["BestEffortFIFO", "StrictFIFO"] = "BestEffortFIFO",
    ) -> None:
        super().__init__(scope, id)
        self._api_version = kueue_api_version(_KIND, cluster)
        self._name = require_name(_KIND, "name", name)
        if not flavors:
            raise ValueError(f"{_KIND} flavors=[]: at least one flavor quota is required")
        names = [quota.flavor_name for quota in flavors]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise ValueError(f"{_KIND} flavors: flavor {duplicate!r} is listed twice")
        if cohort is not None:
            require_name(_KIND, "cohort", cohort)
        for prop, value, allowed in (
            ("reclaim_within_cohort", reclaim_within_cohort, ("Never", "LowerPriority", "Any")),
            (
                "within_cluster_queue",
                within_cluster_queue,
                ("Never", "LowerPriority", "LowerOrNewerEqualPriority"),
            ),
            ("queueing_strategy", queueing_strategy, ("BestEffortFIFO", "StrictFIFO")),
        ):
            if value not in allowed:
                raise ValueError(f"{_KIND} {prop}={value!r}: must be one of {', '.join(allowed)}")
        gpu = cluster.gpu_resource
        with_gpus = any(quota.gpus for quota in flavors)
        covered = ["cpu", "memory", *([gpu] if with_gpus else [])]
        spec: dict[str, Any] = {
            "resourceGroups": [
                {"coveredResources": covered, "flavors": [self._flavor(q, gpu, with_gpus) for q in flavors]}
            ],
            "preemption": {
                "reclaimWithinCohort": reclaim_within_cohort,
                "withinClusterQueue": within_cluster_queue,
            },
            "queueingStrategy": queueing_strategy,
        }
        if all_namespaces:
            spec["namespaceSelector"] = {}
        if cohort is not None:
            spec["cohortName" if self._api_version.endswith("v1beta2") else "cohort"] = cohort
        if cluster.multikueue is not None:  # a MultiKueue manager: admit through the workers
            check = cluster.multikueue.admission_check
            if self._api_version.endswith("v1beta2"):
                spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": check}]}
            else:
                spec["admissionChecks"] = [check]
        self._flavor_names = tuple(names)
        self.emit_object({"spec": spec}, annotations=argocd_annotations(wave=-1))

    @staticmethod
    def _flavor(quota: FlavorQuota, gpu: str, with_gpus: bool) -> dict[str, Any]:
        resources: list[dict[str, Any]] = [
            {"name": "cpu", "nominalQuota": require_quantity(_KIND, "cpu", quota.cpu).canonical()},
            {
                "name": "memory",
                "nominalQuota": require_quantity(_KIND, "memory", quota.memory, whole_bytes=True).canonical(),
            },
        ]
        if with_gpus:
            entry: dict[str, Any] = {"name": gpu, "nominalQuota": require_whole(_KIND, "gpus", quota.gpus)}
            if quota.borrowing_limit_gpus is not None:
                entry["borrowingLimit"] = require_whole(
                    _KIND, "borrowing_limit_gpus", quota.borrowing_limit_gpus
                )
            resources.append(entry)
        return {"name": require_name(_KIND, "flavor", quota.flavor_name), "resources": resources}

    @property
    def api_version(self) -> str:
        """``kueue.x-k8s.io/v1beta2`` or ``v1beta1``, by the cluster's Kueue version."""
        return self._api_version

    @property
    def flavor_names(self) -> tuple[str, ...]:
        """The flavors, in the order Kueue tries them."""
        return self._flavor_names
