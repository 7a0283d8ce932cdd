"""Device claims through Dynamic Resource Allocation: ``claim_devices`` on a job and the
ResourceClaimTemplate construct — golden manifests, validity for a 1.34 target, the extended-resource
fallback on clusters without DRA, and bad input."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs import DeviceClaim, MPIJob, PyTorchJob, ResourceClaimTemplate
from trainops.core.cluster import Cluster, DeviceClass
from trainops.pipeline import Target, Text, check

H100 = "NVIDIA H100 80GB HBM3"
NVIDIA = DeviceClass("gpu.nvidia.com", "gpu.nvidia.com")


@pytest.fixture(scope="module")
def dra_cluster(test_cluster: Cluster) -> Cluster:
    return replace(test_cluster, device_classes=(NVIDIA,))


def _job(chart: Any, cluster: Cluster, claim: DeviceClaim) -> PyTorchJob:
    job = PyTorchJob(
        chart,
        "Job",
        cluster=cluster,
        name="pretrain",
        image="registry.example.com/train:1.0",
        workers=2,
        gpus_per_node=8,
        cpu="32",
        memory="512Gi",
    )
    job.claim_devices(claim)
    return job


def test_claim_golden(chart: Any, synth: Any, golden: Any, dra_cluster: Cluster) -> None:
    job = _job(chart, dra_cluster, DeviceClaim("gpu.nvidia.com", product=H100, min_memory="80Gi"))
    docs = synth(chart)
    (template_key,) = [k for k in docs if k.startswith("ResourceClaimTemplate/")]
    golden("device_claims/resource_claim_template.yaml", docs[template_key])
    golden("device_claims/pytorchjob.yaml", docs[f"PyTorchJob/{job.name}"])
    template = yaml.safe_load(docs[template_key])
    request = template["spec"]["spec"]["devices"]["requests"][0]
    assert request["exactly"]["count"] == 8 and request["exactly"]["deviceClassName"] == "gpu.nvidia.com"
    assert template["metadata"]["name"].startswith("pretrain-gpu-")
    spec = yaml.safe_load(docs[f"PyTorchJob/{job.name}"])["spec"]["pytorchReplicaSpecs"]
    for replica in spec.values():
        pod = replica["template"]["spec"]
        container = pod["containers"][0]
        # The claim replaces the extended resource; the pod names the template.
        assert "nvidia.com/gpu" not in container["resources"]["limits"]
        assert container["resources"]["claims"] == [{"name": "gpu"}]
        assert pod["resourceClaims"] == [
            {"name": "gpu", "resourceClaimTemplateName": template["metadata"]["name"]}
        ]


def test_output_validates_for_1_34(chart: Any, synth: Any, dra_cluster: Cluster, schema_cache: Path) -> None:
    _job(
        chart,
        dra_cluster,
        DeviceClaim("gpu.nvidia.com", product=H100, selectors=('device.driver == "gpu.nvidia.com"',)),
    )
    texts = [Text(f"{key.replace('/', '_')}.yaml", text) for key, text in synth(chart).items()]
    result = check(Target("1.34", {"training-operator": "v1.9.4"}, schema_cache), texts)
    assert [f for f in result.findings if f.level != "info"] == [] and result.documents == 2


def test_resource_api_is_unknown_before_1_34(
    chart: Any, synth: Any, dra_cluster: Cluster, schema_cache: Path
) -> None:
    ResourceClaimTemplate(
        chart, "T", cluster=dra_cluster, name="gpus", claim=DeviceClaim("gpu.nvidia.com", count=1)
    )
    texts = [Text("rct.yaml", text) for text in synth(chart).values()]
    findings = check(Target("1.33", {}, schema_cache), texts).findings
    assert [f.rule for f in findings if f.level == "error"] != []


def test_changed_claim_is_a_new_template(chart: Any, synth: Any, dra_cluster: Cluster) -> None:
    one = ResourceClaimTemplate(
        chart, "A", cluster=dra_cluster, name="gpus", claim=DeviceClaim("gpu.nvidia.com", count=1)
    )
    two = ResourceClaimTemplate(
        chart, "B", cluster=dra_cluster, name="gpus", claim=DeviceClaim("gpu.nvidia.com", count=2)
    )
    assert one.name != two.name and one.name.startswith("gpus-") and one.request == "gpu"


def test_without_dra_the_count_stays_the_extended_resource(
    chart: Any, synth: Any, test_cluster: Cluster
) -> None:
    job = _job(chart, test_cluster, DeviceClaim("gpu.nvidia.com"))
    docs = synth(chart)
    assert list(docs) == [f"PyTorchJob/{job.name}"]
    worker = yaml.safe_load(docs[f"PyTorchJob/{job.name}"])["spec"]["pytorchReplicaSpecs"]["Worker"]
    pod = worker["template"]["spec"]
    assert (
        pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8" and "resourceClaims" not in pod
    )


def test_only_gpu_pods_claim(chart: Any, synth: Any, dra_cluster: Cluster) -> None:
    job = MPIJob(
        chart,
        "M",
        cluster=dra_cluster,
        name="hvd",
        image="registry.example.com/m:1.0",
        command=["t"],
        workers=2,
        gpus_per_node=1,
    )
    job.claim_devices(DeviceClaim("gpu.nvidia.com"))
    spec = yaml.safe_load(synth(chart)[f"MPIJob/{job.name}"])["spec"]["mpiReplicaSpecs"]
    assert "resourceClaims" not in spec["Launcher"]["template"]["spec"]
    assert spec["Worker"]["template"]["spec"]["resourceClaims"][0]["name"] == "gpu"


OLD = Cluster(name="old", kubernetes_version="1.33", operators={"training-operator": "v1.9.4"})


@pytest.mark.parametrize(
    ("cluster", "claim", "message"),
    [
        (
            OLD,
            DeviceClaim("gpu.nvidia.com", product=H100),
            "PyTorchJob claim_devices device_class='gpu.nvidia.com': device selectors need Dynamic Resource "
            "Allocation .* cluster 'old' is Kubernetes 1.33",
        ),
        (
            replace(OLD, kubernetes_version="1.34"),
            DeviceClaim("gpu.nvidia.com", min_memory="80Gi"),
            "cluster 'old' declares no device_classes",
        ),
        (
            replace(OLD, kubernetes_version="1.34", device_classes=(NVIDIA,)),
            DeviceClaim("gpu.amd.com"),
            "declares no such DeviceClass \\(declared: gpu.nvidia.com\\)",
        ),
        (
            replace(OLD, kubernetes_version="1.34", device_classes=(NVIDIA,)),
            DeviceClaim("gpu.nvidia.com", count=4),
            "claim_devices count=4: must equal the GPUs of each GPU pod \\(8\\)",
        ),
        (
            replace(OLD, kubernetes_version="1.34", device_classes=(NVIDIA,)),
            DeviceClaim("gpu.nvidia.com", name="GPU"),
            "claim_devices name='GPU'",
        ),
    ],
)
def test_bad_claims(chart: Any, cluster: Cluster, claim: DeviceClaim, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _job(chart, cluster, claim)


def test_a_job_without_gpus_cannot_claim(chart: Any, dra_cluster: Cluster) -> None:
    job = PyTorchJob(chart, "J", cluster=dra_cluster, name="cpu", image="registry.example.com/t:1.0")
    with pytest.raises(ValueError, match="PyTorchJob claim_devices: the job requests no GPUs"):
        job.claim_devices(DeviceClaim("gpu.nvidia.com"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Cluster(name="c", kubernetes_version="1.33", device_classes=(NVIDIA,)),
            "Cluster 'c' device_classes: Dynamic Resource Allocation .* needs Kubernetes 1.34 or later, not 1.33",
        ),
        (
            lambda: Cluster(name="c", kubernetes_version="1.34", device_classes=(NVIDIA, NVIDIA)),
            "'gpu.nvidia.com' is declared twice",
        ),
        (lambda: DeviceClass("GPU", "gpu.nvidia.com"), "DeviceClass name='GPU'"),
        (lambda: DeviceClass("gpu", "gpu.nvidia.com", product_attribute="product-name"), "product_attribute"),
    ],
)
def test_bad_device_classes(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def _jobset(chart: Any, cluster: Cluster, gpus: tuple[int, ...] = (8,)) -> Any:
    from trainops.constructs import JobSet, ReplicatedJob

    return JobSet(
        chart,
        "Set",
        cluster=cluster,
        name="pretrain",
        replicated_jobs=[
            ReplicatedJob(
                f"node{i}", image="registry.example.com/train:1.0", replicas=2, gpus=n, cpu="8", memory="64Gi"
            )
            for i, n in enumerate(gpus)
        ],
    )


def test_jobset_claims_every_gpu_pod(
    chart: Any, synth: Any, golden: Any, dra_cluster: Cluster, schema_cache: Path
) -> None:
    cluster = replace(dra_cluster, operators={**dra_cluster.operators, "jobset": "v0.12.0"})
    job = _jobset(chart, cluster)
    before = job.name
    job.claim_devices(DeviceClaim("gpu.nvidia.com", min_memory="80Gi"))
    assert job.name != before  # a new run: the spec changed
    docs = synth(chart)
    golden("device_claims/jobset.yaml", docs[f"JobSet/{job.name}"])
    (template_key,) = [k for k in docs if k.startswith("ResourceClaimTemplate/")]
    template = yaml.safe_load(docs[template_key])
    assert template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 8
    [replicated] = yaml.safe_load(docs[f"JobSet/{job.name}"])["spec"]["replicatedJobs"]
    pod = replicated["template"]["spec"]["template"]["spec"]
    assert pod["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": template["metadata"]["name"]}
    ]
    assert pod["containers"][0]["resources"]["claims"] == [{"name": "gpu"}]
    assert "nvidia.com/gpu" not in pod["containers"][0]["resources"]["limits"]
    texts = [Text(f"{key.replace('/', '_')}.yaml", text) for key, text in docs.items()]
    result = check(Target("1.34", {"jobset": "v0.12.0"}, schema_cache), texts)
    assert [f for f in result.findings if f.level != "info"] == [] and result.documents == 2


@pytest.mark.parametrize(
    ("gpus", "message"),
    [
        ((0,), "JobSet claim_devices: the job requests no GPUs"),
        ((8, 4), "JobSet claim_devices: the job has GPU pods with [4, 8] GPUs"),
    ],
)
def test_jobset_claim_needs_one_gpu_count(
    chart: Any, dra_cluster: Cluster, gpus: tuple[int, ...], message: str
) -> None:
    cluster = replace(dra_cluster, operators={**dra_cluster.operators, "jobset": "v0.12.0"})
    job = _jobset(chart, cluster, gpus)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        job.claim_devices(DeviceClaim("gpu.nvidia.com"))


def test_jobset_claims_once(chart: Any, dra_cluster: Cluster) -> None:
    cluster = replace(dra_cluster, operators={**dra_cluster.operators, "jobset": "v0.12.0"})
    job = _jobset(chart, cluster)
    job.claim_devices(DeviceClaim("gpu.nvidia.com"))
    with pytest.raises(ValueError, match="JobSet claim_devices: the job already claims devices"):
        job.claim_devices(DeviceClaim("gpu.nvidia.com"))
