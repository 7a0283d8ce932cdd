"""XGBoostJob: golden manifests (defaults, fully customised), behaviour, prop errors, CRD validation
and parity with the upstream Rabit smoke-test example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeflow_support import set_path, strip_trainops, upstream_example, validation_problems

from trainops.cluster import Cluster
from trainops.constructs import RunPolicy, VolumeClaim, XGBoostJob
from trainops.constructs.xgboost_job import MAX_BASE_NAME

IMAGE = "registry.example.com/ml/xgboost-train:2.1.1"


def _job(chart: Any, cluster: Cluster, **props: Any) -> XGBoostJob:
    props = {"cluster": cluster, "name": "train", "image": IMAGE, **props}
    return XGBoostJob(chart, props.pop("id", "Job"), **props)


def _doc(synth: Any, chart: Any, job: XGBoostJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"XGBoostJob/{job.name}"]
    return text, yaml.safe_load(text)


def _container(doc: dict[str, Any], replica: str) -> dict[str, Any]:
    container: dict[str, Any] = doc["spec"]["xgbReplicaSpecs"][replica]["template"]["spec"]["containers"][0]
    return container


def _custom(chart: Any, cluster: Cluster) -> XGBoostJob:
    data = VolumeClaim(
        chart,
        "Data",
        cluster=cluster,
        name="data",
        size="100Gi",
        access_mode="ReadOnlyMany",
        storage_role="shared",
    )
    job = _job(
        chart,
        cluster,
        name="churn",
        command=["python", "/opt/train.py"],
        args=["--n_estimators=500"],
        workers=3,
        gpus_per_node=1,
        cpu="16",
        memory="64Gi",
        env={"OMP_NUM_THREADS": "16"},
        shm_size="8Gi",
        port=9991,
        run_policy=RunPolicy(clean_pod_policy="All", backoff_limit=2, active_deadline_seconds=7200),
        labels={"team.example.com/project": "churn"},
        service_account="trainer",
        read_only_root_filesystem=False,
    )
    job.mount(data, "/data", read_only=True)
    return job


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("xgboost_job/defaults.yaml", text)
    # One Master (the webhook requires exactly one), container "xgboost", no port (operator default).
    assert doc["spec"]["xgbReplicaSpecs"]["Master"]["replicas"] == 1
    assert list(doc["spec"]["xgbReplicaSpecs"]) == ["Master"]
    assert _container(doc, "Master")["name"] == "xgboost" and "ports" not in _container(doc, "Master")


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    job = _custom(chart, test_cluster)
    text, doc = _doc(synth, chart, job)
    golden("xgboost_job/custom.yaml", text)
    assert {t: r["replicas"] for t, r in doc["spec"]["xgbReplicaSpecs"].items()} == {"Master": 1, "Worker": 3}
    assert all(
        _container(doc, t)["ports"] == [{"name": "xgboostjob-port", "containerPort": 9991}]
        for t in ("Master", "Worker")
    )


@pytest.mark.parametrize(("workers", "types", "pods"), [(0, ("Master",), 1), (2, ("Master", "Worker"), 3)])
def test_replica_types_and_pods(
    chart: Any, test_cluster: Cluster, workers: int, types: tuple[str, ...], pods: int
) -> None:
    job = _job(chart, test_cluster, workers=workers)
    assert job.replica_types == types and job.pods == pods


def test_several_pods_get_shared_memory(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _, doc = _doc(synth, chart, _job(chart, test_cluster, workers=1, memory="16Gi"))
    volumes = doc["spec"]["xgbReplicaSpecs"]["Worker"]["template"]["spec"]["volumes"]
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}} in volumes


def test_name_has_hash_suffix_that_follows_the_spec(chart: Any, test_cluster: Cluster) -> None:
    first = _job(chart, test_cluster, id="A")
    second = _job(chart, test_cluster, id="B", workers=1)
    assert re.fullmatch(r"train-[0-9a-f]{6}", first.name) and first.name != second.name


def test_longest_name_keeps_worker_service_names_within_63(chart: Any, test_cluster: Cluster) -> None:
    job = _job(chart, test_cluster, name="a" * MAX_BASE_NAME, workers=1)
    assert MAX_BASE_NAME == 45 and len(f"{job.name}-worker-999") == 63


@pytest.mark.parametrize("case", ["defaults", "custom"])
def test_output_validates_against_the_crd(
    chart: Any, synth: Any, test_cluster: Cluster, cli: Any, tmp_path: Path, case: str
) -> None:
    job = _job(chart, test_cluster) if case == "defaults" else _custom(chart, test_cluster)
    text, _ = _doc(synth, chart, job)
    assert validation_problems(cli, tmp_path, text) == []


def test_parity_with_upstream_rabit_smoke_test(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    upstream = upstream_example("xgboost/smoke-dist/xgboostjob_v1_rabit_test.yaml")
    pinned = "ghcr.io/kubeflow/training-v1/xgboost-dist-rabit-test:v1.9.4"
    job = _job(
        chart,
        test_cluster,
        name=upstream["metadata"]["name"],
        image=pinned,
        workers=2,
        port=9991,
        run_policy=RunPolicy(clean_pod_policy="None", backoff_limit=3),
    )
    _, doc = _doc(synth, chart, job)
    ours = strip_trainops(doc, "xgbReplicaSpecs")
    # Intended differences besides strip_trainops's list, each stated:
    intended: dict[str, Any] = {
        # trainops refuses the mutable tag `latest`: the same image at a pinned tag...
        **{
            f"spec.xgbReplicaSpecs.{t}.template.spec.containers.0.image": pinned for t in ("Master", "Worker")
        },
        # ...so imagePullPolicy keeps the Kubernetes default (IfNotPresent) instead of Always.
        **{
            f"spec.xgbReplicaSpecs.{t}.template.spec.containers.0.imagePullPolicy": None
            for t in ("Master", "Worker")
        },
        # OnFailure restarts a crashed pod in place (counted against backoffLimit) instead of Never.
        **{f"spec.xgbReplicaSpecs.{t}.restartPolicy": "OnFailure" for t in ("Master", "Worker")},
        # (the `/dev/shm` emptyDir of a multi-pod job is removed by strip_trainops with the scratch volumes)
        # runPolicy is explicit: the operator's default cleanPodPolicy None, plus backoffLimit 3.
        "spec.runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 3},
    }
    for path, value in intended.items():
        set_path(upstream, path, value)
    assert ours == upstream


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Train"}, "XGBoostJob name='Train': must be a DNS-1035 label"),
        ({"name": "a" * 46}, f"XGBoostJob name='{'a' * 46}': must be a DNS-1035 label"),
        ({"image": "xgboost:latest"}, "XGBoostJob image='xgboost:latest': the tag 'latest'"),
        (
            {"command": "python train.py"},
            "XGBoostJob command='python train.py': must be a sequence of strings",
        ),
        ({"args": [1]}, "XGBoostJob args=[1]: must be a sequence of strings"),
        ({"workers": -1}, "XGBoostJob workers=-1: must be at least 0"),
        ({"workers": 1.5}, "XGBoostJob workers=1.5: must be a whole number"),
        ({"gpus_per_node": -1}, "XGBoostJob gpus_per_node=-1: must be at least 0"),
        ({"cpu": "0"}, "XGBoostJob cpu='0': must be greater than zero"),
        ({"memory": "1.5"}, "XGBoostJob memory='1.5': must be a whole number of bytes"),
        ({"rdma": True}, "XGBoostJob rdma=True: must be a whole number"),
        ({"env": {"X": 1}}, "XGBoostJob env: X=1 must be a string"),
        ({"shm_size": "9Gi"}, "XGBoostJob shm_size='9Gi': must not exceed memory='8Gi'"),
        ({"port": 0}, "XGBoostJob port=0: must be at least 1"),
        ({"port": 70000}, "XGBoostJob port=70000: must be at most 65535"),
        ({"labels": {"bad key!": "x"}}, "XGBoostJob labels: label key 'bad key!' is not a valid label key"),
        ({"service_account": "Trainer"}, "XGBoostJob service_account='Trainer': must be a DNS-1123 label"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _job(chart, test_cluster, **props)


def test_cluster_without_training_operator_is_refused(chart: Any) -> None:
    bare = Cluster(name="bare", kubernetes_version="1.34")
    with pytest.raises(ValueError, match=r"^XGBoostJob cluster='bare': .*training-operator"):
        _job(chart, bare)


def test_rwo_claim_cannot_be_shared_by_workers(chart: Any, test_cluster: Cluster) -> None:
    rwo = VolumeClaim(chart, "Rwo", cluster=test_cluster, name="rwo", size="1Gi")
    job = _job(chart, test_cluster, workers=1)
    with pytest.raises(ValueError, match=r"^XGBoostJob mount volume='rwo': access mode ReadWriteOnce"):
        job.mount(rwo, "/data")
