"""False alarms and harmful advice issue 26 found, each on the upstream example that showed it
(``../shared/examples``), with the findings the fixed rule gives:

- sync-waves no longer tells a PVC to go to an earlier wave than its Deployment (Argo CD orders
  PVCs first within a wave; an earlier wave deadlocks WaitForFirstConsumer claims, argo-cd issue
  12840): the WordPress tutorial passes; a claim in a later wave than its pods is flagged;
- probes asks for a startupProbe only on model servers, not on nginx or redis;
- run-policy judges mpi-operator's v1alpha1 MPIJob by the fields it has (no runPolicy);
- checkpoint-volume accepts an object-store checkpoint location (no upstream example writes one:
  the case is the shape the Kubeflow and DeepSpeed docs describe);
- gpu-limits leaves a DRA extended resource (``example.com/gpu``) alone and reports a wrong GPU
  name once per container, not per section;
- replica-restart-policy says why an explicit ``Never`` is refused.
"""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, needs_shared
from tests.policy.test_policy_rules import lines, run_rule

pytestmark = needs_shared


def _example(path: str) -> str:
    return (EXAMPLES / path).read_text(encoding="utf-8")


def test_sync_waves_leaves_a_pvc_in_its_deployments_wave() -> None:
    text = _example("k8s-website/content/en/examples/application/wordpress/wordpress-deployment.yaml")
    assert run_rule("sync-waves", text) == []


@pytest.mark.parametrize(
    ("path", "container"),
    [
        ("k8s-website/content/en/examples/application/deployment.yaml", "nginx"),
        ("kserve/docs/samples/v1beta1/transformer/feast/redis.yaml", "redis-server"),
    ],
)
def test_probes_ask_no_startup_probe_of_nginx_or_redis(path: str, container: str) -> None:
    found = run_rule("probes", _example(path))
    assert sorted(f.message for f in found) == [
        f'container "{container}" has no livenessProbe',
        f'container "{container}" has no readinessProbe',
    ]


def test_probes_still_ask_a_startup_probe_of_a_model_server() -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve}
spec:
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.9.0
        args: [--model=facebook/opt-125m]
        ports: [{name: http, containerPort: 8000}]
        readinessProbe: {httpGet: {path: /health, port: http}}
        livenessProbe: {httpGet: {path: /health, port: http}}
"""
    assert [f.message for f in run_rule("probes", text)] == ['container "vllm" has no startupProbe']


def test_run_policy_judges_a_v1alpha1_mpijob_by_its_own_fields() -> None:
    text = _example("mpi-operator-legacy/examples/v1alpha1/tensorflow-benchmarks-imagenet.yaml")
    assert lines(run_rule("run-policy", text)) == [
        "10: MPIJob/tensorflow-benchmarks-imagenet $.spec.activeDeadlineSeconds: spec.activeDeadlineSeconds is unset"
    ]


def _pytorchjob(container: str) -> str:
    return f"""
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: bert}}
spec:
  runPolicy: {{backoffLimit: 3}}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example.com/train:1.0
{container}
"""


@pytest.mark.parametrize(
    ("container", "flagged"),
    [
        ("            args: [--checkpoint-dir=s3://ckpt/bert]", False),
        ("            args: [--output_dir, gs://ckpt/bert]", False),
        (
            "            env: [{name: CHECKPOINT_DIR, value: 'abfss://ckpt@acct.dfs.core.windows.net/bert'}]",
            False,
        ),
        ("            args: [--dataset=s3://data/wiki]", True),
        ("            args: [--checkpoint-dir=/tmp/ckpt]", True),
    ],
)
def test_checkpoint_volume_accepts_an_object_store(container: str, flagged: bool) -> None:
    assert bool(run_rule("checkpoint-volume", _pytorchjob(container))) == flagged


def test_gpu_limits_leaves_a_dra_extended_resource_alone() -> None:
    text = _example("kueue/site/static/examples/dra/sample-dra-extended-resource-job.yaml")
    assert run_rule("gpu-limits", text) == []


def test_gpu_limits_reports_a_wrong_gpu_name_once() -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: train
    image: registry.example.com/train:1.0
    resources: {requests: {amd.com/gpu: "1"}, limits: {amd.com/gpu: "1"}}
"""
    assert [f.path for f in run_rule("gpu-limits", text)] == [
        "$.spec.containers[0].resources.limits['amd.com/gpu']"
    ]


def test_replica_restart_policy_says_why_never_is_refused() -> None:
    text = _example("training-operator/examples/xgboost/xgboostjob.yaml")
    assert [f.message for f in run_rule("replica-restart-policy", text)] == [
        "Master restartPolicy is Never (one crashed, OOM-killed or evicted pod fails the whole job, no restart); "
        "want OnFailure or ExitCode",
    ]
