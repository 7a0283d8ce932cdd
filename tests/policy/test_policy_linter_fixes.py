"""Issue 32, point 3: the pack's misses and false alarms on the labeled test fixtures of Polaris,
Kyverno's policy library and kube-linter, each class on a manifest that shows it (the upstream
fixtures are not copied: each manifest here is written for the case, or is an upstream example of
``../shared/examples`` that shows it).

- ``rbac-cluster-admin``: every verb spelled out on ``*`` resources is cluster-admin; a ClusterRole
  carrying a stray ``metadata.namespace`` is still the one a binding names;
- ``pdb-selects``: ``maxUnavailable: 0`` and ``minAvailable: 100%`` block disruptions on their own;
- ``probes``: a probe on an undeclared port number, or over TCP on a port declared UDP;
- ``service-account``: the ServiceAccount's own ``automountServiceAccountToken: false`` is read;
- ``no-secret-literals``: a credential value under an innocent name, never quoted;
- ``priority-class``: option ``require``;
- ``high-availability``: anti-affinity terms that never apply to the pods do not count;
- ``refs-exist``: bindings to roles that exist nowhere;
- ``standard-labels``: labels on the pod templates count.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from tests.policy.test_policy_rules import run_rule
from trainops.core.cluster import ExternalObject
from trainops.policy.facts import Facts
from trainops.policy.rbac import PolicyRule

# --- rbac-cluster-admin ---------------------------------------------------------------------------

_ALL = ["get", "list", "watch", "create", "update", "patch", "delete"]


def _rule(
    verbs: list[str], groups: tuple[str, ...] = ("*",), resources: tuple[str, ...] = ("*",)
) -> PolicyRule:
    return PolicyRule(("rules", 0), frozenset(verbs), frozenset(groups), frozenset(resources), frozenset())


@pytest.mark.parametrize(
    ("rule", "admin"),
    [
        (_rule(["*"]), True),
        (_rule(_ALL), True),
        (_rule([*reversed(_ALL), "deletecollection"]), True),
        (_rule(_ALL[:-1]), False),  # no delete
        (_rule(["get", "list", "watch"]), False),
        (_rule(_ALL, groups=("",)), False),
        (_rule(_ALL, resources=("pods",)), False),
    ],
    ids=["star", "seven-verbs", "reordered-plus", "six-verbs", "read-only", "core-group", "pods-only"],
)
def test_admin_is_every_verb_on_every_resource(rule: PolicyRule, admin: bool) -> None:
    assert rule.admin is admin


def _role_and_binding(role_kind: str, verbs: list[str], role_namespace: str | None) -> str:
    meta = f"{{name: spelled-out, namespace: {role_namespace}}}" if role_namespace else "{name: spelled-out}"
    binding_kind = "ClusterRoleBinding" if role_kind == "ClusterRole" else "RoleBinding"
    binding_meta = "{name: b}" if role_kind == "ClusterRole" else "{name: b, namespace: ml}"
    return f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: {role_kind}
metadata: {meta}
rules: [{{apiGroups: ["*"], resources: ["*"], verbs: [{", ".join(verbs)}]}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {binding_kind}
metadata: {binding_meta}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: spelled-out}}
subjects: [{{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}}]
"""


@pytest.mark.parametrize(
    ("role_kind", "role_namespace"),
    [("ClusterRole", None), ("ClusterRole", "ml"), ("ClusterRole", "elsewhere"), ("Role", "ml")],
    ids=["clusterrole", "clusterrole-stray-namespace", "clusterrole-other-stray-namespace", "role"],
)
def test_a_binding_to_spelled_out_admin_verbs_is_cluster_admin(
    role_kind: str, role_namespace: str | None
) -> None:
    found = run_rule("rbac-cluster-admin", _role_and_binding(role_kind, _ALL, role_namespace))
    assert [f.message for f in found] == [
        f'binds {role_kind} "spelled-out", which grants every verb on every resource'
    ]


def test_a_role_of_another_namespace_is_not_the_bindings() -> None:
    assert run_rule("rbac-cluster-admin", _role_and_binding("Role", _ALL, "elsewhere")) == []


def test_reading_everything_is_not_cluster_admin() -> None:
    assert (
        run_rule("rbac-cluster-admin", _role_and_binding("ClusterRole", ["get", "list", "watch"], None)) == []
    )


# --- pdb-selects ----------------------------------------------------------------------------------


