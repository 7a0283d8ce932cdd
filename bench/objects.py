"""Realistic ML-platform Kubernetes objects, built from a seeded :class:`random.Random`.

Each ``build_<kind>`` function returns a plain dict (insertion-ordered, so the emitted YAML is
stable) for one object. Sizes vary on purpose: a ``size`` tier (``0`` small, ``1`` medium, ``2``
large) scales env lists, volumes, sidecars, probes, affinity and config files, so the corpus has
the spread of a real GitOps repository (a 15-line ServiceAccount next to a 250-line StatefulSet).

Every object is schema-valid for Kubernetes 1.34 (and the pinned CRDs); :mod:`bench.corpus`
breaks a known share on purpose. Only the RNG is used: no clock, no hashing, no set iteration.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]

TEAMS = ("vision", "nlp", "recsys", "speech", "forecasting", "search", "ranking", "fraud", "llm", "genai")
MODELS = (
    "bert-base",
    "resnet50",
    "llama3-8b",
    "mistral-7b",
    "whisper-large",
    "t5-small",
    "clip-vit",
    "xgb-churn",
    "two-tower",
    "dlrm",
    "yolov8",
    "sdxl",
    "e5-embed",
    "gpt2-ft",
)
SERVING_IMAGES = (
    "nvcr.io/nvidia/tritonserver:24.05-py3",
    "pytorch/torchserve:0.11.0-gpu",
    "vllm/vllm-openai:v0.5.3",
    "tensorflow/serving:2.16.1-gpu",
    "seldonio/mlserver:1.5.0",
    "ghcr.io/huggingface/text-generation-inference:2.1.1",
)
TRAINING_IMAGES = (
    "registry.example.com/ml/pytorch-train:2.3.1-cuda12.1",
    "nvcr.io/nvidia/pytorch:24.05-py3",
    "registry.example.com/ml/tf-train:2.16.1-gpu",
    "registry.example.com/ml/jax-train:0.4.30-cuda12",
)
DATA_IMAGES = (
    "registry.example.com/data/preprocess:1.8.2",
    "apache/spark-py:v3.4.0",
    "python:3.11-slim",
    "registry.example.com/data/feature-backfill:0.9.1",
)
STATEFUL_IMAGES = (
    ("redis", "redis:7.2-alpine", 6379),
    ("qdrant", "qdrant/qdrant:v1.9.2", 6333),
    ("postgres", "postgres:16.3", 5432),
    ("milvus", "milvusdb/milvus:v2.4.5", 19530),
    ("minio", "minio/minio:RELEASE.2024-06-13T22-53-53Z", 9000),
)
SIDECARS = (
    ("metrics-exporter", "registry.example.com/ops/dcgm-exporter:3.3.6", 9400),
    ("log-shipper", "fluent/fluent-bit:3.0.7", 2020),
    ("auth-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0", 4180),
)
GPU_PRODUCTS = ("NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-L4", "Tesla-T4", "NVIDIA-A10G")
STORAGE_CLASSES = ("standard-rwo", "premium-rwo", "nfs", "fast-ssd", "gp3")
ENV_PLAIN = (
    ("LOG_LEVEL", ("INFO", "DEBUG", "WARNING")),
    ("NCCL_DEBUG", ("INFO", "WARN")),
    ("NCCL_IB_DISABLE", ("0", "1")),
    ("OMP_NUM_THREADS", ("1", "4", "8")),
    ("HF_HOME", ("/cache/huggingface",)),
    ("TRANSFORMERS_OFFLINE", ("1",)),
    ("MODEL_REPOSITORY", ("s3://ml-models/prod", "gs://ml-models/staging", "/models")),
    ("MAX_BATCH_SIZE", ("8", "16", "32", "64")),
    ("CUDA_VISIBLE_DEVICES", ("0", "0,1", "0,1,2,3")),
    ("PYTHONUNBUFFERED", ("1",)),
    ("MLFLOW_TRACKING_URI", ("http://mlflow.mlflow.svc:5000",)),
    ("WANDB_MODE", ("offline", "online")),
    ("FEATURE_STORE_URL", ("redis://feature-store-redis:6379/0",)),
    ("TOKENIZERS_PARALLELISM", ("false",)),
    ("GRPC_PORT", ("8001", "9000")),
)


@dataclass
class Ctx:
    """Per-object choices shared by the builders (namespace, team, app name, labels).

    Args:
        rng: the corpus RNG.
        size: 0 small, 1 medium, 2 large.
    """

    rng: random.Random
    size: int
    team: str
    namespace: str
    app: str

    def pick(self, options: tuple[Any, ...] | list[Any]) -> Any:
        """One element of ``options``."""
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return self.rng.random() < p

    def count(self, small: int, medium: int, large: int) -> int:
        """A count between 0 and the tier's maximum."""
        return self.rng.randint(0, (small, medium, large)[self.size])

    def suffix(self) -> str:
        """Six hex digits."""
        return f"{self.rng.getrandbits(24):06x}"


