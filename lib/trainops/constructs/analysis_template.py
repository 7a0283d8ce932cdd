"""``AnalysisTemplate``: an Argo Rollouts analysis (argoproj.io/v1alpha1) that decides whether a new
version of a server may take traffic: Prometheus queries with success conditions, and Jobs whose
exit status is the verdict (a smoke request).

Each metric is checked at once as the Rollouts controller checks it when it starts an AnalysisRun
(argoproj/argo-rollouts v1.9.1 ``utils/analysis/factory.go`` ``ValidateMetric``: counts and limits,
``interval`` when ``count`` > 1, exactly one provider) and as the Rollout reconciler checks a
template a Rollout runs before promotion or in a step (``pkg/apis/rollouts/validation/
validation_references.go`` ``ValidateAnalysisTemplateWithType``: such a metric must end, so it needs a
``count`` unless it has no ``interval``; every ``{{args.X}}`` is a declared argument, as
``utils/template/template.go`` ``ResolveArgs`` requires). PromQL is parsed with promql-parser.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import duration_ms, plain, require_whole
from trainops.constructs.prometheus_rule import check_promql

_KIND = "AnalysisTemplate"
#: Sync wave of analysis templates: before the Rollout (wave 0) that names them, so the Rollout's
#: first reconcile finds them (a missing template makes the Rollout ``InvalidSpec`` until it exists).
ANALYSIS_WAVE = -1
#: ``{{ args.name }}`` placeholders (fasttemplate tags between ``{{`` and ``}}``, trimmed).
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


@dataclass(frozen=True)
class AnalysisArg:
    """One template argument (``spec.args[]``).

    Args:
        name: the argument name, used as ``{{args.<name>}}``.
        value: a default value, or ``None`` for a value the Rollout passes. Default: ``None``.
    """

    name: str
    value: str | None = None

    def spec(self) -> dict[str, Any]:
        """The ``Argument`` entry."""
        return {"name": self.name} if self.value is None else {"name": self.name, "value": self.value}


@dataclass(frozen=True)
class PrometheusMetric:
    """A metric measured by a Prometheus instant query.

    Args:
        name: metric name, unique in the template.
        query: PromQL giving an instant vector (``{{args.X}}`` placeholders allowed).
        success_condition: an expr-lang condition on ``result`` (a vector: ``result[0]``).
        address: the Prometheus base URL, e.g. ``http://prometheus-operated.monitoring.svc:9090``.
        interval: time between measurements, a duration such as ``"1m"``. Default: ``"1m"``.
        count: number of measurements. Default: 5.
        failure_limit: failed measurements tolerated. Default: 1.
        timeout_seconds: query timeout. Default: 30.
    """

    name: str
    query: str
    success_condition: str
    address: str
    interval: str = "1m"
    count: int = 5
    failure_limit: int = 1
    timeout_seconds: int = 30

    def spec(self, where: str) -> dict[str, Any]:
        """The ``Metric`` entry; ``where`` names it in messages."""
        query = check_promql(f"{where} query", self.query)
        if not self.address.startswith(("http://", "https://")) or any(c.isspace() for c in self.address):
            raise ValueError(f"{where} address={self.address!r}: must be an http(s) URL")
        timeout = require_whole(_KIND, f"{where} timeout_seconds", self.timeout_seconds, minimum=1)
        return {
            **_measure(where, self.name, self.interval, self.count, self.failure_limit),
            "successCondition": _condition(where, self.success_condition),
            "provider": {"prometheus": {"address": self.address, "query": query, "timeout": timeout}},
        }


@dataclass(frozen=True)
class JobMetric:
    """A metric measured by a Kubernetes Job: it passes when the Job succeeds (run once).

    Args:
        name: metric name, unique in the template.
        pod_spec: the Job's pod spec (``restartPolicy`` ``Never`` is set).
        backoff_limit: the Job's ``backoffLimit``. Default: 0.
        failure_limit: failed Jobs tolerated. Default: 0.
        labels: labels of the Job's pods. Default: none.
    """

    name: str
    pod_spec: Mapping[str, Any]
    backoff_limit: int = 0
    failure_limit: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)

    def spec(self, where: str) -> dict[str, Any]:
        """The ``Metric`` entry; ``where`` names it in messages."""
        backoff = require_whole(_KIND, f"{where} backoff_limit", self.backoff_limit)
        pod = {**plain(self.pod_spec), "restartPolicy": "Never"}
        template: dict[str, Any] = {"spec": pod}
        if self.labels:
            template = {"metadata": {"labels": dict(self.labels)}, "spec": pod}
        return {
            **_measure(where, self.name, None, 1, self.failure_limit),
            "provider": {"job": {"spec": {"backoffLimit": backoff, "template": template}}},
        }


AnalysisMetric = PrometheusMetric | JobMetric


def _measure(where: str, name: str, interval: str | None, count: int, failure_limit: int) -> dict[str, Any]:
    """``name``, ``interval``, ``count`` and ``failureLimit`` as ``ValidateMetric`` accepts them."""
    require_name(_KIND, f"{where} name", name)
    measured = require_whole(_KIND, f"{where} count", count, minimum=1)
    failures = require_whole(_KIND, f"{where} failure_limit", failure_limit)
    if measured < failures:
        # ValidateMetric: "count (%d) must be >= failureLimit + consecutiveSuccessLimit"
        raise ValueError(f"{where} count={count!r}: must be at least failure_limit={failure_limit!r}")
    out: dict[str, Any] = {"name": name}
    if interval is not None:
        duration_ms(_KIND, f"{where} interval", interval)
        out["interval"] = interval
    elif measured > 1:
        raise ValueError(f"{where} count={count!r}: an interval is required when count > 1")
    out["count"] = measured
    out["failureLimit"] = failures
    return out


def _condition(where: str, condition: str) -> str:
    if not isinstance(condition, str) or "result" not in condition:
        raise ValueError(f"{where} success_condition={condition!r}: must be a condition on result")
    return condition


def placeholders(value: Any) -> set[str]:
    """Every ``{{ tag }}`` (trimmed) in the strings of ``value`` (dicts and lists walked)."""
    if isinstance(value, str):
        return {tag.strip() for tag in _PLACEHOLDER.findall(value)}
    if isinstance(value, dict):
        return set().union(*(placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(placeholders(v) for v in value)) if value else set()
    return set()


class AnalysisTemplate(ObjectConstruct):
    """An argoproj.io/v1alpha1 AnalysisTemplate (Argo Rollouts v1.9).

    Synced in wave ``-1`` (before the Rollout that names it) with ``SkipDryRunOnMissingResource``
    (the Argo Rollouts CRDs come with the controller, installed by another app).

    Args:
        scope: the parent construct (a Chart or a ``ModelServer``).
        id: construct id.
        name: template name, a DNS-1123 label.
        metrics: at least one :class:`PrometheusMetric` or :class:`JobMetric`, names unique.
        args: the template's arguments, each used as ``{{args.<name>}}``. Default: none.

    Raises:
        ValueError: no metric, a duplicate metric name, a bad metric (see the metric classes), a
            placeholder that names no argument, or an argument no metric uses.

    Source: https://argo-rollouts.readthedocs.io/en/stable/features/analysis/; argoproj/argo-rollouts
    v1.9.1 ``utils/analysis/factory.go`` (``ValidateMetrics``, ``ValidateMetric``).
    """

    KIND = "AnalysisTemplate"
    API_VERSION = "argoproj.io/v1alpha1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        metrics: Sequence[AnalysisMetric],
        args: Sequence[AnalysisArg] = (),
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
            raise ValueError(f"{_KIND} {name!r} metrics={metrics!r}: give at least one metric")
        out: list[dict[str, Any]] = []
        for index, metric in enumerate(metrics):
            where = f"{_KIND} {name!r} metrics[{index}]"
            if not isinstance(metric, PrometheusMetric | JobMetric):
                raise ValueError(f"{where}={metric!r}: must be a PrometheusMetric or JobMetric")
            if any(m["name"] == metric.name for m in out):
                raise ValueError(f"{where} name={metric.name!r}: duplicate metric name")
            out.append(metric.spec(where))
        declared = [require_name(_KIND, "args name", a.name) for a in args]
        used = placeholders(out)
        for tag in sorted(used):
            if not tag.startswith("args.") or tag[5:] not in declared:
                raise ValueError(f"{_KIND} {name!r}: {{{{{tag}}}}} names no argument of args")
        for arg in declared:
            if f"args.{arg}" not in used:
                raise ValueError(f"{_KIND} {name!r} args: {arg!r} is used by no metric")
        self._metrics = tuple(m["name"] for m in out)
        self._args = tuple(declared)
        spec: dict[str, Any] = {"metrics": out}
        if args:
            spec = {"args": [a.spec() for a in args], "metrics": out}
        emit(
            self,
            {
                "apiVersion": self.api_version,
                "kind": self.kind,
                "metadata": {
                    "name": self._name,
                    "annotations": argocd_annotations(wave=ANALYSIS_WAVE, options=[SKIP_DRY_RUN_OPTIONS]),
                },
                "spec": spec,
            },
        )

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics' names, in order."""
        return self._metrics

    @property
    def arg_names(self) -> tuple[str, ...]:
        """The arguments' names, in order."""
        return self._args