def _pdb(spec: str) -> str:
    return f"""
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: p, namespace: ml}}
spec: {spec}
"""


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{maxUnavailable: 0}", "maxUnavailable 0 blocks every voluntary disruption"),
        ('{maxUnavailable: "0%"}', "maxUnavailable 0% blocks every voluntary disruption"),
        ('{minAvailable: "100%"}', "minAvailable 100% blocks every voluntary disruption"),
    ],
)
def test_a_pdb_blocking_every_disruption_is_flagged_whatever_it_selects(spec: str, message: str) -> None:
    messages = [f.message for f in run_rule("pdb-selects", _pdb(spec))]
    assert message in messages
    assert "PodDisruptionBudget selects no pod in its namespace" in messages


@pytest.mark.parametrize("spec", ["{maxUnavailable: 1}", '{minAvailable: "50%"}', "{maxUnavailable: false}"])
def test_a_pdb_leaving_room_is_only_told_it_selects_nothing(spec: str) -> None:
    assert [f.message for f in run_rule("pdb-selects", _pdb(spec))] == [
        "PodDisruptionBudget selects no pod in its namespace"
    ]


# --- probes ---------------------------------------------------------------------------------------


def _server(ports: str, probe: str) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: ml}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:1.0
        ports: {ports}
        readinessProbe: {probe}
        livenessProbe: {{exec: {{command: [true]}}}}
"""


@pytest.mark.parametrize(
    ("ports", "probe", "message"),
    [
        (
            "[{containerPort: 9999}]",
            "{httpGet: {port: 8080}}",
            "readinessProbe port 8080 is not a declared containerPort",
        ),
        ("[]", '{httpGet: {port: "8080"}}', "readinessProbe port 8080 is not a declared containerPort"),
        (
            "[{containerPort: 9999}]",
            "{grpc: {port: 8080}}",
            "readinessProbe port 8080 is not a declared containerPort",
        ),
        (
            "[{name: dns, containerPort: 53, protocol: UDP}]",
            "{tcpSocket: {port: dns}}",
            'readinessProbe port "dns" is declared UDP, the tcpSocket probe connects over TCP',
        ),
        (
            "[{containerPort: 53, protocol: UDP}]",
            "{httpGet: {port: 53}}",
            "readinessProbe port 53 is declared UDP, the httpGet probe connects over TCP",
        ),
        (
            "[{name: http, containerPort: 8080}]",
            "{httpGet: {port: metrics}}",
            'readinessProbe port "metrics" is not a declared containerPort name',
        ),
    ],
    ids=["number", "digit-string", "grpc", "udp-name", "udp-number", "name"],
)
def test_a_probe_port_must_be_a_declared_tcp_port(ports: str, probe: str, message: str) -> None:
    assert [f.message for f in run_rule("probes", _server(ports, probe))] == [f'container "web" {message}']


@pytest.mark.parametrize(
    ("ports", "probe"),
    [
        ("[{name: http, containerPort: 8080}]", "{httpGet: {port: 8080}}"),
        ("[{name: http, containerPort: 8080, protocol: TCP}]", "{tcpSocket: {port: http}}"),
        (
            "[{containerPort: 53, protocol: UDP}, {containerPort: 53, protocol: TCP}]",
            "{tcpSocket: {port: 53}}",
        ),
        ("[]", "{exec: {command: [true]}}"),
    ],
    ids=["number", "name", "udp-and-tcp", "exec"],
)
def test_a_probe_on_a_declared_tcp_port_passes(ports: str, probe: str) -> None:
    assert run_rule("probes", _server(ports, probe)) == []


# --- service-account ------------------------------------------------------------------------------


def _account_and_pod(account: str, pod_namespace: str, pod_field: str, account_field: str) -> str:
    return f"""
apiVersion: v1
kind: ServiceAccount
metadata: {{name: {account}, namespace: ml}}
{account_field}
---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: {pod_namespace}}}
spec:
  serviceAccountName: {account}
  {pod_field}
  containers: [{{name: c, image: registry.example.com/c:1.0}}]
