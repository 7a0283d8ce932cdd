"""ApplicationSet: cluster x git directory matrix, class policy in the template, errors, CRD validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs.argocd_application import IgnoreDifference
from trainops.constructs.argocd_applicationset import CLUSTER_PARAM, ApplicationSet
from trainops.pipeline import Target, Text, check


def _set(chart: Any, **props: Any) -> ApplicationSet:
    base: dict[str, Any] = {
        "name": "gpu-ml-platform-long-lived",
        "project": "ml-platform-gpu",
        "team": "ml-platform",
        "cluster_class": "gpu",
        "repo_url": "https://git.example.com/ml/platform.git",
        "directories": ["tf-serving", "training-data"],
    }
    return ApplicationSet(chart, "Set", **{**base, **props})


def _validate(schema_cache: Path, text: str) -> list[str]:
    result = check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), [Text("applicationset.yaml", text)])
    return [f.message for f in result.findings]


def test_defaults(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _set(chart)
    text = synth(chart)["ApplicationSet/gpu-ml-platform-long-lived"]
    golden("argocd_applicationset/defaults.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    clusters, git = spec["generators"][0]["matrix"]["generators"]
    # Every cluster of the class; the git generator's paths use the cluster generator's label.
    assert clusters == {"clusters": {"selector": {"matchLabels": {"trainops.dev/cluster-class": "gpu"}}}}
    assert [d["path"] for d in git["git"]["directories"]] == [
        f"generated/{CLUSTER_PARAM}/tf-serving",
        f"generated/{CLUSTER_PARAM}/training-data",
        f"generated/{CLUSTER_PARAM}/argocd",
    ]
    assert git["git"]["directories"][-1]["exclude"] is True
    assert spec["template"]["metadata"]["name"] == f"{CLUSTER_PARAM}-{{{{ .path.basename }}}}"
    assert spec["template"]["spec"]["syncPolicy"]["automated"]["selfHeal"] is True
    assert _validate(schema_cache, text) == []


def test_training_on_pinned_clusters(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _set(
        chart,
        name="gpu-ml-platform-training-gpu-prod",
        kind_of_app="training",
        directories=["bert"],
        target_revision="v1.4.0",
        clusters=["gpu-prod"],
        destination_namespace="ml-training",
        ignore_differences=[IgnoreDifference("batch", "Job", json_pointers=("/spec/suspend",))],
    )
    text = synth(chart)["ApplicationSet/gpu-ml-platform-training-gpu-prod"]
    golden("argocd_applicationset/training_pinned.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    clusters, git = spec["generators"][0]["matrix"]["generators"]
    assert clusters["clusters"]["selector"]["matchExpressions"] == [
        {"key": "trainops.dev/cluster", "operator": "In", "values": ["gpu-prod"]}
    ]
    # The pinned revision is read by the generator and synced by every generated Application.
    assert git["git"]["revision"] == spec["template"]["spec"]["source"]["targetRevision"] == "v1.4.0"
    assert spec["syncPolicy"] == {"preserveResourcesOnDeletion": True}
    assert spec["template"]["spec"]["destination"] == {"server": "{{ .server }}", "namespace": "ml-training"}
    assert "finalizers" not in spec["template"]["metadata"]
    assert _validate(schema_cache, text) == []


def test_runs_part_of_split_apps(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    """The training part of apps that also hold long-lived objects: ``<cluster>-<app>-runs``, only
    the run-once files of each directory."""
    _set(
        chart,
        name="gpu-ml-platform-runs-ml-training",
        kind_of_app="training",
        directories=["bert"],
        name_suffix="-runs",
        directory_include="{job_*.yaml,pytorchjob_*.yaml}",
    )
    text = synth(chart)["ApplicationSet/gpu-ml-platform-runs-ml-training"]
    golden("argocd_applicationset/runs.yaml", text)
    template = yaml.safe_load(text)["spec"]["template"]
    assert template["metadata"]["name"] == f"{CLUSTER_PARAM}-{{{{ .path.basename }}}}-runs"
    assert template["spec"]["source"]["directory"] == {"include": "{job_*.yaml,pytorchjob_*.yaml}"}
    assert _validate(schema_cache, text) == []


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name_suffix": "-Runs"}, r"^ApplicationSet name_suffix='-Runs': must be '-' and lower-case"),
        ({"name_suffix": "runs"}, r"^ApplicationSet name_suffix='runs': must be '-' and lower-case"),
        ({"directory_exclude": "a b"}, r"^ApplicationSet directory_exclude='a b': must be a file glob"),
        ({"name": "Gpu"}, r"^ApplicationSet name='Gpu': must be a DNS-1123 subdomain"),
        ({"project": "P"}, r"^ApplicationSet project='P': must be a DNS-1123 label"),
        ({"team": ""}, r"^ApplicationSet team='': must be a DNS-1123 label"),
        ({"cluster_class": "GPU"}, r"^ApplicationSet cluster_class='GPU': must be a DNS-1123 label"),
        ({"repo_url": "x"}, r"^ApplicationSet repo_url='x': must be an https://"),
        ({"directories": []}, r"^ApplicationSet directories=\[\]: give at least one app directory"),
        ({"directories": ["a/b"]}, r"^ApplicationSet directories: 'a/b' must be one directory name or glob"),
        ({"exclude": [".."]}, r"^ApplicationSet exclude: '\.\.' must be one directory name or glob"),
        (
            {"kind_of_app": "daemon"},
            r"^ApplicationSet kind_of_app='daemon': must be 'long-lived' or 'training'",
        ),
        ({"target_revision": ""}, r"^ApplicationSet target_revision='': must be a git"),
        ({"clusters": []}, r"^ApplicationSet clusters=\[\]: give at least one cluster name or None"),
        ({"clusters": ["Prod"]}, r"^ApplicationSet clusters='Prod': must be a DNS-1123 label"),
        ({"root": "/generated"}, r"^ApplicationSet root='/generated': must be a relative path"),
        (
            {"destination_namespace": "ML"},
            r"^ApplicationSet destination_namespace='ML': must be a DNS-1123 label",
        ),
        ({"labels": {"": "x"}}, r"^ApplicationSet labels: label key '' is not a valid label key"),
    ],
)
def test_prop_errors(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _set(chart, **props)
