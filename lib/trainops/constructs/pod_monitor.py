"""``PodMonitor``: a prometheus-operator scrape target for the pods of a Kubeflow training job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from constructs import IValidation
from jsii import implements

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, add_check, require_name
from trainops.constructs._core.props import duration_ms, require_labels, require_path, require_whole
from trainops.core.cluster import Cluster

_KIND = "PodMonitor"

#: Pod labels the Training Operator v1 puts on every pod of a job (``JobController.GenLabels`` and
#: ``ReconcilePods``; the replica type value is lower-cased, e.g. ``worker``).
#: Source: kubeflow/training-operator v1.9 ``pkg/apis/kubeflow.org/v1/common_types.go``
#: (``JobNameLabel``, ``ReplicaTypeLabel``) and ``pkg/controller.v1/common/pod.go``.
JOB_NAME_LABEL = "training.kubeflow.org/job-name"
REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type"


class TrainingRun(Protocol):
    """A Kubeflow v1 training job (e.g. ``PyTorchJob``): its emitted name and replica types."""

    @property
    def name(self) -> str:
        """``metadata.name`` of the job (the pods' ``training.kubeflow.org/job-name``)."""
        ...

    @property
    def kind(self) -> str:
        """Its kind, e.g. ``PyTorchJob``."""
        ...

    @property
    def replica_types(self) -> tuple[str, ...]:
        """Its replica types as the spec spells them, e.g. ``("Master", "Worker")``."""
        ...


if TYPE_CHECKING:
    from trainops.constructs.pytorch_job import PyTorchJob

    def _pytorch_job_is_a_training_run(job: PyTorchJob) -> TrainingRun:  # checked by mypy
        return job


@implements(IValidation)
class _JobNameValidation:
    """At ``node.validate()``: the job was not renamed (``mount()``) after the monitor selected it."""

    def __init__(self, job: TrainingRun, selected: str) -> None:
        self._job, self._selected = job, selected

    def validate(self) -> list[str]:
        if self._job.name == self._selected:
            return []
        return [
            f"{_KIND} job={self._selected!r}: the {self._job.kind} is now named {self._job.name!r} "
            "(mount() after the PodMonitor); create the PodMonitor last"
        ]


class PodMonitor(ObjectConstruct):
    """A monitoring.coreos.com/v1 PodMonitor (prometheus-operator v0.93) scraping training pods.

    With ``job`` it selects the pods the Training Operator creates for that run by the labels the
    operator injects: ``training.kubeflow.org/job-name`` and, with ``replica_types``,
    ``training.kubeflow.org/replica-type`` (lower-cased). With ``pod_labels`` it selects any pods.
    The monitor carries the cluster's ``prometheus_labels`` (e.g. the ``release`` label the
    Prometheus' ``podMonitorSelector`` matches) and watches its own namespace. Argo CD syncs it in
    wave ``1`` and skips the dry run while the CRD is missing.

    Prometheus drops a port the pod does not declare, so the training container must declare the
    metrics port (by name for ``port="metrics"``, by number for ``port=9090``). Create the monitor
    after the job's last ``mount()``: mounting renames a run-once job.

    Args:
        scope: the parent construct (a Chart; the job's namespace).
        id: construct id.
        cluster: target cluster; must list ``prometheus-operator``.
        job: the training job whose pods to scrape. Default: none (give ``pod_labels``).
        replica_types: scrape only these replica types of ``job`` (e.g. ``["Worker"]``).
            Default: every replica type.
        pod_labels: ``selector.matchLabels`` instead of a ``job``. Default: none.
        port: container port name (``port``) or number (``portNumber``). Default: ``"metrics"``.
        path: HTTP path of the metrics. Default: ``"/metrics"``.
        interval: scrape interval as a Prometheus duration. Default: ``"30s"``.
        scrape_timeout: scrape timeout, at most ``interval``. Default: Prometheus' global timeout.
        labels: extra labels on the monitor (override the cluster's ``prometheus_labels``).
            Default: none.
        name: monitor name, a DNS-1123 label. Default: the job's name (required with ``pod_labels``).

    Raises:
        ValueError: both or neither of ``job`` and ``pod_labels``; ``replica_types`` without a job or
            naming a type the job lacks; a bad port, path, duration, label or name; a timeout longer
            than the interval; a cluster without prometheus-operator.

    Source: https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PodMonitor,
    https://prometheus-operator.dev/docs/developer/getting-started/#using-podmonitors
    """

    KIND = "PodMonitor"
    API_VERSION = "monitoring.coreos.com/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        job: TrainingRun | None = None,
        replica_types: Sequence[str] | None = None,
        pod_labels: Mapping[str, str] | None = None,
        port: str | int = "metrics",
        path: str = "/metrics",
        interval: str = "30s",
        scrape_timeout: str | None = None,
        labels: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator("prometheus-operator"):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list prometheus-operator in operators"
            )
        if (job is None) == (pod_labels is None):
            raise ValueError(f"{_KIND} job, pod_labels: give exactly one of them")
        selector: dict[str, Any]
        if job is not None:
            self._name = require_name(_KIND, "name", job.name if name is None else name)
            selector = {"matchLabels": {JOB_NAME_LABEL: job.name}}
            if replica_types is not None:
                selector["matchExpressions"] = [
                    {
                        "key": REPLICA_TYPE_LABEL,
                        "operator": "In",
                        "values": _replica_values(job, replica_types),
                    }
                ]
            add_check(self, _JobNameValidation(job, job.name))
        else:
            if replica_types is not None:
                raise ValueError(f"{_KIND} replica_types={replica_types!r}: needs a job")
            if name is None:
                raise ValueError(f"{_KIND} name=None: required with pod_labels")
            self._name = require_name(_KIND, "name", name)
            matched = require_labels(_KIND, "pod_labels", pod_labels or {})
            if not matched:
                raise ValueError(f"{_KIND} pod_labels={{}}: would scrape every pod of the namespace")
            selector = {"matchLabels": matched}
        endpoint: dict[str, Any] = {}
        if isinstance(port, str):
            if not port:
                raise ValueError(f"{_KIND} port='': must be a port name or number")
            endpoint["port"] = port
        else:
            number = require_whole(_KIND, "port", port, minimum=1)
            if number > 65535:
                raise ValueError(f"{_KIND} port={port!r}: must be at most 65535")
            endpoint["portNumber"] = number
        endpoint["path"] = require_path(_KIND, "path", path)
        interval_ms = duration_ms(_KIND, "interval", interval)
        endpoint["interval"] = interval
        if scrape_timeout is not None:
            if duration_ms(_KIND, "scrape_timeout", scrape_timeout) > interval_ms:
                raise ValueError(
                    f"{_KIND} scrape_timeout={scrape_timeout!r}: must not exceed interval={interval!r}"
                )
            endpoint["scrapeTimeout"] = scrape_timeout
        self._job = job
        meta_labels = {
            **require_labels(_KIND, "cluster.prometheus_labels", cluster.prometheus_labels),
            **require_labels(_KIND, "labels", labels or {}),
        }
        self.emit_object(
            {"spec": {"selector": selector, "podMetricsEndpoints": [endpoint]}},
            labels=meta_labels,
            annotations=argocd_annotations(wave=1, options=[SKIP_DRY_RUN_OPTIONS]),
        )

    @property
    def job(self) -> TrainingRun | None:
        """The scraped job, if any."""
        return self._job


def _replica_values(job: TrainingRun, replica_types: Sequence[str]) -> list[str]:
    if isinstance(replica_types, str) or not replica_types:
        raise ValueError(
            f"{_KIND} replica_types={replica_types!r}: must be a non-empty sequence of replica types"
        )
    values: list[str] = []
    for replica_type in replica_types:
        if replica_type not in job.replica_types:
            raise ValueError(
                f"{_KIND} replica_types: {replica_type!r} is not a replica type of {job.kind} {job.name!r} "
                f"({', '.join(job.replica_types)})"
            )
        if replica_type.lower() not in values:
            values.append(replica_type.lower())
    return values
