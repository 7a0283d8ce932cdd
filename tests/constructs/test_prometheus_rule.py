"""PrometheusRule: golden manifests, PromQL parsed offline, alert presets, upstream parity."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from construct_helpers import EXAMPLES, raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import AlertRule, PrometheusRule, RecordingRule, RuleGroup
from trainops.constructs.alert_presets import (
    TF_SERVING,
    gpu_idle_alerts,
    serving_slo_alerts,
    training_job_alerts,
)
from trainops.constructs.prometheus_rule import check_promql
from trainops.core.cluster import Cluster

MIXIN = EXAMPLES / "prometheus-operator" / "example" / "mixin" / "alerts.yaml"
_RELEASE = Cluster(
    name="prod",
    kubernetes_version="1.34",
    operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
    prometheus_labels={"release": "kube-prometheus-stack"},
)


def _mixin_rules() -> list[dict[str, Any]]:
    if not MIXIN.is_file():
        return []
    return [rule for group in yaml.safe_load(MIXIN.read_text())["groups"] for rule in group["rules"]]


def _alert(rule: dict[str, Any]) -> AlertRule:
    labels = dict(rule.get("labels", {}))
    annotations = rule.get("annotations", {})
    return AlertRule(
        alert=rule["alert"],
        expr=rule["expr"],
        for_duration=rule.get("for"),
        severity=labels.pop("severity", None),
        summary=annotations.get("summary"),
        description=annotations.get("description"),
        runbook_url=annotations.get("runbook_url"),
        labels=labels or None,
    )


def test_custom_rules(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Path) -> None:
    PrometheusRule(
        chart,
        "Rules",
        cluster=_RELEASE,
        name="serving-rules",
        groups=[
            RuleGroup(
                "serving.records",
                [RecordingRule("model:request_rate:5m", "sum by (model_name) (rate(requests_total[5m]))")],
                interval="1m",
            ),
            RuleGroup(
                "serving.alerts",
                [
                    AlertRule(
                        "ModelDown",
                        'up{job="resnet"} == 0',
                        severity="critical",
                        summary="resnet is down",
                        runbook_url="https://runbooks.example.com/model-down",
                        labels={"team": "vision"},
                        keep_firing_for="10m",
                    )
                ],
            ),
        ],
    )
    docs = synth(chart)
    text = docs["PrometheusRule/serving-rules"]
    golden("prometheus_rule/custom.yaml", text)
    doc = yaml.safe_load(text)
    # The cluster's ruleSelector label; monitors and rules sync last (wave 1).
    assert doc["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert doc["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "1"
    assert doc["spec"]["groups"][1]["rules"][0]["labels"] == {"team": "vision", "severity": "critical"}
    validate_docs(cli, tmp_path, docs)


def test_presets(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Path
) -> None:
    rule = PrometheusRule(
        chart,
        "Rules",
        cluster=test_cluster,
        name="ml-alerts",
        groups=[
            RuleGroup(
                "training", [*training_job_alerts(namespace="ml-test"), *gpu_idle_alerts(namespace="ml-test")]
            ),
            RuleGroup(
                "serving",
                serving_slo_alerts(
                    selector={"namespace": "ml-test", "model_name": "resnet"}, metrics=TF_SERVING
                ),
            ),
        ],
    )
    docs = synth(chart)
    golden("prometheus_rule/presets.yaml", docs["PrometheusRule/ml-alerts"])
    assert rule.alerts == (
        "TrainingJobFailed",
        "TrainingJobRestarting",
        "TrainingPodRestarting",
        "TrainingGPUIdle",
        "ServingErrorRateHigh",
        "ServingLatencyHigh",
    )
    # TF Serving reports latency in microseconds: a 0.5 s objective is 500000 units.
    latency = yaml.safe_load(docs["PrometheusRule/ml-alerts"])["spec"]["groups"][1]["rules"][1]["expr"]
    assert latency.endswith("> 500000")
    validate_docs(cli, tmp_path, docs)


def test_training_pod_pattern_matches_operator_pod_names() -> None:
    # Pod names from the Training Operator's GenGeneralName: <job>-<replica type>-<index>.
    from trainops.constructs.alert_presets import TRAINING_POD_PATTERN

    pattern = re.compile(TRAINING_POD_PATTERN)
    assert all(
        pattern.fullmatch(n) for n in ("bert-ft-3f2a-master-0", "bert-ft-3f2a-worker-11", "mnist-ps-0")
    )
    assert not pattern.fullmatch("resnet-7d9f8c6b5-x2k4q")  # a Deployment's pod


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("sum(rate(http_requests_total[5m])", "unclosed left parenthesis"),
        ("rate(http_requests_total)", "expected type matrix in call to function 'rate', got vector"),
        ("http_requests_total[5m]", "must evaluate to an instant vector or a scalar"),
        ('"text"', "must evaluate to an instant vector or a scalar"),
        ("(rate(x[5m])[30m:1m])", "must evaluate to an instant vector or a scalar"),
        ("sum(x) bye (job)", ""),
        ("", "must be a non-empty PromQL expression"),
    ],
)
def test_promql_typo_fails(chart: Any, test_cluster: Cluster, expr: str, message: str) -> None:
    with pytest.raises(
        ValueError,
        match=rf"^PrometheusRule groups\[0\] rules\[0\] \(alert 'Broken'\) expr={re.escape(repr(expr))}: .*{re.escape(message)}",
    ):
        PrometheusRule(
            chart,
            "Rules",
            cluster=test_cluster,
            name="r",
            groups=[RuleGroup("g", [AlertRule("Broken", expr)])],
        )


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([], "PrometheusRule groups=[]: must list at least one RuleGroup"),
        ([RuleGroup("g", [])], "PrometheusRule groups[0] rules: must list at least one rule"),
        (
            [RuleGroup("g", [AlertRule("A", "up == 0")]), RuleGroup("g", [AlertRule("B", "up == 0")])],
            "PrometheusRule groups[1] name='g': repeated in the same PrometheusRule",
        ),
        (
            [RuleGroup("", [AlertRule("A", "up == 0")])],
            "PrometheusRule groups[0] name='': must be a non-empty",
        ),
        (
            [RuleGroup("g", [AlertRule("A", "up == 0")], interval="1 minute")],
            "PrometheusRule groups[0] interval='1 minute': not a Prometheus duration",
        ),
        (
            [RuleGroup("g", [AlertRule("Model Down", "up == 0")])],
            "PrometheusRule groups[0] rules[0] alert='Model Down'",
        ),
        (
            [RuleGroup("g", [AlertRule("A", "up == 0", for_duration="5 min")])],
            "PrometheusRule groups[0] rules[0] (alert 'A') for_duration='5 min': not a Prometheus duration",
        ),
        (
            [RuleGroup("g", [AlertRule("A", "up == 0", severity="page")])],  # type: ignore[arg-type]
            "PrometheusRule groups[0] rules[0] (alert 'A') severity='page': must be 'critical'",
        ),
        (
            [RuleGroup("g", [AlertRule("A", "up == 0", labels={"team-name": "x"})])],
            "PrometheusRule groups[0] rules[0] (alert 'A') labels: 'team-name' is not a Prometheus label name",
        ),
        (
            [RuleGroup("g", [RecordingRule("model-rate", "up")])],
            "PrometheusRule groups[0] rules[0] record='model-rate': not a valid metric name",
        ),
        (
            [RuleGroup("g", [{"alert": "A"}])],
            "PrometheusRule groups[0] rules[0]={'alert': 'A'}: must be an AlertRule",
        ),  # type: ignore[list-item]
    ],
)
def test_bad_groups(chart: Any, test_cluster: Cluster, groups: list[RuleGroup], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PrometheusRule(chart, "Rules", cluster=test_cluster, name="r", groups=groups)


def test_cluster_without_prometheus_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34", operators={"kserve": "v0.20.0"})
    with pytest.raises(
        ValueError, match=r"^PrometheusRule cluster='bare': the cluster does not list prometheus"
    ):
        PrometheusRule(
            chart, "Rules", cluster=bare, name="r", groups=[RuleGroup("g", [AlertRule("A", "up == 0")])]
        )


@pytest.mark.parametrize(
    ("selector", "props", "message"),
    [
        ({}, {}, "serving_slo_alerts selector={}: give at least one label matcher"),
        ({"a": "b"}, {"error_ratio": 1.5}, "serving_slo_alerts error_ratio=1.5: must be between 0 and 1"),
        ({"a": "b"}, {"quantile": 0}, "serving_slo_alerts quantile=0: must be between 0 and 1"),
        ({"a": "b"}, {"latency_seconds": 0}, "serving_slo_alerts latency_seconds=0: must be positive"),
    ],
)
def test_bad_serving_preset(selector: dict[str, str], props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        serving_slo_alerts(selector=selector, **props)


@pytest.mark.parametrize("rule", _mixin_rules(), ids=lambda r: r["alert"])
def test_upstream_mixin_expressions_parse(rule: dict[str, Any]) -> None:
    # Real PromQL from prometheus-operator's own alerts parses; a truncated copy does not.
    assert check_promql("mixin", rule["expr"]) == rule["expr"]
    with pytest.raises(ValueError, match=r"^mixin expr="):
        check_promql("mixin", rule["expr"].rstrip().rsplit(" ", 1)[0] + " >")


def test_parity_prometheus_operator_mixin(chart: Any, test_cluster: Cluster) -> None:
    if not MIXIN.is_file():
        pytest.skip(f"{MIXIN} is not there")
    expected = yaml.safe_load(MIXIN.read_text())["groups"]
    PrometheusRule(
        chart,
        "Rules",
        cluster=test_cluster,
        name="prometheus-operator-rules",
        groups=[RuleGroup(g["name"], [_alert(r) for r in g["rules"]]) for g in expected],
    )
    # The rule file's groups are the PrometheusRule's spec.groups, rule for rule.
    assert raw_object(chart, "PrometheusRule/prometheus-operator-rules")["spec"]["groups"] == expected


def test_parity_prometheus_operator_thanos_example(chart: Any) -> None:
    expected = upstream_doc("prometheus-operator/example/thanos/prometheus-rule.yaml")
    (group,) = expected["spec"]["groups"]
    (rule,) = group["rules"]
    PrometheusRule(
        chart,
        "Rules",
        cluster=_RELEASE,
        name=expected["metadata"]["name"],
        groups=[
            RuleGroup(
                group["name"], [AlertRule(rule["alert"], rule["expr"], for_duration=None, severity=None)]
            )
        ],
        labels=expected["metadata"]["labels"],
    )
    ours = without_paths(
        raw_object(chart, "PrometheusRule/prometheus-example-alerts"),
        {
            "metadata.annotations.argocd.argoproj.io/sync-wave": "1",  # after the workloads
            "metadata.annotations.argocd.argoproj.io/sync-options": "SkipDryRunOnMissingResource=true",
            "metadata.labels.release": "kube-prometheus-stack",  # the cluster's ruleSelector label
        },
    )
    # Intended: upstream's kubectl output carries creationTimestamp: null; trainops namespaces the
    # rule by its Chart instead of "default".
    expected_meta = {k: v for k, v in expected["metadata"].items() if k != "creationTimestamp"}
    assert ours == {**expected, "metadata": {**expected_meta, "namespace": "ml-test"}}