def new_ctx(rng: random.Random) -> Ctx:
    """Choose size tier, team, namespace and app name for one object."""
    size = 0 if (roll := rng.random()) < 0.5 else (1 if roll < 0.85 else 2)
    team = TEAMS[rng.randrange(len(TEAMS))]
    namespace = (f"ml-{team}", "ml-serving", "ml-training", "feature-store", f"kubeflow-{team}")[
        rng.randrange(5)
    ]
    app = f"{MODELS[rng.randrange(len(MODELS))]}-{team}"
    return Ctx(rng, size, team, namespace, app)


def labels(ctx: Ctx, component: str) -> Obj:
    """Standard labels (``app.kubernetes.io/*``) plus the team."""
    out: Obj = {
        "app.kubernetes.io/name": ctx.app,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": f"{ctx.team}-platform",
        "app.kubernetes.io/managed-by": ctx.pick(("argocd", "trainops", "helm", "kustomize")),
        "app.kubernetes.io/version": f"{ctx.rng.randint(0, 3)}.{ctx.rng.randint(0, 20)}.{ctx.rng.randint(0, 9)}",
        "team": ctx.team,
    }
    if ctx.chance(0.3):
        out["cost-center"] = f"cc-{ctx.rng.randint(1000, 9999)}"
    return out


def metadata(ctx: Ctx, name: str, component: str, *, namespaced: bool = True) -> Obj:
    """ObjectMeta with labels, sometimes annotations and ``creationTimestamp: null`` (kubectl output)."""
    meta: Obj = {"name": name}
    if namespaced:
        meta["namespace"] = ctx.namespace
    if ctx.chance(0.08):
        meta["creationTimestamp"] = None
    meta["labels"] = labels(ctx, component)
    annotations: Obj = {}
    if ctx.chance(0.4):
        annotations["argocd.argoproj.io/sync-wave"] = str(ctx.rng.randint(-1, 3))
    if ctx.chance(0.3):
        annotations["description"] = f"{component} for {ctx.app}, owned by the {ctx.team} team"
    if ctx.chance(0.2):
        annotations["trainops.dev/spec-hash"] = f"{ctx.rng.getrandbits(64):016x}"
    if annotations:
        meta["annotations"] = annotations
    return meta


def selector_labels(ctx: Ctx, component: str) -> Obj:
    """The two labels selectors use."""
    return {"app.kubernetes.io/name": ctx.app, "app.kubernetes.io/component": component}


# --- containers and pod specs ----------------------------------------------------------------------


def cpu(ctx: Ctx, low: int, high: int) -> str | int:
    """A CPU quantity: ``"500m"``, ``"4"`` or a bare integer (a number is a valid quantity)."""
    cores = ctx.rng.randint(low, high)
    if cores == 0:
        return f"{ctx.pick((100, 250, 500, 750))}m"
    return cores if ctx.chance(0.15) else str(cores)


