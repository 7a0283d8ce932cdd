"""Topology-aware placement: the Kueue Topology from the cluster's levels (parity with Kueue's TAS
sample), the GPU ResourceFlavor's ``topologyName``, the pod-set annotations on Kubeflow jobs and
TrainJob, gang ``schedulingPolicy`` on gang-scheduling clusters, output valid against the pinned
CRDs, and one clear error for each bad placement."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.constructs import MPIJob, PyTorchJob, ResourceFlavor, Topology, TopologyPlacement, TrainJob
from trainops.core.cluster import Cluster, ClusterTopology
from trainops.pipeline import Target, Text, check

IMAGE = "registry.example.com/ml/train:1.0"
LEVELS = {
    "block": "cloud.provider.com/topology-block",
    "rack": "cloud.provider.com/topology-rack",
    "host": "kubernetes.io/hostname",
}
REQUIRED = "kueue.x-k8s.io/podset-required-topology"


@pytest.fixture(scope="module")
def tas_cluster(test_cluster: Cluster) -> Cluster:
    return replace(
        test_cluster,
        operators={
            **test_cluster.operators,
            "kueue": "v0.19.2",
            "trainer": "v2.3.0",
            "mpi-operator": "v0.8.0",
        },
        topology=ClusterTopology(LEVELS),
    )


@needs_shared
def test_topology_matches_kueues_sample(chart: Any, synth: Any, golden: Any, tas_cluster: Cluster) -> None:
    upstream = next(
        yaml.safe_load_all((EXAMPLES / "kueue/site/static/examples/tas/sample-gpu-queues.yaml").read_text())
    )
    topology = Topology(chart, "Topology", cluster=tas_cluster)
    flavor = ResourceFlavor(chart, "Gpu", cluster=tas_cluster, name="gpu", gpu=True, topology=topology)
    docs = synth(chart)
    golden("topology/topology.yaml", docs["Topology/default"])
    golden("topology/resource_flavor.yaml", docs["ResourceFlavor/gpu"])
    ours = yaml.safe_load(docs["Topology/default"])
    assert (ours["apiVersion"], ours["spec"]) == (upstream["apiVersion"], upstream["spec"])
    assert yaml.safe_load(docs["ResourceFlavor/gpu"])["spec"]["topologyName"] == topology.name == "default"
    assert flavor.node_labels == {"nvidia.com/gpu.present": "true"}


def _pod_annotations(job: dict[str, Any]) -> dict[str, dict[str, str]]:
    specs = (
        job["spec"]["pytorchReplicaSpecs"] if job["kind"] == "PyTorchJob" else job["spec"]["mpiReplicaSpecs"]
    )
    return {name: r["template"].get("metadata", {}).get("annotations", {}) for name, r in specs.items()}


def test_pytorchjob_required_rack_groups_master_with_workers(
    chart: Any, synth: Any, golden: Any, tas_cluster: Cluster, schema_cache: Path
) -> None:
    job = PyTorchJob(
        chart,
        "Job",
        cluster=tas_cluster,
        name="llm",
        image=IMAGE,
        workers=3,
        gpus_per_node=8,
        queue="training",
        placement=TopologyPlacement(required="rack"),
    )
    text = synth(chart)[f"PyTorchJob/{job.name}"]
    golden("topology/pytorchjob_required_rack.yaml", text)
    found = _pod_annotations(yaml.safe_load(text))
    # One pod set of 1 (Master) beside the workers: grouped so that Kueue places both in one rack.
    assert (
        found["Master"]
        == found["Worker"]
        == {
            REQUIRED: "cloud.provider.com/topology-rack",
            "kueue.x-k8s.io/podset-group-name": "rack",
        }
    )
    result = check(Target("1.34", dict(tas_cluster.operators), schema_cache), [Text("job.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


def test_mpijob_slices_go_to_the_workers_only(chart: Any, synth: Any, tas_cluster: Cluster) -> None:
    job = MPIJob(
        chart,
        "Job",
        cluster=tas_cluster,
        name="mpi",
        image=IMAGE,
        command=["python", "train.py"],
        workers=8,
        gpus_per_node=8,
        queue="training",
        placement=TopologyPlacement(preferred="block", slice_level="rack", slice_size=4),
    )
    found = _pod_annotations(yaml.safe_load(synth(chart)[f"MPIJob/{job.name}"]))
    assert found["Worker"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.provider.com/topology-block",
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.provider.com/topology-rack",
        "kueue.x-k8s.io/podset-slice-size": "4",
    }
    assert found["Launcher"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.provider.com/topology-block"
    }


def test_trainjob_placement_goes_in_the_runtime_patch(chart: Any, synth: Any, tas_cluster: Cluster) -> None:
    job = TrainJob(
        chart,
        "Job",
        cluster=tas_cluster,
        name="llm",
        image=IMAGE,
        num_nodes=4,
        gpus_per_node=8,
        queue="training",
        placement=TopologyPlacement(required="kubernetes.io/hostname"),
    )
    doc = yaml.safe_load(synth(chart)[f"TrainJob/{job.name}"])
    patch = doc["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    assert patch["template"]["spec"]["template"]["metadata"]["annotations"] == {
        REQUIRED: "kubernetes.io/hostname"
    }


def test_gang_scheduler_cluster_gets_a_scheduling_policy(
    chart: Any, synth: Any, test_cluster: Cluster
) -> None:
    gang = replace(test_cluster, gang_scheduler="volcano")
    job = PyTorchJob(chart, "Job", cluster=gang, name="ddp", image=IMAGE, workers=3)
    single = PyTorchJob(chart, "One", cluster=gang, name="one", image=IMAGE)
    docs = synth(chart)
    assert yaml.safe_load(docs[f"PyTorchJob/{job.name}"])["spec"]["runPolicy"]["schedulingPolicy"] == {
        "minAvailable": 4
    }
    assert "schedulingPolicy" not in yaml.safe_load(docs[f"PyTorchJob/{single.name}"])["spec"]["runPolicy"]


@pytest.mark.parametrize(
    ("placement", "queue", "message"),
    [
        (
            TopologyPlacement(required="zone"),
            "q",
            r"placement.required='zone': cluster 'test' topology 'default' has no such level \(levels: block, rack, host\)",
        ),
        (TopologyPlacement(required="rack"), None, "needs a queue"),
        (
            TopologyPlacement(required="rack", slice_level="block", slice_size=2),
            "q",
            "slice_level='block': is above",
        ),
        (
            TopologyPlacement(preferred="block", slice_level="host", slice_size=9),
            "q",
            "slice_size=9: must not be greater than the 4 pods of 'Worker'",
        ),
    ],
)
def test_bad_placement_is_one_error(
    tas_cluster: Cluster, chart: Any, placement: TopologyPlacement, queue: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        PyTorchJob(
            chart,
            "Job",
            cluster=tas_cluster,
            name="x",
            image=IMAGE,
            master=False,
            workers=4,
            queue=queue,
            placement=placement,
        )


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"required": "rack", "preferred": "block"},
            "give only one of required, preferred and unconstrained",
        ),
        ({"slice_level": "rack"}, "give both or neither"),
        ({"slice_level": "rack", "slice_size": 0}, "slice_size=0: must be a whole number >= 1"),
        ({}, "give required, preferred, unconstrained or slice_level"),
    ],
)
def test_placement_props(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TopologyPlacement(**props)


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ({"host": "kubernetes.io/hostname", "rack": "x.io/rack"}, "can only be the lowest level"),
        ({"rack": "x.io/rack", "rack2": "x.io/rack"}, "node label 'x.io/rack' is given twice"),
        ({"Rack": "x.io/rack"}, "level name='Rack': must be a DNS-1123 label"),
        ({"rack": "x.io/"}, "node_label='x.io/': has an empty name part"),
    ],
)
def test_cluster_topology_errors(levels: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClusterTopology(levels)


def test_topology_needs_kueue(test_cluster: Cluster) -> None:
    with pytest.raises(ValueError, match="topology-aware placement needs Kueue"):
        replace(test_cluster, topology=ClusterTopology(LEVELS))
