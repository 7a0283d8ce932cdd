"""The bundled apps: each renders deterministically and reproduces its seed scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.project import Project, load_project
from trainops.synth import render_app

REPO = Path(__file__).resolve().parents[1]
APP_NAMES = ["training-data", "pytorch-ddp-single-node", "pytorch-ddp-multi-node", "tf-serving"]


@pytest.fixture(scope="module")
def project() -> Project:
    return load_project(REPO)


@pytest.fixture(scope="module")
def rendered(project: Project) -> dict[str, dict[str, Any]]:
    """app name → {"Kind/name": object} for the gpu-prod cluster."""
    cluster = project.cluster("gpu-prod")
    out: dict[str, dict[str, Any]] = {}
    for name, app_def in project.apps.items():
        docs = [yaml.safe_load(text) for text in render_app(app_def, cluster).values()]
        out[name] = {f"{d['kind']}/{d['metadata']['name']}": d for d in docs}
    return out


def _one(objects: dict[str, Any], kind: str) -> dict[str, Any]:
    matches = [obj for key, obj in objects.items() if key.startswith(f"{kind}/")]
    assert len(matches) == 1, f"expected one {kind}, got {sorted(objects)}"
    return matches[0]


def test_registry_lists_the_bundled_apps(project: Project) -> None:
    assert list(project.apps) == APP_NAMES


@pytest.mark.parametrize("app", APP_NAMES)
def test_app_renders_byte_identical_twice(project: Project, app: str) -> None:
    cluster = project.cluster("gpu-prod")
    assert render_app(project.apps[app], cluster) == render_app(project.apps[app], cluster)


def test_training_apps_share_a_namespace(project: Project) -> None:
    namespaces = {project.apps[name].namespace for name in APP_NAMES[:3]}
    assert namespaces == {"ml-training"}


@pytest.mark.parametrize("app", ["pytorch-ddp-single-node", "pytorch-ddp-multi-node"])
def test_job_claims_exist_in_training_data(rendered: dict[str, dict[str, Any]], app: str) -> None:
    job = _one(rendered[app], "PyTorchJob")
    claims = {
        volume["persistentVolumeClaim"]["claimName"]
        for replica in job["spec"]["pytorchReplicaSpecs"].values()
        for volume in replica["template"]["spec"]["volumes"]
        if "persistentVolumeClaim" in volume
    }
    pvcs = {
        key.split("/", 1)[1] for key in rendered["training-data"] if key.startswith("PersistentVolumeClaim/")
    }
    assert claims == {"training-data", "training-output"} and claims <= pvcs


def test_training_data_is_shared_nas(rendered: dict[str, dict[str, Any]]) -> None:
    pvc = rendered["training-data"]["PersistentVolumeClaim/training-data"]
    assert pvc["spec"] == {
        "accessModes": ["ReadWriteMany"],
        "resources": {"requests": {"storage": "500Gi"}},
        "storageClassName": "alicloud-nas",
    }


def test_single_node_job(rendered: dict[str, dict[str, Any]]) -> None:
    job = _one(rendered["pytorch-ddp-single-node"], "PyTorchJob")
    assert list(job["spec"]["pytorchReplicaSpecs"]) == ["Master"]
    master = job["spec"]["pytorchReplicaSpecs"]["Master"]
    container = master["template"]["spec"]["containers"][0]
    assert master["replicas"] == 1 and container["resources"]["limits"]["nvidia.com/gpu"] == "4"
    assert "--nproc_per_node=4" in container["command"] and job["spec"]["nprocPerNode"] == "4"


def test_multi_node_job(rendered: dict[str, dict[str, Any]]) -> None:
    job = _one(rendered["pytorch-ddp-multi-node"], "PyTorchJob")
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    pod = worker["template"]["spec"]
    container = pod["containers"][0]
    assert worker["replicas"] == 4
    assert job["spec"]["elasticPolicy"] == {
        "maxReplicas": 4,
        "maxRestarts": 3,
        "minReplicas": 1,
        "rdzvBackend": "c10d",
    }
    assert container["resources"]["limits"]["rdma/hca"] == "1"
    assert {"name": "NCCL_DEBUG", "value": "INFO"} in container["env"]
    assert {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"} in pod["tolerations"]
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}} in pod["volumes"]


def test_tf_serving(rendered: dict[str, dict[str, Any]]) -> None:
    objects = rendered["tf-serving"]
    deployment = _one(objects, "Deployment")
    hpa = _one(objects, "HorizontalPodAutoscaler")
    monitor = _one(objects, "ServiceMonitor")
    service = _one(objects, "Service")
    assert "replicas" not in deployment["spec"]
    assert [m["resource"]["target"]["averageUtilization"] for m in hpa["spec"]["metrics"]] == [70, 80]
    assert service["spec"]["ports"][0]["port"] == 8501
    assert monitor["spec"]["endpoints"][0]["path"] == "/monitoring/prometheus/metrics"
    assert {obj["metadata"]["namespace"] for obj in objects.values()} == {"ml-serving"}