def resources(ctx: Ctx, gpus: int) -> Obj:
    """Requests and limits; ``nvidia.com/gpu`` when ``gpus`` > 0."""
    memory = f"{ctx.pick((1, 2, 4, 8, 16, 32, 64, 128))}Gi"
    requests: Obj = {"cpu": cpu(ctx, 0, 16), "memory": memory}
    limits: Obj = {"cpu": requests["cpu"], "memory": memory}
    if ctx.chance(0.2):
        requests["ephemeral-storage"] = f"{ctx.pick((10, 20, 50))}Gi"
    if gpus:
        limits["nvidia.com/gpu"] = gpus if ctx.chance(0.5) else str(gpus)
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"]
    return {"limits": limits, "requests": requests}


def env(ctx: Ctx) -> list[Obj]:
    """Environment variables: literals, Secret and ConfigMap references, the downward API.

    Names are unique: ``env`` is a list-map keyed by name (server-side apply rejects duplicates).
    """
    out: list[Obj] = []
    for _ in range(ctx.count(4, 12, 30)):
        roll = ctx.rng.random()
        if roll < 0.6:
            name, values = ctx.pick(ENV_PLAIN)
            item: Obj = {"name": name, "value": ctx.pick(values)}
        elif roll < 0.75:
            item = {
                "name": ctx.pick(("AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "WANDB_API_KEY", "DB_PASSWORD")),
                "valueFrom": {
                    "secretKeyRef": {"name": f"{ctx.team}-credentials", "key": ctx.pick(("token", "key"))}
                },
            }
        elif roll < 0.9:
            item = {
                "name": ctx.pick(("MODEL_NAME", "FEATURE_SET", "EXPERIMENT")),
                "valueFrom": {
                    "configMapKeyRef": {"name": f"{ctx.app}-config", "key": "model", "optional": True}
                },
            }
        else:
            field, name = ctx.pick((("metadata.name", "POD_NAME"), ("status.podIP", "POD_IP")))
            item = {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field}}}
        if all(existing["name"] != item["name"] for existing in out):
            out.append(item)
    return out


def probe(ctx: Ctx, port: int | str) -> Obj:
    """An HTTP, TCP or exec probe with timings."""
    roll = ctx.rng.random()
    if roll < 0.6:
        handler: Obj = {
            "httpGet": {"path": ctx.pick(("/healthz", "/v2/health/ready", "/ping", "/health")), "port": port}
        }
    elif roll < 0.85:
        handler = {"tcpSocket": {"port": port}}
    else:
        handler = {
            "exec": {
                "command": [
                    "python",
                    "-c",
                    "import urllib.request; urllib.request.urlopen('http://localhost:8080/health')",
                ]
            }
        }
    handler["initialDelaySeconds"] = ctx.pick((5, 10, 30, 60, 120))
    handler["periodSeconds"] = ctx.pick((5, 10, 15, 30))
    if ctx.chance(0.5):
        handler["timeoutSeconds"] = ctx.pick((1, 3, 5, 10))
        handler["failureThreshold"] = ctx.pick((3, 5, 30))
    return handler


def container(ctx: Ctx, name: str, image: str, port: int | None, gpus: int, mounts: list[Obj]) -> Obj:
    """A main container with args, ports, env, resources, probes, mounts and a security context."""
    out: Obj = {"name": name, "image": image}
    if ctx.chance(0.6):
        out["imagePullPolicy"] = "IfNotPresent"
    if ctx.chance(0.5):
        out["args"] = [
            f"--model-name={ctx.app}",
            f"--max-batch-size={ctx.pick((8, 16, 32))}",
            *(f"--flag-{i}={ctx.rng.randint(0, 99)}" for i in range(ctx.count(1, 4, 10))),
        ]
    if port is not None:
        ports = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
        if ctx.chance(0.4):
            ports.append({"name": "grpc", "containerPort": port + 1, "protocol": "TCP"})
        if ctx.chance(0.3):
            ports.append({"name": "metrics", "containerPort": 8002})
        out["ports"] = ports
    variables = env(ctx)
    if variables:
        out["env"] = variables
    if ctx.chance(0.2):
        out["envFrom"] = [{"configMapRef": {"name": f"{ctx.app}-env"}}]
    out["resources"] = resources(ctx, gpus)
    if port is not None and ctx.size > 0:
        out["readinessProbe"] = probe(ctx, ctx.pick((port, "http")))
        if ctx.chance(0.7):
            out["livenessProbe"] = probe(ctx, port)
        if ctx.size == 2 and ctx.chance(0.5):
            out["startupProbe"] = probe(ctx, port)
    if mounts:
        out["volumeMounts"] = mounts
    out["securityContext"] = {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": ctx.chance(0.7),
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }
    return out


