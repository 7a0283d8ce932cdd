"""Rule fixes found by running the pack over real input (../shared/examples and ../shared/seeds):
each case is the shape upstream writes, with the findings the fixed rule gives (``[]``: none).

- image-pinned: ``latest-gpu`` (seed 003's TFJob) is as moving as ``latest``;
- elastic-bounds: an elastic PyTorchJob whose Worker starts ``python train.py`` never joins the
  rendezvous (seed 004); torchrun, ``python -m torch.distributed.run`` and an unset command pass;
- same-image: the CPU and GPU builds of one image (TFJob PS vs Worker, Kubeflow's tf-smoke-gpu);
- replica-restart-policy: an unset MPI launcher policy is defaulted by both operators (mpi-operator
  examples);
- resource-requests / memory-limits: KServe's webhook fills an InferenceService container's
  requests and limits (kserve/docs/samples/v1beta1/custom/simple.yaml);
- namespace-set / standard-labels: kind's cluster config is a tool's file, not an object;
- graceful-rollout: ``Recreate`` is right for one replica on a PersistentVolumeClaim (MySQL tutorial).
- run-policy: mpi-operator v2beta1 gives an unset backoffLimit to its launcher Job (default 6).
- servicemonitor-target: a monitor that selects nothing names the Service it was meant for and what
  keeps it out (seed 003: selected by its pods' labels, other namespace, unnamed port).
"""

from __future__ import annotations

import pytest

from tests.policy.test_policy_rules import run_rule


def _elastic(command: str) -> str:
    return f"""
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: train}}
spec:
  elasticPolicy: {{minReplicas: 1, maxReplicas: 4, rdzvBackend: c10d, maxRestarts: 3}}
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/train:1.0
{command}
"""


def _pod(image: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers: [{{name: main, image: "{image}"}}]
"""


def _tfjob(ps: str, worker: str) -> str:
    return f"""
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {{name: tf}}
spec:
  tfReplicaSpecs:
    PS:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers: [{{name: tensorflow, image: "{ps}"}}]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers: [{{name: tensorflow, image: "{worker}"}}]
"""


MPIJOB = """
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: launcher, image: registry.example.com/mpi:1.0}]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers: [{name: worker, image: registry.example.com/mpi:1.0}]
"""

ISVC = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: custom}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: registry.example.com/serve:1.0
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve}
spec:
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec:
      containers: [{name: serve, image: registry.example.com/serve:1.0}]
"""

CASES = [
    pytest.param(
        "image-pinned",
        _pod("tensorflow/tensorflow:latest-gpu"),
        ['container "main" image tensorflow/tensorflow:latest-gpu is tagged latest-gpu'],
        id="image-pinned-latest-gpu",
    ),
    pytest.param(
        "image-pinned",
        _pod("nvcr.io/nvidia/pytorch:gpu-latest"),
        ['container "main" image nvcr.io/nvidia/pytorch:gpu-latest is tagged gpu-latest'],
        id="image-pinned-gpu-latest",
    ),
    pytest.param("image-pinned", _pod("tensorflow/tensorflow:2.15.0-gpu"), [], id="image-pinned-version-gpu"),
    pytest.param(
        "elastic-bounds",
        _elastic("            command: [python, train.py, --epochs=100]"),
        [
            'elastic job, but Worker container "pytorch" starts with "python train.py --epochs=100", not torchrun'
        ],
        id="elastic-python",
    ),
    pytest.param(
        "elastic-bounds",
        _elastic("            command: [torchrun, --nproc-per-node=4, train.py]"),
        [],
        id="torchrun",
    ),
    pytest.param(
        "elastic-bounds",
        _elastic("            command: [python, -m, torch.distributed.run, train.py]"),
        [],
        id="torch-distributed-run",
    ),
    pytest.param(
        "elastic-bounds",
        _elastic('            command: [sh, -c, "pip install -r req.txt && torchrun train.py"]'),
        [],
        id="torchrun-in-shell",
    ),
    pytest.param("elastic-bounds", _elastic(""), [], id="entrypoint-not-judged"),
    pytest.param(
        "same-image",
        _tfjob("tensorflow/tensorflow:2.15.0", "tensorflow/tensorflow:2.15.0-gpu"),
        [],
        id="tag-variant",
    ),
    pytest.param(
        "same-image",
        _tfjob("gcr.io/kubeflow/tf-benchmarks-cpu:v1", "gcr.io/kubeflow/tf-benchmarks-gpu:v1"),
        [],
        id="repository-variant",
    ),
    pytest.param(
        "same-image",
        _tfjob("tensorflow/tensorflow:2.14.0", "tensorflow/tensorflow:2.15.0-gpu"),
        ["Worker image tensorflow/tensorflow:2.15.0-gpu differs from PS image tensorflow/tensorflow:2.14.0"],
        id="other-version-still-found",
    ),
    pytest.param("replica-restart-policy", MPIJOB, [], id="mpi-launcher-defaulted"),
    pytest.param("resource-requests", ISVC, [], id="kserve-defaults-requests"),
    pytest.param("memory-limits", ISVC, [], id="kserve-defaults-limits"),
    pytest.param(
        "resource-requests",
        DEPLOYMENT,
        ['container "serve" sets no cpu request', 'container "serve" sets no memory request'],
        id="deployment-still-found",
    ),
]


