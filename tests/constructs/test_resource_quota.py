"""ResourceQuota: golden manifests, the cluster's GPU resource, prop errors, parity with upstream."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import ResourceQuota
from trainops.core.cluster import Cluster


def test_defaults(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    ResourceQuota(chart, "Quota", cluster=test_cluster, cpu="64", memory="512Gi", gpus=8)
    docs = synth(chart)
    text = docs["ResourceQuota/team-quota"]
    golden("resource_quota/defaults.yaml", text)
    quota = yaml.safe_load(text)
    # Only the caps asked for; GPUs by requests of the cluster's GPU resource; synced with the Namespace.
    assert quota["spec"]["hard"] == {
        "requests.cpu": "64",
        "requests.memory": "512Gi",
        "requests.nvidia.com/gpu": "8",
    }
    assert quota["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-2"
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    amd = Cluster(name="amd", kubernetes_version="1.34", gpu_resource="amd.com/gpu")
    ResourceQuota(
        chart,
        "Quota",
        cluster=amd,
        name="vision",
        cpu="1500m",
        memory="1024Mi",
        limits_cpu="3",
        limits_memory="2Gi",
        gpus=0,
        pvcs=10,
        storage="10Ti",
        pods=50,
        hard={"count/services": "5"},
        labels={"team": "vision"},
    )
    docs = synth(chart)
    text = docs["ResourceQuota/vision"]
    golden("resource_quota/custom.yaml", text)
    hard = yaml.safe_load(text)["spec"]["hard"]
    assert hard["requests.amd.com/gpu"] == "0"  # a team without GPUs
    assert hard["requests.memory"] == "1Gi"  # canonical quantities
    assert (hard["persistentvolumeclaims"], hard["requests.storage"], hard["pods"]) == ("10", "10Ti", "50")
    validate_docs(cli, tmp_path, docs)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, "ResourceQuota 'team-quota': give at least one cap"),
        ({"cpu": "0"}, "ResourceQuota cpu='0': must be greater than zero"),
        ({"memory": "1.5"}, "ResourceQuota memory='1.5': must be a whole number of bytes"),
        ({"cpu": "4", "limits_cpu": "2"}, "ResourceQuota limits_cpu='2': must be at least cpu='4'"),
        (
            {"memory": "4Gi", "limits_memory": "2Gi"},
            "ResourceQuota limits_memory='2Gi': must be at least memory='4Gi'",
        ),
        ({"limits_cpu": "x"}, "ResourceQuota limits_cpu='x': "),
        ({"gpus": 1.5}, "ResourceQuota gpus=1.5: must be a whole number"),
        ({"pvcs": -1}, "ResourceQuota pvcs=-1: must be at least 0"),
        ({"storage": "lots"}, "ResourceQuota storage='lots': "),
        ({"pods": "10"}, "ResourceQuota pods='10': must be a whole number"),
        (
            {"cpu": "1", "hard": {"requests.cpu": "2"}},
            "ResourceQuota hard: 'requests.cpu' is already set by a prop",
        ),
        ({"hard": {"bad key!": "1"}}, "ResourceQuota hard: 'bad key!' is not a resource name"),
        (
            {"hard": {"count/services": "-1"}},
            "ResourceQuota hard['count/services']='-1': must be greater than zero",
        ),
        (
            {"cpu": "1", "labels": {"a": "b c"}},
            "ResourceQuota labels: label a='b c' is not a valid label value",
        ),
        ({"cpu": "1", "name": "Quota"}, "ResourceQuota name='Quota': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        ResourceQuota(chart, "Quota", cluster=test_cluster, **props)


def test_parity_kubernetes_website_mem_cpu(chart: Any, test_cluster: Cluster) -> None:
    expected = upstream_doc("k8s-website/content/en/examples/admin/resource/quota-mem-cpu.yaml")
    hard = expected["spec"]["hard"]
    ResourceQuota(
        chart,
        "Quota",
        cluster=test_cluster,
        name=expected["metadata"]["name"],
        cpu=hard["requests.cpu"],
        memory=hard["requests.memory"],
        limits_cpu=hard["limits.cpu"],
        limits_memory=hard["limits.memory"],
    )
    ours = without_paths(
        raw_object(chart, "ResourceQuota/mem-cpu-demo"),
        {
            "metadata.namespace": "ml-test",  # trainops objects are namespaced by their Chart
            "metadata.annotations.argocd.argoproj.io/sync-wave": "-2",  # synced with the Namespace
        },
    )
    assert ours == expected
