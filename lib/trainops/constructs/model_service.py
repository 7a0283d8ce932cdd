"""``ModelService``: the ClusterIP Service in front of a ``ModelServer``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from trainops.constructs._core.base import Construct, ObjectConstruct, chart_namespace, emit, require_name
from trainops.constructs._core.props import require_labels, require_whole
from trainops.constructs._core.protocols import Selectable
from trainops.core.cluster import Cluster
from trainops.core.naming import DNS1035_LABEL

_KIND = "ModelService"
#: Annotation whose non-empty value (the reason) allows a LoadBalancer or NodePort Service; the
#: ``exposed-service`` policy's default ``annotation`` option.
EXPOSURE_ANNOTATION = "trainops.dev/exposed"
ServiceType = Literal["ClusterIP", "LoadBalancer", "NodePort"]


@runtime_checkable
class MultiPort(Protocol):
    """A server with named container ports beyond its main one (e.g. ``grpc``, ``metrics``)."""

    @property
    def extra_ports(self) -> dict[str, int]:
        """Container port numbers by name."""
        ...


class ModelService(ObjectConstruct):
    """A v1 Service (ClusterIP) that selects a ``ModelServer``'s pods. Usually made by ``server.expose()``.

    The main port is named like the server's container port (``http``) and targets it by name,
    so changing the container port never breaks the Service; a server preset's further ports
    (``grpc``, ``metrics``...) follow, each with its container port number as Service port.
    ``LoadBalancer`` and ``NodePort`` need ``allow_exposure``, a reason kept in the
    ``trainops.dev/exposed`` annotation. The selector equals the server's
    selector labels; the Service carries them as labels too, which is what a ``ServiceMonitor``
    selects.

    Args:
        scope: the parent construct (``expose()`` uses the server itself).
        id: construct id.
        server: the ModelServer whose pods the Service selects.
        port: Service port. Default: the server's ``port``.
        name: Service name, a DNS-1035 label. Default: the server's ``name``.
        labels: extra labels on the Service. Default: none.
        type: ``ClusterIP``, ``LoadBalancer`` or ``NodePort``. Default: ``ClusterIP``.
        allow_exposure: the reason for a LoadBalancer or NodePort (required with them, refused
            with ClusterIP). Default: none.
        pod_target_labels: pod labels a ServiceMonitor of this Service copies onto the scraped
            series (e.g. Argo Rollouts' ``rollouts-pod-template-hash``). Default: none.

    Raises:
        ValueError: a bad port, name or label, quoting prop and value; an external type without a
            reason.

    Source: https://kubernetes.io/docs/concepts/services-networking/service/
    """

    KIND = "Service"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        server: Selectable,
        port: int | None = None,
        name: str | None = None,
        labels: Mapping[str, str] | None = None,
        type: ServiceType = "ClusterIP",
        allow_exposure: str | None = None,
        pod_target_labels: Sequence[str] = (),
    ) -> None:
        super().__init__(scope, id)
        self._server = server
        self._pod_target_labels = tuple(
            require_labels(_KIND, "pod_target_labels", dict.fromkeys(pod_target_labels, ""))
        )
        self._name = require_name(_KIND, "name", server.name if name is None else name, syntax=DNS1035_LABEL)
        self._port = require_whole(_KIND, "port", server.port if port is None else port, minimum=1)
        if self._port > 65535:
            raise ValueError(f"{_KIND} port={port!r}: must be at most 65535")
        self._selector = server.selector_labels
        extra = require_labels(_KIND, "labels", labels or {})
        self._labels = {**extra, **self._selector}
        self._namespace: str | None = chart_namespace(self)
        if type not in ("ClusterIP", "LoadBalancer", "NodePort"):
            raise ValueError(f"{_KIND} type={type!r}: must be 'ClusterIP', 'LoadBalancer' or 'NodePort'")
        metadata: dict[str, Any] = {"name": self._name, "labels": dict(self._labels)}
        if type == "ClusterIP":
            if allow_exposure is not None:
                raise ValueError(
                    f"{_KIND} allow_exposure={allow_exposure!r}: only for LoadBalancer or NodePort"
                )
        elif not isinstance(allow_exposure, str) or not allow_exposure.strip():
            raise ValueError(
                f"{_KIND} type={type!r}: exposes the server outside the cluster; give allow_exposure='<reason>'"
            )
        else:
            metadata["annotations"] = {EXPOSURE_ANNOTATION: allow_exposure.strip()}
        self._type = type
        extra_ports: dict[str, int] = server.extra_ports if isinstance(server, MultiPort) else {}
        self._port_names = (server.port_name, *extra_ports)
        obj: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": metadata,
            "spec": {
                "type": type,
                "selector": dict(self._selector),
                "ports": [
                    {
                        "name": server.port_name,
                        "port": self._port,
                        "targetPort": server.port_name,
                        "protocol": "TCP",
                    },
                    *(
                        {"name": n, "port": number, "targetPort": n, "protocol": "TCP"}
                        for n, number in extra_ports.items()
                    ),
                ],
            },
        }
        emit(self, obj)

    @property
    def namespace(self) -> str | None:
        """The namespace of the Service's Chart, if it has one."""
        return self._namespace

    @property
    def server(self) -> Selectable:
        """The selected ModelServer."""
        return self._server

    @property
    def cluster(self) -> Cluster:
        """The target cluster (the server's)."""
        return self._server.cluster

    @property
    def port(self) -> int:
        """The Service port."""
        return self._port

    @property
    def port_names(self) -> tuple[str, ...]:
        """Names of the Service ports."""
        return self._port_names

    @property
    def pod_target_labels(self) -> tuple[str, ...]:
        """Pod labels a ServiceMonitor copies onto the series (``podTargetLabels``)."""
        return self._pod_target_labels

    @property
    def type(self) -> ServiceType:
        """The Service type."""
        return self._type

    @property
    def selector(self) -> dict[str, str]:
        """The pod selector; a copy."""
        return dict(self._selector)

    @property
    def labels(self) -> dict[str, str]:
        """The Service's own labels (extra labels plus the selector labels); a copy."""
        return dict(self._labels)