def volumes(ctx: Ctx, gpus: int) -> tuple[list[Obj], list[Obj]]:
    """(volumes, volumeMounts): model PVC, config, secrets, scratch and ``/dev/shm`` for multi-GPU."""
    vols: list[Obj] = []
    mounts: list[Obj] = []
    if ctx.chance(0.7):
        vols.append(
            {"name": "models", "persistentVolumeClaim": {"claimName": f"{ctx.app}-models", "readOnly": True}}
        )
        mounts.append({"name": "models", "mountPath": "/models", "readOnly": True})
    if ctx.chance(0.5):
        vols.append({"name": "config", "configMap": {"name": f"{ctx.app}-config", "defaultMode": 420}})
        mounts.append({"name": "config", "mountPath": "/etc/model-config"})
    if gpus > 1:
        vols.append({"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{gpus * 16}Gi"}})
        mounts.append({"name": "shm", "mountPath": "/dev/shm"})
    for i in range(ctx.count(1, 2, 4)):
        vols.append({"name": f"scratch-{i}", "emptyDir": {}})
        mounts.append({"name": f"scratch-{i}", "mountPath": f"/scratch/{i}"})
    if ctx.chance(0.3):
        vols.append({"name": "creds", "secret": {"secretName": f"{ctx.team}-credentials"}})
        mounts.append({"name": "creds", "mountPath": "/var/run/secrets/ml", "readOnly": True})
    return vols, mounts


def affinity(ctx: Ctx, component: str) -> Obj:
    """GPU product node affinity plus preferred pod anti-affinity across zones."""
    out: Obj = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "nvidia.com/gpu.product",
                                "operator": "In",
                                "values": list(dict.fromkeys(ctx.pick(GPU_PRODUCTS) for _ in range(2))),
                            }
                        ]
                    }
                ]
            }
        }
    }
    if ctx.size == 2 or ctx.chance(0.4):
        out["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": selector_labels(ctx, component)},
                        "topologyKey": "topology.kubernetes.io/zone",
                    },
                }
            ]
        }
    return out


