"""Kueue constructs: ResourceFlavor, ClusterQueue, LocalQueue, WorkloadPriorityClass — golden
manifests, API version by Kueue release, CEL-valid output against the pinned CRDs, prop errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs import ClusterQueue, FlavorQuota, LocalQueue, ResourceFlavor, WorkloadPriorityClass
from trainops.core.cluster import Cluster, Taint
from trainops.pipeline import Target, Text, check


@pytest.fixture(scope="module")
def kueue_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, operators={**test_cluster.operators, "kueue": "v0.19.2"})


def _build(
    chart: Any, cluster: Cluster
) -> tuple[ResourceFlavor, ClusterQueue, LocalQueue, WorkloadPriorityClass]:
    a100 = ResourceFlavor(
        chart, "A100", cluster=cluster, name="a100", gpu=True, node_labels={"gpu.example.com/model": "a100"}
    )
    cpu = ResourceFlavor(chart, "Cpu", cluster=cluster, name="cpu-only")
    queue = ClusterQueue(
        chart,
        "Queue",
        cluster=cluster,
        name="research",
        cohort="ml",
        flavors=[
            FlavorQuota(a100, cpu="256", memory="2Ti", gpus=32, borrowing_limit_gpus=8),
            FlavorQuota(cpu, cpu="128", memory="512Gi"),
        ],
    )
    local = LocalQueue(chart, "Local", cluster=cluster, name="team-a", cluster_queue=queue)
    priority = WorkloadPriorityClass(
        chart, "Prio", cluster=cluster, name="production", value=1000, description="jobs that ship"
    )
    return a100, queue, local, priority


def test_defaults_and_golden(chart: Any, synth: Any, golden: Any, kueue_cluster: Cluster) -> None:
    a100, queue, local, priority = _build(chart, kueue_cluster)
    docs = synth(chart)
    for key, case in (
        ("ResourceFlavor/a100", "resource_flavor"),
        ("ClusterQueue/research", "cluster_queue"),
        ("LocalQueue/team-a", "local_queue"),
        ("WorkloadPriorityClass/production", "workload_priority_class"),
    ):
        golden(f"kueue/{case}.yaml", docs[key])
    flavor = yaml.safe_load(docs["ResourceFlavor/a100"])
    # GPU flavor: cluster's GPU node selector plus its own label, GPU taints; cluster-scoped.
    assert flavor["spec"]["nodeLabels"] == {"nvidia.com/gpu.present": "true", "gpu.example.com/model": "a100"}
    assert flavor["spec"]["nodeTaints"] == [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    assert "namespace" not in flavor["metadata"]
    cq = yaml.safe_load(docs["ClusterQueue/research"])
    group = cq["spec"]["resourceGroups"][0]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu"]
    # Every flavor lists every covered resource (the CRD's CEL rule); cpu-only gets 0 GPUs.
    assert [len(f["resources"]) for f in group["flavors"]] == [3, 3]
    assert group["flavors"][1]["resources"][2] == {"name": "nvidia.com/gpu", "nominalQuota": 0}
    assert cq["spec"]["cohortName"] == "ml" and cq["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert yaml.safe_load(docs["LocalQueue/team-a"])["metadata"]["namespace"] == "ml-test"
    assert local.cluster_queue == "research" and queue.flavor_names == ("a100", "cpu-only")
    assert priority.value == 1000 and a100.node_labels["gpu.example.com/model"] == "a100"


def test_output_validates_against_the_pinned_crds(
    chart: Any, synth: Any, kueue_cluster: Cluster, schema_cache: Path
) -> None:
    _build(chart, kueue_cluster)
    texts = [Text(f"{key}.yaml", text) for key, text in synth(chart).items()]
    result = check(Target("1.34", {"kueue": "v0.19.2"}, schema_cache), texts)
    assert result.findings == [] and result.documents == 5


def test_older_kueue_gets_v1beta1_and_cohort(
    chart: Any, synth: Any, kueue_cluster: Cluster, schema_cache: Path
) -> None:
    old = replace(kueue_cluster, operators={**kueue_cluster.operators, "kueue": "v0.13.4"})
    queue = ClusterQueue(
        chart,
        "Q",
        cluster=old,
        name="q",
        cohort="ml",
        flavors=[FlavorQuota("default", cpu="8", memory="32Gi")],
    )
    doc = yaml.safe_load(synth(chart)["ClusterQueue/q"])
    assert queue.api_version == doc["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert doc["spec"]["cohort"] == "ml" and "cohortName" not in doc["spec"]
    assert doc["spec"]["resourceGroups"][0]["coveredResources"] == ["cpu", "memory"]
    texts = [Text("cq.yaml", synth(chart)["ClusterQueue/q"])]
    findings = check(Target("1.34", {"kueue": "v0.19.2"}, schema_cache), texts).findings
    # Valid, and the v0.19.2 CRD marks v1beta1 deprecated: a warning, as for any older manifest.
    assert [(f.rule, f.level) for f in findings] == [("deprecated-api", "warning")]


def test_custom_flavor_taints(chart: Any, synth: Any, kueue_cluster: Cluster) -> None:
    ResourceFlavor(
        chart, "Spot", cluster=kueue_cluster, name="spot", node_taints=(Taint("spot", "NoExecute", "true"),)
    )
    doc = yaml.safe_load(synth(chart)["ResourceFlavor/spot"])
    assert doc["spec"] == {"nodeTaints": [{"key": "spot", "effect": "NoExecute", "value": "true"}]}


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda c, k: ResourceFlavor(c, "F", cluster=k, name="A100"),
            "ResourceFlavor name='A100': must be a DNS-1123 label",
        ),
        (
            lambda c, k: ClusterQueue(c, "Q", cluster=k, name="q", flavors=[]),
            r"ClusterQueue flavors=\[\]: at least one",
        ),
        (
            lambda c, k: ClusterQueue(
                c,
                "Q",
                cluster=k,
                name="q",
                flavors=[FlavorQuota("a", "1", "1Gi"), FlavorQuota("a", "2", "2Gi")],
            ),
            "ClusterQueue flavors: flavor 'a' is listed twice",
        ),
        (
            lambda c, k: ClusterQueue(c, "Q", cluster=k, name="q", flavors=[FlavorQuota("a", "lots", "1Gi")]),
            "ClusterQueue cpu='lots'",
        ),
        (
            lambda c, k: ClusterQueue(
                c,
                "Q",
                cluster=k,
                name="q",
                flavors=[FlavorQuota("a", "1", "1Gi")],
                queueing_strategy="Random",
            ),  # type: ignore[arg-type]
            "ClusterQueue queueing_strategy='Random': must be one of BestEffortFIFO, StrictFIFO",
        ),
        (
            lambda c, k: ClusterQueue(
                c, "Q", cluster=k, name="q", flavors=[FlavorQuota("a", "1", "1Gi", gpus=-1)]
            ),
            "ClusterQueue gpus=-1",
        ),
        (
            lambda c, k: LocalQueue(c, "L", cluster=k, name="l", cluster_queue="Bad Queue"),
            "LocalQueue cluster_queue='Bad Queue'",
        ),
        (
            lambda c, k: WorkloadPriorityClass(c, "P", cluster=k, name="p", value=2_000_000_000),
            "must be an integer of at most 1000000000",
        ),
        (
            lambda c, k: WorkloadPriorityClass(c, "P", cluster=k, name="p", value=True),
            "WorkloadPriorityClass value=True",
        ),
    ],
)
def test_prop_errors(chart: Any, kueue_cluster: Cluster, build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build(chart, kueue_cluster)


def test_cluster_without_kueue_is_refused(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        ValueError, match="LocalQueue cluster='test': the cluster does not list kueue in operators"
    ):
        LocalQueue(chart, "L", cluster=test_cluster, name="l", cluster_queue="q")
