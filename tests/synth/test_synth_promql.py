"""A PromQL typo in an app fails `trainops synth` with one line and leaves generated/ untouched."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs import AlertRule, PrometheusRule, RuleGroup

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34", operators={{"prometheus-operator": "v0.93.0"}}),)


def build(chart, cluster):
    PrometheusRule(
        chart, "Rules", cluster=cluster, name="alerts",
        groups=[RuleGroup("serving", [AlertRule("ModelDown", {expr!r})])],
    )


APPS = (AppDef(name="alerts", build=build, namespace="ml", team="research"),)
"""


def _write(root: Path, expr: str) -> None:
    (root / "apps").mkdir(parents=True, exist_ok=True)
    (root / "apps" / "__init__.py").write_text(textwrap.dedent(APPS_INIT.format(expr=expr)))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    _write(root, 'sum(up{job="resnet"}) == 0')
    monkeypatch.chdir(root)
    return root


def test_typo_fails_synth(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0
    written = (project / "generated" / "lab" / "alerts" / "prometheusrule_alerts.yaml").read_text()
    _write(project, 'sum(up{job="resnet"} == 0')
    run = cli("synth")
    assert run.code == 2
    assert run.err.strip() == (
        "trainops: apps/__init__.py:10: app 'alerts' on cluster 'lab': PrometheusRule groups[0] rules[0] (alert 'ModelDown') "
        "expr='sum(up{job=\"resnet\"} == 0': unclosed left parenthesis"
    )
    assert (project / "generated" / "lab" / "alerts" / "prometheusrule_alerts.yaml").read_text() == written
