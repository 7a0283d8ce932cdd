"""TrainJob (Kubeflow Trainer v2) and TrainingJob (one description, the target's API): golden
manifests, parity with the upstream runtime-patches example, CRD validation, prop errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.cluster import Cluster
from trainops.constructs import TrainingJob, TrainJob, VolumeClaim
from trainops.kinds import pod_templates
from trainops.pipeline import Target, Text, check


@pytest.fixture(scope="module")
def v2_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, name="v2", operators={"trainer": "v2.3.0", "kueue": "v0.19.2"})


def _only(synth: Any, chart: Any, prefix: str) -> tuple[str, dict[str, Any]]:
    docs = synth(chart)
    key = next(k for k in docs if k.startswith(prefix))
    return docs[key], yaml.safe_load(docs[key])


def test_defaults(chart: Any, synth: Any, golden: Any, v2_cluster: Cluster) -> None:
    job = TrainJob(chart, "Job", cluster=v2_cluster, name="mnist", image="registry.example.com/ml/mnist:1.0")
    text, doc = _only(synth, chart, "TrainJob/")
    golden("train_job/defaults.yaml", text)
    assert doc["metadata"]["name"] == job.name and job.name.startswith("mnist-")
    assert doc["spec"]["runtimeRef"] == {
        "apiGroup": "trainer.kubeflow.org",
        "kind": "ClusterTrainingRuntime",
        "name": "torch-distributed",
    }
    assert doc["spec"]["trainer"]["numNodes"] == 1 and "numProcPerNode" not in doc["spec"]["trainer"]
    # One pod on no GPU: no /dev/shm, only the /tmp scratch volume the read-only root needs.
    [site] = [s for s in pod_templates(doc) if "runtimePatches" in s.parts]  # spec.trainer is a site too
    assert [v["name"] for v in site.spec["volumes"]] == ["tmp"]


def test_custom(chart: Any, synth: Any, golden: Any, v2_cluster: Cluster) -> None:
    data = VolumeClaim(
        chart, "Data", cluster=v2_cluster, name="datasets", size="1Ti", access_mode="ReadOnlyMany"
    )
    job = TrainJob(
        chart,
        "Job",
        cluster=v2_cluster,
        name="bert-ft",
        image="registry.example.com/ml/bert:2.1",
        command=["torchrun", "train.py"],
        args=["--epochs=3"],
        num_nodes=4,
        gpus_per_node=8,
        cpu="64",
        memory="512Gi",
        env={"NCCL_DEBUG": "INFO"},
        active_deadline_seconds=86400,
        queue="team-a",
        labels={"example.com/project": "bert"},
    )
    job.mount(data, "/data", read_only=True)
    text, doc = _only(synth, chart, "TrainJob/")
    golden("train_job/custom.yaml", text)
    trainer = doc["spec"]["trainer"]
    assert trainer["numProcPerNode"] == 8 and trainer["resourcesPerNode"]["limits"]["nvidia.com/gpu"] == "8"
    assert trainer["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert "suspend" not in doc["spec"]  # Kueue owns suspend
    [site] = [s for s in pod_templates(doc) if "runtimePatches" in s.parts]  # spec.trainer is a site too
    assert site.spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert [v["name"] for v in site.spec["volumes"]] == ["shm", "tmp", "datasets"]
    assert site.spec["volumes"][0]["emptyDir"] == {"medium": "Memory", "sizeLimit": "256Gi"}


def test_mount_makes_a_new_run(chart: Any, v2_cluster: Cluster) -> None:
    job = TrainJob(chart, "Job", cluster=v2_cluster, name="mnist", image="x.io/a:1")
    before = job.name
    job.mount("checkpoints", "/ckpt")
    assert job.name != before and [m.claim_name for m in job.mounts] == ["checkpoints"]


@needs_shared
def test_parity_with_upstream_runtime_patches_example(chart: Any, synth: Any, v2_cluster: Cluster) -> None:
    """The trainer part of trainer/examples/yaml/02-runtime-patches.yaml, built with TrainJob.

    Intended differences: trainops names the run ``<name>-<hash6>``; sets requests equal to limits
    (upstream: requests 2 cpu/4Gi, limits 4 cpu/8Gi); adds its own runtime patch (secure pod and
    container securityContext, /tmp for a read-only root); upstream's team patch (labels,
    service account, node selector, tolerations) is the user's own and not modelled here.
    """
    upstream = yaml.safe_load((EXAMPLES / "trainer/examples/yaml/02-runtime-patches.yaml").read_text())
    expected = upstream["spec"]["trainer"]
    TrainJob(
        chart,
        "Job",
        cluster=v2_cluster,
        name="runtime-patches-example",
        command=expected["command"],
        num_nodes=expected["numNodes"],
        cpu="4",
        memory="8Gi",
        env={e["name"]: e["value"] for e in expected["env"]},
    )
    _, doc = _only(synth, chart, "TrainJob/")
    assert doc["spec"]["runtimeRef"] == upstream["spec"]["runtimeRef"]
    ours = doc["spec"]["trainer"]
    assert {k: ours[k] for k in ("command", "numNodes", "env")} == {
        k: expected[k] for k in ("command", "numNodes", "env")
    }
    assert ours["resourcesPerNode"]["limits"] == expected["resourcesPerNode"]["limits"]


def test_output_validates_against_the_pinned_crd(
    chart: Any, synth: Any, v2_cluster: Cluster, schema_cache: Path
) -> None:
    job = TrainJob(
        chart, "Job", cluster=v2_cluster, name="mnist", image="x.io/a:1", num_nodes=2, gpus_per_node=2
    )
    job.mount("checkpoints", "/ckpt")
    texts = [Text(f"{k}.yaml", t) for k, t in synth(chart).items()]
    result = check(Target.of_cluster(v2_cluster, schema_cache), texts)
    assert result.findings == [] and result.documents == 1


def test_training_job_follows_the_target(
    chart: Any, synth: Any, v2_cluster: Cluster, test_cluster: Cluster
) -> None:
    on_v2 = TrainingJob(
        chart,
        "A",
        cluster=v2_cluster,
        name="resnet",
        image="x.io/r:1",
        num_nodes=2,
        gpus_per_node=4,
        queue="team-a",
    )
    v1_kueue = replace(test_cluster, operators={**test_cluster.operators, "kueue": "v0.19.2"})
    on_v1 = TrainingJob(
        chart,
        "B",
        cluster=v1_kueue,
        priority="production",
        name="resnet",
        image="x.io/r:1",
        num_nodes=2,
        gpus_per_node=4,
        queue="team-a",
    )
    assert (on_v2.kind, on_v2.api_version) == ("TrainJob", "trainer.kubeflow.org/v1alpha1")
    assert (on_v1.kind, on_v1.api_version) == ("PyTorchJob", "kubeflow.org/v1")
    docs = synth(chart)
    v1 = yaml.safe_load(docs[f"PyTorchJob/{on_v1.name}"])
    assert {k: v["replicas"] for k, v in v1["spec"]["pytorchReplicaSpecs"].items()} == {
        "Master": 1,
        "Worker": 1,
    }
    assert v1["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert v1["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "production"
    # The queue label goes on the job (Kueue's workload), not on its pods.
    assert "metadata" not in v1["spec"]["pytorchReplicaSpecs"]["Master"]["template"]
    assert v1["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "production"
    # The queue label goes on the job (Kueue's workload), not on its pods.
    assert "labels" not in v1["spec"]["pytorchReplicaSpecs"]["Master"]["template"].get("metadata", {})
    v2 = yaml.safe_load(docs[f"TrainJob/{on_v2.name}"])
    assert v2["spec"]["trainer"]["numNodes"] == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "Bert"}, "TrainJob name='Bert': must be a DNS-1035 label"),
        ({"name": "a" * 41}, "at most 40 characters"),
        ({"image": "x.io/a"}, "TrainJob image='x.io/a'"),
        ({"command": "python train.py"}, "TrainJob command='python train.py': must be a sequence of strings"),
        (
            {"runtime_kind": "JobSet"},
            "TrainJob runtime_kind='JobSet': must be ClusterTrainingRuntime or TrainingRuntime",
        ),
        ({"num_nodes": 0}, "TrainJob num_nodes=0"),
        ({"gpus_per_node": 4, "num_proc_per_node": 2}, "must equal gpus_per_node=4"),
        ({"shm_size": "16Gi", "memory": "8Gi"}, "TrainJob shm_size='16Gi': must not exceed memory='8Gi'"),
        ({"queue": "Team A"}, "TrainJob queue='Team A'"),
    ],
)
def test_prop_errors(chart: Any, v2_cluster: Cluster, kwargs: dict[str, Any], message: str) -> None:
    props: dict[str, Any] = {"name": "mnist", "image": "x.io/a:1", **kwargs}
    with pytest.raises(ValueError, match=message):
        TrainJob(chart, "Job", cluster=v2_cluster, **props)


def test_cluster_without_trainer_or_training_operator(chart: Any, test_cluster: Cluster) -> None:
    bare = replace(test_cluster, name="bare", operators={})
    with pytest.raises(ValueError, match="TrainJob cluster='bare': the cluster does not list trainer"):
        TrainJob(chart, "Job", cluster=bare, name="mnist")
    with pytest.raises(ValueError, match="TrainingJob cluster='bare': needs Kubeflow Trainer v2"):
        TrainingJob(chart, "T", cluster=bare, name="mnist", image="x.io/a:1")


def test_initializers_download_dataset_and_model(
    chart: Any, synth: Any, v2_cluster: Cluster, schema_cache: Path
) -> None:
    job = TrainJob(
        chart,
        "Job",
        cluster=v2_cluster,
        name="llama-ft",
        image="x.io/a:1",
        dataset_uri="hf://tatsu-lab/alpaca",
        model_uri="hf://meta-llama/Llama-3.2-1B-Instruct",
        initializer_secret="hf-token",
    )
    text = synth(chart)[f"TrainJob/{job.name}"]
    initializer = yaml.safe_load(text)["spec"]["initializer"]
    assert initializer == {
        "dataset": {"storageUri": "hf://tatsu-lab/alpaca", "secretRef": {"name": "hf-token"}},
        "model": {"storageUri": "hf://meta-llama/Llama-3.2-1B-Instruct", "secretRef": {"name": "hf-token"}},
    }
    assert check(Target.of_cluster(v2_cluster, schema_cache), [Text("j.yaml", text)]).findings == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"dataset_uri": "/data/alpaca"},
            "TrainJob dataset_uri='/data/alpaca': must be an hf://, s3:// or gs:// URI",
        ),
        ({"initializer_secret": "hf-token"}, "initializer_secret='hf-token': needs dataset_uri or model_uri"),
    ],
)
def test_initializer_errors(chart: Any, v2_cluster: Cluster, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrainJob(chart, "Job", cluster=v2_cluster, name="llama-ft", image="x.io/a:1", **kwargs)
