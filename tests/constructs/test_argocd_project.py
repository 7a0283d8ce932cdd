"""AppProject: golden manifest, least-privilege allow-lists, prop errors, CRD validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs.argocd_project import AppProject, Destination
from trainops.pipeline import Target, Text, check

REPO_URL = "https://git.example.com/ml/platform.git"


def _project(chart: Any, **props: Any) -> AppProject:
    base: dict[str, Any] = {
        "name": "ml-platform-gpu",
        "team": "ml-platform",
        "source_repos": [REPO_URL],
        "destinations": [Destination("https://gpu-prod.example.com:6443", "ml-training")],
        "namespace_resources": [("kubeflow.org", "PyTorchJob"), ("", "PersistentVolumeClaim")],
    }
    return AppProject(chart, "Project", **{**base, **props})


def _validate(schema_cache: Path, text: str) -> list[str]:
    result = check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), [Text("appproject.yaml", text)])
    return [f.message for f in result.findings]


def test_defaults(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _project(chart)
    text = synth(chart)["AppProject/ml-platform-gpu"]
    golden("argocd_project/defaults.yaml", text)
    project = yaml.safe_load(text)
    # Only the listed kinds, no cluster-scoped kind, orphaned resources warned about; wave -2
    # (under the root Application: before the platform Applications in -1 and the rest in 0).
    assert project["spec"]["namespaceResourceWhitelist"] == [
        {"group": "", "kind": "PersistentVolumeClaim"},
        {"group": "kubeflow.org", "kind": "PyTorchJob"},
    ]
    assert project["spec"]["clusterResourceWhitelist"] == []
    assert project["spec"]["orphanedResources"]["warn"] is True
    assert project["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-2"
    assert _validate(schema_cache, text) == []


def test_a_project_of_cluster_scoped_kinds_only_denies_every_namespaced_kind(
    chart: Any, synth: Any, schema_cache: Path
) -> None:
    # a platform app that only creates Namespaces (what `trainops init` writes before any app)
    _project(chart, namespace_resources=[], cluster_resources=[("", "Namespace")])
    text = synth(chart)["AppProject/ml-platform-gpu"]
    spec = yaml.safe_load(text)["spec"]
    assert spec["namespaceResourceWhitelist"] == []
    assert spec["namespaceResourceBlacklist"] == [{"group": "*", "kind": "*"}]
    assert spec["clusterResourceWhitelist"] == [{"group": "", "kind": "Namespace"}]
    assert _validate(schema_cache, text) == []


def test_custom(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _project(
        chart,
        destinations=[
            Destination("https://b.example.com", "ml-serving"),
            Destination("https://a.example.com", "ml-serving"),
            Destination("https://a.example.com", "ml-serving"),
        ],
        cluster_resources=[("", "Namespace")],
        orphaned_resources_warn=False,
        description="the serving team",
    )
    text = synth(chart)["AppProject/ml-platform-gpu"]
    golden("argocd_project/custom.yaml", text)
    project = yaml.safe_load(text)
    assert [d["server"] for d in project["spec"]["destinations"]] == [
        "https://a.example.com",
        "https://b.example.com",
    ]
    assert project["spec"]["clusterResourceWhitelist"] == [{"group": "", "kind": "Namespace"}]
    assert "orphanedResources" not in project["spec"]
    assert _validate(schema_cache, text) == []


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "ML"}, r"^AppProject name='ML': must be a DNS-1123 label"),
        ({"team": "a_b"}, r"^AppProject team='a_b': must be a DNS-1123 label"),
        ({"source_repos": []}, r"^AppProject source_repos=\[\]: give at least one repository URL"),
        ({"source_repos": ["ftp://x"]}, r"^AppProject repo_url='ftp://x': must be an https://"),
        ({"destinations": []}, r"^AppProject destinations=\[\]: give at least one destination"),
        (
            {"destinations": [Destination("http://x")]},
            r"^AppProject destinations: server='http://x' must be an https:// URL",
        ),
        (
            {"destinations": [Destination("https://x", "Bad")]},
            r"^AppProject destinations namespace='Bad': must be a DNS-1123 label",
        ),
        (
            {"namespace_resources": [("apps", "deployment")]},
            r"^AppProject namespace_resources: kind 'deployment' must be a Kind",
        ),
        (
            {"cluster_resources": ["Namespace"]},
            r"^AppProject cluster_resources: 'Namespace' is not a \(group, kind\)",
        ),
    ],
)
def test_prop_errors(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _project(chart, **props)
