"""Rule behaviour on small snippets, each with the complete expected findings of one rule: the edge
cases the fixtures do not show (where pods nest, Katib placeholders, options, facts, waivers)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.policy.test_policy_rules import FACTS, lines, run_rule

KATIB_TEMPLATED = """\
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: tune-3f2a1b, namespace: ml}
spec:
  trialTemplate:
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            containers:
            - name: train
              image: "${trialParameters.image}"
              resources: {limits: {nvidia.com/gpu: "${trialParameters.gpus}", memory: 4Gi}}
"""

TRAINJOB_OVERRIDE = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj-3f2a1b, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  podTemplateOverrides:
  - targetJobs: [{name: node}]
    spec:
      containers:
      - name: node
        securityContext: {privileged: true}
"""

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                hostNetwork: true
                containers: [{name: node, image: "pytorch/pytorch:latest"}]
"""

RAY_AND_SELDON = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray, namespace: ml}
spec:
  headGroupSpec:
    template:
      spec:
        containers: [{name: head, image: rayproject/ray:2.9.0}]
  workerGroupSpecs:
  - groupName: gpu
    template:
      spec:
        containers: [{name: worker, image: rayproject/ray:2.9.0, securityContext: {privileged: true}}]
---
apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: seldon, namespace: ml}
spec:
  predictors:
  - name: default
    componentSpecs:
    - spec:
        containers: [{name: classifier, image: seldonio/mock:1.0, securityContext: {privileged: true}}]
"""

WAIVED_CROSS = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
  namespace: ml
  annotations: {trainops.dev/waive-pvc-exists: "claim created by the data team's pipeline"}
spec:
  containers: [{name: train, image: registry.example.com/train:1.0}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: nowhere}}]
"""


@pytest.mark.parametrize(
    ("rule_id", "text", "options", "expected"),
    [
        pytest.param("image-pinned", KATIB_TEMPLATED, {}, [], id="image-placeholder-skipped"),
        pytest.param("valid-quantities", KATIB_TEMPLATED, {}, [], id="quantity-placeholder-skipped"),
        pytest.param(
            "no-privileged",
            TRAINJOB_OVERRIDE,
            {},
            [
                "11: TrainJob/tj-3f2a1b $.spec.podTemplateOverrides[0].spec.containers[0].securityContext.privileged: "
                'container "node" runs privileged'
            ],
            id="trainjob-override",
        ),
        pytest.param(
            "no-host-namespaces",
            RUNTIME,
            {},
            [
                "13: ClusterTrainingRuntime/torch-distributed "
                "$.spec.template.spec.replicatedJobs[0].template.spec.template.spec.hostNetwork: "
                "pod uses the node's namespace: hostNetwork: true"
            ],
            id="training-runtime",
        ),
        pytest.param(
            "image-pinned",
            RUNTIME,
            {},
            [
                "14: ClusterTrainingRuntime/torch-distributed "
                "$.spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image: "
                'container "node" image pytorch/pytorch:latest is tagged latest'
            ],
            id="latest-in-runtime",
        ),
        pytest.param(
            "image-pinned",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: 'r.io/x:1.0'}]\n",
            {"require-digest": True},
            [
                '5: Pod/p $.spec.containers[0].image: container "c" image r.io/x:1.0 has no digest (require-digest)'
            ],
            id="require-digest-option",
        ),
        pytest.param(
            "no-host-path",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: r/x:1}]\n"
            "  volumes:\n  - {name: drv, hostPath: {path: /usr/local/nvidia/lib64}}\n"
            "  - {name: sock, hostPath: {path: /var/run/docker.sock}}\n",
            {"allowed-paths": ["/usr/local/nvidia", "/var/run"]},
            [
                '8: Pod/p $.spec.volumes[1].hostPath.path: volume "sock" mounts the container runtime at '
                "hostPath /var/run/docker.sock"
            ],
            id="allow-list-never-allows-sockets",
        ),
        pytest.param("pvc-exists", WAIVED_CROSS, {}, [], id="cross-object-finding-waived"),
        pytest.param(
            "no-privileged",
            RAY_AND_SELDON,
            {},
            [
                "13: RayCluster/ray $.spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.privileged: "
                'container "worker" runs privileged',
                "23: SeldonDeployment/seldon "
                "$.spec.predictors[0].componentSpecs[0].spec.containers[0].securityContext.privileged: "
                'container "classifier" runs privileged',
            ],
            id="ray-and-seldon-pods",
        ),
        pytest.param(
            "resource-caps",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: r/x:1\n"
            "    resources: {limits: {nvidia.com/gpu: '4'}}\n",
            {"max-gpus": 2},
            [
                "8: Pod/p $.spec.containers[0].resources.limits['nvidia.com/gpu']: "
                'container "c" limits.nvidia.com/gpu 4 exceeds the cap 2'
            ],
            id="gpu-cap-option",
        ),
        pytest.param(
            "kueue-queue",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: ml-queued\n"
            "  labels: {kueue.x-k8s.io/queue-name: gpu-queue}\nspec: {}\n",
            {},
            [],
            id="external-queue-from-facts",
        ),
    ],
)
def test_rule_on_snippet(rule_id: str, text: str, options: dict[str, Any], expected: list[str]) -> None:
    assert lines(run_rule(rule_id, text, options=options)) == expected


@pytest.mark.parametrize(
    ("facts_change", "expected"),
    [
        pytest.param(
            {},
            [
                "4: PyTorchJob/j $.spec.runPolicy.schedulingPolicy: job of 3 pods sets no "
                "runPolicy.schedulingPolicy (volcano gang scheduling)"
            ],
            id="gang-scheduler",
        ),
        pytest.param({"gang_scheduler": None, "kueue": None}, [], id="nothing-known"),
        pytest.param(
            {"gang_scheduler": None, "kueue": True},
            [
                "3: PyTorchJob/j $.metadata.labels: job of 3 pods has no kueue.x-k8s.io/queue-name label: Kueue "
                "does not admit it and the cluster declares no gang scheduler, so its pods may start one by one"
            ],
            id="kueue-without-queue",
        ),
        pytest.param(
            {"gang_scheduler": None, "kueue": False},
            [
                "3: PyTorchJob/j $.metadata.labels: job of 3 pods on a cluster with neither Kueue nor a gang "
                "scheduler: its pods may start one by one"
            ],
            id="neither",
        ),
    ],
)
def test_gang_scheduling_depends_on_the_cluster(facts_change: dict[str, Any], expected: list[str]) -> None:
    text = (
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: j}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Worker: {replicas: 3, template: {spec: {containers: [{name: pytorch, image: r/x:1}]}}}\n"
    )
    assert lines(run_rule("gang-scheduling", text, facts=replace(FACTS, **facts_change))) == expected