"""


@pytest.mark.parametrize("account", ["trainer", "default"])
def test_a_service_account_that_turns_the_mount_off_mounts_no_token(account: str) -> None:
    text = _account_and_pod(account, "ml", "", "automountServiceAccountToken: false")
    assert run_rule("service-account", text) == []


@pytest.mark.parametrize(
    ("pod_namespace", "pod_field", "account_field"),
    [
        ("other", "", "automountServiceAccountToken: false"),  # another namespace's account
        ("ml", "", "automountServiceAccountToken: true"),
        ("ml", "", ""),
    ],
    ids=["other-namespace", "account-true", "account-unset"],
)
def test_a_service_account_that_mounts_the_token_is_flagged(
    pod_namespace: str, pod_field: str, account_field: str
) -> None:
    found = run_rule("service-account", _account_and_pod("trainer", pod_namespace, pod_field, account_field))
    assert [f.path for f in found] == ["$.spec.automountServiceAccountToken"]


def test_the_pods_own_field_wins_over_the_accounts() -> None:
    text = _account_and_pod(
        "default", "ml", "automountServiceAccountToken: true", "automountServiceAccountToken: false"
    )
    assert [f.message for f in run_rule("service-account", text)] == [
        "pod mounts the token of the namespace's default ServiceAccount"
    ]


# --- no-secret-literals ---------------------------------------------------------------------------

#: A PEM private key as the detectors see it (a dummy body: the BEGIN line is what they read).
_PEM = "-----BEGIN RSA PRIVATE KEY-----\\nnot-a-real-key-body\\n-----END RSA PRIVATE KEY-----"


def _env(name: str, value: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: ml}}
spec:
  containers:
  - name: c
    image: registry.example.com/c:1.0
    env: [{{name: {name}, value: "{value}"}}]
"""


def test_a_private_key_under_an_innocent_name_is_flagged_without_quoting_it() -> None:
    found = run_rule("no-secret-literals", _env("SETTINGS_BLOB", _PEM))
    assert [f.message for f in found] == [
        'container "c" sets SETTINGS_BLOB to a literal Private Key (use valueFrom.secretKeyRef)'
    ]
    assert "not-a-real-key-body" not in found[0].message


@pytest.mark.parametrize(
    "value",
    ["-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----", "https://example.com/data", "8"],
)
def test_an_innocent_value_under_an_innocent_name_passes(value: str) -> None:
    assert run_rule("no-secret-literals", _env("SETTINGS_BLOB", value)) == []


@needs_shared
def test_a_password_in_a_url_of_an_upstream_example_is_flagged() -> None:
    """The RabbitMQ work-queue Job passes ``user:password@`` in ``BROKER_URL``."""
    text = (EXAMPLES / "k8s-website/content/en/examples/application/job/rabbitmq/job.yaml").read_text("utf-8")
    found = run_rule("no-secret-literals", text)
    assert [f.message for f in found] == [
        'container "c" sets BROKER_URL to a literal Basic Auth Credentials (use valueFrom.secretKeyRef)'
    ]


# --- priority-class -------------------------------------------------------------------------------

_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: registry.example.com/c:1.0}]
"""
_PYTORCHJOB = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t, namespace: ml}
spec:
  runPolicy: {schedulingPolicy: {priorityClass: training-low}}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: registry.example.com/train:1.0}]
"""


def test_a_pod_without_a_priority_class_passes_by_default() -> None:
    assert run_rule("priority-class", _JOB) == []


def test_require_flags_a_pod_without_a_priority_class() -> None:
    found = run_rule("priority-class", _JOB, options={"require": True})
    assert [(f.path, f.message) for f in found] == [
        ("$.spec.template.spec.priorityClassName", "pod names no priority class")
    ]


def test_require_is_met_by_the_jobs_run_policy() -> None:
    assert run_rule("priority-class", _PYTORCHJOB, options={"require": True}) == []


# --- high-availability ----------------------------------------------------------------------------


def _spread(namespace: str | None, term: str) -> str:
    meta = f"{{name: web, namespace: {namespace}}}" if namespace else "{name: web}"
    return f"""
apiVersion: v1
kind: Namespace
metadata: {{name: serving, labels: {{tier: serving}}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {meta}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution: [{term}]
      containers: [{{name: web, image: registry.example.com/web:1.0}}]
"""


_OWN = "topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}"


@pytest.mark.parametrize(
    ("namespace", "term"),
    [
        ("serving", f"{{{_OWN}, namespaces: [batch]}}"),
        ("serving", f"{{{_OWN}, namespaceSelector: {{matchLabels: {{tier: batch}}}}}}"),
        (
            "batch",
            f"{{{_OWN}, namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: serving}}}}}}",
        ),
        ("serving", "{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: other}}}"),
        ("serving", "{topologyKey: kubernetes.io/hostname}"),
    ],
    ids=["other-namespaces", "namespace-labels", "namespace-name-label", "other-labels", "no-selector"],
)
def test_anti_affinity_that_never_applies_to_the_pods_does_not_count(namespace: str, term: str) -> None:
    found = run_rule("high-availability", _spread(namespace, term))
    assert [f.path for f in found] == ["$.spec.template.spec.affinity.podAntiAffinity"]


