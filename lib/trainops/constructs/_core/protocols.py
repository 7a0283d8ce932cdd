"""Small Protocols that let constructs link without knowing each other's classes (the cdk8s-plus
``IScalable``/``ISelectable`` idea): an ``Autoscaler`` scales anything :class:`Scalable`, a Service
selects anything :class:`Selectable`, a monitor scrapes anything :class:`ScrapeTarget`, a workload
mounts anything that is a :class:`ClaimSource`, a ``RoleBinding`` grants anything :class:`Grantable`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from trainops.core.cluster import Cluster

#: PersistentVolumeClaim access modes (core/v1 ``PersistentVolumeAccessMode``).
AccessMode = Literal["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"]


class ClaimSource(Protocol):
    """Anything that names a PersistentVolumeClaim and its access mode (e.g. ``VolumeClaim``)."""

    @property
    def claim_name(self) -> str:
        """The PVC name."""
        ...

    @property
    def access_mode(self) -> AccessMode:
        """The PVC access mode."""
        ...


class Grantable(Protocol):
    """A namespaced RBAC Role a ``RoleBinding`` grants (``roleRef``; e.g. ``Role``)."""

    @property
    def name(self) -> str:
        """The Role name."""
        ...


class Scalable(Protocol):
    """A workload an HPA can target (``scaleTargetRef``); it omits ``replicas`` once marked."""

    @property
    def name(self) -> str:
        """``metadata.name`` of the workload."""
        ...

    @property
    def kind(self) -> str:
        """Its kind, e.g. ``Deployment``."""
        ...

    @property
    def api_version(self) -> str:
        """Its apiVersion, e.g. ``apps/v1``."""
        ...

    @property
    def requested_resources(self) -> frozenset[str]:
        """Resources every container of its pods requests (e.g. ``{"cpu", "memory"}``): an HPA
        Utilization target needs a request in each container."""
        ...

    def mark_autoscaled(self, autoscaler: object, *, max_replicas: int) -> None:
        """Drop ``spec.replicas`` (the HPA owns it); raise ``ValueError`` if it cannot be scaled to
        ``max_replicas`` pods (e.g. a ReadWriteOnce volume) or is already scaled."""
        ...


class Selectable(Protocol):
    """A workload a Service can select: its pod labels, target cluster and main port."""

    @property
    def name(self) -> str:
        """``metadata.name`` of the workload."""
        ...

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        ...

    @property
    def port(self) -> int:
        """The main container port."""
        ...

    @property
    def port_name(self) -> str:
        """The name of the main container port (a Service's named targetPort)."""
        ...

    @property
    def selector_labels(self) -> dict[str, str]:
        """Labels that select exactly the workload's pods."""
        ...


class ScrapeTarget(Protocol):
    """A Service a ServiceMonitor can scrape: its labels, namespace and named ports."""

    @property
    def name(self) -> str:
        """``metadata.name`` of the Service."""
        ...

    @property
    def namespace(self) -> str | None:
        """The Service's namespace, or ``None``."""
        ...

    @property
    def selector(self) -> dict[str, str]:
        """Labels that select the Service (a ServiceMonitor's ``selector.matchLabels``)."""
        ...

    @property
    def port_names(self) -> tuple[str, ...]:
        """The Service's port names (a ServiceMonitor endpoint names one)."""
        ...

    @property
    def cluster(self) -> Cluster:
        """The target cluster."""
        ...


@runtime_checkable
class PodLabelled(Protocol):
    """A Service whose monitors copy pod labels onto the series (``podTargetLabels``)."""

    @property
    def pod_target_labels(self) -> tuple[str, ...]:
        """The pod label names."""
        ...
