"""API-server parity (issue 14): mutations of upstream examples that kube-apiserver v1.36.2 rejects
(server-side dry run, ``fieldValidation=Strict``, ../shared/oracle) are caught with the exact finding;
near-miss mutations the server accepts raise nothing.

Every case names the server's answer (``server``) as the oracle gave it. The base documents are read
from ../shared/examples at test time; each must validate clean first (no false alarm).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.findings import Finding
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_document
from trainops.yaml.load import load_file, load_text

pytestmark = needs_shared

Doc = dict[str, Any]
Step = str | int


def _strip_status(doc: Doc) -> None:
    doc.pop("status", None)


def _hpa_v2(doc: Doc) -> None:
    doc["apiVersion"] = "autoscaling/v2"
    doc.pop("status", None)


#: name → (file under ../shared/examples, document index, fix-up making it a current, valid object).
BASES: dict[str, tuple[str, int, Callable[[Doc], None]]] = {
    "pod": ("k8s-website/content/en/examples/pods/resource/cpu-request-limit.yaml", 0, _strip_status),
    "deployment": ("k8s-website/content/en/examples/application/deployment.yaml", 0, _strip_status),
    "service": ("k8s-website/content/en/examples/service/nginx-service.yaml", 0, _strip_status),
    "pvc": ("k8s-website/content/en/examples/pods/storage/expandable-pvc.yaml", 0, _strip_status),
    "cronjob": ("kueue/site/static/examples/jobs/sample-cronjob.yaml", 0, _strip_status),
    "pdb": (
        "k8s-website/content/en/examples/policy/zookeeper-pod-disruption-budget-maxunavailable.yaml",
        0,
        _strip_status,
    ),
    "hpa": (
        "k8s-website/content/en/docs/tasks/run-application/horizontal-pod-autoscale-walkthrough.md.block-01.yaml",
        0,
        _hpa_v2,
    ),
    "configmap": ("argo-cd/docs/operator-manual/argocd-cmd-params-cm.yaml", 0, _strip_status),
    "pytorchjob": ("training-operator/examples/pytorch/simple.yaml", 0, _strip_status),
}

DELETE = object()


@dataclass(frozen=True)
class Case:
    """One mutation: ``changes`` (path → value, :data:`DELETE` removes the key) applied to a base."""

    id: str
    base: str
    changes: tuple[tuple[tuple[Step, ...], Any], ...]
    path: str
    keyword: str | None
    message: str
    server: str
    rule: str = "api-server"


C0 = ("spec", "containers", 0)
T0 = ("spec", "template", "spec", "containers", 0)
W0 = ("spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers", 0)

REJECTED: list[Case] = [
    # --- pod and container fields (pkg/apis/core/validation) -----------------------------------
    Case(
        "port-protocol",
        "deployment",
        (((*T0, "ports", 0, "protocol"), "tcp"),),
        "$.spec.template.spec.containers[0].ports[0].protocol",
        "enum",
        'container "nginx" port protocol "tcp" is not one of "SCTP", "TCP", "UDP"',
        'spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: '
        '"SCTP", "TCP", "UDP"',
    ),
    Case(
        "image-pull-policy",
        "pytorchjob",
        (((*W0, "imagePullPolicy"), "always"),),
        "$.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].imagePullPolicy",
        "enum",
        'container "pytorch" imagePullPolicy "always" is not one of "Always", "IfNotPresent", "Never"',
        '(as a Pod) spec.containers[0].imagePullPolicy: Unsupported value: "always": supported values: '
        '"Always", "IfNotPresent", "Never"',
    ),
    Case(
        "pod-restart-policy",
        "pod",
        ((("spec", "restartPolicy"), "Sometimes"),),
        "$.spec.restartPolicy",
        "enum",
        'restartPolicy "Sometimes" is not one of "Always", "Never", "OnFailure"',
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ),
    Case(
        "env-value-and-value-from",
        "deployment",
        (
            (
                (*T0, "env"),
                [{"name": "POD", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
            ),
        ),
        "$.spec.template.spec.containers[0].env[0].valueFrom",
        "env",
        'container "nginx" env "POD" sets both value and valueFrom; use one',
        'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ),
    Case(
        "env-value-from-empty",
        "pod",
        (((*C0, "env"), [{"name": "POD", "valueFrom": {}}]),),
        "$.spec.containers[0].env[0].valueFrom",
        "env",
        'container "cpu-demo-ctr" env "POD" valueFrom names no source (one of fieldRef, resourceFieldRef, '
        "configMapKeyRef, secretKeyRef, fileKeyRef)",
        'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, '
        "`resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
    ),
    Case(
        "env-name",
        "pod",
        (((*C0, "env"), [{"name": "1 A=", "value": "x"}]),),
        "$.spec.containers[0].env[0].name",
        "env",
        'container "cpu-demo-ctr" env name "1 A=" must consist of printable ASCII characters other than \'=\'',
        'spec.containers[0].env[0].name: Invalid value: "1 A=": a valid environment variable name must consist '
        "only of printable ASCII characters other than '='",
    ),
    Case(
        "containers-empty",
        "deployment",
        ((("spec", "template", "spec", "containers"), []),),
        "$.spec.template.spec.containers",
        "containers-required",
        "spec.containers is empty; a pod needs at least one container",
        "spec.template.spec.containers: Required value",
    ),
    Case(
        "run-as-user-negative",
        "pod",
        (((*C0, "securityContext"), {"runAsUser": -1}),),
        "$.spec.containers[0].securityContext.runAsUser",
        "security-context",
        'container "cpu-demo-ctr" securityContext runAsUser is -1; it must be between 0 and 2147483647',
        "spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, "
        "inclusive",
    ),
    Case(
        "fs-group-negative",
        "deployment",
        ((("spec", "template", "spec", "securityContext"), {"fsGroup": -3}),),
        "$.spec.template.spec.securityContext.fsGroup",
        "security-context",
        "pod securityContext fsGroup is -3; it must be between 0 and 2147483647",
        "spec.securityContext.fsGroup: Invalid value: -3: must be between 0 and 2147483647, inclusive",
    ),
    Case(
        "privileged-without-escalation",
        "pod",
        (((*C0, "securityContext"), {"privileged": True, "allowPrivilegeEscalation": False}),),
        "$.spec.containers[0].securityContext.allowPrivilegeEscalation",
        "security-context",
        'container "cpu-demo-ctr" securityContext sets privileged: true and allowPrivilegeEscalation: false, '
        "which contradict each other",
        "spec.containers[0].securityContext: Invalid value: {…}: cannot set `allowPrivilegeEscalation` to false "
        "and `privileged` to true",
    ),
    Case(
        "volume-two-sources",
        "pod",
        ((("spec", "volumes"), [{"name": "data", "emptyDir": {}, "configMap": {"name": "x"}}]),),
        "$.spec.volumes[0].configMap",
        "volume-source",
        'volume "data" has 2 sources (emptyDir, configMap); a volume has exactly one',
        "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type",
    ),
    Case(
        "volume-claim-name",
        "pytorchjob",
        (
            (
                ("spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "volumes"),
                [{"name": "data", "persistentVolumeClaim": {"claimName": ""}}],
            ),
        ),
        "$.spec.pytorchReplicaSpecs.Worker.template.spec.volumes[0].persistentVolumeClaim",
        "volume-source",
        'volume "data" persistentVolumeClaim has no claimName',
        "(as a Pod) spec.volumes[0].persistentVolumeClaim.claimName: Required value",
    ),
    Case(
        "config-map-default-mode",
        "pod",
        ((("spec", "volumes"), [{"name": "cfg", "configMap": {"name": "x", "defaultMode": 1000}}]),),
        "$.spec.volumes[0].configMap.defaultMode",
        "volume-source",
        'volume "cfg" configMap defaultMode 1000 is not between 0 and 0777 (octal; 511 decimal)',
        "spec.volumes[0].configMap.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 "
        "(octal), both inclusive",
    ),
    Case(
        "probe-no-handler",
        "deployment",
        (((*T0, "livenessProbe"), {"periodSeconds": 5}),),
        "$.spec.template.spec.containers[0].livenessProbe",
        "probe",
        'container "nginx" livenessProbe has no handler (one of exec, httpGet, tcpSocket, grpc)',
        "spec.containers[0].livenessProbe: Required value: must specify a handler type",
    ),
    Case(
        "probe-two-handlers",
        "deployment",
        (((*T0, "readinessProbe"), {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}}),),
        "$.spec.template.spec.containers[0].readinessProbe.tcpSocket",
        "probe",
        'container "nginx" readinessProbe sets 2 handlers (exec, tcpSocket); only one is allowed',
        "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
    ),
    Case(
        "liveness-success-threshold",
        "deployment",
        (((*T0, "livenessProbe"), {"tcpSocket": {"port": 80}, "successThreshold": 2}),),
        "$.spec.template.spec.containers[0].livenessProbe.successThreshold",
        "probe",
        'container "nginx" livenessProbe successThreshold is 2; it must be 1 for a livenessProbe',
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    ),
    Case(
        "probe-negative-period",
        "deployment",
        (((*T0, "readinessProbe"), {"tcpSocket": {"port": 80}, "periodSeconds": -1}),),
        "$.spec.template.spec.containers[0].readinessProbe.periodSeconds",
        "probe",
        'container "nginx" readinessProbe periodSeconds is -1; it must not be negative',
        "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
    ),
    Case(
        "pre-stop-no-handler",
        "deployment",
        (((*T0, "lifecycle"), {"preStop": {}}),),
        "$.spec.template.spec.containers[0].lifecycle.preStop",
        "probe",
        'container "nginx" preStop hook has no handler (one of exec, httpGet, tcpSocket, sleep)',
        "spec.containers[0].lifecycle.preStop: Required value: must specify a handler type",
    ),
    Case(
        "pod-no-image",
        "pod",
        (((*C0, "image"), DELETE),),
        "$.spec.containers[0]",
        "image-required",
        'container "cpu-demo-ctr" has no image',
        "spec.containers[0].image: Required value",
    ),
    Case(
        "template-no-image",
        "deployment",
        (((*T0, "image"), DELETE),),
        "$.spec.template.spec.containers[0]",
        "image-required",
        'container "nginx" has no image',
        "spec.template.spec.containers[0].image: Required value",
    ),
    Case(
        "image-whitespace",
        "pod",
        (((*C0, "image"), " vish/stress"),),
        "$.spec.containers[0].image",
        "image-required",
        'container "cpu-demo-ctr" image " vish/stress" has leading or trailing whitespace',
        'spec.containers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace',
    ),
    Case(
        "toleration-exists-with-value",
        "deployment",
        (
            (
                ("spec", "template", "spec", "tolerations"),
                [{"key": "nvidia.com/gpu", "operator": "Exists", "value": "present"}],
            ),
        ),
        "$.spec.template.spec.tolerations[0].operator",
        "toleration",
        'toleration with operator Exists has value "present"; Exists matches any value, so value must be empty',
        "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
    ),
    Case(
        "toleration-no-key",
        "pod",
        ((("spec", "tolerations"), [{"operator": "Equal", "value": "v"}]),),
        "$.spec.tolerations[0].operator",
        "toleration",
        'toleration without a key must use operator Exists (got "Equal")',
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
        'which means "match all values and all keys"',
    ),
    Case(
        "toleration-seconds-effect",
        "pod",
        (
            (
                ("spec", "tolerations"),
                [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}],
            ),
        ),
        "$.spec.tolerations[0].effect",
        "toleration",
        'toleration with tolerationSeconds has effect "NoSchedule"; tolerationSeconds needs NoExecute',
        "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set",
    ),
    Case(
        "toleration-effect",
        "pod",
        ((("spec", "tolerations"), [{"key": "k", "operator": "Equal", "value": "v", "effect": "Nope"}]),),
        "$.spec.tolerations[0].effect",
        "enum",
        'toleration effect "Nope" is not one of "NoExecute", "NoSchedule", "PreferNoSchedule"',
        'spec.tolerations[0].effect: Unsupported value: "Nope": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
    ),
    Case(
        "dns-policy",
        "pod",
        ((("spec", "dnsPolicy"), "Bogus"),),
        "$.spec.dnsPolicy",
        "enum",
        'dnsPolicy "Bogus" is not one of "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"',
        'spec.dnsPolicy: Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", '
        '"ClusterFirst", "Default", "None"',
    ),
    Case(
        "dns-none-without-config",
        "pod",
        ((("spec", "dnsPolicy"), "None"),),
        "$.spec.dnsPolicy",
        "pod-spec",
        'dnsPolicy "None" needs spec.dnsConfig',
        "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None",
    ),
    Case(
        "active-deadline-zero",
        "pod",
        ((("spec", "activeDeadlineSeconds"), 0),),
        "$.spec.activeDeadlineSeconds",
        "pod-spec",
        "activeDeadlineSeconds is 0; it must be between 1 and 2147483647",
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
    ),
    Case(
        "active-deadline-in-deployment",
        "deployment",
        ((("spec", "template", "spec", "activeDeadlineSeconds"), 5),),
        "$.spec.template.spec.activeDeadlineSeconds",
        "pod-spec",
        "activeDeadlineSeconds is not supported in a Deployment pod template (its pods run until replaced)",
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
    ),
    Case(
        "host-network-host-port",
        "deployment",
        (
            (("spec", "template", "spec", "hostNetwork"), True),
            ((*T0, "ports", 0, "hostPort"), 81),
        ),
        "$.spec.template.spec.containers[0].ports[0].hostPort",
        "pod-spec",
        'container "nginx" hostPort 81 must equal containerPort 80 when hostNetwork is true',
        "spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` "
        "is true",
    ),
    Case(
        "termination-message-policy",
        "pod",
        (((*C0, "terminationMessagePolicy"), "Bogus"),),
        "$.spec.containers[0].terminationMessagePolicy",
        "enum",
        'container "cpu-demo-ctr" terminationMessagePolicy "Bogus" is not one of "FallbackToLogsOnError", "File"',
        'spec.containers[0].terminationMessagePolicy: Unsupported value: "Bogus": supported values: "File", '
        '"FallbackToLogsOnError"',
    ),
    Case(
        "mount-propagation",
        "pod",
        (
            (("spec", "volumes"), [{"name": "v", "emptyDir": {}}]),
            ((*C0, "volumeMounts"), [{"name": "v", "mountPath": "/x", "mountPropagation": "Bogus"}]),
        ),
        "$.spec.containers[0].volumeMounts[0].mountPropagation",
        "enum",
        'container "cpu-demo-ctr" mountPropagation "Bogus" is not one of "Bidirectional", "HostToContainer", '
        '"None"',
        'spec.containers[0].volumeMounts.mountPropagation: Unsupported value: "Bogus": supported values: '
        '"Bidirectional", "HostToContainer", "None"',
    ),
    Case(
        "sub-path-dot-dot",
        "pod",
        (
            (("spec", "volumes"), [{"name": "v", "emptyDir": {}}]),
            ((*C0, "volumeMounts"), [{"name": "v", "mountPath": "/x", "subPath": "../a"}]),
        ),
        "$.spec.containers[0].volumeMounts[0].subPath",
        "mount-subpath",
        'container "cpu-demo-ctr" subPath "../a" must not contain \'..\'',
        "spec.containers[0].volumeMounts.subPath: Invalid value: \"../a\": must not contain '..'",
    ),
    Case(
        "host-path-type",
        "pod",
        ((("spec", "volumes"), [{"name": "v", "hostPath": {"path": "/x", "type": "Bogus"}}]),),
        "$.spec.volumes[0].hostPath.type",
        "enum",
        'volume "v" hostPath type "Bogus" is not one of "", "BlockDevice", "CharDevice", "Directory", '
        '"DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
        'spec.volumes[0].hostPath.type: Unsupported value: "Bogus": supported values: "", "BlockDevice", …',
    ),
    Case(
        "env-from-no-name",
        "pod",
        (((*C0, "envFrom"), [{"configMapRef": {"name": ""}}]),),
        "$.spec.containers[0].envFrom[0].configMapRef",
        "env",
        'container "cpu-demo-ctr" envFrom[0] configMapRef has no name',
        "spec.containers[0].envFrom[0].configMapRef.name: Required value",
    ),
    Case(
        "node-affinity-operator",
        "pod",
        (
            (
                ("spec", "affinity"),
                {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "gpu", "operator": "Bogus", "values": ["a"]}]}
                            ]
                        }
                    }
                },
            ),
        ),
        "$.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].operator",
        "enum",
        'node selector operator "Bogus" is not one of "DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"',
        '….matchExpressions[0].operator: Invalid value: "Bogus": not a valid selector operator',
    ),
    Case(
        "topology-spread",
        "deployment",
        (
            (
                ("spec", "template", "spec", "topologySpreadConstraints"),
                [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
            ),
        ),
        "$.spec.template.spec.topologySpreadConstraints[0].maxSkew",
        "pod-spec",
        "topologySpreadConstraints maxSkew is 0; it must be at least 1",
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
    ),
    Case(
        "hostname",
        "pod",
        ((("spec", "hostname"), "Bad_Host"),),
        "$.spec.hostname",
        "pod-spec",
        "hostname \"Bad_Host\" is not a DNS-1123 label (lower-case alphanumerics and '-', starting and ending "
        "with an alphanumeric, at most 63 characters)",
        'spec.hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label must consist of …',
    ),
    # --- metadata (ValidateObjectMetaAccessor) ------------------------------------------------------
    Case(
        "no-metadata",
        "configmap",
        ((("metadata",), DELETE),),
        "$.metadata",
        "name-required",
        "metadata.name is required (or metadata.generateName)",
        "metadata.name: Required value: name or generateName is required",
    ),
    Case(
        "custom-resource-no-metadata",
        "pytorchjob",
        ((("metadata",), DELETE),),
        "$.metadata",
        "name-required",
        "metadata.name is required (or metadata.generateName)",
        "metadata.name: Required value: name or generateName is required",
    ),
]

NULLS_AND_VERSIONS: list[Case] = [
    # --- custom resources: unknown fields are reported before nulls are pruned ---------------------
    Case(
        "custom-resource-unknown-null",
        "pytorchjob",
        ((("spec", "pytorchReplicaSpecs", "Worker", "template", "metadata"), {"creationTimestamp": None}),),
        "$.spec.pytorchReplicaSpecs.Worker.template.metadata.creationTimestamp",
        "additionalProperties",
        'unknown field "creationTimestamp"',
        'strict decoding error: unknown field "spec.pytorchReplicaSpecs.Worker.template.metadata.creationTimestamp"',
        "schema",
    ),
    Case(
        "custom-resource-unknown-null-in-container",
        "pytorchjob",
        (((*W0, "bogus"), None),),
        "$.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].bogus",
        "additionalProperties",
        'unknown field "bogus"',
        'strict decoding error: unknown field "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].bogus"',
        "schema",
    ),
    Case(
        "custom-resource-unknown-null-in-metadata",
        "pytorchjob",
        ((("metadata", "bogus"), None),),
        "$.metadata.bogus",
        "additionalProperties",
        'unknown field "bogus"',
        'strict decoding error: unknown field "metadata.bogus"',
        "schema",
    ),
    Case(
        "custom-resource-required-null",
        "pytorchjob",
        ((("spec", "pytorchReplicaSpecs"), None),),
        "$.spec",
        "required",
        'missing required field "pytorchReplicaSpecs"',
        "spec.pytorchReplicaSpecs: Required value (a known null is pruned, then found missing)",
        "schema",
    ),
    # --- removed Kubeflow job versions ---------------------------------------------------------------
    Case(
        "pytorchjob-v1beta1",
        "pytorchjob",
        ((("apiVersion",), "kubeflow.org/v1beta1"),),
        "$.apiVersion",
        None,
        "kubeflow.org/v1beta1 PyTorchJob was removed in Training Operator v1.0.0; use kubeflow.org/v1 "
        "(https://github.com/kubeflow/katib/pull/635)",
        "404: the server does not serve kubeflow.org/v1beta1",
        "deprecated-api",
    ),
    Case(
        "pytorchjob-v1alpha2",
        "pytorchjob",
        ((("apiVersion",), "kubeflow.org/v1alpha2"),),
        "$.apiVersion",
        None,
        "kubeflow.org/v1alpha2 PyTorchJob was removed in Training Operator v1.0.0; use kubeflow.org/v1 "
        "(https://github.com/kubeflow/trainer/pull/933)",
        "404: the server does not serve kubeflow.org/v1alpha2",
        "deprecated-api",
    ),
]

#: Mutations the server accepts: they must raise no error (no false alarms).
ACCEPTED: list[tuple[str, str, tuple[tuple[tuple[Step, ...], Any], ...], str]] = [
    ("volume-without-source", "pod", ((("spec", "volumes"), [{"name": "v"}]),), "defaults to emptyDir"),
    ("negative-grace-period", "pod", ((("spec", "terminationGracePeriodSeconds"), -1),), "accepted"),
    (
        "readiness-success-threshold",
        "deployment",
        (((*T0, "readinessProbe"), {"tcpSocket": {"port": 80}, "successThreshold": 3}),),
        "readiness probes may need several successes",
    ),
    (
        "toleration-exists-no-key",
        "pod",
        ((("spec", "tolerations"), [{"operator": "Exists"}]),),
        "tolerates everything",
    ),
    (
        "env-value-from-only",
        "pod",
        (((*C0, "env"), [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]),),
        "accepted",
    ),
    ("env-empty-value-and-from", "pod", (((*C0, "env"), [{"name": "X", "value": ""}]),), "accepted"),
    (
        "sub-path-dots-in-name",
        "pod",
        (
            (("spec", "volumes"), [{"name": "v", "emptyDir": {}}]),
            ((*C0, "volumeMounts"), [{"name": "v", "mountPath": "/x", "subPath": "data..v1"}]),
        ),
        "only a '..' path element is refused",
    ),
    ("custom-resource-known-null", "pytorchjob", (((*W0, "command"), None),), "null pruned"),
    (
        "custom-resource-null-map-value",
        "pytorchjob",
        ((("spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "nodeSelector"), {"gpu": None}),),
        "null of a known map pruned",
    ),
    ("custom-resource-null-meta-label", "pytorchjob", ((("metadata", "labels"), {"a": None}),), "pruned"),
]


def _base(name: str) -> Doc:
    rel, index, fix = BASES[name]
    documents = [d.data for d in load_file(str(EXAMPLES / rel)).documents]
    doc = copy.deepcopy(documents[index])
    fix(doc)
    return doc


def _apply(doc: Doc, changes: tuple[tuple[tuple[Step, ...], Any], ...]) -> Doc:
    doc = copy.deepcopy(doc)
    for path, value in changes:
        node: Any = doc
        for step in path[:-1]:
            node = node[step]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return doc


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _errors(registry: SchemaRegistry, doc: Doc) -> list[Finding]:
    findings: list[Finding] = []
    for document in load_text(json.dumps(doc), "case.yaml").documents:
        findings += validate_document(document, registry, ValidateOptions())
    return [f for f in findings if f.level == "error"]


@pytest.mark.parametrize("name", sorted(BASES))
def test_base_is_valid(registry: SchemaRegistry, name: str) -> None:
    assert _errors(registry, _base(name)) == []


@pytest.mark.parametrize(
    "case", REJECTED + NULLS_AND_VERSIONS, ids=[c.id for c in REJECTED + NULLS_AND_VERSIONS]
)
def test_server_rejection_is_caught(registry: SchemaRegistry, case: Case) -> None:
    errors = _errors(registry, _apply(_base(case.base), case.changes))
    assert [(f.rule, f.keyword, f.path, f.message) for f in errors] == [
        (case.rule, case.keyword, case.path, case.message)
    ], case.server


@pytest.mark.parametrize(("name", "base", "changes", "why"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_server_acceptance_raises_nothing(
    registry: SchemaRegistry,
    name: str,
    base: str,
    changes: tuple[tuple[tuple[Step, ...], Any], ...],
    why: str,
) -> None:
    assert _errors(registry, _apply(_base(base), changes)) == [], why


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in REJECTED + NULLS_AND_VERSIONS] + [c[0] for c in ACCEPTED]
    assert len(ids) == len(set(ids))
