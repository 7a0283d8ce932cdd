"""The bundled apps: each renders deterministically and reproduces its seed scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.project import Project, load_project
from trainops.synth import render_app

REPO = Path(__file__).resolve().parents[2]
APP_NAMES = [
    "training-data",
    "pytorch-ddp-single-node",
    "pytorch-ddp-multi-node",
    "tf-serving",
    "model-rollout",
    "data-prep",
    "tf-ps-worker",
    "mpi-horovod",
    "mpi-dra",
    "xgboost-paddle",
    "katib-hpo",
    "team-queues",
    "bert-finetune",
    "llm-pretrain",
    "team-vision",
    "vision-serving",
    "kserve-canary",
    "llm-serving",
    "seldon-legacy",
    "training-monitoring",
    "ml-platform",
]


@pytest.fixture(scope="module")
def project() -> Project:
    return load_project(SAMPLE)


@pytest.fixture(scope="module")
def rendered(project: Project) -> dict[str, dict[str, Any]]:
    """app name → {"Kind/name": object} for the gpu-prod cluster."""
    return _render(project, "gpu-prod")


@pytest.fixture(scope="module")
def rendered_next(project: Project) -> dict[str, dict[str, Any]]:
    """app name → {"Kind/name": object} for the gpu-next cluster (Trainer v2, mpi-operator, Kueue)."""
    return _render(project, "gpu-next")


def _render(project: Project, cluster_name: str) -> dict[str, dict[str, Any]]:
    cluster = project.cluster(cluster_name)
    out: dict[str, dict[str, Any]] = {}
    for name, app_def in project.apps.items():
        if app_def.targets(cluster):
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
    for cluster in project.clusters:
        if project.apps[app].targets(cluster):
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


def test_training_job_is_emitted_as_each_cluster_runs_it(
    rendered: dict[str, dict[str, Any]], rendered_next: dict[str, dict[str, Any]]
) -> None:
    v1 = _one(rendered["bert-finetune"], "PyTorchJob")
    v2 = _one(rendered_next["bert-finetune"], "TrainJob")
    assert {k: r["replicas"] for k, r in v1["spec"]["pytorchReplicaSpecs"].items()} == {
        "Master": 1,
        "Worker": 3,
    }
    assert v2["spec"]["trainer"]["numNodes"] == 4
    assert v2["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "ml-training"
    assert "kueue.x-k8s.io/queue-name" not in v1["metadata"]["labels"]
    image = v1["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["image"]
    assert image == v2["spec"]["trainer"]["image"]


def test_queue_named_by_the_training_job_exists(rendered_next: dict[str, dict[str, Any]]) -> None:
    queue = _one(rendered_next["team-queues"], "LocalQueue")
    assert queue["metadata"]["name"] == "ml-training" and queue["spec"]["clusterQueue"] == "ml-research"


def test_llm_pretrain_is_placed_in_one_rack_and_gang_admitted(
    project: Project, rendered_next: dict[str, dict[str, Any]]
) -> None:
    """4 nodes x 8 GPUs with InfiniBand, claimed through DRA, one rack of gpu-next's Topology, queued
    in Kueue, and the GPU flavor placed by that Topology."""
    jobset = _one(rendered_next["llm-pretrain"], "JobSet")
    (node,) = jobset["spec"]["replicatedJobs"]
    pod = node["template"]["spec"]["template"]
    resources = pod["spec"]["containers"][0]["resources"]
    assert (node["replicas"], resources["limits"]["rdma/ib"], resources["claims"]) == (
        4,
        "1",
        [{"name": "gpu"}],
    )
    assert "nvidia.com/gpu" not in resources["limits"]
    claim = _one(rendered_next["llm-pretrain"], "ResourceClaimTemplate")
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": claim["metadata"]["name"]}
    ]
    request = claim["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert (request["count"], request["deviceClassName"]) == (8, "gpu.nvidia.com")
    rack = project.cluster("gpu-next").topology.level("rack").node_label  # type: ignore[union-attr]
    assert pod["metadata"]["annotations"] == {"kueue.x-k8s.io/podset-required-topology": rack}
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "ml-training"
    topology = _one(rendered_next["team-queues"], "Topology")
    flavor = rendered_next["team-queues"]["ResourceFlavor/gpu"]
    assert flavor["spec"]["topologyName"] == topology["metadata"]["name"] == "gpu-fabric"
    assert rack in [level["nodeLabel"] for level in topology["spec"]["levels"]]


def test_mpijob_api_follows_the_cluster(
    rendered: dict[str, dict[str, Any]], rendered_next: dict[str, dict[str, Any]]
) -> None:
    v1 = _one(rendered["mpi-horovod"], "MPIJob")
    v2 = _one(rendered_next["mpi-horovod"], "MPIJob")
    assert (v1["apiVersion"], v2["apiVersion"]) == ("kubeflow.org/v1", "kubeflow.org/v2beta1")
    launcher = v2["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    assert launcher["command"][:3] == ["mpirun", "-np", "4"]


def test_katib_experiments_follow_the_seed(rendered: dict[str, dict[str, Any]]) -> None:
    experiments = [obj for key, obj in rendered["katib-hpo"].items() if key.startswith("Experiment/")]
    assert len(experiments) == 2
    for experiment in experiments:
        spec = experiment["spec"]
        assert spec["algorithm"]["algorithmName"] == "bayesianoptimization"
        assert (spec["parallelTrialCount"], spec["maxTrialCount"]) == (3, 10)
        assert [p["name"] for p in spec["parameters"]] == ["lr", "batch_size"]
    assert {e["spec"]["trialTemplate"]["trialSpec"]["kind"] for e in experiments} == {"Job", "PyTorchJob"}


def test_data_prep_fills_training_data(rendered: dict[str, dict[str, Any]]) -> None:
    job = _one(rendered["data-prep"], "Job")
    pod = job["spec"]["template"]["spec"]
    assert {"name": "training-data", "persistentVolumeClaim": {"claimName": "training-data"}} in pod[
        "volumes"
    ]
    assert pod["containers"][0]["envFrom"] == [{"secretRef": {"name": "dataset-s3-readonly"}}]


def test_tfjob_ps_request_no_gpus(rendered: dict[str, dict[str, Any]]) -> None:
    job = _one(rendered["tf-ps-worker"], "TFJob")
    specs = job["spec"]["tfReplicaSpecs"]
    assert (specs["PS"]["replicas"], specs["Worker"]["replicas"]) == (2, 3)
    assert "nvidia.com/gpu" not in specs["PS"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert (
        specs["Worker"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    )
