"""``PrometheusRule``: prometheus-operator alerting and recording rules, every PromQL expression
parsed offline so that a typo fails synth instead of the Prometheus rule reload."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import promql_parser

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name
from trainops.constructs._core.props import duration_ms, require_labels
from trainops.core.cluster import Cluster
from trainops.core.naming import DNS1123_SUBDOMAIN

_KIND = "PrometheusRule"
#: Prometheus metric names (``model.IsValidMetricName`` in the legacy, UTF-8-free scheme).
_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
#: Prometheus label names (``model.LabelName.IsValid``, legacy scheme).
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
Severity = Literal["critical", "warning", "info"]


def check_promql(where: str, expr: str) -> str:
    """Parse ``expr`` with promql-parser (the Rust port of Prometheus' own parser) and check that it
    evaluates to an instant vector or a scalar, as a rule's expression must (Prometheus
    ``rules.EngineQueryFunc``: "rule result is not a vector or scalar").

    Args:
        where: names the expression in messages, e.g. ``PrometheusRule groups[0].rules[1]``.
        expr: the PromQL expression.

    Returns:
        ``expr`` unchanged.

    Raises:
        ValueError: ``<where> expr=<expr>: <parser message>``.
    """
    if not isinstance(expr, str) or not expr.strip():
        raise ValueError(f"{where} expr={expr!r}: must be a non-empty PromQL expression")
    try:
        tree = promql_parser.parse(expr)
    except ValueError as exc:
        raise ValueError(f"{where} expr={expr!r}: {exc}") from None
    while isinstance(tree, promql_parser.ParenExpr):
        tree = tree.expr
    if isinstance(
        tree, promql_parser.MatrixSelector | promql_parser.SubqueryExpr | promql_parser.StringLiteral
    ):
        raise ValueError(f"{where} expr={expr!r}: must evaluate to an instant vector or a scalar")
    return expr


def _label_names(where: str, prop: str, labels: Mapping[str, str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in (labels or {}).items():
        if not isinstance(key, str) or not _LABEL_NAME.match(key) or key == "__name__":
            raise ValueError(f"{where} {prop}: {key!r} is not a Prometheus label name")
        if not isinstance(value, str):
            raise ValueError(f"{where} {prop}: {key}={value!r} must be a string")
        out[key] = value
    return out


@dataclass(frozen=True)
class AlertRule:
    """One alerting rule.

    Args:
        alert: alert name (``alertname``), e.g. ``"TrainingJobFailed"``.
        expr: PromQL; the alert fires for every series it returns.
        for_duration: how long ``expr`` must hold before the alert fires (``for``), a Prometheus
            duration, or ``None`` to fire at once. Default: ``"5m"``.
        severity: the ``severity`` label Alertmanager routes by, or ``None``. Default: ``"warning"``.
        summary: the ``summary`` annotation. Default: none.
        description: the ``description`` annotation (may use ``{{ $labels.x }}``). Default: none.
        runbook_url: the ``runbook_url`` annotation. Default: none.
        labels: extra labels on the alert. Default: none.
        keep_firing_for: keep firing this long after ``expr`` stops returning the series. Default: unset.

    Source: https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/ and Prometheus
    ``model/rulefmt/rulefmt.go`` (``Rule.Validate``).
    """

    alert: str
    expr: str
    for_duration: str | None = "5m"
    severity: Severity | None = "warning"
    summary: str | None = None
    description: str | None = None
    runbook_url: str | None = None
    labels: Mapping[str, str] | None = None
    keep_firing_for: str | None = None

    def spec(self, where: str) -> dict[str, Any]:
        """The rule as the PrometheusRule CRD spells it; ``where`` names it in messages."""
        if not isinstance(self.alert, str) or not self.alert or any(c.isspace() for c in self.alert):
            raise ValueError(f"{where} alert={self.alert!r}: must be a non-empty name without spaces")
        where = f"{where} (alert {self.alert!r})"
        rule: dict[str, Any] = {"alert": self.alert, "expr": check_promql(where, self.expr)}
        if self.for_duration is not None:
            duration_ms(where, "for_duration", self.for_duration)
            rule["for"] = self.for_duration
        if self.keep_firing_for is not None:
            duration_ms(where, "keep_firing_for", self.keep_firing_for)
            rule["keep_firing_for"] = self.keep_firing_for
        labels = _label_names(where, "labels", self.labels)
        if self.severity is not None:
            if self.severity not in ("critical", "warning", "info"):
                raise ValueError(
                    f"{where} severity={self.severity!r}: must be 'critical', 'warning' or 'info'"
                )
            labels["severity"] = self.severity
        if labels:
            rule["labels"] = labels
        annotations = {
            key: value
            for key, value in (
                ("summary", self.summary),
                ("description", self.description),
                ("runbook_url", self.runbook_url),
            )
            if value is not None
        }
        if annotations:
            rule["annotations"] = annotations
        return rule


@dataclass(frozen=True)
class RecordingRule:
    """One recording rule: stores ``expr`` as the new series ``record``.

    Args:
        record: the new metric name, e.g. ``"job:gpu_utilization:avg"`` (a valid metric name).
        expr: PromQL.
        labels: labels added to the recorded series. Default: none.

    Source: https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/ and
    ``rulefmt.Rule.Validate`` ("invalid recording rule name").
    """

    record: str
    expr: str
    labels: Mapping[str, str] | None = None

    def spec(self, where: str) -> dict[str, Any]:
        """The rule as the PrometheusRule CRD spells it; ``where`` names it in messages."""
        if not isinstance(self.record, str) or not _METRIC_NAME.match(self.record):
            raise ValueError(f"{where} record={self.record!r}: not a valid metric name")
        where = f"{where} (record {self.record!r})"
        rule: dict[str, Any] = {"record": self.record, "expr": check_promql(where, self.expr)}
        labels = _label_names(where, "labels", self.labels)
        if labels:
            rule["labels"] = labels
        return rule


@dataclass(frozen=True)
class RuleGroup:
    """A rule group: rules evaluated together, in order, every ``interval``.

    Args:
        name: group name, unique within the PrometheusRule.
        rules: at least one :class:`AlertRule` or :class:`RecordingRule`.
        interval: evaluation interval as a Prometheus duration. Default: Prometheus' global interval.
    """

    name: str
    rules: Sequence[AlertRule | RecordingRule]
    interval: str | None = None


class PrometheusRule(ObjectConstruct):
    """A monitoring.coreos.com/v1 PrometheusRule (prometheus-operator v0.93).

    Every expression is parsed offline with promql-parser (a maintained port of Prometheus' PromQL
    parser), so a typo fails ``trainops synth`` with a one-line error instead of a rule reload
    error in Prometheus. The rule carries the cluster's ``prometheus_labels`` (what the
    Prometheus' ``ruleSelector`` matches). Argo CD syncs it in wave ``1`` and skips the dry run
    while the CRD is missing. Ready-made alerts are in :mod:`trainops.constructs.alert_presets`.

    Args:
        scope: the parent construct (a Chart; its namespace is the rule's).
        id: construct id.
        cluster: target cluster; must list ``prometheus-operator``.
        name: rule name, a DNS-1123 subdomain.
        groups: at least one :class:`RuleGroup`, names unique.
        labels: extra labels (override the cluster's ``prometheus_labels``). Default: none.

    Raises:
        ValueError: a PromQL syntax error (with the parser's message), an expression that is a range
            vector or string, a bad alert/record/label name or duration, an empty or duplicate group,
            or a cluster without prometheus-operator.

    Source: https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.PrometheusRule
    """

    KIND = "PrometheusRule"
    API_VERSION = "monitoring.coreos.com/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        groups: Sequence[RuleGroup],
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator("prometheus-operator"):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list prometheus-operator in operators"
            )
        self._name = require_name(_KIND, "name", name, max_length=253, syntax=DNS1123_SUBDOMAIN)
        if isinstance(groups, RuleGroup) or not groups:
            raise ValueError(f"{_KIND} groups={groups!r}: must list at least one RuleGroup")
        seen: set[str] = set()
        group_specs: list[dict[str, Any]] = []
        alerts: list[str] = []
        for g, group in enumerate(groups):
            where = f"{_KIND} groups[{g}]"
            if not isinstance(group, RuleGroup):
                raise ValueError(f"{where}={group!r}: must be a RuleGroup")
            if not isinstance(group.name, str) or not group.name:
                raise ValueError(f"{where} name={group.name!r}: must be a non-empty string")
            if group.name in seen:  # rulefmt: "groupname: %q is repeated in the same file"
                raise ValueError(f"{where} name={group.name!r}: repeated in the same PrometheusRule")
            seen.add(group.name)
            if isinstance(group.rules, AlertRule | RecordingRule) or not group.rules:
                raise ValueError(f"{where} rules: must list at least one rule")
            spec: dict[str, Any] = {"name": group.name}
            if group.interval is not None:
                duration_ms(where, "interval", group.interval)
                spec["interval"] = group.interval
            rules = []
            for r, rule in enumerate(group.rules):
                if not isinstance(rule, AlertRule | RecordingRule):
                    raise ValueError(f"{where} rules[{r}]={rule!r}: must be an AlertRule or RecordingRule")
                rules.append(rule.spec(f"{where} rules[{r}]"))
                if isinstance(rule, AlertRule):
                    alerts.append(rule.alert)
            spec["rules"] = rules
            group_specs.append(spec)
        self._alerts = tuple(alerts)
        meta_labels = {
            **require_labels(_KIND, "cluster.prometheus_labels", cluster.prometheus_labels),
            **require_labels(_KIND, "labels", labels or {}),
        }
        self.emit_object(
            {"spec": {"groups": group_specs}},
            labels=meta_labels,
            annotations=argocd_annotations(wave=1, options=[SKIP_DRY_RUN_OPTIONS]),
        )

    @property
    def alerts(self) -> tuple[str, ...]:
        """The alert names, in order."""
        return self._alerts
