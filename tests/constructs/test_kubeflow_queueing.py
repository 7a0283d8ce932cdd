"""What every Kubeflow v1 job shares through KubeflowJob: Kueue queue and priority labels, suspend
only without Kueue, gang scheduling in runPolicy — for each job construct, validated against its CRD."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import JAXJob, PaddleJob, PyTorchJob, RunPolicy, TFJob, XGBoostJob
from trainops.constructs.kubeflow import SchedulingPolicy
from trainops.pipeline import Target, Text, check

IMAGE = "registry.example.com/ml/train:1.0"
JOBS: dict[str, Callable[..., Any]] = {
    "PyTorchJob": lambda chart, **kw: PyTorchJob(chart, "J", name="job", image=IMAGE, workers=1, **kw),
    "TFJob": lambda chart, **kw: TFJob(chart, "J", name="job", image=IMAGE, workers=2, **kw),
    "XGBoostJob": lambda chart, **kw: XGBoostJob(chart, "J", name="job", image=IMAGE, workers=1, **kw),
    "PaddleJob": lambda chart, **kw: PaddleJob(chart, "J", name="job", image=IMAGE, workers=2, **kw),
    "JAXJob": lambda chart, **kw: JAXJob(chart, "J", name="job", image=IMAGE, workers=2, **kw),
}


@pytest.fixture(scope="module")
def kueue_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, operators={**test_cluster.operators, "kueue": "v0.19.2"})


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_queue_priority_and_gang_scheduling(
    chart: Any, synth: Any, kueue_cluster: Cluster, schema_cache: Path, kind: str
) -> None:
    policy = RunPolicy(scheduling_policy=SchedulingPolicy(min_available=2, schedule_timeout_seconds=600))
    job = JOBS[kind](chart, cluster=kueue_cluster, queue="team-a", priority="production", run_policy=policy)
    text = synth(chart)[f"{kind}/{job.name}"]
    doc = yaml.safe_load(text)
    labels = doc["metadata"]["labels"]
    assert (labels["kueue.x-k8s.io/queue-name"], labels["kueue.x-k8s.io/priority-class"]) == (
        "team-a",
        "production",
    )
    assert doc["spec"]["runPolicy"]["schedulingPolicy"] == {"minAvailable": 2, "scheduleTimeoutSeconds": 600}
    assert "suspend" not in doc["spec"]["runPolicy"]
    result = check(Target.of_cluster(kueue_cluster, schema_cache), [Text("job.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_suspend_without_kueue(chart: Any, synth: Any, test_cluster: Cluster, kind: str) -> None:
    job = JOBS[kind](chart, cluster=test_cluster, run_policy=RunPolicy(suspend=True))
    assert yaml.safe_load(synth(chart)[f"{kind}/{job.name}"])["spec"]["runPolicy"]["suspend"] is True


@pytest.mark.parametrize(
    ("cluster_kind", "kwargs", "message"),
    [
        (
            "kueue",
            {"queue": "team-a", "run_policy": RunPolicy(suspend=True)},
            "run_policy.suspend=True: Kueue suspends",
        ),
        ("plain", {"queue": "team-a"}, "cluster='test': the cluster does not list kueue"),
        ("kueue", {"priority": "production"}, "priority='production': needs a queue"),
        ("kueue", {"queue": "Team A"}, "queue='Team A': must be a DNS-1123 label"),
    ],
)
def test_queue_errors(
    chart: Any,
    test_cluster: Cluster,
    kueue_cluster: Cluster,
    cluster_kind: str,
    kwargs: dict[str, Any],
    message: str,
) -> None:
    cluster = kueue_cluster if cluster_kind == "kueue" else test_cluster
    with pytest.raises(ValueError, match=message):
        JOBS["PyTorchJob"](chart, cluster=cluster, **kwargs)


@pytest.fixture(scope="module")
def spot_cluster(test_cluster: Cluster) -> Cluster:
    from trainops.cluster import Taint

    return replace(
        test_cluster,
        gpu_types={"a100": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}},
        spot_taints=(Taint("cloud.example.com/spot", "NoSchedule", "true"),),
        spot_node_labels={"cloud.example.com/lifecycle": "spot"},
    )


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_checkpoints_on_spot_nodes_and_gpu_type(
    chart: Any, synth: Any, spot_cluster: Cluster, schema_cache: Path, kind: str
) -> None:
    job = JOBS[kind](chart, cluster=spot_cluster, gpus_per_node=1)
    before = job.name
    job.use_checkpoints("checkpoints", "/ckpt", spot=True)
    job.place_on("a100")
    assert job.name != before  # a different placement is a different run
    text = synth(chart)[f"{kind}/{job.name}"]
    doc = yaml.safe_load(text)
    from trainops.kinds import pod_templates

    sites = pod_templates(doc)
    assert sites
    for site in sites:
        pod = site.spec
        container = pod["containers"][0]
        assert {"name": "CHECKPOINT_DIR", "value": "/ckpt"} in container["env"]
        assert {"name": "checkpoints", "mountPath": "/ckpt"} in container["volumeMounts"]
        assert {
            "key": "cloud.example.com/spot",
            "operator": "Equal",
            "value": "true",
            "effect": "NoSchedule",
        } in pod["tolerations"]
        preferred = pod["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
        assert preferred["preference"]["matchExpressions"] == [
            {"key": "cloud.example.com/lifecycle", "operator": "In", "values": ["spot"]}
        ]
        if "nvidia.com/gpu" in container["resources"]["limits"]:
            assert pod["nodeSelector"]["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB"
    result = check(Target.of_cluster(spot_cluster, schema_cache), [Text("job.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda job: job.place_on("h100"),
            "gpu_type='h100': cluster 'test' declares no such GPU type \\(declared: a100\\)",
        ),
        (lambda job: job.use_checkpoints("ckpt", "relative"), "mount path='relative'"),
    ],
)
def test_placement_errors(chart: Any, spot_cluster: Cluster, call: Any, message: str) -> None:
    job = JOBS["PyTorchJob"](chart, cluster=spot_cluster)
    with pytest.raises(ValueError, match=message):
        call(job)


def test_spot_needs_cluster_facts(chart: Any, test_cluster: Cluster) -> None:
    job = JOBS["PyTorchJob"](chart, cluster=test_cluster)
    with pytest.raises(ValueError, match="use_checkpoints spot=True: cluster 'test' declares no spot_taints"):
        job.use_checkpoints("ckpt", spot=True)


def test_priority_class_on_every_pod(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    job = JOBS["TFJob"](chart, cluster=test_cluster, ps=1)
    job.use_priority_class("training-high")
    doc = yaml.safe_load(synth(chart)[f"TFJob/{job.name}"])
    from trainops.kinds import pod_templates

    assert {site.spec["priorityClassName"] for site in pod_templates(doc)} == {"training-high"}
