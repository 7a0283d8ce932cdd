"""MultiKueue: the manager's AdmissionCheck, MultiKueueConfig and MultiKueueClusters, the admission
check on its ClusterQueues, ``managedBy`` on its queued jobs — golden manifests, validity against
the pinned Kueue, Training Operator, mpi-operator and Trainer CRDs, and bad props."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs import (
    ClusterQueue,
    DataPrepJob,
    FlavorQuota,
    MPIJob,
    MultiKueue,
    PyTorchJob,
    TrainJob,
    VolumeClaim,
)
from trainops.core.cluster import MULTIKUEUE_CONTROLLER, Cluster, ExternalObject, MultiKueueManager
from trainops.pipeline import Target, Text, check

OPERATORS = {
    "kueue": "v0.19.2",
    "training-operator": "v1.9.4",
    "mpi-operator": "v0.8.0",
    "trainer": "v2.3.0",
}


@pytest.fixture(scope="module")
def manager(test_cluster: Cluster) -> Cluster:
    return replace(
        test_cluster,
        operators=OPERATORS,
        multikueue=MultiKueueManager(workers=("gpu-west", "gpu-east")),
        external=(ExternalObject("Secret", "gpu-west-kubeconfig", "kueue-system"),),
    )


def _jobs(chart: Any, cluster: Cluster) -> None:
    PyTorchJob(chart, "Pt", cluster=cluster, name="bert", image="registry.example.com/t:1.0", queue="team")
    MPIJob(
        chart,
        "Mpi",
        cluster=cluster,
        name="hvd",
        image="registry.example.com/m:1.0",
        command=["t"],
        queue="team",
    )
    TrainJob(chart, "Tj", cluster=cluster, name="llm", image="registry.example.com/t:1.0", queue="team")
    claim = VolumeClaim(chart, "Data", cluster=cluster, name="data", size="10Gi")
    DataPrepJob(
        chart,
        "Prep",
        cluster=cluster,
        name="prep",
        source="s3://bucket/x/",
        volume=claim,
        image="registry.example.com/s5cmd:2.2",
        command=["s5cmd", "sync"],
        queue="team",
    )


def test_manager_objects_golden(chart: Any, synth: Any, golden: Any, manager: Cluster) -> None:
    setup = MultiKueue(chart, "MultiKueue", cluster=manager)
    ClusterQueue(
        chart, "Q", cluster=manager, name="research", flavors=[FlavorQuota("gpu", "8", "64Gi", gpus=8)]
    )
    docs = synth(chart)
    for key, case in (
        ("AdmissionCheck/multikueue", "admission_check"),
        ("MultiKueueConfig/multikueue", "multikueue_config"),
        ("MultiKueueCluster/gpu-west", "multikueue_cluster"),
        ("ClusterQueue/research", "cluster_queue_manager"),
    ):
        golden(f"multikueue/{case}.yaml", docs[key])
    check_doc = yaml.safe_load(docs["AdmissionCheck/multikueue"])
    assert check_doc["spec"]["controllerName"] == MULTIKUEUE_CONTROLLER
    assert yaml.safe_load(docs["MultiKueueConfig/multikueue"])["spec"]["clusters"] == ["gpu-west", "gpu-east"]
    # The kubeconfig Secret is referenced by name, never rendered.
    assert not any(key.startswith("Secret/") for key in docs)
    cq = yaml.safe_load(docs["ClusterQueue/research"])
    assert cq["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "multikueue"}]}
    assert len(setup.objects) == 4


def test_nothing_off_a_manager(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    worker = replace(test_cluster, operators=OPERATORS)
    assert MultiKueue(chart, "MultiKueue", cluster=worker).objects == ()
    ClusterQueue(
        chart, "Q", cluster=worker, name="research", flavors=[FlavorQuota("gpu", "8", "64Gi", gpus=8)]
    )
    _jobs(chart, worker)
    docs = [yaml.safe_load(text) for text in synth(chart).values()]
    assert all("admissionChecksStrategy" not in d["spec"] for d in docs if d["kind"] == "ClusterQueue")
    assert "managedBy" not in str(docs)


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("PyTorchJob", ("spec", "runPolicy", "managedBy")),
        ("MPIJob", ("spec", "runPolicy", "managedBy")),
        ("TrainJob", ("spec", "managedBy")),
        ("Job", ("spec", "managedBy")),
    ],
)
def test_queued_jobs_on_a_manager_are_managed_by_multikueue(
    chart: Any, synth: Any, manager: Cluster, kind: str, path: tuple[str, ...]
) -> None:
    _jobs(chart, manager)
    (doc,) = [d for d in map(yaml.safe_load, synth(chart).values()) if d["kind"] == kind]
    value: Any = doc
    for step in path:
        value = value[step]
    assert value == MULTIKUEUE_CONTROLLER


def test_unqueued_job_on_a_manager_runs_there(chart: Any, synth: Any, manager: Cluster) -> None:
    PyTorchJob(chart, "Pt", cluster=manager, name="local", image="registry.example.com/t:1.0")
    (doc,) = map(yaml.safe_load, synth(chart).values())
    assert "managedBy" not in doc["spec"]["runPolicy"]


def test_output_validates_against_the_pinned_crds(
    chart: Any, synth: Any, manager: Cluster, schema_cache: Path
) -> None:
    MultiKueue(chart, "MultiKueue", cluster=manager)
    ClusterQueue(
        chart, "Q", cluster=manager, name="research", flavors=[FlavorQuota("gpu", "8", "64Gi", gpus=8)]
    )
    _jobs(chart, manager)
    texts = [Text(f"{key.replace('/', '_')}.yaml", text) for key, text in synth(chart).items()]
    result = check(Target("1.34", OPERATORS, schema_cache), texts)
    # Only the notice that Trainer v2 (also on this target) succeeds the Training Operator's PyTorchJob.
    assert [(f.rule, f.kind) for f in result.findings if f.level != "info"] == [
        ("deprecated-api", "PyTorchJob")
    ]
    assert result.documents == 10


def test_older_kueue_gets_v1beta1_fields(chart: Any, synth: Any, manager: Cluster) -> None:
    old = replace(manager, operators={**OPERATORS, "kueue": "v0.13.4"})
    MultiKueue(chart, "MultiKueue", cluster=old)
    ClusterQueue(chart, "Q", cluster=old, name="q", flavors=[FlavorQuota("gpu", "8", "64Gi")])
    docs = {k: yaml.safe_load(v) for k, v in synth(chart).items()}
    assert docs["MultiKueueCluster/gpu-east"]["spec"] == {
        "kubeConfig": {"locationType": "Secret", "location": "gpu-east-kubeconfig"}
    }
    assert docs["ClusterQueue/q"]["spec"]["admissionChecks"] == ["multikueue"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MultiKueueManager(workers=()), "MultiKueueManager workers=\\(\\): name at least one"),
        (lambda: MultiKueueManager(workers=("a", "a")), "a worker is named twice"),
        (lambda: MultiKueueManager(workers=("Bad_Name",)), "MultiKueueManager workers='Bad_Name'"),
        (
            lambda: Cluster(
                name="m", kubernetes_version="1.34", multikueue=MultiKueueManager(workers=("w",))
            ),
            "Cluster 'm' multikueue: a MultiKueue manager must list kueue in operators",
        ),
        (
            lambda: Cluster(
                name="m",
                kubernetes_version="1.34",
                operators={"kueue": "v0.19.2"},
                multikueue=MultiKueueManager(workers=("m",)),
            ),
            "the manager cannot be its own worker",
        ),
    ],
)
def test_bad_cluster_facts(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()
