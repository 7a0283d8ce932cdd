"""AnalysisTemplate: golden manifest, argument placeholders and the metric checks of ValidateMetric."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.constructs import AnalysisArg, AnalysisTemplate, JobMetric, PrometheusMetric

PROMETHEUS = "http://prometheus-operated.monitoring.svc:9090"
QUERY = 'sum(rate(http_requests_total{service="{{args.service}}", code=~"5.."}[5m]))'


def _metric(**props: Any) -> PrometheusMetric:
    values: dict[str, Any] = {
        "name": "errors",
        "query": QUERY,
        "success_condition": "result[0] < 1",
        "address": PROMETHEUS,
        **props,
    }
    return PrometheusMetric(**values)


def test_custom(chart: Any, synth: Any, golden: Any) -> None:
    job = JobMetric(name="smoke", pod_spec={"containers": [{"name": "c", "image": "busybox:1.36"}]})
    AnalysisTemplate(
        chart, "Analysis", name="checks", metrics=[_metric(), job], args=[AnalysisArg("service")]
    )
    text = synth(chart)["AnalysisTemplate/checks"]
    golden("analysis_template/custom.yaml", text)
    doc = yaml.safe_load(text)
    assert doc["spec"]["args"] == [{"name": "service"}]
    assert (
        doc["spec"]["metrics"][1]["provider"]["job"]["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    )


@pytest.mark.parametrize(
    ("metrics", "args", "message"),
    [
        ([], [], "AnalysisTemplate 'checks' metrics=[]: give at least one metric"),
        (
            [_metric(), _metric()],
            [AnalysisArg("service")],
            "AnalysisTemplate 'checks' metrics[1] name='errors': duplicate",
        ),
        ([_metric()], [], "AnalysisTemplate 'checks': {{args.service}} names no argument of args"),
        (
            [_metric(query="up")],
            [AnalysisArg("service")],
            "AnalysisTemplate 'checks' args: 'service' is used by no metric",
        ),
        (
            [_metric(query="sum(up")],
            [AnalysisArg("service")],
            "AnalysisTemplate 'checks' metrics[0] query expr=",
        ),
        (
            [_metric(count=2, failure_limit=3)],
            [AnalysisArg("service")],
            "AnalysisTemplate 'checks' metrics[0] count=2: must be at least failure_limit=3",
        ),
        (
            [_metric(address="prometheus:9090")],
            [AnalysisArg("service")],
            "AnalysisTemplate 'checks' metrics[0] address='prometheus:9090': must be an http(s) URL",
        ),
    ],
)
def test_bad_metrics(chart: Any, metrics: list[Any], args: list[AnalysisArg], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        AnalysisTemplate(chart, "Analysis", name="checks", metrics=metrics, args=args)