def pod_spec(ctx: Ctx, component: str, image: str, port: int | None, gpus: int, restart: str | None) -> Obj:
    """A pod spec: main container (+ sidecars, init container), GPU scheduling, volumes."""
    vols, mounts = volumes(ctx, gpus)
    spec: Obj = {}
    if ctx.chance(0.7):
        spec["serviceAccountName"] = f"{ctx.app}-sa"
    if restart:
        spec["restartPolicy"] = restart
    if ctx.chance(0.3) and vols:
        spec["initContainers"] = [
            {
                "name": "fetch-model",
                "image": "amazon/aws-cli:2.17.0",
                "command": ["aws", "s3", "sync", f"s3://ml-models/{ctx.app}", "/models"],
                "volumeMounts": [{"name": vols[0]["name"], "mountPath": "/models"}],
                "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
            }
        ]
    containers = [container(ctx, component, image, port, gpus, mounts)]
    for _ in range(ctx.count(0, 1, 2)):
        name, side_image, side_port = ctx.pick(SIDECARS)
        if all(c["name"] != name for c in containers):
            containers.append(
                {
                    "name": name,
                    "image": side_image,
                    "ports": [{"name": name[:15], "containerPort": side_port}],
                    "resources": {"limits": {"cpu": "200m", "memory": "256Mi"}},
                }
            )
    spec["containers"] = containers
    if vols:
        spec["volumes"] = vols
    if gpus:
        spec["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        if ctx.chance(0.3):
            spec["tolerations"].append(
                {
                    "key": "dedicated",
                    "operator": "Equal",
                    "value": "ml",
                    "effect": "NoExecute",
                    "tolerationSeconds": 3600,
                }
            )
        if ctx.size > 0:
            spec["affinity"] = affinity(ctx, component)
    if ctx.chance(0.3):
        spec["priorityClassName"] = ctx.pick(("ml-high", "ml-batch", "system-cluster-critical"))
    if ctx.chance(0.4):
        spec["terminationGracePeriodSeconds"] = ctx.pick((30, 60, 300))
    spec["securityContext"] = {
        "runAsNonRoot": True,
        "runAsUser": 1000,
        "fsGroup": 1000,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if ctx.size == 2 and ctx.chance(0.5):
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": selector_labels(ctx, component)},
            }
        ]
    return spec


def template(ctx: Ctx, component: str, spec: Obj) -> Obj:
    """A pod template with selector labels and, sometimes, scrape annotations."""
    meta: Obj = {"labels": {**selector_labels(ctx, component), "team": ctx.team}}
    if ctx.chance(0.5):
        meta["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/port": "8002"}
    return {"metadata": meta, "spec": spec}


# --- kinds ------------------------------------------------------------------------------------------


def build_deployment(ctx: Ctx) -> Obj:
    """A model server Deployment (GPU most of the time)."""
    gpus = ctx.pick((0, 1, 1, 1, 2, 4))
    image = ctx.pick(SERVING_IMAGES)
    port = ctx.pick((8000, 8080, 8501))
    spec: Obj = {
        "replicas": ctx.rng.randint(1, 12),
        "revisionHistoryLimit": ctx.pick((3, 5, 10)),
        "selector": {"matchLabels": selector_labels(ctx, "server")},
    }
    if ctx.chance(0.6):
        spec["strategy"] = {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": ctx.pick((1, "25%")), "maxUnavailable": ctx.pick((0, "25%"))},
        }
    spec["template"] = template(ctx, "server", pod_spec(ctx, "server", image, port, gpus, None))
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata(ctx, f"{ctx.app}-server", "server"),
        "spec": spec,
    }


def build_statefulset(ctx: Ctx) -> Obj:
    """A feature store / vector database StatefulSet with volume claim templates."""
    name, image, port = ctx.pick(STATEFUL_IMAGES)
    component = name
    spec: Obj = {
        "serviceName": f"{ctx.app}-{name}",
        "replicas": ctx.pick((1, 3, 5)),
        "podManagementPolicy": ctx.pick(("OrderedReady", "Parallel")),
        "selector": {"matchLabels": selector_labels(ctx, component)},
        "template": template(ctx, component, pod_spec(ctx, component, image, port, 0, None)),
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": ctx.pick(STORAGE_CLASSES),
                    "resources": {"requests": {"storage": f"{ctx.pick((10, 50, 100, 500))}Gi"}},
                },
            }
        ],
    }
    if ctx.chance(0.5):
        spec["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": metadata(ctx, f"{ctx.app}-{name}", component),
        "spec": spec,
    }


