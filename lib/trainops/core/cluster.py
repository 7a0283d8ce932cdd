"""Target cluster facts that drive what constructs emit and how validation runs.

A :class:`Cluster` is declared in ``apps/clusters.py`` (DESIGN.md decision 2). Constructs read it
to pick the API a target has (storage class, GPU resource name, taints, operator versions) and the
validator reads ``kubernetes_version`` and ``operators`` to select schemas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from trainops.core.durations import duration_seconds
from trainops.core.gang import SCHEDULERS
from trainops.core.naming import DNS1123_LABEL, DNS1123_SUBDOMAIN, qualified_name_problem, require

OperatorName = Literal[
    "training-operator",
    "trainer",
    "mpi-operator",
    "katib",
    "kueue",
    "kserve",
    "prometheus-operator",
    "argo-cd",
    "jobset",
    "seldon-core",
    "podgroup",
    "argo-rollouts",
    "lws",
]

_MINOR = re.compile(r"^1\.(\d+)$")
#: A DRA attribute or capacity name without its domain (``resource.k8s.io`` ``DeviceMaxIDLength``: 32).
_DEVICE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
#: A pinned git revision: a full commit SHA or a release tag such as ``v1.4.0`` / ``2026.11.1``.
PINNED_REVISION = re.compile(r"^(?:[0-9a-f]{40}|v?\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.-]+)?)$")
#: How a cluster's apps reach Argo CD (see :mod:`trainops.synth.delivery`).
DeliveryMode = Literal["applicationset", "applications"]
#: How a cluster splits traffic between two versions of a server, for Argo Rollouts canaries: an
#: Istio VirtualService, or a Gateway API HTTPRoute through the Rollouts Gateway API plugin.
TrafficRouter = Literal["istio", "gateway-api"]


@dataclass(frozen=True)
class Taint:
    """A node taint that GPU pods must tolerate (Kubernetes core/v1 Taint).

    Args:
        key: taint key, e.g. ``nvidia.com/gpu``.
        effect: ``NoSchedule`` | ``PreferNoSchedule`` | ``NoExecute``. Default: ``NoSchedule``.
        value: taint value; ``None`` means tolerate with operator ``Exists``. Default: ``None``.
    """

    key: str
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    value: str | None = None

    def toleration(self) -> dict[str, str]:
        """Return the core/v1 Toleration that tolerates this taint."""
        if self.value is None:
            return {"key": self.key, "operator": "Exists", "effect": self.effect}
        return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}


@dataclass(frozen=True)
class ExternalObject:
    """An object the cluster has that trainops does not render (for policy cross-object rules).

    Args:
        kind: e.g. ``PersistentVolumeClaim``, ``Secret``, ``ConfigMap``, ``ServiceAccount``,
            ``LocalQueue``, ``PriorityClass``, ``StorageClass``.
        name: ``metadata.name``.
        namespace: ``metadata.namespace``; ``None`` for cluster-scoped kinds.
    """

    kind: str
    name: str
    namespace: str | None = None


# --- Large-model training facts: topology levels and gang admission (issue 33, DESIGN.md decision 11) ---

#: The node label of the host level; Kueue only allows it as the lowest level of a Topology.
HOSTNAME_LABEL = "kubernetes.io/hostname"
#: Gang schedulers a cluster may declare (:attr:`Cluster.gang_scheduler`): Volcano
#: (``scheduling.volcano.sh`` PodGroup) or the scheduler-plugins coscheduling plugin
#: (``scheduling.x-k8s.io`` PodGroup).
GANG_SCHEDULERS: tuple[str, ...] = tuple(SCHEDULERS)
#: Most levels a Kueue Topology has (``TopologySpec.levels`` ``MaxItems=16``).
MAX_TOPOLOGY_LEVELS = 16


@dataclass(frozen=True)
class TopologyLevel:
    """One level of a cluster's network topology: a short name and the node label that says which
    domain of that level a node is in.

    Args:
        name: the short name jobs use for the level, e.g. ``"rack"`` (a DNS-1123 label).
        node_label: the node label, e.g. ``"cloud.example.com/topology-rack"`` or
            ``"kubernetes.io/hostname"`` (a qualified name).
    """

    name: str
    node_label: str


@dataclass(frozen=True)
class ClusterTopology:
    """The topology levels of a cluster's accelerator nodes, from the broadest (e.g. a network block)
    to the narrowest (the host), for Kueue Topology Aware Scheduling: trainops emits a Kueue
    ``Topology`` named ``name`` with these levels and links the GPU ResourceFlavor to it.

    Args:
        name: the Topology's name (a DNS-1123 subdomain). Default: ``"default"``.
        levels: the levels, broadest first; ``{"block": ..., "rack": ..., "host": ...}`` (a mapping
            in order) or :class:`TopologyLevel` items.

    Raises:
        ValueError: no level or more than 16; a level name that is not a DNS-1123 label or a node
            label that is not a qualified name; a name or label given twice; ``kubernetes.io/hostname``
            above the lowest level (the Topology CRD's own CEL rules:
            kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/topology_types.go`` ``TopologySpec``).
    """

    levels: tuple[TopologyLevel, ...]
    name: str = "default"

    def __init__(self, levels: Mapping[str, str] | Sequence[TopologyLevel], name: str = "default") -> None:
        items = (
            tuple(TopologyLevel(k, v) for k, v in levels.items())
            if isinstance(levels, Mapping)
            else tuple(levels)
        )
        object.__setattr__(self, "levels", items)
        object.__setattr__(self, "name", name)
        self._check()

    def _check(self) -> None:
        require(DNS1123_SUBDOMAIN, "ClusterTopology", "name", self.name)
        if not 1 <= len(self.levels) <= MAX_TOPOLOGY_LEVELS:
            raise ValueError(
                f"ClusterTopology levels={self.level_names!r}: must have 1 to {MAX_TOPOLOGY_LEVELS} levels"
            )
        for level in self.levels:
            if not isinstance(level, TopologyLevel):
                raise ValueError(f"ClusterTopology levels: {level!r} is not a TopologyLevel")
            require(DNS1123_LABEL, "ClusterTopology", "level name", level.name)
            problem = (
                qualified_name_problem(level.node_label)
                if isinstance(level.node_label, str)
                else "is not a string"
            )
            if problem:
                raise ValueError(
                    f"ClusterTopology level {level.name!r} node_label={level.node_label!r}: {problem}"
                )
        for what, values in (("name", self.level_names), ("node label", self.node_labels)):
            twice = sorted({v for v in values if values.count(v) > 1})
            if twice:
                raise ValueError(f"ClusterTopology levels: {what} {twice[0]!r} is given twice")
        if HOSTNAME_LABEL in self.node_labels[:-1]:
            raise ValueError(
                f"ClusterTopology levels: {HOSTNAME_LABEL} can only be the lowest level (the Topology CRD rejects it above)"
            )

    @property
    def level_names(self) -> tuple[str, ...]:
        """The levels' short names, broadest first."""
        return tuple(level.name for level in self.levels)

    @property
    def node_labels(self) -> tuple[str, ...]:
        """The levels' node labels, broadest first."""
        return tuple(level.node_label for level in self.levels)

    def level(self, name_or_label: str) -> TopologyLevel | None:
        """The level with this short name or node label, ``None`` when the topology has none."""
        return next((lv for lv in self.levels if name_or_label in (lv.name, lv.node_label)), None)

    def depth(self, node_label: str) -> int:
        """The index of the level with ``node_label`` (0 is the broadest), -1 when there is none."""
        labels = self.node_labels
        return labels.index(node_label) if node_label in labels else -1


