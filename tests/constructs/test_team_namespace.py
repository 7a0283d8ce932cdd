"""TeamNamespace: golden manifests, Pod Security labels, Katib/Kueue opt-in, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.cluster import Cluster
from trainops.constructs import TeamNamespace

_PLATFORM = Cluster(
    name="platform",
    kubernetes_version="1.33",
    operators={"katib": "v0.19.0", "kueue": "v0.19.2"},
    kueue_namespace_labels={"kueue.x-k8s.io/managed": "true"},
)


def test_defaults(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    TeamNamespace(chart, "Namespace", cluster=test_cluster)
    docs = synth(chart)
    text = docs["Namespace/ml-test"]
    golden("team_namespace/defaults.yaml", text)
    ns = yaml.safe_load(text)
    # Cluster-scoped (no metadata.namespace), restricted PSA pinned to the cluster minor, never pruned.
    assert "namespace" not in ns["metadata"]
    assert {k: v for k, v in ns["metadata"]["labels"].items() if k.startswith("pod-security")} == {
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "v1.34",
        "pod-security.kubernetes.io/audit": "restricted",
        "pod-security.kubernetes.io/audit-version": "v1.34",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/warn-version": "v1.34",
    }
    annotations = ns["metadata"]["annotations"]
    assert annotations["argocd.argoproj.io/sync-wave"] == "-2"
    assert annotations["argocd.argoproj.io/sync-options"] == "Prune=false,Delete=false"
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    TeamNamespace(
        chart,
        "Namespace",
        cluster=_PLATFORM,
        name="ml-test",
        pod_security="baseline",
        katib=True,
        kueue=True,
        labels={"team": "vision"},
        protect=False,
    )
    docs = synth(chart)
    text = docs["Namespace/ml-test"]
    golden("team_namespace/custom.yaml", text)
    ns = yaml.safe_load(text)
    labels = ns["metadata"]["labels"]
    assert labels["katib.kubeflow.org/metrics-collector-injection"] == "enabled"
    assert labels["kueue.x-k8s.io/managed"] == "true"
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
    assert labels["pod-security.kubernetes.io/enforce-version"] == "v1.33"
    assert "argocd.argoproj.io/sync-options" not in ns["metadata"]["annotations"]
    validate_docs(cli, tmp_path, docs, "1.33")


def test_name_defaults_to_a_namespace_less_chart_name(test_cluster: Cluster, synth: Any) -> None:
    from cdk8s import App, Chart

    chart = Chart(App(), "nons", disable_resource_name_hashes=True)
    TeamNamespace(chart, "Namespace", cluster=test_cluster, name="vision")
    assert "namespace" not in yaml.safe_load(synth(chart)["Namespace/vision"])["metadata"]


def test_a_platform_app_creates_other_apps_namespaces(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    # A platform app (Chart namespace ml-test) creates the namespace of another app's destination.
    TeamNamespace(chart, "Serving", cluster=test_cluster, name="ml-serving")
    ns = yaml.safe_load(synth(chart)["Namespace/ml-serving"])
    assert ns["metadata"]["name"] == "ml-serving" and "namespace" not in ns["metadata"]


def test_chart_without_namespace_needs_a_name(test_cluster: Cluster) -> None:
    from cdk8s import App, Chart

    chart = Chart(App(), "nons", disable_resource_name_hashes=True)
    with pytest.raises(ValueError, match=r"^TeamNamespace name=None: the Chart has no namespace"):
        TeamNamespace(chart, "Namespace", cluster=test_cluster)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"pod_security": "strict"}, "TeamNamespace pod_security='strict': must be one of privileged"),
        ({"katib": True}, "TeamNamespace katib=True: cluster 'test' does not list katib in operators"),
        ({"kueue": True}, "TeamNamespace kueue=True: cluster 'test' does not list kueue in operators"),
        (
            {"labels": {"pod-security.kubernetes.io/enforce": "privileged"}},
            "TeamNamespace labels: 'pod-security.kubernetes.io/enforce' is set from pod_security",
        ),
        ({"labels": {"team": "a b"}}, "TeamNamespace labels: label team='a b' is not a valid label value"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        TeamNamespace(chart, "Namespace", cluster=test_cluster, **props)


def test_bad_name(test_cluster: Cluster) -> None:
    from cdk8s import App, Chart

    chart = Chart(App(), "nons", disable_resource_name_hashes=True)
    with pytest.raises(ValueError, match=r"^TeamNamespace name='Vision': must be a DNS-1123 label"):
        TeamNamespace(chart, "Namespace", cluster=test_cluster, name="Vision")


def test_bad_cluster_kueue_labels_are_refused(chart: Any) -> None:
    cluster = Cluster(
        name="c",
        kubernetes_version="1.34",
        operators={"kueue": "v0.19.2"},
        kueue_namespace_labels={"a b": "x"},
    )
    with pytest.raises(
        ValueError,
        match=r"^TeamNamespace cluster.kueue_namespace_labels: label key 'a b' is not a valid label key",
    ):
        TeamNamespace(chart, "Namespace", cluster=cluster, kueue=True)