def build_job(ctx: Ctx) -> Obj:
    """A training, evaluation or data-preparation Job."""
    kind = ctx.pick(("train", "eval", "preprocess", "backfill"))
    gpus = ctx.pick((1, 2, 4, 8)) if kind in ("train", "eval") else 0
    image = ctx.pick(TRAINING_IMAGES if gpus else DATA_IMAGES)
    pod = pod_spec(ctx, kind, image, None, gpus, ctx.pick(("Never", "OnFailure")))
    pod["containers"][0]["command"] = ["python", "-m", f"{ctx.team}.{kind}", f"--run-id={ctx.suffix()}"]
    spec: Obj = {"backoffLimit": ctx.pick((0, 2, 4, 6))}
    if ctx.chance(0.4):
        spec["completions"] = ctx.pick((1, 4, 8))
        spec["parallelism"] = ctx.pick((1, 2, 4))
        if ctx.chance(0.5):
            spec["completionMode"] = "Indexed"
    if ctx.chance(0.5):
        spec["activeDeadlineSeconds"] = ctx.pick((3600, 86400, 259200))
    if ctx.chance(0.3):
        spec["ttlSecondsAfterFinished"] = 86400
    spec["template"] = template(ctx, kind, pod)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata(ctx, f"{ctx.app}-{kind}-{ctx.suffix()}", kind),
        "spec": spec,
    }


def build_service(ctx: Ctx) -> Obj:
    """A ClusterIP, headless or LoadBalancer Service in front of a model server."""
    component = ctx.pick(("server", "redis", "qdrant"))
    port = ctx.pick((8000, 8080, 8501))
    spec: Obj = {}
    style = ctx.rng.random()
    if style < 0.2:
        spec["clusterIP"] = "None"
    elif style < 0.3:
        spec["type"] = "LoadBalancer"
        spec["externalTrafficPolicy"] = "Local"
    else:
        spec["type"] = "ClusterIP"
    spec["selector"] = selector_labels(ctx, component)
    ports: list[Obj] = [
        {"name": "http", "port": 80, "targetPort": ctx.pick((port, "http")), "protocol": "TCP"}
    ]
    if ctx.chance(0.5):
        ports.append({"name": "grpc", "port": 9000, "targetPort": port + 1, "protocol": "TCP"})
    if ctx.chance(0.4):
        ports.append({"name": "metrics", "port": 8002, "targetPort": "metrics"})
    spec["ports"] = ports
    if ctx.chance(0.1):
        spec["sessionAffinity"] = "ClientIP"
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata(ctx, f"{ctx.app}-{component}", component),
        "spec": spec,
    }


def _config_file(ctx: Ctx) -> str:
    lines = [
        f"model: {ctx.app}",
        f"version: {ctx.rng.randint(1, 40)}",
        "batching:",
        f"  max_batch_size: {ctx.pick((8, 16, 32))}",
        f"  max_queue_delay_ms: {ctx.pick((5, 10, 50))}",
    ]
    for i in range(ctx.count(2, 10, 40)):
        lines.append(f"param_{i}: {ctx.rng.randint(0, 1000)}")
    return "\n".join(lines) + "\n"


def build_configmap(ctx: Ctx) -> Obj:
    """Model and runtime configuration: key/values plus an embedded config file."""
    data: Obj = {
        "model": ctx.app,
        "LOG_LEVEL": ctx.pick(("INFO", "DEBUG")),
        "MAX_BATCH_SIZE": str(ctx.pick((8, 16, 32))),
    }
    for i in range(ctx.count(2, 8, 25)):
        data[f"feature_flag_{i}"] = ctx.pick(("true", "false"))
    data["config.yaml"] = _config_file(ctx)
    if ctx.chance(0.3):
        data["labels.txt"] = "\n".join(f"class_{i}" for i in range(ctx.count(5, 20, 80) + 1)) + "\n"
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(ctx, f"{ctx.app}-config", "config"),
        "data": data,
    }