def _check_training(cluster: Cluster) -> None:
    """Check the large-model training facts of ``cluster`` (see :class:`Cluster`)."""
    if cluster.gang_scheduler is not None and cluster.gang_scheduler not in GANG_SCHEDULERS:
        raise ValueError(
            f"Cluster gang_scheduler={cluster.gang_scheduler!r}: must be one of {', '.join(GANG_SCHEDULERS)} or None"
        )
    if cluster.topology is not None:
        if not isinstance(cluster.topology, ClusterTopology):
            raise ValueError(f"Cluster topology={cluster.topology!r}: must be a ClusterTopology")
        if not cluster.has_operator("kueue"):
            raise ValueError(
                f"Cluster {cluster.name!r} topology={cluster.topology.name!r}: topology-aware placement "
                "needs Kueue (list kueue in operators)"
            )


#: The AdmissionCheck controller of MultiKueue (kueue ``apis/kueue/v1beta2`` ``MultiKueueControllerName``).
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
#: The first Kubernetes minor serving ``resource.k8s.io/v1`` (Dynamic Resource Allocation GA, 1.34).
DRA_SINCE_MINOR = 34


@dataclass(frozen=True)
class DeviceClass:
    """A Dynamic Resource Allocation DeviceClass the cluster has (``resource.k8s.io/v1``), usually
    installed with its driver (e.g. the NVIDIA DRA driver's ``gpu.nvidia.com``).

    Args:
        name: the DeviceClass name (a DNS-1123 subdomain), e.g. ``gpu.nvidia.com``.
        driver: the DRA driver publishing its devices, e.g. ``gpu.nvidia.com``; the attribute and
            capacity domain of its devices in CEL selectors.
        product_attribute: the device attribute holding the product name. Default: ``productName``
            (NVIDIA DRA driver).
        memory_capacity: the device capacity holding its memory. Default: ``memory``.

    Raises:
        ValueError: a name or driver that is not a DNS-1123 subdomain.

    Source: https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
    """

    name: str
    driver: str
    product_attribute: str = "productName"
    memory_capacity: str = "memory"

    def __post_init__(self) -> None:
        require(DNS1123_SUBDOMAIN, "DeviceClass", "name", self.name, max_length=253)
        require(DNS1123_SUBDOMAIN, "DeviceClass", "driver", self.driver, max_length=63)
        for prop in ("product_attribute", "memory_capacity"):
            value = getattr(self, prop)
            if not isinstance(value, str) or not _DEVICE_ID.match(value):
                raise ValueError(
                    f"DeviceClass {prop}={value!r}: must be a C identifier of at most 32 characters "
                    "(a DRA attribute or capacity name)"
                )


