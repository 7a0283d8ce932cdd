"""``ModelService``: the ClusterIP Service in front of a ``ModelServer``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cdk8s import Chart

from trainops.cluster import Cluster
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import require_labels, require_whole
from trainops.constructs._core.protocols import Selectable
from trainops.naming import DNS1035_LABEL

_KIND = "ModelService"


class ModelService(ObjectConstruct):
    """A v1 Service (ClusterIP) that selects a ``ModelServer``'s pods. Usually made by ``server.expose()``.

    The single port is named like the server's container port (``http``) and targets it by name,
    so changing the container port never breaks the Service. The selector equals the server's
    selector labels; the Service carries them as labels too, which is what a ``ServiceMonitor``
    selects.

    Args:
        scope: the parent construct (``expose()`` uses the server itself).
        id: construct id.
        server: the ModelServer whose pods the Service selects.
        port: Service port. Default: the server's ``port``.
        name: Service name, a DNS-1035 label. Default: the server's ``name``.
        labels: extra labels on the Service. Default: none.

    Raises:
        ValueError: a bad port, name or label, quoting prop and value.

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
    ) -> None:
        super().__init__(scope, id)
        self._server = server
        self._name = require_name(_KIND, "name", server.name if name is None else name, syntax=DNS1035_LABEL)
        self._port = require_whole(_KIND, "port", server.port if port is None else port, minimum=1)
        if self._port > 65535:
            raise ValueError(f"{_KIND} port={port!r}: must be at most 65535")
        self._selector = server.selector_labels
        extra = require_labels(_KIND, "labels", labels or {})
        self._labels = {**extra, **self._selector}
        self._namespace: str | None = Chart.of(self).namespace
        obj: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": self._name, "labels": dict(self._labels)},
            "spec": {
                "type": "ClusterIP",
                "selector": dict(self._selector),
                "ports": [
                    {
                        "name": server.port_name,
                        "port": self._port,
                        "targetPort": server.port_name,
                        "protocol": "TCP",
                    }
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
        return (self._server.port_name,)

    @property
    def selector(self) -> dict[str, str]:
        """The pod selector; a copy."""
        return dict(self._selector)

    @property
    def labels(self) -> dict[str, str]:
        """The Service's own labels (extra labels plus the selector labels); a copy."""
        return dict(self._labels)
