"""ModelServer and ModelService: golden manifests, expose(), probes and prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from trainops.cluster import Cluster
from trainops.constructs import ModelServer, VolumeClaim

IMAGE = "tensorflow/serving:2.14.1"


def _server(chart: Any, cluster: Cluster, **props: Any) -> ModelServer:
    props = {"cluster": cluster, "name": "resnet", "image": IMAGE, **props}
    return ModelServer(chart, "Server", **props)


def _load(synth: Any, chart: Any, key: str) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[key]
    return text, yaml.safe_load(text)


def test_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    _server(chart, test_cluster)
    text, doc = _load(synth, chart, "Deployment/resnet")
    golden("model_server/defaults.yaml", text)
    container = doc["spec"]["template"]["spec"]["containers"][0]
    # TF Serving conventions: REST port 8501 named http, probes on the model status endpoint.
    assert container["ports"] == [{"name": "http", "containerPort": 8501, "protocol": "TCP"}]
    assert container["readinessProbe"]["httpGet"] == {"path": "/v1/models/resnet", "port": "http"}
    assert doc["spec"]["replicas"] == 2 and doc["spec"]["strategy"]["type"] == "RollingUpdate"


def test_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    models = VolumeClaim(
        chart, "Models", cluster=test_cluster, name="models", size="50Gi", access_mode="ReadOnlyMany"
    )
    _server(
        chart,
        test_cluster,
        name="ranker",
        image="registry.example.com/serving/ranker@sha256:" + "a" * 64,
        port=9000,
        replicas=3,
        cpu="4",
        memory="8Gi",
        model_name="ranker-v2",
        model_volume=models,
        model_path="/models",
        probe_path="/healthz",
        startup_seconds=600,
        args=["--rest_api_timeout_in_ms=30000"],
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "MODEL_NAME": "ranker"},
        labels={"tier": "online"},
        service_account="ranker",
        termination_grace_seconds=60,
        pre_stop_seconds=15,
    )
    text, doc = _load(synth, chart, "Deployment/ranker")
    golden("model_server/custom.yaml", text)
    container = doc["spec"]["template"]["spec"]["containers"][0]
    # Model mounted read-only; the user's MODEL_NAME wins; startup budget 600 s = 60 probes of 10 s.
    assert {"name": "models", "mountPath": "/models", "readOnly": True} in container["volumeMounts"]
    assert container["env"] == [
        {"name": "TF_CPP_MIN_LOG_LEVEL", "value": "2"},
        {"name": "MODEL_NAME", "value": "ranker"},
    ]
    assert container["startupProbe"]["failureThreshold"] == 60
    assert doc["spec"]["selector"]["matchLabels"] == {
        "app.kubernetes.io/instance": "ranker",
        "app.kubernetes.io/name": "ranker",
    }


def test_selector_is_part_of_template_labels(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    _server(chart, test_cluster, labels={"tier": "online"})
    _, doc = _load(synth, chart, "Deployment/resnet")
    selector = doc["spec"]["selector"]["matchLabels"]
    labels = doc["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= labels.items()


def test_pre_stop_uses_exec_before_kubernetes_1_30(chart: Any, synth: Any) -> None:
    old = Cluster(name="old", kubernetes_version="1.29")
    _server(chart, old)
    _, doc = _load(synth, chart, "Deployment/resnet")
    assert doc["spec"]["template"]["spec"]["containers"][0]["lifecycle"]["preStop"] == {
        "exec": {"command": ["sleep", "5"]}
    }


def test_service_defaults(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    service = _server(chart, test_cluster).expose()
    text, doc = _load(synth, chart, f"Service/{service.name}")
    golden("model_service/defaults.yaml", text)
    # ClusterIP, named port targeting the container port by name.
    assert doc["spec"]["type"] == "ClusterIP"
    assert doc["spec"]["ports"] == [{"name": "http", "port": 8501, "protocol": "TCP", "targetPort": "http"}]


def test_service_custom(chart: Any, synth: Any, golden: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    from trainops.constructs import ModelService

    ModelService(chart, "Svc", server=server, port=80, name="resnet-api", labels={"tier": "online"})
    text, doc = _load(synth, chart, "Service/resnet-api")
    golden("model_service/custom.yaml", text)
    assert doc["spec"]["ports"][0]["port"] == 80 and doc["spec"]["ports"][0]["targetPort"] == "http"
    assert doc["metadata"]["labels"]["tier"] == "online"


def test_expose_selector_equals_deployment_selector(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    service = _server(chart, test_cluster, labels={"tier": "online"}).expose()
    docs = synth(chart)
    deployment = yaml.safe_load(docs["Deployment/resnet"])
    svc = yaml.safe_load(docs[f"Service/{service.name}"])
    assert svc["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]


def test_expose_twice_is_refused(chart: Any, test_cluster: Cluster) -> None:
    server = _server(chart, test_cluster)
    server.expose()
    with pytest.raises(ValueError, match=r"^ModelServer 'resnet': already exposed by Service 'resnet'"):
        server.expose(name="other")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Resnet"}, "ModelServer name='Resnet': must be a DNS-1123 label"),
        ({"image": "tensorflow/serving"}, "ModelServer image='tensorflow/serving': must be pinned"),
        (
            {"image": "tensorflow/serving:latest"},
            "ModelServer image='tensorflow/serving:latest': the tag 'latest'",
        ),
        ({"port": 0}, "ModelServer port=0: must be at least 1"),
        ({"port": 70000}, "ModelServer port=70000: must be at most 65535"),
        ({"replicas": 0}, "ModelServer replicas=0: must be at least 1"),
        ({"cpu": "-1"}, "ModelServer cpu='-1': must be greater than zero"),
        ({"memory": "2GB"}, "ModelServer memory='2GB': '2GB' is not a quantity"),
        ({"model_name": "a/b"}, "ModelServer model_name='a/b': must be a non-empty name"),
        ({"model_path": "/models"}, "ModelServer model_path='/models': needs a model_volume"),
        (
            {"model_volume": "m", "model_path": "models"},
            "ModelServer model_volume path='models': must be an absolute",
        ),
        ({"probe_path": "healthz"}, "ModelServer probe_path='healthz': must be an absolute path"),
        ({"startup_seconds": 5}, "ModelServer startup_seconds=5: must be at least 10"),
        (
            {"pre_stop_seconds": 30},
            "ModelServer pre_stop_seconds=30: must be less than termination_grace_seconds=30",
        ),
        ({"args": "--port=1"}, "ModelServer args='--port=1': must be a sequence of strings"),
        (
            {"labels": {"app.kubernetes.io/name": "x"}},
            "ModelServer labels: 'app.kubernetes.io/name' is a selector",
        ),
        ({"env": {"A=B": "x"}}, "ModelServer env: 'A=B' is not a valid environment variable name"),
        ({"model_name": ""}, "ModelServer model_name='': must be a non-empty name"),
        ({"service_account": "Svc"}, "ModelServer service_account='Svc': must be a DNS-1123 label"),
        ({"termination_grace_seconds": 0}, "ModelServer termination_grace_seconds=0: must be at least 1"),
        ({"pre_stop_seconds": -1}, "ModelServer pre_stop_seconds=-1: must be at least 0"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        _server(chart, test_cluster, **props)


def test_rwo_model_volume_with_several_replicas_is_refused(chart: Any, test_cluster: Cluster) -> None:
    models = VolumeClaim(chart, "Models", cluster=test_cluster, name="models", size="1Gi")
    with pytest.raises(
        ValueError,
        match=r"^ModelServer model_volume volume='models': access mode ReadWriteOnce cannot be shared by 2 pods",
    ):
        _server(chart, test_cluster, model_volume=models)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"port": 0}, "ModelService port=0: must be at least 1"),
        ({"port": 65536}, "ModelService port=65536: must be at most 65535"),
        ({"name": "1api"}, "ModelService name='1api': must be a DNS-1035 label"),
        (
            {"labels": {"tier": "on line"}},
            "ModelService labels: label tier='on line' is not a valid label value",
        ),
    ],
)
def test_bad_service_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    server = _server(chart, test_cluster)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        server.expose(**props)