@dataclass(frozen=True)
class MultiKueueManager:
    """The MultiKueue role of a manager cluster: Kueue on it dispatches jobs to ``workers``.

    trainops renders, on the manager, an AdmissionCheck (controller ``kueue.x-k8s.io/multikueue``),
    a MultiKueueConfig listing the workers and one MultiKueueCluster per worker whose kubeconfig is
    the Secret ``<worker><kubeconfig_suffix>`` in Kueue's namespace (never rendered: create it out of
    band); every app that targets the manager is also rendered for each worker without its run-once
    objects (jobs run where MultiKueue sends them).

    Args:
        workers: names of the worker clusters, each declared in ``apps/clusters.py``.
        admission_check: the AdmissionCheck (and MultiKueueConfig) name. Default: ``multikueue``.
        kubeconfig_suffix: suffix of the kubeconfig Secret names. Default: ``-kubeconfig``.
        kueue_namespace: the namespace Kueue runs in (where the Secrets are). Default: ``kueue-system``.

    Raises:
        ValueError: no workers, a worker named twice, or a name that is not a DNS-1123 label.

    Source: https://kueue.sigs.k8s.io/docs/concepts/multikueue/
    """

    workers: tuple[str, ...]
    admission_check: str = "multikueue"
    kubeconfig_suffix: str = "-kubeconfig"
    kueue_namespace: str = "kueue-system"

    def __post_init__(self) -> None:
        if isinstance(self.workers, str) or not self.workers:
            raise ValueError(f"MultiKueueManager workers={self.workers!r}: name at least one worker cluster")
        for worker in self.workers:
            require(DNS1123_LABEL, "MultiKueueManager", "workers", worker)
        if len(set(self.workers)) != len(self.workers):
            raise ValueError(f"MultiKueueManager workers={self.workers!r}: a worker is named twice")
        require(DNS1123_LABEL, "MultiKueueManager", "admission_check", self.admission_check)
        require(DNS1123_LABEL, "MultiKueueManager", "kueue_namespace", self.kueue_namespace)

    def kubeconfig_secret(self, worker: str) -> str:
        """The name of the Secret holding ``worker``'s kubeconfig (key ``kubeconfig``)."""
        return f"{worker}{self.kubeconfig_suffix}"


# --- the platform trainops installs (issue 35; trainops.core.platform) ---------------------------


