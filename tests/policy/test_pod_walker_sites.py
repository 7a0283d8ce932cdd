"""Pod rules see every pod spec and container issue 26 found unwalked, with the JSON path of each
finding: KServe ``predictor.model`` and framework specs, TrainJob ``spec.trainer``/``spec.initializer``,
LLMInferenceService, ServingRuntime, LeaderWorkerSet, Argo Workflow templates, RayService,
Notebook and v1alpha1 MPIJob ``spec.template`` (and what a patch leaves out is not flagged)."""

from __future__ import annotations

import pytest

from tests.policy.test_policy_rules import lines, run_rule

PRIVILEGED = "securityContext: {privileged: true}"

CASES = [
    (
        "isvc-model",
        """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: m}
spec:
  predictor:
    model:
      modelFormat: {name: sklearn}
      storageUri: gs://bucket/model
      securityContext: {privileged: true}
""",
        "$.spec.predictor.model.securityContext.privileged",
    ),
    (
        "isvc-framework",
        """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: m}
spec:
  predictor:
    pytorch:
      storageUri: gs://bucket/model
      securityContext: {privileged: true}
""",
        "$.spec.predictor.pytorch.securityContext.privileged",
    ),
    (
        "llmisvc",
        """
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: m}
spec:
  model: {uri: hf://facebook/opt-125m}
  template:
    containers: [{name: main, image: vllm/vllm-openai:v0.9.0, securityContext: {privileged: true}}]
""",
        "$.spec.template.containers[0].securityContext.privileged",
    ),
    (
        "serving-runtime",
        """
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata: {name: rt}
spec:
  supportedModelFormats: [{name: sklearn}]
  containers: [{name: kserve-container, image: kserve/sklearnserver:v0.14.0, securityContext: {privileged: true}}]
""",
        "$.spec.containers[0].securityContext.privileged",
    ),
    (
        "leaderworkerset",
        """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers: [{name: w, image: vllm/vllm-openai:v0.9.0, securityContext: {privileged: true}}]
""",
        "$.spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].securityContext.privileged",
    ),
    (
        "argo-workflow",
        """
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: wf}
spec:
  entrypoint: main
  templates:
  - name: main
    container: {image: python:3.12, command: [python], securityContext: {privileged: true}}
""",
        "$.spec.templates[0].container.securityContext.privileged",
    ),
    (
        "argo-sidecar",
        """
apiVersion: argoproj.io/v1alpha1
kind: WorkflowTemplate
metadata: {name: wf}
spec:
  templates:
  - name: main
    script: {image: python:3.12, source: print(1)}
    sidecars: [{name: s, image: nginx:1.27, securityContext: {privileged: true}}]
""",
        "$.spec.templates[0].sidecars[0].securityContext.privileged",
    ),
    (
        "rayservice",
        """
apiVersion: ray.io/v1
kind: RayService
metadata: {name: rs}
spec:
  rayClusterConfig:
    headGroupSpec:
      template:
        spec:
          containers: [{name: head, image: rayproject/ray:2.9.0, securityContext: {privileged: true}}]
""",
        "$.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].securityContext.privileged",
    ),
    (
        "notebook",
        """
apiVersion: kubeflow.org/v1
kind: Notebook
metadata: {name: nb}
spec:
  template:
    spec:
      containers: [{name: nb, image: kubeflownotebookswg/jupyter:v1.9.0, securityContext: {privileged: true}}]
""",
        "$.spec.template.spec.containers[0].securityContext.privileged",
    ),
    (
        "mpijob-v1alpha1",
        """
apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata: {name: mpi}
spec:
  gpus: 2
  template:
    spec:
      containers: [{name: mpi, image: mpioperator/tensorflow-benchmarks:0.1, securityContext: {privileged: true}}]
""",
        "$.spec.template.spec.containers[0].securityContext.privileged",
    ),
]


@pytest.mark.parametrize(("text", "path"), [(t, p) for _, t, p in CASES], ids=[n for n, _, _ in CASES])
def test_no_privileged_reaches_the_container(text: str, path: str) -> None:
    found = run_rule("no-privileged", text)
    assert [f.path for f in found] == [path]


TRAINJOB = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t}
spec:
  runtimeRef: {name: torch-distributed}
  initializer:
    model:
      storageUri: hf://meta-llama/Llama-3.2-1B
      env: [{name: HF_TOKEN, value: hf_abc}]
  trainer:
    image: docker.io/kubeflow/pytorch-mnist:latest
    numNodes: 2
"""


def test_trainjob_trainer_image_is_pinned() -> None:
    """Issue 26: a ``:latest`` trainer image in a TrainJob got no finding."""
    assert lines(run_rule("image-pinned", TRAINJOB)) == [
        '12: TrainJob/t $.spec.trainer.image: container "trainer" image docker.io/kubeflow/pytorch-mnist:latest '
        "is tagged latest"
    ]


def test_trainjob_initializer_env_is_checked() -> None:
    found = run_rule("no-secret-literals", TRAINJOB)
    assert [f.path for f in found] == ["$.spec.initializer.model.env[0].value"]


@pytest.mark.parametrize(
    "rule_id",
    [
        "no-privilege-escalation",
        "run-as-non-root",
        "drop-capabilities",
        "seccomp-profile",
        "read-only-root-fs",
    ],
)
def test_a_patch_leaves_security_settings_to_the_runtime(rule_id: str) -> None:
    """``spec.trainer`` overrides the runtime's container: it has no securityContext field at all, so
    the runtime's settings hold and nothing is missing."""
    assert run_rule(rule_id, TRAINJOB) == []


def test_a_patch_still_fails_an_explicit_bad_value() -> None:
    text = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t}
spec:
  runtimeRef: {name: torch-distributed}
  podTemplateOverrides:
  - targetJobs: [{name: node}]
    spec:
      containers: [{name: node, securityContext: {allowPrivilegeEscalation: true, runAsUser: 0}}]
"""
    assert [f.path for f in run_rule("no-privilege-escalation", text)] == [
        "$.spec.podTemplateOverrides[0].spec.containers[0].securityContext.allowPrivilegeEscalation"
    ]
    assert [f.path for f in run_rule("run-as-non-root", text)] == [
        "$.spec.podTemplateOverrides[0].spec.containers[0].securityContext.runAsUser"
    ]