def build_pvc(ctx: Ctx) -> Obj:
    """A dataset, checkpoint or model PersistentVolumeClaim."""
    purpose = ctx.pick(("datasets", "checkpoints", "models"))
    spec: Obj = {
        "accessModes": [ctx.pick(("ReadWriteOnce", "ReadWriteMany", "ReadOnlyMany"))],
        "storageClassName": ctx.pick(STORAGE_CLASSES),
        "resources": {
            "requests": {"storage": f"{ctx.pick((50, 100, 500, 1000, 2000))}{ctx.pick(('Gi', 'Ti', 'G'))}"}
        },
    }
    if ctx.chance(0.5):
        spec["volumeMode"] = "Filesystem"
    meta = metadata(ctx, f"{ctx.app}-{purpose}", purpose)
    if ctx.chance(0.5):
        meta.setdefault("annotations", {})["argocd.argoproj.io/sync-options"] = "Prune=false,Delete=false"
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def build_hpa(ctx: Ctx) -> Obj:
    """An autoscaling/v2 HorizontalPodAutoscaler on CPU, memory and a queue-depth pods metric."""
    metrics: list[Obj] = [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": ctx.pick((60, 70, 80))},
            },
        }
    ]
    if ctx.chance(0.5):
        metrics.append(
            {
                "type": "Resource",
                "resource": {
                    "name": "memory",
                    "target": {"type": "AverageValue", "averageValue": f"{ctx.pick((4, 6, 12))}Gi"},
                },
            }
        )
    if ctx.chance(0.5):
        metrics.append(
            {
                "type": "Pods",
                "pods": {
                    "metric": {
                        "name": ctx.pick(("inference_queue_depth", "nv_inference_pending_request_count"))
                    },
                    "target": {"type": "AverageValue", "averageValue": str(ctx.pick((10, 30, 100)))},
                },
            }
        )
    spec: Obj = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": f"{ctx.app}-server"},
        "minReplicas": ctx.pick((1, 2, 3)),
        "maxReplicas": ctx.pick((10, 20, 50)),
        "metrics": metrics,
    }
    if ctx.chance(0.5):
        spec["behavior"] = {
            "scaleDown": {
                "stabilizationWindowSeconds": 300,
                "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}],
            },
            "scaleUp": {
                "policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}],
                "selectPolicy": "Max",
            },
        }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": metadata(ctx, f"{ctx.app}-server", "autoscaler"),
        "spec": spec,
    }


def build_namespace(ctx: Ctx) -> Obj:
    """A team Namespace with pod-security labels."""
    meta = metadata(ctx, ctx.namespace, "namespace", namespaced=False)
    meta["labels"]["pod-security.kubernetes.io/enforce"] = ctx.pick(("restricted", "baseline"))
    meta["labels"]["kueue.x-k8s.io/queue-enabled"] = "true"
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def build_serviceaccount(ctx: Ctx) -> Obj:
    """A workload ServiceAccount with a cloud IAM annotation."""
    meta = metadata(ctx, f"{ctx.app}-sa", "identity")
    meta.setdefault("annotations", {})
    if ctx.chance(0.5):
        meta["annotations"]["eks.amazonaws.com/role-arn"] = f"arn:aws:iam::123456789012:role/{ctx.app}"
    else:
        meta["annotations"]["iam.gke.io/gcp-service-account"] = f"{ctx.app}@ml-prod.iam.gserviceaccount.com"
    out: Obj = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}
    if ctx.chance(0.5):
        out["automountServiceAccountToken"] = False
    if ctx.chance(0.4):
        out["imagePullSecrets"] = [{"name": "registry-credentials"}]
    return out


def build_networkpolicy(ctx: Ctx) -> Obj:
    """Ingress from the gateway and Prometheus, egress to object storage and DNS."""
    spec: Obj = {
        "podSelector": {"matchLabels": selector_labels(ctx, "server")},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [
                    {
                        "namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": "ingress-gateway"}
                        }
                    },
                    {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}},
                ],
                "ports": [{"protocol": "TCP", "port": ctx.pick((8000, 8080, "http"))}],
            }
        ],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.96.0.0/12"]}}],
                "ports": [{"protocol": "TCP", "port": 443}],
            },
            {
                "ports": [
                    {"protocol": "UDP", "port": 53},
                    {"protocol": "TCP", "port": 30000, "endPort": 32767},
                ]
            },
        ],
    }
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": metadata(ctx, f"{ctx.app}-server", "network"),
        "spec": spec,
    }