@dataclass(frozen=True)
class PlatformSettings:
    """How trainops delivers the cluster's own platform: the components of ``Cluster.operators``,
    each installed by an Argo CD Application from its upstream release (``trainops.core.platform``).

    Args:
        deliver: write the platform Applications (with the cluster's other Argo CD objects).
            Default: ``True``.
        unmanaged: ``Cluster.operators`` keys the platform team installs another way: validation
            still targets them, no Application installs them. Default: none.
        kueue_wait_for_pods_ready: Kueue's ``waitForPodsReady.timeout`` (a Go duration such as
            ``"10m"``): an admitted workload whose pods are not all ready in time is evicted and
            requeued, and admission is blocked meanwhile (``blockAdmission``), so gangs never hold
            part of a quota; ``None`` leaves it off. Default: ``"10m"``.
        kueue_topology_aware: enable Kueue's ``TopologyAwareScheduling`` feature gate explicitly
            (beta and on by default since Kueue v0.14); a cluster with a ``topology`` always has it
            enabled explicitly. Default: ``False``.

    Raises:
        ValueError: an unmanaged name that is not a DNS-1123 label, or a timeout that is not a Go
            duration.
    """

    deliver: bool = True
    unmanaged: tuple[str, ...] = ()
    kueue_wait_for_pods_ready: str | None = "10m"
    kueue_topology_aware: bool = False

    def __post_init__(self) -> None:
        for name in self.unmanaged:
            require(DNS1123_LABEL, "PlatformSettings", "unmanaged", name)
        timeout = self.kueue_wait_for_pods_ready
        seconds = None if timeout is None else duration_seconds(timeout)
        if timeout is not None and (seconds is None or seconds < 0):
            raise ValueError(
                f"PlatformSettings kueue_wait_for_pods_ready={timeout!r}: expected a duration such as '10m'"
            )


