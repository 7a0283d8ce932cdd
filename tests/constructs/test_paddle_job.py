"""PaddleJob: golden manifests (defaults, fully customised), behaviour, prop errors, CRD validation
and parity with the upstream simple-cpu example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeflow_support import set_path, strip_trainops, upstream_example, validation_problems

from trainops.cluster import Cluster
from trainops.constructs import PaddleElasticPolicy, PaddleJob, RunPolicy, VolumeClaim
from trainops.constructs.paddle_job import MAX_BASE_NAME

IMAGE = "registry.example.com/ml/paddle-train:2.6.1-gpu-cuda12.0"


def _job(chart: Any, cluster: Cluster, **props: Any) -> PaddleJob:
    props = {"cluster": cluster, "name": "train", "image": IMAGE, **props}
    return PaddleJob(chart, props.pop("id", "Job"), **props)


def _doc(synth: Any, chart: Any, job: PaddleJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"PaddleJob/{job.name}"]
    return text, yaml.safe_load(text)


def _pod(doc: dict[str, Any], replica: str) -> dict[str, Any]:
    pod: dict[str, Any] = doc["spec"]["paddleReplicaSpecs"][replica]["template"]["spec"]
    return pod


def _custom(chart: Any, cluster: Cluster) -> PaddleJob:
    data = VolumeClaim(
        chart,
        "Data",
        cluster=cluster,
        name="data",
        size="1Ti",
        access_mode="ReadWriteMany",
        storage_role="shared",
    )
    job = _job(
        chart,
        cluster,
        name="ernie",
        command=["python"],
        args=["-m", "paddle.distributed.launch", "train.py"],
        workers=4,
        servers=2,
        gpus_per_node=8,
        cpu="64",
        memory="512Gi",
        server_cpu="16",
        server_memory="128Gi",
        rdma=2,
        env={"GLOG_v": "1"},
        shm_size="64Gi",
        port=37777,
        elastic=PaddleElasticPolicy(min_replicas=2, max_replicas=8, max_restarts=5),
        run_policy=RunPolicy(clean_pod_policy="All", backoff_limit=5, active_deadline_seconds=86400),
        labels={"team.example.com/project": "nlp"},
        service_account="trainer",
        read_only_root_filesystem=False,
    )
    job.mount(data, "/data", read_only=True)
    return job


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("paddle_job/defaults.yaml", text)
    # Collective mode: one Worker, container "paddle", no elastic policy.
    assert list(doc["spec"]["paddleReplicaSpecs"]) == ["Worker"]
    assert _pod(doc, "Worker")["containers"][0]["name"] == "paddle"
    assert set(doc["spec"]) == {"paddleReplicaSpecs", "runPolicy"}


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _custom(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("paddle_job/custom.yaml", text)
    assert doc["spec"]["elasticPolicy"] == {"minReplicas": 2, "maxReplicas": 8, "maxRestarts": 5}
    # Parameter servers (Master) get their own size and no GPUs or /dev/shm.
    server = _pod(doc, "Master")
    assert server["containers"][0]["resources"]["limits"] == {"cpu": "16", "memory": "128Gi"}
    assert "shm" not in [v["name"] for v in server["volumes"]] and "nodeSelector" not in server


@pytest.mark.parametrize(
    ("props", "types", "pods"),
    [({}, ("Worker",), 1), ({"servers": 2, "workers": 3}, ("Master", "Worker"), 5)],
    ids=["collective", "parameter-server"],
)
def test_modes(
    chart: Any, test_cluster: Cluster, props: dict[str, Any], types: tuple[str, ...], pods: int
) -> None:
    job = _job(chart, test_cluster, **props)
    assert job.replica_types == types and job.pods == pods


def test_port_is_set_on_every_replica(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, servers=1, port=36000))
    ports = [_pod(doc, t)["containers"][0]["ports"] for t in ("Master", "Worker")]
    assert ports == [[{"name": "master", "containerPort": 36000}]] * 2


def test_name_has_hash_suffix_that_follows_the_spec(chart: Any, test_cluster: Cluster) -> None:
    first = _job(chart, test_cluster, id="A")
    second = _job(chart, test_cluster, id="B", workers=2)
    assert re.fullmatch(r"train-[0-9a-f]{6}", first.name) and first.name != second.name


def test_longest_name_keeps_worker_service_names_within_63(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, name="a" * MAX_BASE_NAME)
    assert MAX_BASE_NAME == 45 and len(f"{job.name}-worker-999") == 63


@pytest.mark.parametrize("case", ["defaults", "custom"])
def test_output_validates_against_the_crd(
    chart: Any, synth: Any, test_cluster: Cluster, cli: Any, tmp_path: Path, case: str
) -> None:
    job = _job(chart, test_cluster) if case == "defaults" else _custom(chart, test_cluster)
    text, _ = _doc(synth, chart, job)
    assert validation_problems(cli, tmp_path, text) == []


def test_parity_with_upstream_simple_cpu(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    upstream = upstream_example("paddlepaddle/simple-cpu.yaml")
    container = upstream["spec"]["paddleReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    job = _job(
        chart,
        test_cluster,
        name=upstream["metadata"]["name"],
        image=container["image"],
        command=container["command"],
        args=container["args"],
        workers=2,
        port=37777,
        run_policy=RunPolicy(clean_pod_policy="None", backoff_limit=3),
    )
    _, doc = _doc(synth, chart, job)
    ours = strip_trainops(doc, "paddleReplicaSpecs")
    # Intended differences besides strip_trainops's list, each stated:
    intended: dict[str, Any] = {
        # The namespace is the Chart's (strip_trainops drops ours), not the example's `kubeflow`.
        "metadata.namespace": None,
        # The image is pinned, so imagePullPolicy keeps the Kubernetes default (IfNotPresent), not Always.
        "spec.paddleReplicaSpecs.Worker.template.spec.containers.0.imagePullPolicy": None,
        # runPolicy is explicit: the operator's default cleanPodPolicy None, plus backoffLimit 3.
        "spec.runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 3},
    }
    for path, value in intended.items():
        set_path(upstream, path, value)
    assert ours == upstream


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Train"}, "PaddleJob name='Train': must be a DNS-1035 label"),
        ({"name": "a" * 46}, f"PaddleJob name='{'a' * 46}': must be a DNS-1035 label"),
        ({"image": "paddle"}, "PaddleJob image='paddle': must be pinned"),
        ({"command": "python"}, "PaddleJob command='python': must be a sequence of strings"),
        ({"args": "-m"}, "PaddleJob args='-m': must be a sequence of strings"),
        ({"workers": 0}, "PaddleJob workers=0: must be at least 1"),
        ({"servers": -1}, "PaddleJob servers=-1: must be at least 0"),
        ({"gpus_per_node": 0.5}, "PaddleJob gpus_per_node=0.5: must be a whole number"),
        ({"cpu": "x"}, "PaddleJob cpu='x': 'x' is not a quantity"),
        ({"memory": "0"}, "PaddleJob memory='0': must be greater than zero"),
        ({"server_cpu": "0"}, "PaddleJob server_cpu='0': must be greater than zero"),
        ({"server_memory": "1.5"}, "PaddleJob server_memory='1.5': must be a whole number of bytes"),
        ({"rdma": -1}, "PaddleJob rdma=-1: must be at least 0"),
        ({"env": {"1X": "a"}}, "PaddleJob env: '1X' is not a valid environment variable name"),
        ({"shm_size": "16Gi"}, "PaddleJob shm_size='16Gi': must not exceed memory='8Gi'"),
        ({"port": 65536}, "PaddleJob port=65536: must be at most 65535"),
        (
            {"elastic": PaddleElasticPolicy(min_replicas=2, max_replicas=4)},
            "PaddleJob workers=1: must be within elastic min_replicas=2 and max_replicas=4",
        ),
        ({"labels": {"team": "a b"}}, "PaddleJob labels: label team='a b' is not a valid label value"),
        ({"service_account": "Trainer"}, "PaddleJob service_account='Trainer': must be a DNS-1123 label"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _job(chart, test_cluster, **props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"min_replicas": 0, "max_replicas": 2}, "PaddleElasticPolicy min_replicas=0: must be at least 1"),
        (
            {"min_replicas": 3, "max_replicas": 2},
            "PaddleElasticPolicy max_replicas=2: must be at least min_replicas=3",
        ),
        (
            {"min_replicas": 1, "max_replicas": 2, "max_restarts": -1},
            "PaddleElasticPolicy max_restarts=-1: must be at least 0",
        ),
    ],
)
def test_bad_elastic_policy(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PaddleElasticPolicy(**props)


def test_cluster_without_training_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(ValueError, match=r"^PaddleJob cluster='bare': .*training-operator"):
        _job(chart, bare)
