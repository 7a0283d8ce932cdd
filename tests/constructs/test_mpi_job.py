"""MPIJob (mpi-operator v2beta1): golden manifest, -np consistent with workers × slots, parity with
the upstream Horovod example, CRD validation, prop errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.cluster import Cluster
from trainops.constructs import MPIJob
from trainops.pipeline import Target, Text, check

HOROVOD = "docker.io/kubeflow/mpi-horovod-mnist:v0.8.0"


@pytest.fixture(scope="module")
def mpi_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, name="mpi", operators={"mpi-operator": "v0.8.0"})


def _doc(synth: Any, chart: Any, job: MPIJob) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"MPIJob/{job.name}"]
    return text, yaml.safe_load(text)


def test_defaults(chart: Any, synth: Any, golden: Any, mpi_cluster: Cluster) -> None:
    job = MPIJob(
        chart,
        "Job",
        cluster=mpi_cluster,
        name="horovod-mnist",
        image=HOROVOD,
        command=["python", "/examples/tensorflow_mnist.py"],
    )
    text, doc = _doc(synth, chart, job)
    golden("mpi_job/defaults.yaml", text)
    launcher = doc["spec"]["mpiReplicaSpecs"]["Launcher"]
    assert launcher["replicas"] == 1 and doc["spec"]["slotsPerWorker"] == 1
    assert launcher["template"]["spec"]["containers"][0]["command"][:3] == ["mpirun", "-np", "1"]


def test_gpu_workers_set_slots_and_np(chart: Any, synth: Any, golden: Any, mpi_cluster: Cluster) -> None:
    job = MPIJob(
        chart,
        "Job",
        cluster=mpi_cluster,
        name="bench",
        image=HOROVOD,
        command=["python", "bench.py"],
        workers=4,
        gpus_per_node=8,
        cpu="32",
        memory="256Gi",
        mpi_implementation="OpenMPI",
    )
    text, doc = _doc(synth, chart, job)
    golden("mpi_job/gpus.yaml", text)
    assert job.ranks == 32 and doc["spec"]["slotsPerWorker"] == 8
    launcher = doc["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    worker = doc["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    assert launcher["containers"][0]["command"][:3] == ["mpirun", "-np", "32"]
    assert (
        "nvidia.com/gpu" not in launcher["containers"][0]["resources"]["limits"]
    )  # the launcher runs no rank
    assert worker["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert any(v["name"] == "shm" for v in worker["volumes"])


def test_mpich_uses_dash_n(chart: Any, synth: Any, mpi_cluster: Cluster) -> None:
    job = MPIJob(
        chart,
        "Job",
        cluster=mpi_cluster,
        name="pi",
        image="docker.io/mpioperator/mpi-pi:mpich",
        command=["/home/mpiuser/pi"],
        workers=2,
        mpi_implementation="MPICH",
    )
    command = _doc(synth, chart, job)[1]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"][
        "containers"
    ][0]["command"]
    assert command == ["mpirun", "-n", "2", "-genvall", "/home/mpiuser/pi"]


@needs_shared
def test_parity_with_upstream_horovod_example(chart: Any, synth: Any, mpi_cluster: Cluster) -> None:
    """mpi-operator/examples/v2beta1/horovod/tensorflow-mnist.yaml built with MPIJob.

    Intended differences: a pinned image; ``mpirun`` options are trainops's OpenMPI defaults
    (bind-to none, map-by slot, forwarded PATH/LD_LIBRARY_PATH/NCCL_DEBUG; no --allow-run-as-root,
    the pods run as non-root) instead of upstream's mca flags; launcherCreationPolicy
    WaitForWorkersReady; requests = limits and the secure pod defaults.
    """
    upstream = yaml.safe_load(
        (EXAMPLES / "mpi-operator/examples/v2beta1/horovod/tensorflow-mnist.yaml").read_text()
    )["spec"]
    job = MPIJob(
        chart,
        "Job",
        cluster=mpi_cluster,
        name="tensorflow-mnist",
        image=HOROVOD,
        command=["python", "/examples/tensorflow_mnist.py"],
        workers=2,
        cpu="2",
        memory="4Gi",
        launcher_cpu="1",
        launcher_memory="2Gi",
    )
    spec = _doc(synth, chart, job)[1]["spec"]
    assert spec["slotsPerWorker"] == upstream["slotsPerWorker"]
    assert spec["runPolicy"]["cleanPodPolicy"] == upstream["runPolicy"]["cleanPodPolicy"]
    for role in ("Launcher", "Worker"):
        assert spec["mpiReplicaSpecs"][role]["replicas"] == upstream["mpiReplicaSpecs"][role]["replicas"]
    up_launcher = upstream["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    ours = spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    assert ours["command"][1:3] == up_launcher["args"][:2] == ["-np", "2"]
    assert ours["command"][-2:] == up_launcher["args"][-2:]
    assert (
        ours["resources"]["limits"]
        == {"cpu": "1", "memory": "2Gi"}
        == {k: str(v) for k, v in up_launcher["resources"]["limits"].items()}
    )


def test_validates_against_the_v2beta1_crd(
    chart: Any, synth: Any, mpi_cluster: Cluster, schema_cache: Path
) -> None:
    job = MPIJob(
        chart,
        "Job",
        cluster=mpi_cluster,
        name="bench",
        image=HOROVOD,
        command=["python", "b.py"],
        workers=2,
        gpus_per_node=2,
    )
    job.mount("datasets", "/data", read_only=True)
    texts = [Text(f"{k}.yaml", t) for k, t in synth(chart).items()]
    assert check(Target.of_cluster(mpi_cluster, schema_cache), texts).findings == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"workers": 0}, "MPIJob workers=0"),
        ({"command": None}, "MPIJob command=None: give the program"),
        (
            {"launcher_command": ["mpirun", "-np", "3", "python", "t.py"], "workers": 2},
            r"launcher_command: -np 3 does not match workers × slots_per_worker = 2",
        ),
        ({"mpi_implementation": "LAM"}, "MPIJob mpi_implementation='LAM'"),
        ({"launcher_creation_policy": "Eventually"}, "launcher_creation_policy='Eventually'"),
        ({"slots_per_worker": 0}, "MPIJob slots_per_worker"),
        ({"name": "a" * 44}, "at most 43 characters"),
        ({"image": "horovod"}, "MPIJob image='horovod'"),
    ],
)
def test_prop_errors(chart: Any, mpi_cluster: Cluster, kwargs: dict[str, Any], message: str) -> None:
    props: dict[str, Any] = {"name": "bench", "image": HOROVOD, "command": ["python", "t.py"], **kwargs}
    with pytest.raises(ValueError, match=message):
        MPIJob(chart, "Job", cluster=mpi_cluster, **props)


def test_training_operator_cluster_gets_its_v1_mpijob(
    chart: Any, synth: Any, test_cluster: Cluster, schema_cache: Path
) -> None:
    job = MPIJob(
        chart, "Job", cluster=test_cluster, name="bench", image=HOROVOD, command=["python", "b.py"], workers=2
    )
    doc = _doc(synth, chart, job)[1]
    assert job.api_version == doc["apiVersion"] == "kubeflow.org/v1"
    assert not {"mpiImplementation", "launcherCreationPolicy", "sshAuthMountPath"} & set(doc["spec"])
    texts = [Text(f"{k}.yaml", t) for k, t in synth(chart).items()]
    assert check(Target.of_cluster(test_cluster, schema_cache), texts).findings == []
    with pytest.raises(ValueError, match=r"kubeflow\.org/v1 MPIJob has no mpiImplementation"):
        MPIJob(
            chart,
            "Job2",
            cluster=test_cluster,
            name="bench",
            image=HOROVOD,
            command=["x"],
            mpi_implementation="MPICH",
        )


def test_cluster_without_an_mpi_operator(chart: Any, test_cluster: Cluster) -> None:
    bare = replace(test_cluster, name="bare", operators={})
    with pytest.raises(ValueError, match="MPIJob cluster='bare': the cluster does not list mpi-operator"):
        MPIJob(chart, "Job", cluster=bare, name="bench", image=HOROVOD, command=["x"])
