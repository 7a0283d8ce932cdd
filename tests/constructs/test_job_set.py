"""JobSet: golden manifest, Kueue gang admission and placement, exclusive placement, output valid
against the pinned CRD (schema and CEL), what JobSet's webhook rejects on create (kubernetes-sigs/jobset
v0.12.0 ``ValidateCreate``) as one error, and the Trainer runtime presets built on the same spec."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.constructs import (
    Dependency,
    FailurePolicy,
    FailureRule,
    JobSet,
    ReplicatedJob,
    TopologyPlacement,
    runtime_preset,
)
from trainops.core.cluster import Cluster, ClusterTopology
from trainops.pipeline import Target, Text, check, policy_check, policy_run
from trainops.policy.facts import Facts

IMAGE = "registry.example.com/ml/train:1.0"


@pytest.fixture(scope="module")
def js_cluster(test_cluster: Cluster) -> Cluster:
    return replace(
        test_cluster,
        operators={"jobset": "v0.12.0", "kueue": "v0.19.2", "trainer": "v2.3.0"},
        topology=ClusterTopology(
            {"block": "cloud.provider.com/topology-block", "rack": "cloud.provider.com/topology-rack"}
        ),
    )


def _jobs(**workers: Any) -> list[ReplicatedJob]:
    return [
        ReplicatedJob("leader", image=IMAGE, command=["python", "serve.py"]),
        ReplicatedJob(
            "workers", image=IMAGE, replicas=2, pods=4, gpus=8, depends_on=(Dependency("leader"),), **workers
        ),
    ]


def test_golden_and_valid(
    chart: Any, synth: Any, golden: Any, js_cluster: Cluster, schema_cache: Path
) -> None:
    js = JobSet(
        chart,
        "Set",
        cluster=js_cluster,
        name="pretrain",
        replicated_jobs=_jobs(),
        success_targets=("workers",),
        failure_policy=FailurePolicy(
            max_restarts=3, rules=(FailureRule("deadline", "FailJobSet", ("DeadlineExceeded",)),)
        ),
        exclusive_topology="rack",
        placement=TopologyPlacement(required="block"),
        queue="training",
    )
    js.mount("training-data", "/data", read_only=True)
    text = synth(chart)[f"JobSet/{js.name}"]
    golden("job_set/pretrain.yaml", text)
    doc = yaml.safe_load(text)
    assert js.pods == 9 and js.replicated_jobs == ("leader", "workers")
    assert doc["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"] == (
        "cloud.provider.com/topology-rack"
    )
    assert doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "training"
    workers = doc["spec"]["replicatedJobs"][1]
    assert workers["dependsOn"] == [{"name": "leader", "status": "Ready"}]
    assert workers["template"]["spec"]["parallelism"] == workers["template"]["spec"]["completions"] == 4
    # Two pod sets, one of one pod: grouped so that Kueue places the leader in the workers' block.
    assert workers["template"]["spec"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.provider.com/topology-block",
        "kueue.x-k8s.io/podset-group-name": "block",
    }
    result = check(Target("1.34", dict(js_cluster.operators), schema_cache), [Text("js.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"replicated_jobs": [ReplicatedJob("a", image=IMAGE, depends_on=(Dependency("b"),))]},
            "the first replicated job cannot depend on another",
        ),
        (
            {
                "replicated_jobs": [
                    ReplicatedJob("a", image=IMAGE),
                    ReplicatedJob("b", image=IMAGE, depends_on=(Dependency("c"),)),
                ]
            },
            "depends_on='c': must name an earlier replicated job",
        ),
        ({"success_targets": ("nope",)}, "success_targets='nope': no replicated job has that name"),
        (
            {"failure_policy": FailurePolicy(rules=(FailureRule("1bad", "FailJobSet"),))},
            "failure rule name='1bad': must start with a letter",
        ),
        (
            {"failure_policy": FailurePolicy(rules=(FailureRule("r", "FailJobSet", ("OOMKilled",)),))},
            "on_job_failure_reasons='OOMKilled': must be one of BackoffLimitExceeded",
        ),
        (
            {
                "failure_policy": FailurePolicy(
                    rules=(FailureRule("r", "FailJobSet"), FailureRule("r", "FailJobSet"))
                )
            },
            "failure rule name='r': rule names must be unique",
        ),
        ({"startup_order": "InOrder"}, "StartupPolicy and DependsOn are mutually exclusive"),
        ({"subdomain": "Bad_Sub"}, "subdomain='Bad_Sub': must be a DNS-1035 label"),
        ({"exclusive_topology": "zone"}, "exclusive_topology='zone': must be a topology level"),
        ({"placement": TopologyPlacement(required="rack")}, "needs a queue"),
        ({"name": "a-very-long-jobset-name-that-goes-on-and-on-x"}, "pod names of replicated job 'leader'"),
    ],
)
def test_webhook_rejections_are_one_error(
    chart: Any, js_cluster: Cluster, props: dict[str, Any], message: str
) -> None:
    kwargs: dict[str, Any] = {"name": "pretrain", "replicated_jobs": _jobs(), **props}
    with pytest.raises(ValueError, match=message):
        JobSet(chart, "Set", cluster=js_cluster, **kwargs)


def test_needs_jobset(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(ValueError, match="does not list jobset in operators"):
        JobSet(chart, "Set", cluster=test_cluster, name="x", replicated_jobs=_jobs())


@needs_shared
def test_torch_preset_keeps_trainers_shape(
    chart: Any, synth: Any, golden: Any, js_cluster: Cluster, schema_cache: Path
) -> None:
    theirs = yaml.safe_load((EXAMPLES / "trainer/manifests/base/runtimes/torch_distributed.yaml").read_text())
    runtime = runtime_preset(
        chart,
        "Rt",
        preset="torch-distributed",
        cluster=js_cluster,
        image=IMAGE,
        gpus_per_node=8,
        exclusive_topology="rack",
    )
    text = synth(chart)[f"ClusterTrainingRuntime/{runtime.name}"]
    golden("job_set/runtime_torch-distributed.yaml", text)
    ours = yaml.safe_load(text)
    assert ours["metadata"]["name"] == theirs["metadata"]["name"]
    framework = "trainer.kubeflow.org/framework"
    assert ours["metadata"]["labels"][framework] == theirs["metadata"]["labels"][framework]
    assert ours["spec"]["mlPolicy"] == theirs["spec"]["mlPolicy"]
    jobs, upstream_jobs = (d["spec"]["template"]["spec"]["replicatedJobs"] for d in (ours, theirs))
    assert [(j["name"], j["template"]["metadata"]) for j in jobs] == [
        (j["name"], j["template"]["metadata"]) for j in upstream_jobs
    ]
    assert ours["spec"]["template"]["metadata"]["annotations"] == {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.provider.com/topology-rack"
    }
    result = check(Target("1.34", {"trainer": "v2.3.0"}, schema_cache), [Text("rt.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


@pytest.mark.parametrize(("preset", "as_node"), [("deepspeed-distributed", True), ("mpi-distributed", False)])
def test_mpi_presets_launch_after_ready_nodes(
    chart: Any, synth: Any, golden: Any, js_cluster: Cluster, schema_cache: Path, preset: str, as_node: bool
) -> None:
    """The shape of kubeflow/trainer v2.3.0 ``deepspeed_distributed.yaml``: sshd nodes, a launcher
    that depends on ready nodes and completes the set, ``publishNotReadyAddresses``."""
    runtime = runtime_preset(chart, "Rt", preset=preset, cluster=js_cluster, image=IMAGE, gpus_per_node=8)  # type: ignore[arg-type]
    text = synth(chart)[f"ClusterTrainingRuntime/{runtime.name}"]
    golden(f"job_set/runtime_{preset}.yaml", text)
    spec = yaml.safe_load(text)["spec"]
    assert spec["mlPolicy"]["mpi"]["runLauncherAsNode"] is as_node
    assert spec["mlPolicy"]["mpi"]["numProcPerNode"] == 8
    jobset = spec["template"]["spec"]
    assert jobset["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["launcher"]}
    assert jobset["network"] == {"publishNotReadyAddresses": True}
    assert [(j["name"], j.get("dependsOn")) for j in jobset["replicatedJobs"]] == [
        ("node", None),
        ("launcher", [{"name": "node", "status": "Ready"}]),
    ]
    result = check(Target("1.34", {"trainer": "v2.3.0"}, schema_cache), [Text("rt.yaml", text)])
    assert [f for f in result.findings if f.level == "error"] == []


def test_unknown_preset(chart: Any, js_cluster: Cluster) -> None:
    with pytest.raises(ValueError, match="preset='tensorflow': must be one of torch-distributed"):
        runtime_preset(chart, "Rt", preset="tensorflow", cluster=js_cluster, image=IMAGE)  # type: ignore[arg-type]


# --- gang admission without Kueue (issue 33 point 2): a PodGroup of the cluster's gang scheduler ---


@pytest.mark.parametrize(
    ("scheduler", "api_version", "reference", "scheduler_name"),
    [
        pytest.param(
            "volcano",
            "scheduling.volcano.sh/v1beta1",
            ("annotations", "scheduling.k8s.io/group-name"),
            "volcano",
            id="volcano",
        ),
        pytest.param(
            "scheduler-plugins",
            "scheduling.x-k8s.io/v1alpha1",
            ("labels", "scheduling.x-k8s.io/pod-group"),
            "scheduler-plugins-scheduler",
            id="scheduler-plugins",
        ),
    ],
)
def test_gang_cluster_without_queue_gets_a_pod_group(
    chart: Any,
    synth: Any,
    test_cluster: Cluster,
    schema_cache: Path,
    scheduler: str,
    api_version: str,
    reference: tuple[str, str],
    scheduler_name: str,
) -> None:
    cluster = replace(
        test_cluster, operators={"jobset": "v0.12.0", "podgroup": "v1"}, gang_scheduler=scheduler
    )
    js = JobSet(chart, "Set", cluster=cluster, name="pretrain", replicated_jobs=_jobs())
    js.mount("training-data", "/data")  # renames the run: the PodGroup follows
    out = synth(chart)
    group = yaml.safe_load(out[f"PodGroup/{js.name}"])
    assert group["apiVersion"] == api_version
    assert group["spec"] == {"minMember": 9}
    doc = yaml.safe_load(out[f"JobSet/{js.name}"])
    for job in doc["spec"]["replicatedJobs"]:
        template = job["template"]["spec"]["template"]
        where, key = reference
        assert template["metadata"][where][key] == js.name
        assert template["spec"]["schedulerName"] == scheduler_name
    texts = [Text("js.yaml", "---\n".join(out.values()))]
    result = check(Target("1.34", dict(cluster.operators), schema_cache), texts)
    assert [f for f in result.findings if f.level == "error"] == []
    # The default pack with this cluster's facts: gang-scheduling sees the PodGroup reference, and the
    # PodGroup passes every rule (only the mounted claim, not rendered here, is missing).
    policy = policy_check(texts, replace(policy_run(), facts=Facts.of_cluster(cluster)))
    flagged = {(f.rule, f.object_ref.split("/")[0]) for f in policy.findings if f.level == "error"}
    assert flagged == {("pvc-exists", "JobSet")}
    assert not [f for f in policy.findings if f.rule == "gang-scheduling" or "PodGroup" in f.object_ref]


def test_gang_cluster_with_queue_or_one_pod_gets_no_pod_group(
    chart: Any, synth: Any, test_cluster: Cluster
) -> None:
    cluster = replace(
        test_cluster,
        operators={"jobset": "v0.12.0", "kueue": "v0.19.2", "podgroup": "v1"},
        gang_scheduler="volcano",
    )
    JobSet(chart, "Queued", cluster=cluster, name="queued", replicated_jobs=_jobs(), queue="training")
    JobSet(chart, "One", cluster=cluster, name="one", replicated_jobs=[ReplicatedJob("solo", image=IMAGE)])
    kinds = sorted(key.split("/")[0] for key in synth(chart))
    assert kinds == ["JobSet", "JobSet"]


def test_gang_cluster_without_pod_group_crd_is_refused(chart: Any, test_cluster: Cluster) -> None:
    cluster = replace(test_cluster, operators={"jobset": "v0.12.0"}, gang_scheduler="volcano")
    with pytest.raises(
        ValueError, match=r"9 pods gang-scheduled by volcano need its PodGroup CRD \(list podgroup"
    ):
        JobSet(chart, "Set", cluster=cluster, name="pretrain", replicated_jobs=_jobs())