def build_pdb(ctx: Ctx) -> Obj:
    """A policy/v1 PodDisruptionBudget for a model server."""
    spec: Obj = {}
    if ctx.chance(0.5):
        spec["minAvailable"] = ctx.pick((1, 2, "50%"))
    else:
        spec["maxUnavailable"] = ctx.pick((1, "25%"))
    spec["selector"] = {"matchLabels": selector_labels(ctx, "server")}
    if ctx.chance(0.3):
        spec["selector"]["matchExpressions"] = [{"key": "team", "operator": "In", "values": [ctx.team]}]
    if ctx.chance(0.3):
        spec["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": metadata(ctx, f"{ctx.app}-server", "disruption-budget"),
        "spec": spec,
    }


def build_pytorchjob(ctx: Ctx) -> Obj:
    """A Kubeflow Training Operator v1 PyTorchJob (Master + Workers, sometimes elastic)."""
    gpus = ctx.pick((1, 2, 4, 8))
    image = ctx.pick(TRAINING_IMAGES)

    def replica(count: int) -> Obj:
        pod = pod_spec(ctx, "pytorch", image, None, gpus, None)
        pod["containers"][0]["name"] = "pytorch"
        pod["containers"][0]["command"] = ["torchrun", f"--nproc-per-node={gpus}", "train.py"]
        return {"replicas": count, "restartPolicy": "OnFailure", "template": template(ctx, "trainer", pod)}

    spec: Obj = {"pytorchReplicaSpecs": {"Master": replica(1), "Worker": replica(ctx.pick((1, 3, 7)))}}
    if ctx.chance(0.3):
        spec["nprocPerNode"] = str(gpus)
    spec["runPolicy"] = {"backoffLimit": 3, "cleanPodPolicy": "Running", "activeDeadlineSeconds": 259200}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": metadata(ctx, f"{ctx.app}-ddp-{ctx.suffix()}", "trainer"),
        "spec": spec,
    }


def build_servicemonitor(ctx: Ctx) -> Obj:
    """A prometheus-operator ServiceMonitor scraping a model server."""
    endpoints: list[Obj] = [
        {"port": "metrics", "interval": ctx.pick(("15s", "30s", "1m")), "path": "/metrics", "scheme": "http"}
    ]
    if ctx.chance(0.3):
        endpoints.append({"port": "http", "interval": "30s", "path": "/monitoring/prometheus/metrics"})
    meta = metadata(ctx, f"{ctx.app}-server", "monitoring")
    meta["labels"]["release"] = "kube-prometheus-stack"
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": meta,
        "spec": {
            "endpoints": endpoints,
            "namespaceSelector": {"matchNames": [ctx.namespace]},
            "selector": {"matchLabels": selector_labels(ctx, "server")},
        },
    }


Builder = Callable[[Ctx], Obj]

#: Core kinds and their relative frequency in the corpus.
CORE_KINDS: dict[str, tuple[Builder, int]] = {
    "Deployment": (build_deployment, 18),
    "Service": (build_service, 15),
    "ConfigMap": (build_configmap, 12),
    "Job": (build_job, 10),
    "PersistentVolumeClaim": (build_pvc, 8),
    "HorizontalPodAutoscaler": (build_hpa, 7),
    "ServiceAccount": (build_serviceaccount, 7),
    "NetworkPolicy": (build_networkpolicy, 6),
    "PodDisruptionBudget": (build_pdb, 6),
    "StatefulSet": (build_statefulset, 5),
    "Namespace": (build_namespace, 3),
}
#: CRD kinds (a smaller, separate share; not part of the headline number).
CRD_KINDS: dict[str, tuple[Builder, int]] = {
    "PyTorchJob": (build_pytorchjob, 3),
    "ServiceMonitor": (build_servicemonitor, 2),
}