@dataclass(frozen=True)
class Cluster:
    """One target cluster.

    Args:
        name: DNS-1123 label; the directory under ``generated/``.
        kubernetes_version: the target minor as ``"1.N"``, e.g. ``"1.34"``; selects core schemas.
        operators: installed operators and their release tags, e.g.
            ``{"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"}``.
        storage_classes: role → StorageClass name; roles used by constructs are ``"default"``
            (RWO block storage) and ``"shared"`` (RWX file storage such as NAS).
        gpu_resource: extended resource name of GPUs. Default: ``nvidia.com/gpu``.
        rdma_resource: extended resource name of RDMA HCAs, or ``None``. Default: ``rdma/hca``.
        gpu_taints: taints on GPU nodes that GPU pods tolerate. Default: ``nvidia.com/gpu`` NoSchedule.
        gpu_node_selector: node labels that select GPU nodes. Default: none.
        argocd_server: Argo CD destination server URL. Default: in-cluster. Register the cluster in
            Argo CD with the labels ``trainops.dev/cluster=<name>`` and
            ``trainops.dev/cluster-class=<class>`` (the ApplicationSets select clusters by them).
        prometheus_labels: labels the cluster's Prometheus selects monitors by (its
            ``podMonitorSelector``/``serviceMonitorSelector``, e.g. ``{"release": "kube-prometheus-stack"}``).
            Default: none.
        prometheus_namespace: namespace Prometheus runs in (NetworkPolicy scrape rules). Default: ``monitoring``.
        ingress_namespace: namespace of the ingress controller (NetworkPolicy serving rules).
            Default: ``ingress-nginx``.
        kueue_namespace_labels: labels Kueue's ``managedJobsNamespaceSelector`` matches (Kueue's
            default selector matches every namespace but kube-system and kueue-system). Default: none.
        gpu_types: GPU model name → node labels that select nodes with it, e.g.
            ``{"a100": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}}`` (GPU feature discovery
            labels). Default: none.
        spot_taints: taints on spot/preemptible nodes. Default: none.
        spot_node_labels: node labels of spot/preemptible nodes. Default: none.
        gang_scheduler: the gang scheduler the cluster runs (``volcano``, ``scheduler-plugins``;
            :data:`GANG_SCHEDULERS`), or ``None``: multi-node Kubeflow jobs that Kueue does not queue
            get a ``runPolicy.schedulingPolicy`` for it, JobSets a PodGroup of it (list ``podgroup`` in
            ``operators`` for its CRD). Default: ``None``.
        kueue_namespaces: namespaces whose jobs Kueue manages (they need a queue label). Default: none.
        external: objects that exist in the cluster without being rendered (PVCs, Secrets,
            queues, ...), seen by cross-object policy rules. Default: none.
        cluster_class: clusters of one class share one ApplicationSet per team, app class and namespace
            and one AppProject per team (their Argo CD objects are written under the first
            cluster of the class). Default: ``name`` (a class of its own).
        protected: the cluster syncs a pinned revision only (a tag or a full commit SHA,
            :data:`PINNED_REVISION`), so a merge to the default branch does not reach it until the
            pin moves; ``trainops diff`` flags every change to it. Default: ``False``.
        target_revision: the git revision Argo CD syncs for this cluster. Default: ``"HEAD"``.
        delivery: ``"applicationset"`` (ApplicationSets with a cluster and a git directory
            generator) or ``"applications"`` (one plain Application per app). Default:
            ``"applicationset"``.
        repo_url: the git repository holding ``generated/``. Default:
            ``https://git.example.com/ml/platform.git``.
        argocd_namespace: the namespace Argo CD runs in (its Applications, ApplicationSets and
            AppProjects live there). Default: ``"argocd"``.
        traffic_router: how the cluster routes weighted traffic for Argo Rollouts canaries:
            ``"istio"`` (a VirtualService) or ``"gateway-api"`` (an HTTPRoute, with the
            ``argoproj-labs/gatewayAPI`` plugin registered in ``argo-rollouts-config``), or ``None``
            (canaries shift traffic by replica counts). Default: ``None``.
        topology: the network topology levels of the GPU nodes for Kueue Topology Aware Scheduling
            (:class:`ClusterTopology`; needs ``kueue``), or ``None``. Default: ``None``.
        platform: how the components of ``operators`` are installed (:class:`PlatformSettings`).
            Default: every catalogued component is delivered by Argo CD.

    Raises:
        ValueError: a name that is not a DNS-1123 label or a version that is not ``1.N``; a
            protected cluster whose ``target_revision`` is not pinned; an unknown ``delivery``; an
            unknown ``gang_scheduler``; a ``topology`` on a cluster without Kueue.
        multikueue: the cluster is a MultiKueue manager of these workers (:class:`MultiKueueManager`), or
            ``None``. Needs Kueue. Default: ``None``.
        device_classes: the Dynamic Resource Allocation DeviceClasses the cluster has
            (:class:`DeviceClass`); jobs claim devices of them (``claim_devices``). Needs Kubernetes
            1.34 or later. Default: none (GPUs are the extended resource ``gpu_resource``).

    Raises:
        ValueError: a name that is not a DNS-1123 label or a version that is not ``1.N``; a
            protected cluster whose ``target_revision`` is not pinned; an unknown ``delivery``; a
            MultiKueue manager without Kueue or naming itself as a worker; device classes below
            Kubernetes 1.34 or a device class declared twice.
    """

    name: str
    kubernetes_version: str
    operators: dict[str, str] = field(default_factory=dict)
    storage_classes: dict[str, str] = field(default_factory=lambda: {"default": "standard"})
    gpu_resource: str = "nvidia.com/gpu"
    rdma_resource: str | None = "rdma/hca"
    gpu_taints: tuple[Taint, ...] = (Taint("nvidia.com/gpu"),)
    gpu_node_selector: dict[str, str] = field(default_factory=dict)
    argocd_server: str = "https://kubernetes.default.svc"
    prometheus_labels: dict[str, str] = field(default_factory=dict)
    prometheus_namespace: str = "monitoring"
    ingress_namespace: str = "ingress-nginx"
    kueue_namespace_labels: dict[str, str] = field(default_factory=dict)
    gpu_types: dict[str, dict[str, str]] = field(default_factory=dict)
    spot_taints: tuple[Taint, ...] = ()
    spot_node_labels: dict[str, str] = field(default_factory=dict)
    gang_scheduler: str | None = None
    kueue_namespaces: tuple[str, ...] = ()
    external: tuple[ExternalObject, ...] = ()
    cluster_class: str | None = None
    protected: bool = False
    target_revision: str = "HEAD"
    delivery: DeliveryMode = "applicationset"
    repo_url: str = "https://git.example.com/ml/platform.git"
    argocd_namespace: str = "argocd"
    traffic_router: TrafficRouter | None = None
    # Large-model training (issue 33): topology levels (gang admission: ``gang_scheduler`` above, Kueue).
    topology: ClusterTopology | None = None
    # --- MultiKueue and Dynamic Resource Allocation (issue 33 points 4-5) ---
    multikueue: MultiKueueManager | None = None
    device_classes: tuple[DeviceClass, ...] = ()
    platform: PlatformSettings = field(default_factory=PlatformSettings)

    def __post_init__(self) -> None:
        require(DNS1123_LABEL, "Cluster", "name", self.name)
        if not _MINOR.match(self.kubernetes_version):
            raise ValueError(
                f"Cluster kubernetes_version={self.kubernetes_version!r}: expected '1.N', e.g. '1.34'"
            )
        self._check_delivery()
        _check_training(self)
        self._check_multikueue_dra()

    def _check_multikueue_dra(self) -> None:
        """Check ``multikueue`` and ``device_classes`` (see the class docstring)."""
        if self.multikueue is not None:
            if "kueue" not in self.operators:
                raise ValueError(
                    f"Cluster {self.name!r} multikueue: a MultiKueue manager must list kueue in operators"
                )
            if self.name in self.multikueue.workers:
                raise ValueError(f"Cluster {self.name!r} multikueue: the manager cannot be its own worker")
        if self.device_classes:
            if self.kubernetes_minor < DRA_SINCE_MINOR:
                raise ValueError(
                    f"Cluster {self.name!r} device_classes: Dynamic Resource Allocation (resource.k8s.io/v1) "
                    f"needs Kubernetes 1.{DRA_SINCE_MINOR} or later, not {self.kubernetes_version}"
                )
            names = [c.name for c in self.device_classes]
            twice = next((n for n in names if names.count(n) > 1), None)
            if twice is not None:
                raise ValueError(f"Cluster {self.name!r} device_classes: {twice!r} is declared twice")

    @property
    def uses_dra(self) -> bool:
        """Whether jobs claim devices through DRA here: Kubernetes 1.34+ with declared device classes."""
        return bool(self.device_classes) and self.kubernetes_minor >= DRA_SINCE_MINOR

    def device_class(self, name: str) -> DeviceClass | None:
        """The declared DeviceClass ``name``, or ``None``."""
        return next((c for c in self.device_classes if c.name == name), None)

    def _check_delivery(self) -> None:
        """Check the Argo CD delivery fields (see the class docstring)."""
        if self.cluster_class is not None:
            require(DNS1123_LABEL, "Cluster", "cluster_class", self.cluster_class)
        require(DNS1123_LABEL, "Cluster", "argocd_namespace", self.argocd_namespace)
        if self.traffic_router not in (None, "istio", "gateway-api"):
            raise ValueError(
                f"Cluster traffic_router={self.traffic_router!r}: must be 'istio', 'gateway-api' or None"
            )
        if self.delivery not in ("applicationset", "applications"):
            raise ValueError(
                f"Cluster delivery={self.delivery!r}: must be 'applicationset' or 'applications'"
            )
        if not self.target_revision or any(c.isspace() for c in self.target_revision):
            raise ValueError(f"Cluster target_revision={self.target_revision!r}: not a git revision")
        if self.protected and not PINNED_REVISION.match(self.target_revision):
            raise ValueError(
                f"Cluster {self.name!r} protected=True target_revision={self.target_revision!r}: "
                "a protected cluster must pin a tag (e.g. 'v1.4.0') or a full commit SHA"
            )

    @property
    def delivery_class(self) -> str:
        """The cluster class: ``cluster_class`` or ``name``."""
        return self.cluster_class or self.name

    @property
    def kubernetes_minor(self) -> int:
        """The minor version as an int, e.g. 34 for ``"1.34"``."""
        match = _MINOR.match(self.kubernetes_version)
        assert match is not None
        return int(match.group(1))

    def has_operator(self, name: str) -> bool:
        """Whether the operator ``name`` (a key of ``operators``) is installed."""
        return name in self.operators

    def storage_class(self, role: str) -> str:
        """Return the StorageClass for ``role``.

        Raises:
            ValueError: the cluster declares no storage class for that role.
        """
        try:
            return self.storage_classes[role]
        except KeyError:
            known = ", ".join(sorted(self.storage_classes)) or "none"
            raise ValueError(
                f"cluster {self.name!r} has no storage class for role {role!r} (declared: {known})"
            ) from None
