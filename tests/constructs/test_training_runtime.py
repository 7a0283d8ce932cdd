"""TrainingRuntime: torch runtime parity with upstream's torch-distributed, the MPI layout, gang
scheduling, CRD validation (schema and CEL), and the TrainJob that names it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.constructs import TrainingRuntime, TrainJob
from trainops.core.cluster import Cluster
from trainops.core.kinds import pod_templates
from trainops.pipeline import Target, Text, check

IMAGE = "docker.io/pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"


@pytest.fixture(scope="module")
def v2_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, name="v2", operators={"trainer": "v2.3.0"})


@needs_shared
def test_parity_with_upstream_torch_distributed(
    chart: Any, synth: Any, golden: Any, v2_cluster: Cluster
) -> None:
    """manifests/base/runtimes/torch_distributed.yaml built with TrainingRuntime.

    Intended differences: trainops adds requests = limits, the secure pod and container
    securityContext, a /tmp emptyDir for the read-only root, and the Argo CD sync wave; the image is
    written with its registry (docker.io/).
    """
    upstream = yaml.safe_load(
        (EXAMPLES / "trainer/manifests/base/runtimes/torch_distributed.yaml").read_text()
    )
    runtime = TrainingRuntime(chart, "Rt", cluster=v2_cluster, name="torch-distributed", image=IMAGE)
    text = synth(chart)[f"ClusterTrainingRuntime/{runtime.name}"]
    golden("training_runtime/torch.yaml", text)
    doc = yaml.safe_load(text)
    assert doc["spec"]["mlPolicy"] == upstream["spec"]["mlPolicy"]
    assert (
        doc["metadata"]["labels"]["trainer.kubeflow.org/framework"]
        == upstream["metadata"]["labels"]["trainer.kubeflow.org/framework"]
    )
    ours, theirs = (
        doc["spec"]["template"]["spec"]["replicatedJobs"],
        upstream["spec"]["template"]["spec"]["replicatedJobs"],
    )
    assert [j["name"] for j in ours] == [j["name"] for j in theirs] == ["node"]
    assert ours[0]["template"]["metadata"] == theirs[0]["template"]["metadata"]
    container = ours[0]["template"]["spec"]["template"]["spec"]["containers"][0]
    upstream_image = theirs[0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
    assert (container["name"], container["image"]) == ("node", f"docker.io/{upstream_image}")


def test_mpi_runtime_has_a_launcher_after_ready_nodes(
    chart: Any, synth: Any, v2_cluster: Cluster, schema_cache: Path
) -> None:
    runtime = TrainingRuntime(
        chart,
        "Rt",
        cluster=v2_cluster,
        name="mpi-gpu",
        image=IMAGE,
        framework="mpi",
        gpus_per_node=4,
        num_nodes=2,
        cluster_scoped=False,
        gang="coscheduling",
    )
    text = synth(chart)[f"TrainingRuntime/{runtime.name}"]
    doc = yaml.safe_load(text)
    jobs = doc["spec"]["template"]["spec"]["replicatedJobs"]
    assert [j["name"] for j in jobs] == ["node", "launcher"]
    assert jobs[1]["dependsOn"] == [{"name": "node", "status": "Ready"}]
    assert doc["spec"]["mlPolicy"]["mpi"]["numProcPerNode"] == 4
    assert doc["spec"]["podGroupPolicy"] == {"coscheduling": {"scheduleTimeoutSeconds": 120}}
    assert len(pod_templates(doc)) == 2 and runtime.kind == "TrainingRuntime"
    result = check(Target.of_cluster(v2_cluster, schema_cache), [Text("rt.yaml", text)])
    assert result.findings == []


def test_trainjob_names_the_runtime(chart: Any, synth: Any, v2_cluster: Cluster, schema_cache: Path) -> None:
    runtime = TrainingRuntime(
        chart, "Rt", cluster=v2_cluster, name="torch-gpu", image=IMAGE, gpus_per_node=8, gang="volcano"
    )
    TrainJob(
        chart, "Job", cluster=v2_cluster, name="bert", runtime=runtime.name, num_nodes=2, gpus_per_node=8
    )
    docs = synth(chart)
    trainjob = yaml.safe_load(next(t for k, t in docs.items() if k.startswith("TrainJob/")))
    assert trainjob["spec"]["runtimeRef"]["name"] == "torch-gpu"
    result = check(
        Target.of_cluster(v2_cluster, schema_cache), [Text(f"{k}.yaml", t) for k, t in docs.items()]
    )
    assert result.findings == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"framework": "tensorflow"}, "TrainingRuntime framework='tensorflow'"),
        ({"gang": "kueue"}, "TrainingRuntime gang='kueue'"),
        ({"num_proc_per_node": 2}, "num_proc_per_node=2: only for framework='mpi'"),
        ({"name": "Torch"}, "TrainingRuntime name='Torch'"),
        ({"num_nodes": 0}, "TrainingRuntime num_nodes=0"),
    ],
)
def test_prop_errors(chart: Any, v2_cluster: Cluster, kwargs: dict[str, Any], message: str) -> None:
    props: dict[str, Any] = {"name": "torch", "image": IMAGE, **kwargs}
    with pytest.raises(ValueError, match=message):
        TrainingRuntime(chart, "Rt", cluster=v2_cluster, **props)
