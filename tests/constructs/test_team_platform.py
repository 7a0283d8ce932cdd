"""The team-platform, serving and observability constructs together: one namespace's full stack
validates as one set, and Argo CD sync waves order it namespace → quotas → PVCs → workloads → monitors."""

from __future__ import annotations

from typing import Any

import yaml
from construct_helpers import validate_docs

from trainops.cluster import Cluster
from trainops.constructs import (
    Autoscaler,
    LimitRange,
    ModelServer,
    NetworkPolicy,
    PodDisruptionBudget,
    PodMonitor,
    PyTorchJob,
    ResourceQuota,
    Role,
    ServiceAccount,
    ServiceMonitor,
    TeamNamespace,
    VolumeClaim,
)

_CLUSTER = Cluster(
    name="prod",
    kubernetes_version="1.34",
    operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
    storage_classes={"default": "standard-rwo", "shared": "nfs"},
    prometheus_labels={"release": "kube-prometheus-stack"},
)


def _stack(chart: Any) -> None:
    TeamNamespace(chart, "Namespace", cluster=_CLUSTER)
    ResourceQuota(chart, "Quota", cluster=_CLUSTER, cpu="64", memory="512Gi", gpus=8, pvcs=10, storage="10Ti")
    LimitRange(chart, "Limits")
    NetworkPolicy(chart, "Deny")
    NetworkPolicy.allow_dns(chart, "Dns")
    NetworkPolicy.allow_scrape(chart, "Scrape", cluster=_CLUSTER)
    account = ServiceAccount(chart, "Account", name="ci")
    Role.training_submitter(chart, "Submitter").bind(account)
    models = VolumeClaim(
        chart, "Models", cluster=_CLUSTER, name="models", size="100Gi", access_mode="ReadOnlyMany"
    )
    server = ModelServer(
        chart,
        "Server",
        cluster=_CLUSTER,
        name="resnet",
        image="tensorflow/serving:2.14.1",
        model_volume=models,
    )
    Autoscaler(chart, "Hpa", target=server, min_replicas=3)
    PodDisruptionBudget(chart, "Pdb", target=server, min_available=2)
    NetworkPolicy.allow_serving(chart, "Serving", target=server)
    ServiceMonitor(chart, "ServingMetrics", service=server.expose())
    job = PyTorchJob(
        chart, "Job", cluster=_CLUSTER, name="train", image="registry.example.com/ml/train:2.2.0"
    )
    PodMonitor(chart, "TrainingMetrics", cluster=_CLUSTER, job=job)


def test_stack_validates_and_passes_node_validation(chart: Any, synth: Any, cli: Any, tmp_path: Any) -> None:
    _stack(chart)
    docs = synth(chart)
    assert {key.split("/")[0] for key in docs} >= {
        "Namespace",
        "ResourceQuota",
        "LimitRange",
        "NetworkPolicy",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "PodDisruptionBudget",
        "PodMonitor",
    }
    validate_docs(cli, tmp_path, docs)
    assert [problem for node in chart.node.find_all() for problem in node.node.validate()] == []


def test_sync_waves_order_the_stack(chart: Any, synth: Any) -> None:
    _stack(chart)
    waves: dict[str, set[int]] = {}
    for key, text in synth(chart).items():
        annotations = yaml.safe_load(text)["metadata"].get("annotations", {})
        waves.setdefault(key.split("/")[0], set()).add(
            int(annotations.get("argocd.argoproj.io/sync-wave", "0"))
        )
    platform = {
        "Namespace",
        "ResourceQuota",
        "LimitRange",
        "NetworkPolicy",
        "ServiceAccount",
        "Role",
        "RoleBinding",
    }
    assert set().union(*(waves[k] for k in platform)) == {-2}
    # PVCs with their consumers (a WaitForFirstConsumer claim binds once its pod exists).
    assert waves["PersistentVolumeClaim"] == waves["Deployment"] == waves["PodDisruptionBudget"] == {0}
    assert waves["PyTorchJob"] == {0}
    assert waves["HorizontalPodAutoscaler"] == waves["ServiceMonitor"] == waves["PodMonitor"] == {1}
