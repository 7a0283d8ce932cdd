"""The rollouts-controller family: Argo Rollouts' own spec validation (v1.9.1) on upstream examples
(all valid) and on one-field mutations of them, each giving the controller's message."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.validate.checks.rollouts import (
    ANALYSIS_KINDS,
    analysis_issues,
    pause_seconds,
    rollout_issues,
)

pytestmark = needs_shared
UPSTREAM = EXAMPLES / "argo-rollouts" / "examples"


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]


def _issues(doc: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    kind = doc.get("kind", "")
    found = rollout_issues(doc) if kind == "Rollout" else analysis_issues(kind, doc)
    return [(i.parts, i.message) for i in found]


def _upstream(kind: str, name: str) -> dict[str, Any]:
    for path in sorted(UPSTREAM.rglob("*.yaml")):
        for doc in _documents(path):
            if doc.get("kind") == kind and doc.get("metadata", {}).get("name") == name:
                return copy.deepcopy(doc)
    raise LookupError(f"{kind}/{name} not in {UPSTREAM}")


def _argoproj(path: Path) -> list[dict[str, Any]]:
    return [
        d
        for d in _documents(path)
        if str(d.get("apiVersion", "")).startswith("argoproj.io/")
        and (d.get("kind") == "Rollout" or d.get("kind") in ANALYSIS_KINDS)
    ]


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(UPSTREAM.rglob("*.yaml")) if _argoproj(p)] if UPSTREAM.is_dir() else [],
    ids=lambda p: str(p.relative_to(UPSTREAM)),
)
def test_upstream_examples_are_valid(path: Path) -> None:
    assert [(d["kind"], _issues(d)) for d in _argoproj(path) if _issues(d)] == []


def _set(doc: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    node: Any = doc
    for step in path[:-1]:
        node = node[step]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("kind", "name", "path", "value", "where", "message"),
    [
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy"),
            {"blueGreen": {"activeService": "demo", "previewService": "demo"}},
            ("spec", "strategy", "blueGreen", "activeService"),
            "'demo': This rollout uses the same service for the active and preview "
            "services, but two different services are required.",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy"),
            {"blueGreen": {"activeService": "a", "previewService": "b", "scaleDownDelayRevisionLimit": 3}},
            ("spec", "strategy", "blueGreen", "scaleDownDelayRevisionLimit"),
            "3: This rollout's revision history limit can not be smaller than the rollout's scale down limit",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy", "canary", "steps", 0, "setWeight"),
            150,
            ("spec", "strategy", "canary", "steps", 0, "setWeight"),
            "150: SetWeight needs to be between 0 and 100",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy", "canary", "steps", 1),
            {"pause": {"duration": "ten minutes"}},
            ("spec", "strategy", "canary", "steps", 1, "pause", "duration"),
            "'ten minutes': Duration needs to be greater than 0",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy", "canary", "steps", 0, "pause"),
            {"duration": "10s"},
            ("spec", "strategy", "canary", "steps", 0),
            "more than one of setWeight, pause, experiment, analysis: Step must have one of the following "
            "set: experiment, setWeight, setCanaryScale, plugin or pause",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy", "canary", "scaleDownDelaySeconds"),
            30,
            ("spec", "strategy", "canary", "scaleDownDelaySeconds"),
            "Canary scaleDownDelaySeconds can only be used with traffic routing",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "strategy", "blueGreen"),
            {"activeService": "a", "previewService": "b"},
            ("spec", "strategy"),
            "blueGreen: true canary: true: Multiple Strategies can not be listed",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "selector", "matchLabels"),
            {"app": "other"},
            ("spec", "template", "metadata", "labels"),
            "`selector` does not match template `labels`",
        ),
        (
            "Rollout",
            "rollout-analysis-step",
            ("spec", "minReadySeconds"),
            600,
            ("spec", "progressDeadlineSeconds"),
            "600: must be greater than minReadySeconds",
        ),
        (
            "AnalysisTemplate",
            "random-fail",
            ("spec", "metrics", 0, "interval"),
            None,
            ("spec", "metrics"),
            "Analysis spec invalid: metrics[0]: interval must be specified when count > 1",
        ),
        (
            "AnalysisTemplate",
            "random-fail",
            ("spec", "metrics", 0, "failureLimit"),
            3,
            ("spec", "metrics"),
            "Analysis spec invalid: metrics[0]: count (2) must be >= failureLimit + consecutiveSuccessLimit "
            "(3 + 0) if both >= 0",
        ),
        (
            "AnalysisTemplate",
            "random-fail",
            ("spec", "metrics", 0, "interval"),
            "5 seconds",
            ("spec", "metrics"),
            'Analysis spec invalid: metrics[0]: invalid interval string: time: invalid duration "5 seconds"',
        ),
        (
            "AnalysisTemplate",
            "random-fail",
            ("spec", "metrics", 0, "provider", "web"),
            {"url": "http://example.com"},
            ("spec", "metrics"),
            "Analysis spec invalid: metrics[0]: multiple providers specified",
        ),
        (
            "AnalysisTemplate",
            "random-fail",
            ("spec", "metrics", 0, "successCondition"),
            "result == '{{args.missing}}'",
            ("spec", "metrics", 0),
            "failed to resolve {{args.missing}}",
        ),
    ],
)
def test_mutation_is_invalid(
    kind: str,
    name: str,
    path: tuple[str | int, ...],
    value: Any,
    where: tuple[str | int, ...],
    message: str,
) -> None:
    doc = _set(_upstream(kind, name), path, value)
    assert _issues(doc) == [(where, message)]


def test_analysis_run_args_must_have_values() -> None:
    template = _upstream("AnalysisTemplate", "random-fail")
    run = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AnalysisRun",
        "metadata": {"name": "r"},
        "spec": {"args": [{"name": "x"}], "metrics": template["spec"]["metrics"]},
    }
    assert _issues(run) == [(("spec", "args", 0), 'argument "x" was not supplied')]


@pytest.mark.parametrize(
    ("duration", "seconds"), [(30, 30), ("45", 45), ("2m", 120), ("soon", -1), (None, 0)]
)
def test_pause_seconds(duration: Any, seconds: int) -> None:
    assert pause_seconds(duration) == seconds


def test_pod_template_is_checked_as_a_replica_sets() -> None:
    doc = _set(
        _upstream("Rollout", "rollout-analysis-step"),
        ("spec", "template", "spec", "containers", 0, "name"),
        "Demo_1",
    )
    ((parts, message),) = _issues(doc)
    assert parts == ("spec", "template", "spec", "containers", 0, "name")
    assert message.startswith('container name "Demo_1" is not a DNS-1123 label')
