"""TFJob: golden manifests (defaults, fully customised), behaviour, prop errors, CRD validation and
parity with the upstream dist-mnist example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeflow_support import set_path, strip_trainops, upstream_example, validation_problems

from trainops.cluster import Cluster
from trainops.constructs import RunPolicy, TFJob, VolumeClaim
from trainops.constructs.tf_job import MAX_BASE_NAME

IMAGE = "registry.example.com/ml/tf-train:2.16.1-gpu"


def _job(chart: Any, cluster: Cluster, **props: Any) -> TFJob:
    props = {"cluster": cluster, "name": "train", "image": IMAGE, **props}
    return TFJob(chart, props.pop("id", "Job"), **props)


def _doc(synth: Any, chart: Any, job: TFJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"TFJob/{job.name}"]
    return text, yaml.safe_load(text)


def _pod(doc: dict[str, Any], replica: str) -> dict[str, Any]:
    pod: dict[str, Any] = doc["spec"]["tfReplicaSpecs"][replica]["template"]["spec"]
    return pod


def _custom(chart: Any, cluster: Cluster) -> TFJob:
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
        name="resnet",
        command=["python", "/opt/train.py"],
        args=["--epochs=90"],
        chief=True,
        ps=2,
        workers=4,
        evaluator=True,
        gpus_per_node=4,
        cpu="32",
        memory="256Gi",
        ps_cpu="8",
        ps_memory="64Gi",
        rdma=1,
        env={"TF_CPP_MIN_LOG_LEVEL": "1"},
        shm_size="32Gi",
        success_policy="AllWorkers",
        enable_dynamic_worker=True,
        run_policy=RunPolicy(clean_pod_policy="All", backoff_limit=5, active_deadline_seconds=86400),
        labels={"team.example.com/project": "vision"},
        service_account="trainer",
        read_only_root_filesystem=False,
    )
    job.mount(data, "/data", read_only=True)
    return job


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("tf_job/defaults.yaml", text)
    # One CPU Worker (worker 0 is chief), container "tensorflow", no optional spec fields.
    assert list(doc["spec"]["tfReplicaSpecs"]) == ["Worker"]
    assert _pod(doc, "Worker")["containers"][0]["name"] == "tensorflow"
    assert set(doc["spec"]) == {"tfReplicaSpecs", "runPolicy"}


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _custom(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("tf_job/custom.yaml", text)
    assert sorted(doc["spec"]["tfReplicaSpecs"]) == ["Chief", "Evaluator", "PS", "Worker"]
    assert doc["spec"]["successPolicy"] == "AllWorkers" and doc["spec"]["enableDynamicWorker"] is True
    # Parameter servers get their own size and no GPUs, RDMA, GPU placement or /dev/shm.
    ps = _pod(doc, "PS")
    assert ps["containers"][0]["resources"]["limits"] == {"cpu": "8", "memory": "64Gi"}
    assert "tolerations" not in ps and "shm" not in [v["name"] for v in ps["volumes"]]


def test_replica_counts(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, chief=True, ps=2, workers=3, evaluator=True)
    _, doc = _doc(synth, chart, job)
    counts = {t: r["replicas"] for t, r in doc["spec"]["tfReplicaSpecs"].items()}
    assert counts == {"Chief": 1, "PS": 2, "Worker": 3, "Evaluator": 1}
    assert job.pods == 7 and job.replica_types == ("Chief", "PS", "Worker", "Evaluator")


def test_chief_only_job_has_no_worker(chart: Any, test_cluster: Cluster) -> None:
    assert _job(chart, test_cluster, chief=True, workers=0).replica_types == ("Chief",)


@pytest.mark.parametrize("replica", ["Chief", "Worker", "Evaluator"])
def test_gpu_replicas_get_gpus_and_placement(
    chart: Any, synth: Any, test_cluster: Cluster, replica: str
) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, chief=True, ps=1, evaluator=True, gpus_per_node=2))
    pod = _pod(doc, replica)
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}


def test_ps_defaults_to_the_worker_size_without_gpus(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, ps=1, gpus_per_node=2, memory="16Gi"))
    container = _pod(doc, "PS")["containers"][0]
    assert container["resources"]["limits"] == {"cpu": "2", "memory": "16Gi"}
    assert "env" not in container  # the NCCL defaults belong to GPU pods


def test_mount_reaches_every_replica_type(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, chief=True, ps=1, evaluator=True)
    job.mount("training-data", "/data", read_only=True)
    _, doc = _doc(synth, chart, job)
    mounts = {t: _pod(doc, t)["containers"][0]["volumeMounts"][-1] for t in doc["spec"]["tfReplicaSpecs"]}
    assert set(mounts) == {"Chief", "PS", "Worker", "Evaluator"}
    assert all(
        m == {"name": "training-data", "mountPath": "/data", "readOnly": True} for m in mounts.values()
    )


def test_name_has_hash_suffix_that_follows_the_spec(chart: Any, test_cluster: Cluster) -> None:
    first = _job(chart, test_cluster, id="A")
    second = _job(chart, test_cluster, id="B", ps=1)
    assert re.fullmatch(r"train-[0-9a-f]{6}", first.name) and first.name != second.name


def test_longest_name_keeps_evaluator_service_names_within_63(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, name="a" * MAX_BASE_NAME, evaluator=True)
    assert MAX_BASE_NAME == 42
    assert len(f"{job.name}-evaluator-999") == 63


@pytest.mark.parametrize("case", ["defaults", "custom"])
def test_output_validates_against_the_crd(
    chart: Any, synth: Any, test_cluster: Cluster, cli: Any, tmp_path: Path, case: str
) -> None:
    job = _job(chart, test_cluster) if case == "defaults" else _custom(chart, test_cluster)
    text, _ = _doc(synth, chart, job)
    assert validation_problems(cli, tmp_path, text) == []


def test_parity_with_upstream_dist_mnist(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    upstream = upstream_example("tensorflow/dist-mnist/tf_job_mnist.yaml")
    pinned = "ghcr.io/kubeflow/training-v1/tf-dist-mnist-test:v1.9.4"
    job = _job(
        chart,
        test_cluster,
        name=upstream["metadata"]["name"],
        image=pinned,
        chief=True,
        ps=1,
        workers=2,
        run_policy=RunPolicy(clean_pod_policy="None", backoff_limit=3),
    )
    _, doc = _doc(synth, chart, job)
    ours = strip_trainops(doc, "tfReplicaSpecs")
    # Intended differences besides strip_trainops's list, each stated:
    intended: dict[str, Any] = {
        # trainops refuses the mutable tag `latest`: the same image at a pinned tag.
        **{
            f"spec.tfReplicaSpecs.{t}.template.spec.containers.0.image": pinned
            for t in ("Chief", "PS", "Worker")
        },
        # OnFailure restarts a crashed pod in place (counted against backoffLimit) instead of Never.
        **{f"spec.tfReplicaSpecs.{t}.restartPolicy": "OnFailure" for t in ("Chief", "PS", "Worker")},
        # runPolicy is explicit: the operator's default cleanPodPolicy None, plus backoffLimit 3.
        "spec.runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 3},
    }
    for path, value in intended.items():
        set_path(upstream, path, value)
    assert ours == upstream


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Train"}, "TFJob name='Train': must be a DNS-1035 label"),
        ({"name": "a" * 43}, f"TFJob name='{'a' * 43}': must be a DNS-1035 label"),
        (
            {"image": "tensorflow/tensorflow:latest"},
            "TFJob image='tensorflow/tensorflow:latest': the tag 'latest'",
        ),
        ({"command": "python train.py"}, "TFJob command='python train.py': must be a sequence of strings"),
        ({"args": ["--epochs", 3]}, "TFJob args=['--epochs', 3]: must be a sequence of strings"),
        ({"workers": 0}, "TFJob workers=0: must be at least 1"),
        ({"workers": -1, "chief": True}, "TFJob workers=-1: must be at least 0"),
        ({"ps": -1}, "TFJob ps=-1: must be at least 0"),
        ({"ps": 1.5}, "TFJob ps=1.5: must be a whole number"),
        ({"gpus_per_node": 1.5}, "TFJob gpus_per_node=1.5: must be a whole number"),
        ({"cpu": "two"}, "TFJob cpu='two': 'two' is not a quantity"),
        ({"memory": "1.5"}, "TFJob memory='1.5': must be a whole number of bytes"),
        ({"ps_cpu": "0"}, "TFJob ps_cpu='0': must be greater than zero"),
        ({"ps_memory": "lots"}, "TFJob ps_memory='lots': 'lots' is not a quantity"),
        ({"rdma": -1}, "TFJob rdma=-1: must be at least 0"),
        ({"env": {"1X": "a"}}, "TFJob env: '1X' is not a valid environment variable name"),
        ({"shm_size": "16Gi"}, "TFJob shm_size='16Gi': must not exceed memory='8Gi'"),
        ({"success_policy": "AnyWorker"}, "TFJob success_policy='AnyWorker': must be 'AllWorkers' or None"),
        ({"labels": {"team": "a b"}}, "TFJob labels: label team='a b' is not a valid label value"),
        ({"service_account": "Trainer"}, "TFJob service_account='Trainer': must be a DNS-1123 label"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _job(chart, test_cluster, **props)


def test_cluster_without_training_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(ValueError, match=r"^TFJob cluster='bare': .*training-operator"):
        _job(chart, bare)


def test_rdma_on_a_cluster_without_rdma_resource(chart: Any) -> None:
    cluster = Cluster(
        name="nordma",
        kubernetes_version="1.34",
        operators={"training-operator": "v1.9.4"},
        rdma_resource=None,
    )
    with pytest.raises(ValueError, match=r"^TFJob rdma=1: cluster 'nordma' declares no rdma_resource"):
        _job(chart, cluster, rdma=1)


def test_mount_on_a_scratch_path_is_refused(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, workers=2)
    with pytest.raises(ValueError, match=r"^TFJob mount path='/dev/shm': already mounted"):
        job.mount("data", "/dev/shm")