@pytest.mark.parametrize(
    ("namespace", "term"),
    [
        ("serving", f"{{{_OWN}}}"),
        ("serving", f"{{{_OWN}, namespaces: [batch, serving]}}"),
        ("serving", f"{{{_OWN}, namespaceSelector: {{}}}}"),
        ("serving", f"{{{_OWN}, namespaceSelector: {{matchLabels: {{tier: serving}}}}}}"),
        ("unrendered", f"{{{_OWN}, namespaceSelector: {{matchLabels: {{tier: serving}}}}}}"),
        (None, f"{{{_OWN}, namespaces: [batch]}}"),
        ("serving", "{topologyKey: kubernetes.io/hostname, matchLabelKeys: [app]}"),
    ],
    ids=["own", "listed", "all", "labels", "unrendered-namespace", "namespace-unset", "match-label-keys"],
)
def test_anti_affinity_that_applies_to_the_pods_counts(namespace: str | None, term: str) -> None:
    assert run_rule("high-availability", _spread(namespace, term)) == []


# --- refs-exist -----------------------------------------------------------------------------------


def _binding(kind: str, role_kind: str, name: str) -> str:
    meta = "{name: b, namespace: ml}" if kind == "RoleBinding" else "{name: b}"
    return f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata: {meta}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {role_kind}, name: "{name}"}}
subjects: [{{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}}]
"""


@pytest.mark.parametrize(
    ("kind", "role_kind", "name", "message"),
    [
        (
            "ClusterRoleBinding",
            "ClusterRole",
            "does-not-exist",
            'ClusterRole "does-not-exist" does not exist',
        ),
        ("RoleBinding", "ClusterRole", "editor", 'ClusterRole "editor" does not exist'),
        ("RoleBinding", "Role", "does-not-exist", 'Role "does-not-exist" does not exist in namespace "ml"'),
    ],
)
def test_a_binding_to_a_missing_role_is_flagged(kind: str, role_kind: str, name: str, message: str) -> None:
    assert [f.message for f in run_rule("refs-exist", _binding(kind, role_kind, name))] == [message]


@pytest.mark.parametrize("name", ["cluster-admin", "admin", "edit", "view", "system:auth-delegator"])
def test_a_binding_to_a_built_in_cluster_role_passes(name: str) -> None:
    assert run_rule("refs-exist", _binding("ClusterRoleBinding", "ClusterRole", name)) == []


@pytest.mark.parametrize(
    ("role_kind", "external"),
    [
        ("ClusterRole", ExternalObject("ClusterRole", "kubeflow-edit")),
        ("Role", ExternalObject("Role", "kubeflow-edit", "ml")),
    ],
)
def test_a_binding_to_an_external_role_passes(role_kind: str, external: ExternalObject) -> None:
    facts = Facts(external=(external,))
    assert run_rule("refs-exist", _binding("RoleBinding", role_kind, "kubeflow-edit"), facts=facts) == []


@needs_shared
def test_an_upstream_binding_to_a_cluster_role_defined_elsewhere_is_flagged() -> None:
    path = (
        "prometheus-operator/example/rbac/prometheus-operator/prometheus-operator-cluster-role-binding.yaml"
    )
    found = run_rule("refs-exist", (EXAMPLES / path).read_text("utf-8"))
    assert [(f.path, f.message) for f in found] == [
        ("$.roleRef.name", 'ClusterRole "prometheus-operator" does not exist')
    ]


# --- standard-labels ------------------------------------------------------------------------------

_LABELS = {
    "app.kubernetes.io/name": "web",
    "app.kubernetes.io/part-of": "demo",
    "app.kubernetes.io/managed-by": "trainops",
    "trainops.dev/team": "ml-platform",
}


def _deployment(own: dict[str, Any], template: dict[str, Any]) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: ml, labels: {own}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {template}}}
    spec:
      containers: [{{name: web, image: registry.example.com/web:1.0}}]
"""


@pytest.mark.parametrize(
    ("own", "template"),
    [
        (_LABELS, {"app": "web"}),
        ({}, {**_LABELS, "app": "web"}),
        (dict(list(_LABELS.items())[:2]), dict(list(_LABELS.items())[2:])),
    ],
    ids=["on-the-object", "on-the-template", "split"],
)
def test_required_labels_count_on_the_object_or_its_pod_template(
    own: dict[str, Any], template: dict[str, Any]
) -> None:
    assert run_rule("standard-labels", _deployment(own, template)) == []


def test_a_label_on_neither_is_missing() -> None:
    own = {k: v for k, v in _LABELS.items() if k != "trainops.dev/team"}
    found = run_rule("standard-labels", _deployment(own, {"app": "web"}))
    assert [f.message for f in found] == ["missing labels: trainops.dev/team"]