@pytest.mark.parametrize(("rule_id", "text", "messages"), CASES)
def test_fixed_rule(rule_id: str, text: str, messages: list[str]) -> None:
    assert sorted(f.message for f in run_rule(rule_id, text)) == sorted(messages)


KIND_CONFIG = """
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
- role: control-plane
"""

KUBELET_CONFIG = """
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
maxPods: 110
"""


@pytest.mark.parametrize("text", [KIND_CONFIG, KUBELET_CONFIG], ids=["kind-cluster", "kubelet-config"])
@pytest.mark.parametrize("rule_id", ["namespace-set", "standard-labels"])
def test_tool_configs_are_not_objects(rule_id: str, text: str) -> None:
    """kueue's multikueue/dev/*-kind-config.yaml: a kind cluster config has no namespace or labels to set."""
    assert run_rule(rule_id, text) == []


def test_objects_of_every_kind_still_checked() -> None:
    assert [f.message for f in run_rule("namespace-set", DEPLOYMENT)] == [
        "Deployment sets no metadata.namespace"
    ]


def _recreate(replicas: int, volume: str) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: mysql}}
spec:
  replicas: {replicas}
  strategy: {{type: Recreate}}
  selector: {{matchLabels: {{app: mysql}}}}
  template:
    metadata: {{labels: {{app: mysql}}}}
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{{name: mysql, image: mysql:9.1}}]
      volumes: [{{name: data, {volume}}}]
"""


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        pytest.param(
            _recreate(1, "persistentVolumeClaim: {claimName: data}"), [], id="single-replica-with-claim"
        ),
        pytest.param(
            _recreate(2, "persistentVolumeClaim: {claimName: data}"),
            ["strategy Recreate stops every pod before starting new ones"],
            id="two-replicas",
        ),
        pytest.param(
            _recreate(1, "emptyDir: {}"),
            ["strategy Recreate stops every pod before starting new ones"],
            id="no-claim",
        ),
    ],
)
def test_recreate_for_a_single_stateful_pod(text: str, messages: list[str]) -> None:
    """k8s-website application/mysql/mysql-deployment.yaml: one replica on a ReadWriteOnce claim must Recreate."""
    assert [f.message for f in run_rule("graceful-rollout", text)] == messages


def _mpijob(api_version: str) -> str:
    return f"""
apiVersion: {api_version}
kind: MPIJob
metadata: {{name: pi}}
spec:
  runPolicy: {{cleanPodPolicy: Running, activeDeadlineSeconds: 3600}}
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers: [{{name: launcher, image: registry.example.com/mpi:1.0}}]
"""


@pytest.mark.parametrize(
    ("api_version", "messages"),
    [
        pytest.param("kubeflow.org/v2beta1", [], id="mpi-operator-launcher-job-defaults-6"),
        pytest.param(
            "kubeflow.org/v1", ["runPolicy.backoffLimit is unset"], id="training-operator-unbounded"
        ),
    ],
)
def test_mpi_operator_backoff_limit_is_defaulted(api_version: str, messages: list[str]) -> None:
    """mpi-operator/examples/v2beta1/pi/pi.yaml: the launcher Job's backoffLimit defaults to 6."""
    assert [f.message for f in run_rule("run-policy", _mpijob(api_version))] == messages


MONITORED = """
apiVersion: v1
kind: Service
metadata: {name: model-serving, namespace: serving}
spec:
  selector: {app: model-serving}
  ports: [{port: 8501, targetPort: 8501}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: model-serving, namespace: NAMESPACE}
spec:
  selector: {matchLabels: {app: model-serving}}
  endpoints: [{port: metrics}]
"""


@pytest.mark.parametrize(
    ("namespace", "hint"),
    [
        pytest.param(
            "serving",
            "Service serving/model-serving selects pods by app=model-serving but carries no labels; "
            "has no port named metrics",
            id="same-namespace",
        ),
        pytest.param(
            "monitoring",
            "Service serving/model-serving selects pods by app=model-serving but carries no labels; "
            "is in namespace serving, which the monitor does not watch; has no port named metrics",
            id="other-namespace",
        ),
    ],
)
def test_servicemonitor_names_the_service_it_misses(namespace: str, hint: str) -> None:
    """Seed 003: a ServiceMonitor selecting its Service by the pods' labels, which the Service lacks."""
    found = run_rule("servicemonitor-target", MONITORED.replace("NAMESPACE", namespace))
    assert [f.message for f in found] == [
        f"ServiceMonitor selects no Service in the namespaces it watches ({hint})"
    ]
