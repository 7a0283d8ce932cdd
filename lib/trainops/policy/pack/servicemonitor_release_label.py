"""ServiceMonitors, PodMonitors and PrometheusRules carry the ``release`` label the cluster's
Prometheus selects them by.

Why: kube-prometheus-stack's Prometheus only loads monitors labelled ``release: <its release>``;
one without it is valid, applied and ignored.

Options: ``label``: the label key Prometheus selects by.

Default: enabled, level warning, ``label: release`` (the value comes from the cluster facts;
without one the rule is silent).

PASS:

    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata:
      name: serve
      labels: {release: kube-prometheus-stack}
    spec:
      selector: {matchLabels: {app: serve}}
      endpoints: [{port: http}]

FAIL:

    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata: {name: serve}
    spec:
      selector: {matchLabels: {app: serve}}
      endpoints: [{port: http}]

Remediation: Add the release label with the value of the cluster's Prometheus release.

Source: https://github.com/prometheus-community/helm-charts/blob/main/charts/kube-prometheus-stack/values.yaml (serviceMonitorSelectorNilUsesHelmValues)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import labels_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "servicemonitor-release-label"
LEVEL: Level = "warning"
KINDS = frozenset(
    {
        ("monitoring.coreos.com", "ServiceMonitor"),
        ("monitoring.coreos.com", "PodMonitor"),
        ("monitoring.coreos.com", "PrometheusRule"),
    }
)
CONF: dict[str, dict[str, Any]] = {"label": {"type": "string"}}
DEFAULT: dict[str, Any] = {"label": "release"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The label's value against the cluster's Prometheus release."""
    release = ctx.facts.prometheus_release
    if release is None:
        return
    value = labels_of(obj).get(conf["label"])
    if value != release:
        shown = "no" if value is None else f'"{value}" as'
        yield Issue(
            ("metadata", "labels", conf["label"]),
            f'{obj.get("kind")} has {shown} {conf["label"]} label; Prometheus selects {conf["label"]}: "{release}"',
            ID,
        )
