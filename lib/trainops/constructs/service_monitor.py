"""``ServiceMonitor``: a prometheus-operator scrape target for a ``ModelService``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, chart_namespace, emit, require_name
from trainops.constructs._core.props import duration_ms, require_labels, require_path
from trainops.constructs._core.protocols import PodLabelled, ScrapeTarget

_KIND = "ServiceMonitor"


class ServiceMonitor(ObjectConstruct):
    """A monitoring.coreos.com/v1 ServiceMonitor (prometheus-operator v0.93) scraping a ``ModelService``.

    Selects the Service by its selector labels, in the Service's namespace (``namespaceSelector``),
    and scrapes one endpoint by the Service's port name. A Service that names ``pod_target_labels``
    (a Rollout's, whose pods carry ``rollouts-pod-template-hash``) gets them as ``podTargetLabels``, so
    an analysis can tell the new version's series from the old one's. Argo CD syncs it in wave ``1``, after the
    Service, and skips the dry run when the CRD is not installed yet.

    Args:
        scope: the parent construct (a Chart; its namespace is the ServiceMonitor's namespace).
        id: construct id.
        service: the Service to scrape; its cluster must list ``prometheus-operator``.
        port: the Service port name to scrape. Default: ``"http"``.
        path: HTTP path of the metrics. Default: ``"/metrics"`` (TF Serving:
            ``/monitoring/prometheus/metrics``, enabled by ``--monitoring_config_file``).
        interval: scrape interval as a Prometheus duration. Default: ``"30s"``.
        scrape_timeout: scrape timeout as a Prometheus duration, at most ``interval``.
            Default: Prometheus' global scrape timeout.
        labels: extra labels on the ServiceMonitor, added to (and overriding) the cluster's
            ``prometheus_labels`` (the ``release`` label its Prometheus' ``serviceMonitorSelector``
            matches). Default: none.
        name: ServiceMonitor name, a DNS-1123 label. Default: the Service's name.

    Raises:
        ValueError: a port the Service does not name, a bad duration or path, a timeout longer than
            the interval, a Service without a namespace, or a cluster without prometheus-operator.

    Source: https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.ServiceMonitor
    """

    KIND = "ServiceMonitor"
    API_VERSION = "monitoring.coreos.com/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        service: ScrapeTarget,
        port: str = "http",
        path: str = "/metrics",
        interval: str = "30s",
        scrape_timeout: str | None = None,
        labels: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        cluster = service.cluster
        if not cluster.has_operator("prometheus-operator"):
            raise ValueError(
                f"{_KIND} service={service.name!r}: cluster {cluster.name!r} does not list "
                "prometheus-operator in operators"
            )
        self._name = require_name(_KIND, "name", service.name if name is None else name)
        if port not in service.port_names:
            raise ValueError(
                f"{_KIND} port={port!r}: Service {service.name!r} names only {', '.join(service.port_names)}"
            )
        require_path(_KIND, "path", path)
        interval_ms = duration_ms(_KIND, "interval", interval)
        if scrape_timeout is not None and duration_ms(_KIND, "scrape_timeout", scrape_timeout) > interval_ms:
            raise ValueError(
                f"{_KIND} scrape_timeout={scrape_timeout!r}: must not exceed interval={interval!r}"
            )
        namespace = service.namespace
        if namespace is None:
            raise ValueError(f"{_KIND} service={service.name!r}: the Service's Chart has no namespace")
        self._service = service
        meta_labels = {
            **require_labels(_KIND, "cluster.prometheus_labels", cluster.prometheus_labels),
            **require_labels(_KIND, "labels", labels or {}),
        }
        metadata: dict[str, Any] = {
            "name": self._name,
            "annotations": argocd_annotations(wave=1, options=[SKIP_DRY_RUN_OPTIONS]),
        }
        if meta_labels:
            metadata["labels"] = meta_labels
        endpoint: dict[str, Any] = {"port": port, "path": path, "interval": interval, "scheme": "http"}
        if scrape_timeout is not None:
            endpoint["scrapeTimeout"] = scrape_timeout
        spec: dict[str, Any] = {
            "selector": {"matchLabels": service.selector},
            "namespaceSelector": {"matchNames": [namespace]},
            "endpoints": [endpoint],
        }
        pod_labels = service.pod_target_labels if isinstance(service, PodLabelled) else ()
        if pod_labels:
            spec["podTargetLabels"] = list(pod_labels)
        self._namespace: str | None = chart_namespace(self)
        emit(
            self,
            {
                "apiVersion": self.api_version,
                "kind": self.kind,
                "metadata": metadata,
                "spec": spec,
            },
        )

    @property
    def service(self) -> ScrapeTarget:
        """The scraped Service."""
        return self._service
