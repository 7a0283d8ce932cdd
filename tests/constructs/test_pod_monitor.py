"""PodMonitor: golden manifests, selection by the Training Operator's pod labels, prop errors, parity."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.cluster import Cluster
from trainops.constructs import PodMonitor, PyTorchJob, VolumeClaim

IMAGE = "registry.example.com/ml/pytorch-train:2.2.0-cuda12.1"
_RELEASE = Cluster(
    name="prod",
    kubernetes_version="1.34",
    operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
    prometheus_labels={"release": "kube-prometheus-stack"},
)


def _job(chart: Any, cluster: Cluster, **props: Any) -> PyTorchJob:
    return PyTorchJob(chart, "Job", cluster=cluster, name="train", image=IMAGE, **props)


def test_defaults(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    job = _job(chart, test_cluster)
    PodMonitor(chart, "Monitor", cluster=test_cluster, job=job)
    docs = synth(chart)
    text = docs[f"PodMonitor/{job.name}"]
    golden("pod_monitor/defaults.yaml", text)
    monitor = yaml.safe_load(text)
    # Selects this run's pods by the operator-injected job-name label; syncs after the job (wave 1).
    assert monitor["spec"]["selector"] == {"matchLabels": {"training.kubeflow.org/job-name": job.name}}
    assert monitor["spec"]["podMetricsEndpoints"] == [
        {"interval": "30s", "path": "/metrics", "port": "metrics"}
    ]
    assert monitor["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "1"
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    job = _job(chart, _RELEASE, workers=3)
    PodMonitor(
        chart,
        "Monitor",
        cluster=_RELEASE,
        job=job,
        replica_types=["Worker"],
        port=9400,
        path="/stats",
        interval="15s",
        scrape_timeout="10s",
        labels={"team": "vision"},
        name="train-metrics",
    )
    docs = synth(chart)
    text = docs["PodMonitor/train-metrics"]
    golden("pod_monitor/custom.yaml", text)
    monitor = yaml.safe_load(text)
    # The replica type value is lower-cased as the operator writes it; the cluster's release label is set.
    assert monitor["spec"]["selector"]["matchExpressions"] == [
        {"key": "training.kubeflow.org/replica-type", "operator": "In", "values": ["worker"]}
    ]
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert monitor["spec"]["podMetricsEndpoints"][0]["portNumber"] == 9400
    validate_docs(cli, tmp_path, docs)


def test_selector_matches_operator_pod_labels(chart: Any, test_cluster: Cluster) -> None:
    # The labels a v1.9 Training Operator puts on worker 0 (GenLabels + ReconcilePods).
    job = _job(chart, test_cluster, workers=2)
    monitor = PodMonitor(chart, "Monitor", cluster=test_cluster, job=job, replica_types=["Master", "Worker"])
    pod_labels = {
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/job-name": job.name,
        "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": "0",
    }
    selector = raw_object(chart, f"PodMonitor/{monitor.name}")["spec"]["selector"]
    assert selector["matchLabels"].items() <= pod_labels.items()
    (expression,) = selector["matchExpressions"]
    assert pod_labels[expression["key"]] in expression["values"]


def test_mount_after_monitor_fails_validation(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    monitor = PodMonitor(chart, "Monitor", cluster=test_cluster, job=job)
    selected = job.name
    job.mount(VolumeClaim(chart, "Data", cluster=test_cluster, name="data", size="1Gi"), "/data")
    assert monitor.node.validate() == [
        f"PodMonitor job={selected!r}: the PyTorchJob is now named {job.name!r} (mount() after the "
        "PodMonitor); create the PodMonitor last"
    ]


def test_cluster_without_prometheus_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34", operators={"training-operator": "v1.9.4"})
    with pytest.raises(ValueError, match=r"^PodMonitor cluster='bare': the cluster does not list prometheus"):
        PodMonitor(chart, "Monitor", cluster=bare, job=_job(chart, bare))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"job": None}, "PodMonitor job, pod_labels: give exactly one of them"),
        ({"pod_labels": {"app": "x"}}, "PodMonitor job, pod_labels: give exactly one of them"),
        (
            {"replica_types": ["Chief"]},
            "PodMonitor replica_types: 'Chief' is not a replica type of PyTorchJob",
        ),
        ({"replica_types": "Worker"}, "PodMonitor replica_types='Worker': must be a non-empty sequence"),
        ({"replica_types": []}, "PodMonitor replica_types=[]: must be a non-empty sequence"),
        ({"port": ""}, "PodMonitor port='': must be a port name or number"),
        ({"port": 0}, "PodMonitor port=0: must be at least 1"),
        ({"port": 70000}, "PodMonitor port=70000: must be at most 65535"),
        ({"path": "metrics"}, "PodMonitor path='metrics': must be an absolute path"),
        ({"interval": "30"}, "PodMonitor interval='30': not a Prometheus duration"),
        ({"scrape_timeout": "1m"}, "PodMonitor scrape_timeout='1m': must not exceed interval='30s'"),
        ({"labels": {"a": "b c"}}, "PodMonitor labels: label a='b c' is not a valid label value"),
        ({"name": "Train"}, "PodMonitor name='Train': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    job = _job(chart, test_cluster, workers=1)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PodMonitor(chart, "Monitor", cluster=test_cluster, **{"job": job, **props})


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": None}, "PodMonitor name=None: required with pod_labels"),
        ({"pod_labels": {}}, "PodMonitor pod_labels={}: would scrape every pod of the namespace"),
        ({"replica_types": ["Worker"]}, "PodMonitor replica_types=['Worker']: needs a job"),
        ({"pod_labels": {"app": "a b"}}, "PodMonitor pod_labels: label app='a b' is not a valid label value"),
    ],
)
def test_bad_pod_labels_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PodMonitor(
            chart, "Monitor", cluster=test_cluster, **{"pod_labels": {"app": "x"}, "name": "x", **props}
        )


@pytest.mark.parametrize(
    "example",
    [
        "prometheus-operator/example/user-guides/getting-started/example-app-pod-monitor.yaml",
        "prometheus-operator-docs-snippets/Documentation/developer/getting-started.md.block-04.yaml",
    ],
)
def test_parity_prometheus_operator_example_app(chart: Any, test_cluster: Cluster, example: str) -> None:
    expected = upstream_doc(example)
    (endpoint,) = expected["spec"]["podMetricsEndpoints"]
    PodMonitor(
        chart,
        "Monitor",
        cluster=test_cluster,
        pod_labels=expected["spec"]["selector"]["matchLabels"],
        port=endpoint["port"],
        labels=expected["metadata"]["labels"],
        name=expected["metadata"]["name"],
    )
    ours = without_paths(
        raw_object(chart, "PodMonitor/example-app"),
        {
            "metadata.namespace": "ml-test",  # trainops objects are namespaced by their Chart
            "metadata.annotations.argocd.argoproj.io/sync-wave": "1",  # after the workloads
            # the CRD may be installed by another app
            "metadata.annotations.argocd.argoproj.io/sync-options": "SkipDryRunOnMissingResource=true",
            "spec.podMetricsEndpoints.0.path": "/metrics",  # Prometheus' default, written out
            "spec.podMetricsEndpoints.0.interval": "30s",  # explicit instead of the global interval
        },
    )
    assert ours == expected


def test_bad_cluster_prometheus_labels_are_refused(chart: Any) -> None:
    cluster = Cluster(
        name="c",
        kubernetes_version="1.34",
        operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
        prometheus_labels={"release": "kube prometheus"},
    )
    with pytest.raises(
        ValueError,
        match=r"^PodMonitor cluster.prometheus_labels: label release='kube prometheus' is not a valid",
    ):
        PodMonitor(chart, "Monitor", cluster=cluster, job=_job(chart, cluster))
