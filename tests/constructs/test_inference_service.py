"""InferenceService, ServingRuntime, ClusterServingRuntime: golden manifests, KServe's own rules, parity."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.cluster import Cluster, Taint
from trainops.constructs import (
    ClusterServingRuntime,
    InferenceService,
    ModelFormat,
    ServingRuntime,
    VolumeClaim,
)

KSERVE = Cluster(
    name="serving",
    kubernetes_version="1.34",
    operators={"kserve": "v0.20.0", "prometheus-operator": "v0.93.0"},
    storage_classes={"default": "standard-rwo", "shared": "nfs"},
    gpu_taints=(Taint("nvidia.com/gpu"),),
    gpu_node_selector={"nvidia.com/gpu.present": "true"},
)


def test_defaults(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    InferenceService(
        chart,
        "Isvc",
        cluster=KSERVE,
        name="flowers",
        model_format="tensorflow",
        storage_uri="gs://kfserving-examples/models/tensorflow/flowers",
    )
    docs = synth(chart)
    text = docs["InferenceService/flowers"]
    golden("inference_service/defaults.yaml", text)
    predictor = yaml.safe_load(text)["spec"]["predictor"]
    # The model-format schema, bounded replicas, and the trainops pod defaults on the predictor.
    assert predictor["model"]["modelFormat"] == {"name": "tensorflow"}
    assert (predictor["minReplicas"], predictor["maxReplicas"]) == (1, 3)
    assert predictor["securityContext"]["runAsNonRoot"] is True
    assert predictor["model"]["resources"]["requests"] == predictor["model"]["resources"]["limits"]
    validate_docs(cli, tmp_path, docs)


def test_canary_with_runtime_and_transformer(
    chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any
) -> None:
    runtime = ServingRuntime(
        chart,
        "Runtime",
        cluster=KSERVE,
        name="torchserve",
        image="pytorch/torchserve-kfs:0.12.0",
        model_formats=[ModelFormat("pytorch", version="1", auto_select=True, priority=2)],
        protocol_versions=["v1", "v2", "grpc-v2"],
        args=["torchserve", "--start", "--model-store=/mnt/models/model-store"],
        metrics_port=8082,
    )
    InferenceService(
        chart,
        "Isvc",
        cluster=KSERVE,
        name="resnet",
        model_format="pytorch",
        storage_uri="s3://models/resnet/v2",
        runtime=runtime,
        protocol_version="v2",
        gpus=1,
        min_replicas=2,
        max_replicas=6,
        scale_metric="concurrency",
        scale_target=10,
        canary_traffic_percent=10,
        transformer_image="registry.example.com/ml/image-transformer:1.4.0",
        transformer_args=["--model_name=resnet"],
        service_account="model-reader",
        deployment_mode="Serverless",
    )
    docs = synth(chart)
    golden("inference_service/canary.yaml", docs["InferenceService/resnet"])
    golden("inference_service/serving_runtime.yaml", docs["ServingRuntime/torchserve"])
    isvc = yaml.safe_load(docs["InferenceService/resnet"])
    predictor = isvc["spec"]["predictor"]
    # 10 % to the new revision; the runtime by name; GPU placement from the cluster.
    assert predictor["canaryTrafficPercent"] == 10
    assert predictor["model"]["runtime"] == "torchserve"
    assert predictor["model"]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert predictor["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert isvc["spec"]["transformer"]["containers"][0]["name"] == "kserve-container"
    runtime_doc = yaml.safe_load(docs["ServingRuntime/torchserve"])
    # Runtimes sync before the InferenceServices that name them.
    assert runtime_doc["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-1"
    assert runtime_doc["spec"]["annotations"]["prometheus.kserve.io/port"] == "8082"
    validate_docs(cli, tmp_path, docs)


def test_model_from_volume(chart: Any, synth: Any) -> None:
    models = VolumeClaim(
        chart, "Models", cluster=KSERVE, name="models", size="10Gi", access_mode="ReadOnlyMany"
    )
    isvc = InferenceService(
        chart,
        "Isvc",
        cluster=KSERVE,
        name="iris",
        model_format="sklearn",
        model_volume=models,
        model_path="iris/1",
    )
    assert isvc.storage_uri == "pvc://models/iris/1"
    assert yaml.safe_load(synth(chart)["InferenceService/iris"])["spec"]["predictor"]["model"][
        "storageUri"
    ] == ("pvc://models/iris/1")


def test_cluster_serving_runtime_is_cluster_scoped(
    chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any
) -> None:
    ClusterServingRuntime(
        chart,
        "Runtime",
        cluster=KSERVE,
        name="triton",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        model_formats=["triton", "onnx", "tensorrt"],
        protocol_versions=["v2", "grpc-v2"],
        port=8000,
        metrics_port=8002,
        cpu="2",
        memory="8Gi",
    )
    docs = synth(chart)
    text = docs["ClusterServingRuntime/triton"]
    golden("inference_service/cluster_serving_runtime.yaml", text)
    doc = yaml.safe_load(text)
    assert "namespace" not in doc["metadata"]
    assert [f["name"] for f in doc["spec"]["supportedModelFormats"]] == ["triton", "onnx", "tensorrt"]
    validate_docs(cli, tmp_path, docs)


def test_runtime_must_support_the_format(chart: Any) -> None:
    runtime = ServingRuntime(
        chart,
        "Runtime",
        cluster=KSERVE,
        name="tfs",
        image="tensorflow/serving:2.14.1",
        model_formats=["tensorflow"],
    )
    with pytest.raises(
        ValueError,
        match=r"^InferenceService runtime='tfs': ServingRuntime supports tensorflow, not 'sklearn'",
    ):
        InferenceService(
            chart,
            "Isvc",
            cluster=KSERVE,
            name="iris",
            model_format="sklearn",
            storage_uri="gs://b/m",
            runtime=runtime,
        )


def test_runtime_must_speak_the_protocol(chart: Any) -> None:
    runtime = ServingRuntime(
        chart,
        "Runtime",
        cluster=KSERVE,
        name="tfs",
        image="tensorflow/serving:2.14.1",
        model_formats=["tensorflow"],
    )
    with pytest.raises(
        ValueError, match=r"^InferenceService protocol_version='grpc-v2': ServingRuntime 'tfs' speaks v1, v2"
    ):
        InferenceService(
            chart,
            "Isvc",
            cluster=KSERVE,
            name="f",
            model_format="tensorflow",
            storage_uri="gs://b/m",
            runtime=runtime,
            protocol_version="grpc-v2",
        )


def test_cluster_without_kserve_is_refused(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(
        ValueError, match=r"^InferenceService cluster='test': the cluster does not list kserve"
    ):
        InferenceService(
            chart, "Isvc", cluster=test_cluster, name="f", model_format="tensorflow", storage_uri="gs://b/m"
        )


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "9flowers"}, "InferenceService name='9flowers': must be a DNS-1035 label"),
        ({"model_format": "keras"}, "InferenceService model_format='keras': must be one of tensorflow"),
        ({"storage_uri": None}, "InferenceService storage_uri, model_volume: give exactly one of them"),
        ({"model_volume": "models"}, "InferenceService storage_uri, model_volume: give exactly one of them"),
        (
            {"storage_uri": "ftp://host/m"},
            "InferenceService storage_uri='ftp://host/m': must start with one of gs://",
        ),
        (
            {"storage_uri": "s3://"},
            "InferenceService storage_uri='s3://': names no bucket or path after s3://",
        ),
        (
            {"storage_uri": "https://user:pw@host/m"},
            "InferenceService storage_uri='https://user:pw@host/m': credentials belong in a Secret",
        ),
        ({"model_path": "m"}, "InferenceService model_path='m': needs a model_volume"),
        ({"min_replicas": -1}, "InferenceService min_replicas=-1: must be at least 0"),
        ({"min_replicas": 4}, "InferenceService min_replicas=4: must not exceed max_replicas=3"),
        (
            {"scale_metric": "rps"},
            "InferenceService scale_metric='rps', scale_target=None: give both or neither",
        ),
        ({"scale_metric": "gpu", "scale_target": 5}, "InferenceService scale_metric='gpu': must be 'cpu'"),
        (
            {"scale_metric": "cpu", "scale_target": 150},
            "InferenceService scale_target=150: must be at most 100",
        ),
        (
            {"scale_metric": "rps", "scale_target": 5, "deployment_mode": "RawDeployment"},
            "InferenceService scale_metric='rps': RawDeployment scales with an HPA on cpu or memory only",
        ),
        ({"canary_traffic_percent": 101}, "InferenceService canary_traffic_percent=101: must be at most 100"),
        (
            {"canary_traffic_percent": 10, "deployment_mode": "RawDeployment"},
            "InferenceService canary_traffic_percent=10: canary rollout needs Serverless mode",
        ),
        ({"deployment_mode": "Knative"}, "InferenceService deployment_mode='Knative': must be 'Serverless'"),
        ({"protocol_version": "v3"}, "InferenceService protocol_version='v3': must be one of v1, v2"),
        (
            {"env": {"AWS_SECRET_ACCESS_KEY": "x"}},
            "InferenceService env: 'AWS_SECRET_ACCESS_KEY' looks like a secret",
        ),
        ({"gpus": 0.5}, "InferenceService gpus=0.5: must be a whole number"),
        ({"transformer_args": ["-v"]}, "InferenceService transformer_args=['-v']: needs a transformer_image"),
        (
            {"transformer_image": "t:latest"},
            "InferenceService transformer_image='t:latest': the tag 'latest'",
        ),
        ({"runtime": "Bad_Runtime"}, "InferenceService runtime='Bad_Runtime': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"name": "flowers", "model_format": "tensorflow", "storage_uri": "gs://b/flowers"}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        InferenceService(chart, "Isvc", cluster=KSERVE, **{**base, **props})


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"model_formats": []}, "ServingRuntime model_formats=[]: must list at least one model format"),
        ({"model_formats": ["a", "a"]}, "ServingRuntime model_formats=['a', 'a']: a format is listed twice"),
        (
            {"model_formats": [ModelFormat("pytorch", priority=1)]},
            "ServingRuntime model_formats[0] priority=1: needs auto_select=True",
        ),
        (
            {"model_formats": [ModelFormat("")]},
            "ServingRuntime model_formats[0] name='': must be a non-empty word",
        ),
        ({"protocol_versions": ["v9"]}, "ServingRuntime protocol_versions: 'v9' is not one of v1, v2"),
        ({"protocol_versions": []}, "ServingRuntime protocol_versions=[]: must list at least one protocol"),
        ({"port": 0}, "ServingRuntime port=0: must be at least 1"),
        ({"metrics_port": 70000}, "ServingRuntime metrics_port=70000: must be at most 65535"),
        ({"metrics_path": "metrics"}, "ServingRuntime metrics_path='metrics': must be an absolute path"),
        ({"image": "tensorflow/serving"}, "ServingRuntime image='tensorflow/serving': must be pinned"),
    ],
)
def test_bad_runtime_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {
        "name": "tfs",
        "image": "tensorflow/serving:2.14.1",
        "model_formats": ["tensorflow"],
    }
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        ServingRuntime(chart, "Runtime", cluster=KSERVE, **{**base, **props})


def test_parity_kserve_huggingface_storage_example(chart: Any) -> None:
    expected = upstream_doc("kserve/docs/samples/storage/hf/hf_isvc.yaml")
    predictor = expected["spec"]["predictor"]
    limits = predictor["model"]["resources"]["limits"]
    InferenceService(
        chart,
        "Isvc",
        cluster=KSERVE,
        name=expected["metadata"]["name"],
        model_format=predictor["model"]["modelFormat"]["name"],
        storage_uri=predictor["model"]["storageUri"],
        args=predictor["model"]["args"],
        cpu=limits["cpu"],
        memory=limits["memory"],
        gpus=int(limits["nvidia.com/gpu"]),
        service_account=predictor["serviceAccountName"],
    )
    ours = without_paths(
        raw_object(chart, "InferenceService/huggingface-llama2"),
        {
            "metadata.namespace": "ml-test",  # namespaced by the Chart
            "metadata.annotations.argocd.argoproj.io/sync-wave": "0",  # a workload
            # KServe's CRDs may be installed by another app
            "metadata.annotations.argocd.argoproj.io/sync-options": "SkipDryRunOnMissingResource=true",
            "spec.predictor.minReplicas": 1,  # explicit bounds instead of KServe's unbounded default
            "spec.predictor.maxReplicas": 3,
            "spec.predictor.automountServiceAccountToken": False,  # no API token in a model server
            "spec.predictor.securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 1000,
                "runAsGroup": 1000,
                "fsGroup": 1000,
                "fsGroupChangePolicy": "OnRootMismatch",
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "spec.predictor.model.securityContext": {
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
                "privileged": False,
                "readOnlyRootFilesystem": True,
            },
            # scratch space for the read-only root filesystem
            "spec.predictor.model.volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
            "spec.predictor.volumes": [{"name": "tmp", "emptyDir": {}}],
            # GPU pods tolerate the cluster's GPU taint and select its GPU nodes
            "spec.predictor.tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
            "spec.predictor.nodeSelector": {"nvidia.com/gpu.present": "true"},
            # node disk for the downloaded model (policy rule ephemeral-storage)
            "spec.predictor.model.resources.requests.ephemeral-storage": "20Gi",
            "spec.predictor.model.resources.limits.ephemeral-storage": "20Gi",
        },
    )
    assert ours == expected
