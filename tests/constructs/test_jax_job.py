"""JAXJob: golden manifests (defaults, fully customised), behaviour, prop errors, CRD validation and
parity with the upstream cpu-demo example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeflow_support import set_path, strip_trainops, upstream_example, validation_problems

from trainops.cluster import Cluster
from trainops.constructs import JAXJob, RunPolicy, VolumeClaim
from trainops.constructs.jax_job import MAX_BASE_NAME

IMAGE = "registry.example.com/ml/jax-train:0.4.35-cuda12"


def _job(chart: Any, cluster: Cluster, **props: Any) -> JAXJob:
    props = {"cluster": cluster, "name": "train", "image": IMAGE, **props}
    return JAXJob(chart, props.pop("id", "Job"), **props)


def _doc(synth: Any, chart: Any, job: JAXJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"JAXJob/{job.name}"]
    return text, yaml.safe_load(text)


def _pod(doc: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = doc["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]
    return pod


def _custom(chart: Any, cluster: Cluster) -> JAXJob:
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
        name="gemma",
        command=["python3", "train.py"],
        args=["--steps=10000"],
        workers=4,
        gpus_per_node=8,
        cpu="96",
        memory="1Ti",
        rdma=4,
        env={"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.9"},
        shm_size="128Gi",
        port=6000,
        run_policy=RunPolicy(clean_pod_policy="All", backoff_limit=1, active_deadline_seconds=172800),
        labels={"team.example.com/project": "llm"},
        service_account="trainer",
        read_only_root_filesystem=False,
    )
    job.mount(data, "/data", read_only=True)
    job.mount("checkpoints", "/ckpt")
    return job


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("jax_job/defaults.yaml", text)
    # One CPU Worker with container "jax", no /dev/shm for a single pod.
    assert doc["spec"]["jaxReplicaSpecs"]["Worker"]["replicas"] == 1
    assert _pod(doc)["containers"][0]["name"] == "jax"
    assert [v["name"] for v in _pod(doc)["volumes"]] == ["tmp"]


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _custom(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("jax_job/custom.yaml", text)
    container = _pod(doc)["containers"][0]
    assert container["ports"] == [{"name": "jaxjob-port", "containerPort": 6000}]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert container["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]


@pytest.mark.parametrize(("workers", "shm"), [(1, False), (2, True)])
def test_shm_for_several_processes(
    chart: Any, synth: Any, test_cluster: Cluster, workers: int, shm: bool
) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, workers=workers))
    assert ("shm" in [v["name"] for v in _pod(doc)["volumes"]]) is shm


def test_name_has_hash_suffix_that_follows_the_spec(chart: Any, test_cluster: Cluster) -> None:
    first = _job(chart, test_cluster, id="A")
    second = _job(chart, test_cluster, id="B", workers=2)
    assert re.fullmatch(r"train-[0-9a-f]{6}", first.name) and first.name != second.name
    assert first.pods == 1 and second.pods == 2 and second.replica_types == ("Worker",)


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


def test_parity_with_upstream_cpu_demo(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    upstream = upstream_example("jax/cpu-demo/demo.yaml")
    container = upstream["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    pinned = "ghcr.io/kubeflow/training-v1/jaxjob-simple:v1.9.4"
    job = _job(
        chart,
        test_cluster,
        name=upstream["metadata"]["name"],
        image=pinned,
        command=container["command"],
        workers=2,
        run_policy=RunPolicy(clean_pod_policy="None", backoff_limit=3),
    )
    _, doc = _doc(synth, chart, job)
    ours = strip_trainops(doc, "jaxReplicaSpecs")
    # Intended differences besides strip_trainops's list, each stated:
    intended: dict[str, Any] = {
        # The namespace is the Chart's (strip_trainops drops ours), not the example's `kubeflow`.
        "metadata.namespace": None,
        # trainops refuses the mutable tag `latest`: the same image at a pinned tag...
        "spec.jaxReplicaSpecs.Worker.template.spec.containers.0.image": pinned,
        # ...so imagePullPolicy keeps the Kubernetes default (IfNotPresent) instead of Always.
        "spec.jaxReplicaSpecs.Worker.template.spec.containers.0.imagePullPolicy": None,
        # runPolicy is explicit: the operator's default cleanPodPolicy None, plus backoffLimit 3.
        "spec.runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 3},
    }
    for path, value in intended.items():
        set_path(upstream, path, value)
    assert ours == upstream


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Train"}, "JAXJob name='Train': must be a DNS-1035 label"),
        ({"name": "a" * 46}, f"JAXJob name='{'a' * 46}': must be a DNS-1035 label"),
        ({"image": "jax:latest"}, "JAXJob image='jax:latest': the tag 'latest'"),
        ({"command": "python3"}, "JAXJob command='python3': must be a sequence of strings"),
        ({"args": [None]}, "JAXJob args=[None]: must be a sequence of strings"),
        ({"workers": 0}, "JAXJob workers=0: must be at least 1"),
        ({"gpus_per_node": -2}, "JAXJob gpus_per_node=-2: must be at least 0"),
        ({"cpu": "many"}, "JAXJob cpu='many': 'many' is not a quantity"),
        ({"memory": "1.5"}, "JAXJob memory='1.5': must be a whole number of bytes"),
        ({"rdma": 1.5}, "JAXJob rdma=1.5: must be a whole number"),
        ({"env": {"X": 1}}, "JAXJob env: X=1 must be a string"),
        ({"shm_size": "10Gi"}, "JAXJob shm_size='10Gi': must not exceed memory='8Gi'"),
        ({"port": 0}, "JAXJob port=0: must be at least 1"),
        ({"labels": {"bad key!": "x"}}, "JAXJob labels: label key 'bad key!' is not a valid label key"),
        ({"service_account": "Trainer"}, "JAXJob service_account='Trainer': must be a DNS-1123 label"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _job(chart, test_cluster, **props)


def test_cluster_without_training_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(ValueError, match=r"^JAXJob cluster='bare': .*training-operator"):
        _job(chart, bare)
