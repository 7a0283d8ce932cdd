"""PyTorchJob: golden manifests (defaults, fully customised), behaviour and prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import ElasticPolicy, PyTorchJob, RunPolicy, VolumeClaim

IMAGE = "registry.example.com/ml/pytorch-train:2.2.0-cuda12.1"


def _job(chart: Any, cluster: Cluster, **props: Any) -> PyTorchJob:
    props = {"cluster": cluster, "name": "train", "image": IMAGE, **props}
    return PyTorchJob(chart, props.pop("id", "Job"), **props)


def _doc(synth: Any, chart: Any, job: PyTorchJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"PyTorchJob/{job.name}"]
    return text, yaml.safe_load(text)


def _container(doc: dict[str, Any], replica: str) -> dict[str, Any]:
    spec: dict[str, Any] = doc["spec"]["pytorchReplicaSpecs"][replica]["template"]["spec"]
    return spec["containers"][0]


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("pytorch_job/defaults.yaml", text)
    # A master-only CPU job: one Master pod, no /dev/shm, no GPU placement, Guaranteed QoS.
    assert list(doc["spec"]["pytorchReplicaSpecs"]) == ["Master"]
    pod = doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    assert "tolerations" not in pod and "shm" not in [v["name"] for v in pod["volumes"]]
    resources = _container(doc, "Master")["resources"]
    assert resources["requests"] == resources["limits"] == {"cpu": "2", "memory": "8Gi"}


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    data = VolumeClaim(
        chart,
        "Data",
        cluster=test_cluster,
        name="data",
        size="1Ti",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    job = _job(
        chart,
        test_cluster,
        name="bert-ft",
        command=["python", "-m", "torch.distributed.run", "train.py"],
        args=["--epochs=3"],
        master=False,
        workers=3,
        gpus_per_node=8,
        cpu="64",
        memory="512Gi",
        rdma=2,
        env={"NCCL_DEBUG": "INFO", "LOGLEVEL": "DEBUG"},
        shm_size="64Gi",
        nproc_per_node="gpu",
        elastic=ElasticPolicy(min_replicas=2, max_replicas=4, max_restarts=10),
        run_policy=RunPolicy(clean_pod_policy="All", backoff_limit=5, active_deadline_seconds=86400),
        labels={"team.example.com/project": "nlp"},
        service_account="trainer",
        read_only_root_filesystem=False,
    )
    job.mount(data, "/data", read_only=True)
    job.mount("checkpoints", "/ckpt")
    text, doc = _doc(synth, chart, job)
    golden("pytorch_job/custom.yaml", text)
    # Elastic: Worker only, ExitCode restarts, c10d rendezvous; user env first, NCCL_IB_DISABLE=0 for RDMA.
    worker = doc["spec"]["pytorchReplicaSpecs"]["Worker"]
    assert worker["restartPolicy"] == "ExitCode" and doc["spec"]["elasticPolicy"]["rdzvBackend"] == "c10d"
    env = [(e["name"], e["value"]) for e in _container(doc, "Worker")["env"]]
    assert env == [("NCCL_DEBUG", "INFO"), ("LOGLEVEL", "DEBUG"), ("NCCL_IB_DISABLE", "0")]
    assert _container(doc, "Worker")["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]


def test_name_has_hash_suffix_that_follows_the_image(chart: Any, test_cluster: Cluster) -> None:
    first = _job(chart, test_cluster, id="A")
    second = _job(chart, test_cluster, id="B", image=IMAGE.replace("2.2.0", "2.3.0"))
    assert re.fullmatch(r"train-[0-9a-f]{6}", first.name)
    assert first.name != second.name


def test_same_props_give_the_same_name(chart: Any, test_cluster: Cluster) -> None:
    assert _job(chart, test_cluster, id="A").name == _job(chart, test_cluster, id="B").name


def test_shm_size_is_half_the_memory_limit(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, gpus_per_node=4, memory="96Gi")
    _, doc = _doc(synth, chart, job)
    volumes = doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["volumes"]
    shm = next(v for v in volumes if v["name"] == "shm")
    assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": "48Gi"}


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"gpus_per_node": 1}, False),
        ({"gpus_per_node": 2}, True),
        ({"workers": 1}, True),
        ({"shm_size": "1Gi"}, True),
    ],
    ids=["one-gpu-one-pod", "two-gpus", "two-pods", "explicit-size"],
)
def test_shm_is_mounted_when_needed(
    chart: Any, synth: Any, test_cluster: Cluster, props: dict[str, Any], expected: bool
) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, **props))
    mounts = [m["mountPath"] for m in _container(doc, "Master")["volumeMounts"]]
    assert ("/dev/shm" in mounts) is expected


def test_gpu_pods_tolerate_taints_and_select_gpu_nodes(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, gpus_per_node=1))
    pod = doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    assert pod["tolerations"] == [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert doc["spec"]["nprocPerNode"] == "1"


def test_gpu_env_defaults_yield_to_user_env(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, gpus_per_node=2, env={"NCCL_DEBUG": "INFO"}))
    env = {e["name"]: e["value"] for e in _container(doc, "Master")["env"]}
    assert env == {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "1"}


def test_mount_adds_volume_and_mount_to_every_replica(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, workers=2)
    job.mount("training-data", "/data", read_only=True)
    _, doc = _doc(synth, chart, job)
    for replica in ("Master", "Worker"):
        pod = doc["spec"]["pytorchReplicaSpecs"][replica]["template"]["spec"]
        assert {"name": "training-data", "persistentVolumeClaim": {"claimName": "training-data"}} in pod[
            "volumes"
        ]
        assert {"name": "training-data", "mountPath": "/data", "readOnly": True} in pod["containers"][0][
            "volumeMounts"
        ]


def test_mount_renames_the_run(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    before = job.name
    job.mount("training-data", "/data")
    assert job.name != before
    assert list(synth(chart)) == [f"PyTorchJob/{job.name}"]


def test_same_input_gives_identical_yaml(synth: Any, test_cluster: Cluster, chart: Any) -> None:
    from cdk8s import App, Chart

    texts = []
    for scope in (chart, Chart(App(), "other", namespace="ml-test", disable_resource_name_hashes=True)):
        job = _job(scope, test_cluster, workers=2, gpus_per_node=2)
        job.mount("training-data", "/data")
        texts.append(synth(scope)[f"PyTorchJob/{job.name}"])
    assert texts[0] == texts[1]


def test_cluster_without_training_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(ValueError, match=r"PyTorchJob cluster='bare': .*training-operator"):
        _job(chart, bare)


def test_rdma_on_a_cluster_without_rdma_resource(chart: Any) -> None:
    cluster = Cluster(
        name="nordma",
        kubernetes_version="1.34",
        operators={"training-operator": "v1.9.4"},
        rdma_resource=None,
    )
    with pytest.raises(ValueError, match=r"PyTorchJob rdma=1: cluster 'nordma' declares no rdma_resource"):
        _job(chart, cluster, rdma=1)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Train"}, "PyTorchJob name='Train': must be a DNS-1035 label"),
        ({"name": "1train"}, "PyTorchJob name='1train': must be a DNS-1035 label"),
        ({"name": "a" * 46}, f"PyTorchJob name='{'a' * 46}': must be a DNS-1035 label"),
        ({"image": "pytorch/pytorch"}, "PyTorchJob image='pytorch/pytorch': must be pinned"),
        ({"image": "pytorch/pytorch:latest"}, "PyTorchJob image='pytorch/pytorch:latest': the tag 'latest'"),
        ({"image": "Bad Image:1"}, "PyTorchJob image='Bad Image:1': not a container image reference"),
        (
            {"command": "python train.py"},
            "PyTorchJob command='python train.py': must be a sequence of strings",
        ),
        ({"args": ["--epochs", 3]}, "PyTorchJob args=['--epochs', 3]: must be a sequence of strings"),
        ({"master": False}, "PyTorchJob workers=0: must be at least 1"),
        ({"workers": -1}, "PyTorchJob workers=-1: must be at least 0"),
        ({"gpus_per_node": 1.5}, "PyTorchJob gpus_per_node=1.5: must be a whole number"),
        ({"gpus_per_node": -1}, "PyTorchJob gpus_per_node=-1: must be at least 0"),
        ({"cpu": "two"}, "PyTorchJob cpu='two': 'two' is not a quantity"),
        ({"cpu": "0"}, "PyTorchJob cpu='0': must be greater than zero"),
        ({"memory": "1.5"}, "PyTorchJob memory='1.5': must be a whole number of bytes"),
        ({"rdma": True}, "PyTorchJob rdma=True: must be a whole number"),
        ({"env": {"1X": "a"}}, "PyTorchJob env: '1X' is not a valid environment variable name"),
        ({"env": {"X": 1}}, "PyTorchJob env: X=1 must be a string"),
        ({"shm_size": "16Gi", "memory": "8Gi"}, "PyTorchJob shm_size='16Gi': must not exceed memory='8Gi'"),
        (
            {"nproc_per_node": 2, "gpus_per_node": 4},
            "PyTorchJob nproc_per_node=2: must equal gpus_per_node=4",
        ),
        ({"nproc_per_node": "many"}, "PyTorchJob nproc_per_node='many': must be a whole number"),
        ({"nproc_per_node": 0}, "PyTorchJob nproc_per_node=0: must be at least 1"),
        (
            {"elastic": ElasticPolicy(min_replicas=1, max_replicas=2), "workers": 1},
            "PyTorchJob master=True: elastic jobs run Worker replicas only",
        ),
        (
            {"elastic": ElasticPolicy(min_replicas=1, max_replicas=2), "workers": 3, "master": False},
            "PyTorchJob workers=3: must be within elastic min_replicas=1 and max_replicas=2",
        ),
        ({"labels": {"bad key!": "x"}}, "PyTorchJob labels: label key 'bad key!' is not a valid label key"),
        ({"labels": {"team": "a b"}}, "PyTorchJob labels: label team='a b' is not a valid label value"),
        ({"service_account": "Trainer"}, "PyTorchJob service_account='Trainer': must be a DNS-1123 label"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _job(chart, test_cluster, **props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"min_replicas": 0, "max_replicas": 2}, "ElasticPolicy min_replicas=0: must be at least 1"),
        (
            {"min_replicas": 3, "max_replicas": 2},
            "ElasticPolicy max_replicas=2: must be at least min_replicas=3",
        ),
        (
            {"min_replicas": 1, "max_replicas": 2, "max_restarts": -1},
            "ElasticPolicy max_restarts=-1: must be at least 0",
        ),
    ],
)
def test_bad_elastic_policy(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        ElasticPolicy(**props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"clean_pod_policy": "Always"},
            "RunPolicy clean_pod_policy='Always': must be one of None, Running, All",
        ),
        ({"backoff_limit": -1}, "RunPolicy backoff_limit=-1: must be at least 0"),
        ({"active_deadline_seconds": 0}, "RunPolicy active_deadline_seconds=0: must be at least 1"),
    ],
)
def test_bad_run_policy(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        RunPolicy(**props)


@pytest.mark.parametrize(
    ("volume", "path", "read_only", "message"),
    [
        ("Data", "/data", False, "PyTorchJob mount volume='Data': must be a DNS-1123 label"),
        ("shm", "/x", False, "PyTorchJob mount volume='shm': the name is reserved"),
        ("data", "data", False, "PyTorchJob mount path='data': must be an absolute path"),
        ("data", "/tmp", False, "PyTorchJob mount path='/tmp': already mounted"),
        (
            "rwo",
            "/data",
            False,
            "PyTorchJob mount volume='rwo': access mode ReadWriteOnce cannot be shared by 2 pods",
        ),
        (
            "rox",
            "/data",
            False,
            "PyTorchJob mount volume='rox': access mode ReadOnlyMany needs read_only=True",
        ),
    ],
)
def test_bad_mount(
    chart: Any, test_cluster: Cluster, volume: str, path: str, read_only: bool, message: str
) -> None:
    claims = {
        "rwo": VolumeClaim(chart, "Rwo", cluster=test_cluster, name="rwo", size="1Gi"),
        "rox": VolumeClaim(
            chart, "Rox", cluster=test_cluster, name="rox", size="1Gi", access_mode="ReadOnlyMany"
        ),
    }
    job = _job(chart, test_cluster, workers=1)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        job.mount(claims.get(volume, volume), path, read_only=read_only)


def test_mounting_a_claim_twice_is_refused(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    job.mount("data", "/data")
    with pytest.raises(ValueError, match=r"^PyTorchJob mount volume='data': already mounted"):
        job.mount("data", "/data2")


@pytest.mark.parametrize("workers", [4, 8])
def test_elastic_bounds_follow_workers_unless_set(
    chart: Any, synth: Any, test_cluster: Cluster, workers: int
) -> None:
    """The README tour's "workers=8": with ElasticPolicy() the upper bound is the worker count."""
    job = _job(chart, test_cluster, master=False, workers=workers, elastic=ElasticPolicy(min_replicas=2))
    _, doc = _doc(synth, chart, job)
    assert doc["spec"]["elasticPolicy"]["maxReplicas"] == workers
    assert doc["spec"]["elasticPolicy"]["minReplicas"] == 2


def test_explicit_elastic_bound_still_checked(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        ValueError, match="workers=8: must be within elastic min_replicas=1 and max_replicas=4"
    ):
        _job(
            chart,
            test_cluster,
            master=False,
            workers=8,
            elastic=ElasticPolicy(min_replicas=1, max_replicas=4),
        )


def test_master_and_worker_resources_differ(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, workers=2, cpu="16", memory="64Gi", master_cpu="4", master_memory="16Gi")
    _, doc = _doc(synth, chart, job)
    master, worker = _container(doc, "Master"), _container(doc, "Worker")
    assert master["resources"]["limits"] == {"cpu": "4", "memory": "16Gi"}
    assert worker["resources"]["limits"] == {"cpu": "16", "memory": "64Gi"}
    shm = {
        r: next(
            v
            for v in doc["spec"]["pytorchReplicaSpecs"][r]["template"]["spec"]["volumes"]
            if v["name"] == "shm"
        )
        for r in ("Master", "Worker")
    }
    assert (shm["Master"]["emptyDir"]["sizeLimit"], shm["Worker"]["emptyDir"]["sizeLimit"]) == ("8Gi", "32Gi")
