"""GrafanaDashboard: ConfigMaps for the Grafana sidecar built with grafana-foundation-sdk; presets."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.constructs import DashboardPanel, DashboardQuery, GrafanaDashboard
from trainops.constructs.alert_presets import TF_SERVING
from trainops.constructs.dashboard_presets import serving_panels, training_panels
from trainops.constructs.grafana_dashboard import promql_for_parser


def _dashboard(doc: dict[str, Any]) -> dict[str, Any]:
    (text,) = doc["data"].values()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def test_training_dashboard(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    GrafanaDashboard(
        chart,
        "Dashboard",
        name="training-gpus",
        title="Training: GPUs and jobs",
        panels=training_panels(),
        variables={"namespace": "ml-test"},
        folder="ML",
    )
    docs = synth(chart)
    text = docs["ConfigMap/training-gpus"]
    golden("grafana_dashboard/training.yaml", text)
    doc = yaml.safe_load(text)
    dashboard = _dashboard(doc)
    # Labelled for the sidecar, one JSON file named after the uid, DCGM metrics in the panels.
    assert doc["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert doc["metadata"]["annotations"]["grafana_folder"] == "ML"
    assert list(doc["data"]) == ["training-gpus.json"] and dashboard["uid"] == "training-gpus"
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert any("DCGM_FI_DEV_GPU_UTIL" in e for e in exprs)
    assert [v["name"] for v in dashboard["templating"]["list"]] == ["datasource", "namespace"]
    validate_docs(cli, tmp_path, docs)


def test_serving_dashboard_layout(chart: Any, synth: Any, golden: Any) -> None:
    GrafanaDashboard(
        chart,
        "Dashboard",
        name="serving-resnet",
        title="Serving: resnet",
        panels=serving_panels(TF_SERVING),
        variables={"namespace": "ml-test", "model": "resnet"},
    )
    text = synth(chart)["ConfigMap/serving-resnet"]
    golden("grafana_dashboard/serving.yaml", text)
    panels = _dashboard(yaml.safe_load(text))["panels"]
    # Two half-width panels side by side, then the full-width latency panel below them.
    assert [(p["gridPos"]["x"], p["gridPos"]["y"], p["gridPos"]["w"]) for p in panels] == [
        (0, 0, 12),
        (12, 0, 12),
        (0, 8, 24),
    ]
    # TF Serving latency is in microseconds: scaled to seconds.
    assert all(t["expr"].endswith("* 1e-06") for t in panels[2]["targets"])
    assert [t["refId"] for t in panels[2]["targets"]] == ["A", "B", "C"]


def test_same_input_same_bytes(chart: Any) -> None:
    first = GrafanaDashboard(chart, "A", name="a", title="T", panels=training_panels())
    second = GrafanaDashboard(chart, "B", name="a", title="T", panels=training_panels())
    assert first.dashboard_json == second.dashboard_json


@pytest.mark.parametrize(
    ("expr", "parsed"),
    [
        ("rate(x[$__rate_interval])", "rate(x[5m])"),
        ('up{namespace="$namespace"}', 'up{namespace="namespace"}'),
        ('up{namespace="${namespace}"}', 'up{namespace="namespace"}'),
        ("sum by ($group) (up)", "sum by (group) (up)"),
    ],
)
def test_grafana_variables_are_replaced_for_the_parser(expr: str, parsed: str) -> None:
    assert promql_for_parser(expr) == parsed


_OK = DashboardPanel("p", [DashboardQuery("up")])


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"panels": []}, "GrafanaDashboard panels=[]: must list at least one DashboardPanel"),
        (
            {"panels": [DashboardPanel("p", [DashboardQuery("sum(rate(x[$__rate_interval])")])]},
            "GrafanaDashboard panels[0] queries[0] expr='sum(rate(x[5m])': unclosed left parenthesis",
        ),
        ({"panels": [DashboardPanel("p", [])]}, "GrafanaDashboard panels[0] queries: must list at least one"),
        ({"panels": [DashboardPanel("", [DashboardQuery("up")])]}, "GrafanaDashboard panels[0] title='':"),
        (
            {"panels": [DashboardPanel("p", [DashboardQuery("up")], width=25)]},
            "GrafanaDashboard panels[0] width=25",
        ),
        ({"panels": [DashboardPanel("p", [DashboardQuery("up")], kind="table")]}, "kind='table': must be"),  # type: ignore[arg-type]
        ({"variables": {"datasource": "x"}}, "GrafanaDashboard variables: 'datasource' is the built-in"),
        (
            {"variables": {"name-space": "x"}},
            "GrafanaDashboard variables: 'name-space' is not a variable name",
        ),
        ({"variables": {"ns": "a,b"}}, "GrafanaDashboard variables: ns='a,b' must be one non-empty value"),
        ({"title": " "}, "GrafanaDashboard title=' ': must be a non-empty string"),
        ({"name": "Dash"}, "GrafanaDashboard name='Dash': must be a DNS-1123 label"),
        ({"folder": ""}, "GrafanaDashboard folder='': must be a non-empty string"),
        ({"sidecar_label": ("grafana dashboard", "1")}, "GrafanaDashboard sidecar_label: label key"),
        ({"tags": "ml"}, "GrafanaDashboard tags='ml': must be a sequence of strings"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"name": "dash", "title": "T", "panels": [_OK]}
    pattern = f"^{re.escape(message)}" if message.startswith("GrafanaDashboard") else re.escape(message)
    with pytest.raises(ValueError, match=pattern):
        GrafanaDashboard(chart, "Dashboard", **{**base, **props})
