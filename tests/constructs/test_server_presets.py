"""ModelServer presets (TorchServe, Triton, TF Serving with gRPC), model download by the storage
initializer, GPUs, expose() opt-in to external Service types, cross-construct wiring, parity."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import raw_object, upstream_doc, validate_docs, without_paths

from trainops.constructs import Autoscaler, ModelServer, PodDisruptionBudget, ServiceMonitor
from trainops.constructs.server_presets import TF_SERVING, TORCHSERVE, TRITON
from trainops.core.cluster import Cluster


def test_torchserve(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    server = ModelServer(
        chart,
        "Server",
        cluster=test_cluster,
        name="mnist",
        image="pytorch/torchserve:0.12.0-cpu",
        preset=TORCHSERVE,
    )
    service = server.expose()
    ServiceMonitor(chart, "Monitor", service=service, port="metrics")
    docs = synth(chart)
    golden("server_presets/torchserve.yaml", docs["Deployment/mnist"])
    golden("server_presets/torchserve_service.yaml", docs["Service/mnist"])
    container = yaml.safe_load(docs["Deployment/mnist"])["spec"]["template"]["spec"]["containers"][0]
    # TorchServe's ports by name; /ping for health; every archive in the model store loaded at start.
    assert [(p["name"], p["containerPort"]) for p in container["ports"]] == [
        ("http", 8080),
        ("management", 8081),
        ("metrics", 8082),
        ("grpc", 7070),
    ]
    assert container["readinessProbe"]["httpGet"] == {"path": "/ping", "port": "http"}
    assert container["args"][container["args"].index("--model-store") + 1] == "/home/model-server/model-store"
    assert "env" not in container
    assert service.port_names == ("http", "management", "metrics", "grpc")
    validate_docs(cli, tmp_path, docs)


def test_triton_from_object_storage_on_gpu(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, cli: Any, tmp_path: Any
) -> None:
    ModelServer(
        chart,
        "Server",
        cluster=test_cluster,
        name="densenet",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        preset=TRITON,
        model_uri="s3://models/triton-repository",
        model_credentials_secret="model-store-s3",
        gpus=1,
        cpu="4",
        memory="16Gi",
        startup_seconds=600,
    )
    docs = synth(chart)
    text = docs["Deployment/densenet"]
    golden("server_presets/triton.yaml", text)
    pod = yaml.safe_load(text)["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    container = pod["containers"][0]
    # The initializer downloads into an emptyDir the server reads read-only at its model repository.
    assert init["args"] == ["s3://models/triton-repository", "/mnt/models"]
    assert init["envFrom"] == [{"secretRef": {"name": "model-store-s3"}}]
    assert {"name": "model", "mountPath": "/models", "readOnly": True} in container["volumeMounts"]
    assert "--model-repository=/models" in container["args"]
    # Ready only once the models are; live while the process runs.
    assert container["readinessProbe"]["httpGet"]["path"] == "/v2/health/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/v2/health/live"
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    validate_docs(cli, tmp_path, docs)


def test_tf_serving_preset_adds_grpc(chart: Any, synth: Any, test_cluster: Cluster) -> None:
    ModelServer(
        chart,
        "Server",
        cluster=test_cluster,
        name="resnet",
        image="tensorflow/serving:2.14.1",
        preset=TF_SERVING,
    )
    container = yaml.safe_load(synth(chart)["Deployment/resnet"])["spec"]["template"]["spec"]["containers"][0]
    assert [(p["name"], p["containerPort"]) for p in container["ports"]] == [("http", 8501), ("grpc", 8500)]
    assert container["env"] == [{"name": "MODEL_NAME", "value": "resnet"}]


@pytest.mark.parametrize("service_type", ["LoadBalancer", "NodePort"])
def test_expose_outside_the_cluster_needs_a_reason(
    chart: Any, synth: Any, golden: Any, test_cluster: Cluster, service_type: str
) -> None:
    server = ModelServer(
        chart, "Server", cluster=test_cluster, name="resnet", image="tensorflow/serving:2.14.1"
    )
    service = server.expose(type=service_type, allow_exposure="public demo behind the cloud WAF")  # type: ignore[arg-type]
    doc = yaml.safe_load(synth(chart)["Service/resnet"])
    assert doc["spec"]["type"] == service_type == service.type
    assert doc["metadata"]["annotations"]["trainops.dev/exposed"] == "public demo behind the cloud WAF"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"type": "LoadBalancer"},
            "ModelService type='LoadBalancer': exposes the server outside the cluster",
        ),
        (
            {"type": "NodePort", "allow_exposure": " "},
            "ModelService type='NodePort': exposes the server outside",
        ),
        ({"allow_exposure": "why"}, "ModelService allow_exposure='why': only for LoadBalancer or NodePort"),
        (
            {"type": "ExternalName"},
            "ModelService type='ExternalName': must be 'ClusterIP', 'LoadBalancer' or",
        ),
    ],
)
def test_bad_expose(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    server = ModelServer(
        chart, "Server", cluster=test_cluster, name="resnet", image="tensorflow/serving:2.14.1"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        server.expose(**props)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"preset": "triton"}, "ModelServer preset='triton': must be a ServerPreset"),
        ({"model_uri": "ftp://host/m"}, "ModelServer model_uri='ftp://host/m': must be <scheme>://"),
        ({"model_uri": "pvc://models/m"}, "ModelServer model_uri='pvc://models/m': must be <scheme>://"),
        ({"model_uri": "s3://"}, "ModelServer model_uri='s3://': must be <scheme>://"),
        (
            {"model_uri": "https://u:p@host/m"},
            "ModelServer model_uri='https://u:p@host/m': credentials belong",
        ),
        (
            {"model_uri": "s3://b/m", "model_volume": "models"},
            "ModelServer model_uri='s3://b/m': give either",
        ),
        ({"model_credentials_secret": "s3"}, "ModelServer model_credentials_secret='s3': needs a model_uri"),
        (
            {"model_uri": "s3://b/m", "model_credentials_secret": "S3"},
            "ModelServer model_credentials_secret='S3'",
        ),
        (
            {"model_uri": "s3://b/m", "storage_initializer_image": "kserve/storage-initializer"},
            "must be pinned",
        ),
        ({"gpus": -1}, "ModelServer gpus=-1: must be at least 0"),
    ],
)
def test_bad_prop(chart: Any, test_cluster: Cluster, props: dict[str, Any], message: str) -> None:
    with pytest.raises(
        ValueError, match=f"^{re.escape(message)}" if message.startswith("Model") else re.escape(message)
    ):
        ModelServer(
            chart, "Server", cluster=test_cluster, name="m", image="tensorflow/serving:2.14.1", **props
        )


def test_wiring_monitor_hpa_pdb_select_the_server(chart: Any, test_cluster: Cluster) -> None:
    server = ModelServer(
        chart,
        "Server",
        cluster=test_cluster,
        name="densenet",
        image="nvcr.io/nvidia/tritonserver:24.08-py3",
        preset=TRITON,
    )
    service = server.expose()
    ServiceMonitor(chart, "Monitor", service=service, port="metrics")
    Autoscaler(chart, "Hpa", target=server, min_replicas=2)
    PodDisruptionBudget(chart, "Pdb", target=server)
    deployment = raw_object(chart, "Deployment/densenet")
    svc = raw_object(chart, "Service/densenet")
    monitor = raw_object(chart, "ServiceMonitor/densenet")
    hpa = raw_object(chart, "HorizontalPodAutoscaler/densenet")
    pdb = raw_object(chart, "PodDisruptionBudget/densenet")
    template = deployment["spec"]["template"]
    container_ports = {p["name"] for c in template["spec"]["containers"] for p in c["ports"]}
    # The ServiceMonitor selects the Service and names one of its ports, which targets a container port.
    assert monitor["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    (endpoint,) = monitor["spec"]["endpoints"]
    (scraped,) = [p for p in svc["spec"]["ports"] if p["name"] == endpoint["port"]]
    assert scraped["targetPort"] in container_ports
    assert monitor["spec"]["namespaceSelector"]["matchNames"] == [svc["metadata"]["namespace"]]
    # The Service and the PDB select the server's pods.
    assert svc["spec"]["selector"].items() <= template["metadata"]["labels"].items()
    assert pdb["spec"]["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
    # The HPA targets the Deployment, which leaves replicas to it, and every container requests what
    # the utilization metrics divide by.
    ref = hpa["spec"]["scaleTargetRef"]
    assert (ref["apiVersion"], ref["kind"], ref["name"]) == (
        "apps/v1",
        "Deployment",
        deployment["metadata"]["name"],
    )
    assert "replicas" not in deployment["spec"]
    for metric in hpa["spec"]["metrics"]:
        assert all(
            metric["resource"]["name"] in c["resources"]["requests"] for c in template["spec"]["containers"]
        )


def test_parity_kubernetes_website_deployment(chart: Any, test_cluster: Cluster) -> None:
    expected = upstream_doc("k8s-website/content/en/examples/application/deployment.yaml")
    (upstream_container,) = expected["spec"]["template"]["spec"]["containers"]
    ModelServer(
        chart,
        "Server",
        cluster=test_cluster,
        name=expected["metadata"]["name"],
        image=upstream_container["image"],
        port=upstream_container["ports"][0]["containerPort"],
        replicas=expected["spec"]["replicas"],
        labels=expected["spec"]["template"]["metadata"]["labels"],
        probe_path="/",
        model_name="nginx",
    )
    ours = raw_object(chart, "Deployment/nginx-deployment")
    selector = {
        "app.kubernetes.io/name": "nginx-deployment",
        "app.kubernetes.io/instance": "nginx-deployment",
    }
    # Intended: the selector is name-derived (immutable, never a hash) instead of upstream's app label,
    # which ours keeps as an extra label on the Deployment and its pods.
    assert ours["spec"]["selector"] == {"matchLabels": selector}
    ours["spec"]["selector"] = expected["spec"]["selector"]
    assert ours["spec"]["template"]["metadata"]["labels"] == {**selector, "app": "nginx"}
    ours["spec"]["template"]["metadata"]["labels"] = {"app": "nginx"}
    # Intended: one fixed container name, "server", that probes and monitors can rely on.
    assert ours["spec"]["template"]["spec"]["containers"][0]["name"] == "server"
    ours["spec"]["template"]["spec"]["containers"][0]["name"] = upstream_container["name"]
    probe = {"httpGet": {"path": "/", "port": "http"}, "timeoutSeconds": 5, "failureThreshold": 3}
    ours = without_paths(
        ours,
        {
            "metadata.namespace": "ml-test",  # namespaced by the Chart
            "metadata.labels": {**selector, "app": "nginx"},
            # roll one new pod at a time and never below the wanted count
            "spec.strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0},
            },
            "spec.template.spec.automountServiceAccountToken": False,  # no API token
            "spec.template.spec.securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 1000,
                "runAsGroup": 1000,
                "fsGroup": 1000,
                "fsGroupChangePolicy": "OnRootMismatch",
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "spec.template.spec.terminationGracePeriodSeconds": 30,  # explicit, > preStop
            "spec.template.spec.topologySpreadConstraints": [  # spread replicas over nodes
                {
                    "maxSkew": 1,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": selector},
                }
            ],
            "spec.template.spec.volumes": [{"name": "tmp", "emptyDir": {}}],  # /tmp for a read-only root
            "spec.template.spec.containers.0.env": [{"name": "MODEL_NAME", "value": "nginx"}],
            "spec.template.spec.containers.0.ports.0.name": "http",  # named: Services target it by name
            "spec.template.spec.containers.0.ports.0.protocol": "TCP",
            "spec.template.spec.containers.0.resources": {  # Guaranteed QoS
                "requests": {"cpu": "1", "memory": "2Gi"},
                "limits": {"cpu": "1", "memory": "2Gi"},
            },
            "spec.template.spec.containers.0.securityContext": {
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
                "privileged": False,
                "readOnlyRootFilesystem": True,
            },
            "spec.template.spec.containers.0.readinessProbe": {**probe, "periodSeconds": 10},
            "spec.template.spec.containers.0.livenessProbe": {**probe, "periodSeconds": 20},
            "spec.template.spec.containers.0.startupProbe": {
                **probe,
                "periodSeconds": 10,
                "failureThreshold": 30,
            },
            "spec.template.spec.containers.0.volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
            "spec.template.spec.containers.0.lifecycle": {
                "preStop": {"sleep": {"seconds": 5}}
            },  # drain first
        },
    )
    assert ours == expected
