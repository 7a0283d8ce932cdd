"""Application: the two classes (golden manifests), their policies, prop errors, CRD validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs.argocd_application import Application, IgnoreDifference, merge_ignores
from trainops.pipeline import Target, Text, check

REPLICAS = IgnoreDifference(
    group="apps", kind="Deployment", name="resnet", namespace="ml-test", json_pointers=("/spec/replicas",)
)
SUSPEND = IgnoreDifference(
    group="kubeflow.org", kind="PyTorchJob", json_pointers=("/spec/runPolicy/suspend",)
)


def _app(chart: Any, **props: Any) -> Application:
    base: dict[str, Any] = {
        "name": "gpu-prod-resnet",
        "project": "ml-platform-gpu",
        "repo_url": "https://git.example.com/ml/platform.git",
        "path": "generated/gpu-prod/resnet",
    }
    return Application(chart, "App", **{**base, **props})


def _validate(schema_cache: Path, text: str) -> list[str]:
    result = check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), [Text("application.yaml", text)])
    return [f.message for f in result.findings]


def test_long_lived_defaults(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _app(chart, ignore_differences=[REPLICAS])
    text = synth(chart)["Application/gpu-prod-resnet"]
    golden("argocd_application/long_lived.yaml", text)
    app = yaml.safe_load(text)
    # Long-lived: prune and self-heal, cascading delete through the resources finalizer.
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert app["metadata"]["finalizers"] == ["resources-finalizer.argocd.argoproj.io"]
    assert app["metadata"]["annotations"]["argocd.argoproj.io/compare-options"] == "ServerSideDiff=true"
    assert _validate(schema_cache, text) == []


def test_training_class(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    _app(
        chart,
        name="gpu-prod-bert",
        path="generated/gpu-prod/bert",
        kind_of_app="training",
        target_revision="v1.4.0",
        destination_server="https://gpu-prod.example.com:6443",
        ignore_differences=[SUSPEND, SUSPEND],
        wave=0,
        labels={"trainops.dev/team": "nlp"},
    )
    text = synth(chart)["Application/gpu-prod-bert"]
    golden("argocd_application/training.yaml", text)
    app = yaml.safe_load(text)
    # Training: auto-sync without self-heal, only out-of-sync objects applied, no cascading delete.
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": False}
    assert "ApplyOutOfSyncOnly=true" in app["spec"]["syncPolicy"]["syncOptions"]
    assert "finalizers" not in app["metadata"]
    assert app["spec"]["ignoreDifferences"] == [SUSPEND.to_dict()]  # de-duplicated
    assert _validate(schema_cache, text) == []


@pytest.mark.parametrize(
    ("kind_of_app", "expected"),
    [
        ("long-lived", ["ServerSideApply=true", "RespectIgnoreDifferences=true", "PruneLast=true"]),
        ("training", ["ServerSideApply=true", "RespectIgnoreDifferences=true", "ApplyOutOfSyncOnly=true"]),
    ],
)
def test_sync_options_per_class(chart: Any, synth: Any, kind_of_app: str, expected: list[str]) -> None:
    _app(chart, kind_of_app=kind_of_app)
    app = yaml.safe_load(synth(chart)["Application/gpu-prod-resnet"])
    assert app["spec"]["syncPolicy"]["syncOptions"] == expected


def test_a_wrong_field_fails_crd_validation(chart: Any, synth: Any, schema_cache: Path) -> None:
    _app(chart)
    app = yaml.safe_load(synth(chart)["Application/gpu-prod-resnet"])
    app["spec"]["syncPolicy"]["automated"]["selfheal"] = True  # misspelt: the CRD has selfHeal
    assert _validate(schema_cache, yaml.safe_dump(app)) != []


@pytest.mark.parametrize(
    "url",
    [
        "https://git.example.com/ml/platform.git",
        "http://gitea.gitea.svc:3000/ml/platform.git",  # an internal git server (Argo CD accepts it)
        "ssh://git@git.example.com/ml/platform.git",
        "git@git.example.com:ml/platform.git",
    ],
)
def test_repo_url_schemes(chart: Any, synth: Any, url: str) -> None:
    _app(chart, repo_url=url)
    assert yaml.safe_load(synth(chart)["Application/gpu-prod-resnet"])["spec"]["source"]["repoURL"] == url


def test_root_style_application(chart: Any, synth: Any, golden: Any, schema_cache: Path) -> None:
    """A long-lived Application without cascading delete, a file filter and policy waivers (the
    shape of a cluster's root Application)."""
    _app(
        chart,
        name="gpu-prod-root",
        project="default",
        path="generated/gpu-prod/argocd",
        destination_namespace="argocd",
        directory_exclude="root.yaml",
        cascade_delete=False,
        waivers={"app-project": "the root creates the projects"},
    )
    text = synth(chart)["Application/gpu-prod-root"]
    golden("argocd_application/root.yaml", text)
    app = yaml.safe_load(text)
    assert "finalizers" not in app["metadata"]
    assert app["metadata"]["annotations"]["trainops.dev/waive-app-project"] == "the root creates the projects"
    assert app["spec"]["source"]["directory"] == {"exclude": "root.yaml"}
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert _validate(schema_cache, text) == []


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Bad_Name"}, r"^Application name='Bad_Name': must be a DNS-1123 label"),
        ({"project": "Bad Project"}, r"^Application project='Bad Project': must be a DNS-1123 subdomain"),
        (
            {"repo_url": "git.example.com/x"},
            r"^Application repo_url='git.example.com/x': must be an https://",
        ),
        ({"path": "/abs/path"}, r"^Application path='/abs/path': must be a relative path"),
        ({"path": "generated/../x"}, r"^Application path='generated/../x': must be a relative path"),
        ({"kind_of_app": "batch"}, r"^Application kind_of_app='batch': must be 'long-lived' or 'training'"),
        ({"target_revision": "my branch"}, r"^Application target_revision='my branch': must be a git"),
        ({"destination_server": "http://x"}, r"^Application destination_server='http://x': must be an https"),
        ({"destination_namespace": "NS"}, r"^Application destination_namespace='NS': must be a DNS-1123"),
        ({"wave": "1"}, r"^Application wave='1': must be an integer"),
        ({"directory_include": ""}, r"^Application directory_include='': must be a file glob"),
        ({"waivers": {"app-project": " "}}, r"^Application waivers: rule 'app-project' needs a reason"),
        ({"waivers": {"App Project": "x"}}, r"^Application waivers='App Project': must be a DNS-1123 label"),
        ({"labels": {"a": "b c"}}, r"^Application labels: label a='b c' is not a valid label value"),
    ],
)
def test_prop_errors(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _app(chart, **props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"kind": "Deployment"},
            r"^IgnoreDifference apps/Deployment: give json_pointers or jq_path_expressions",
        ),
        (
            {"kind": "Deployment", "json_pointers": ("spec/replicas",)},
            r"^IgnoreDifference json_pointers: 'spec/replicas' must start with '/'",
        ),
        ({"kind": "", "json_pointers": ("/a",)}, r"^IgnoreDifference kind='': must not be empty"),
    ],
)
def test_ignore_difference_errors(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IgnoreDifference(group="apps", **props)


def test_entries_for_one_selector_are_merged() -> None:
    defaults = IgnoreDifference(
        group="kubeflow.org", kind="PyTorchJob", jq_path_expressions=(".spec.runPolicy.cleanPodPolicy",)
    )
    merged = merge_ignores([SUSPEND, REPLICAS, defaults, SUSPEND])
    # One entry per (group, kind, namespace, name); the named Deployment stays its own entry.
    assert [e.to_dict() for e in merged] == [
        REPLICAS.to_dict(),
        {
            "group": "kubeflow.org",
            "kind": "PyTorchJob",
            "jsonPointers": ["/spec/runPolicy/suspend"],
            "jqPathExpressions": [".spec.runPolicy.cleanPodPolicy"],
        },
    ]


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0)])
def test_merging_does_not_depend_on_entry_order(order: tuple[int, int, int]) -> None:
    entries = [
        IgnoreDifference(group="batch", kind="Job", json_pointers=("/spec/suspend",)),
        IgnoreDifference(group="batch", kind="Job", json_pointers=("/spec/completions",)),
        IgnoreDifference(group="batch", kind="Job", jq_path_expressions=(".spec.parallelism",)),
    ]
    (merged,) = merge_ignores([entries[i] for i in order])
    assert merged.json_pointers == ("/spec/completions", "/spec/suspend")
