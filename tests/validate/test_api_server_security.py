"""API-server parity of pod security fields and of objects without a spec (issue 32 point 2).

Upstream documents of ../shared/examples, each broken in one way the real kube-apiserver v1.36
refuses (``ValidateSecurityContext``, ``ValidateAppArmorPodAnnotations``,
``validateAppArmorAnnotationsAndFieldsMatchOnCreate``, ``validateWindowsHostProcessPod``,
``validateProjectionSources``, ``validatePodMetadataAndSpec``, ``ValidateDeploymentSpec``...), must get
exactly the expected finding; near misses the server accepts get none. The Pods of
``../shared/ground-truth/pod-security/mutations`` (broken one Pod Security control each: procMount,
AppArmor, seccomp, sysctls, SELinux...) carry the server's verdict: every Pod it admitted or only
forbade by policy passes ``trainops validate``, and every Pod it refused as invalid fails it.
"""

from __future__ import annotations

import copy
import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conformance.adapter import trainops_errors

from conftest import EXAMPLES, SHARED, needs_shared
from trainops.core.findings import Finding
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_document
from trainops.yaml.load import load_file, load_text

pytestmark = needs_shared

Doc = dict[str, Any]
Step = str | int
DELETE = object()

#: name → (file under ../shared/examples, document index).
BASES: dict[str, tuple[str, int]] = {
    "pod": ("k8s-website/content/en/examples/pods/resource/cpu-request-limit.yaml", 0),
    "deployment": ("k8s-website/content/en/examples/application/deployment.yaml", 0),
    "replicaset": ("k8s-website/content/en/examples/controllers/frontend.yaml", 0),
    "statefulset": ("k8s-website/content/en/examples/controllers/statefulset.yaml", 1),
    "daemonset": ("k8s-website/content/en/examples/controllers/daemonset.yaml", 0),
    "job": ("k8s-website/content/en/examples/application/job/rabbitmq/job.yaml", 0),
    "cronjob": ("kueue/site/static/examples/jobs/sample-cronjob.yaml", 0),
}

C0 = ("spec", "containers", 0)
T = ("spec", "template")
T0 = ("spec", "template", "spec", "containers", 0)
ANNOTATIONS = ("spec", "template", "metadata", "annotations")
APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
TOKEN = {"projected": {"sources": [{"serviceAccountToken": {"path": "token", "audience": "vault"}}]}}


@dataclass(frozen=True)
class Case:
    """One change (path → value, :data:`DELETE` removes the key) to a base, and the finding expected."""

    id: str
    base: str
    changes: tuple[tuple[tuple[Step, ...], Any], ...]
    path: str
    keyword: str
    message: str


def _token_volume(**token: Any) -> list[dict[str, Any]]:
    source = {"serviceAccountToken": {"path": "token", **token}}
    return [{"name": "token", "projected": {"sources": [source]}}]


REJECTED: list[Case] = [
    # --- ValidateSecurityContext -----------------------------------------------------------------
    Case(
        "proc-mount-unmasked-host-users",
        "deployment",
        (((*T0, "securityContext"), {"procMount": "Unmasked"}),),
        "$.spec.template.spec.containers[0].securityContext.procMount",
        "security-context",
        'container "nginx" securityContext procMount "Unmasked" needs spec.hostUsers: false (an unmasked '
        "/proc only in a user namespace)",
    ),
    Case(
        "proc-mount-unsupported",
        "pod",
        (((*C0, "securityContext"), {"procMount": "Masked"}),),
        "$.spec.containers[0].securityContext.procMount",
        "enum",
        'container "cpu-demo-ctr" securityContext procMount "Masked" is not one of "Default", "Unmasked"',
    ),
    Case(
        "cap-sys-admin-without-escalation",
        "job",
        (
            (
                ("spec", "template", "spec", "containers", 0, "securityContext"),
                {"allowPrivilegeEscalation": False, "capabilities": {"add": ["CAP_SYS_ADMIN"]}},
            ),
        ),
        "$.spec.template.spec.containers[0].securityContext",
        "security-context",
        'container "c" securityContext adds capability "CAP_SYS_ADMIN" and sets allowPrivilegeEscalation: '
        "false, which contradict each other",
    ),
    Case(
        "seccomp-localhost-without-profile",
        "pod",
        ((("spec", "securityContext"), {"seccompProfile": {"type": "Localhost"}}),),
        "$.spec.securityContext.seccompProfile.localhostProfile",
        "security-context",
        "pod securityContext seccompProfile type Localhost needs localhostProfile",
    ),
    Case(
        "seccomp-localhost-absolute",
        "deployment",
        (
            (
                (*T0, "securityContext"),
                {"seccompProfile": {"type": "Localhost", "localhostProfile": "/etc/profile.json"}},
            ),
        ),
        "$.spec.template.spec.containers[0].securityContext.seccompProfile.localhostProfile",
        "security-context",
        'container "nginx" securityContext seccompProfile localhostProfile "/etc/profile.json" must be a '
        "relative path",
    ),
    Case(
        "apparmor-field-unsupported",
        "daemonset",
        ((("spec", "template", "spec", "securityContext"), {"appArmorProfile": {"type": "Enforce"}}),),
        "$.spec.template.spec.securityContext.appArmorProfile.type",
        "enum",
        'pod securityContext appArmorProfile type "Enforce" is not one of "Localhost", "RuntimeDefault", '
        '"Unconfined"',
    ),
    Case(
        "apparmor-field-profile-not-localhost",
        "pod",
        (
            (
                (*C0, "securityContext"),
                {"appArmorProfile": {"type": "RuntimeDefault", "localhostProfile": "k8s-apparmor"}},
            ),
        ),
        "$.spec.containers[0].securityContext.appArmorProfile.localhostProfile",
        "security-context",
        'container "cpu-demo-ctr" securityContext appArmorProfile localhostProfile can only be set when the '
        'type is Localhost (type "RuntimeDefault")',
    ),
    # --- AppArmor annotations (ValidateAppArmorPodAnnotations, ...MatchOnCreate) ----------------
    Case(
        "apparmor-annotation-profile",
        "deployment",
        ((ANNOTATIONS, {f"{APPARMOR}nginx": "enforce"}),),
        f"$.spec.template.metadata.annotations['{APPARMOR}nginx']",
        "apparmor-annotation",
        f'annotation "{APPARMOR}nginx" value "enforce" is not an AppArmor profile (runtime/default, '
        "unconfined or localhost/<profile>)",
    ),
    Case(
        "apparmor-annotation-no-container",
        "pod",
        ((("metadata", "annotations"), {f"{APPARMOR}sidecar": "runtime/default"}),),
        f"$.metadata.annotations['{APPARMOR}sidecar']",
        "apparmor-annotation",
        f'annotation "{APPARMOR}sidecar" names container "sidecar", which the pod does not have',
    ),
    Case(
        "apparmor-annotation-disagrees-with-field",
        "deployment",
        (
            (ANNOTATIONS, {f"{APPARMOR}nginx": "runtime/default"}),
            ((*T0, "securityContext"), {"appArmorProfile": {"type": "Unconfined"}}),
        ),
        "$.spec.template.spec.containers[0].securityContext.appArmorProfile.type",
        "apparmor-annotation",
        'apparmor type "Unconfined" disagrees with its annotation "runtime/default"; annotation and field '
        "must match",
    ),
    Case(
        "apparmor-annotation-disagrees-with-pod-field",
        "statefulset",
        (
            (ANNOTATIONS, {f"{APPARMOR}nginx": "localhost/k8s-nginx"}),
            (
                ("spec", "template", "spec", "securityContext"),
                {"appArmorProfile": {"type": "RuntimeDefault"}},
            ),
        ),
        "$.spec.template.spec.containers[0].securityContext.appArmorProfile.type",
        "apparmor-annotation",
        'apparmor type "RuntimeDefault" disagrees with its annotation "localhost/k8s-nginx"; annotation and '
        "field must match",
    ),
    Case(
        "apparmor-pod-annotation-disagrees-with-container-field",
        "pod",
        (
            (("metadata", "annotations"), {f"{APPARMOR}cpu-demo-ctr": "unconfined"}),
            (
                (*C0, "securityContext"),
                {"appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-demo"}},
            ),
        ),
        "$.spec.containers[0].securityContext.appArmorProfile.type",
        "apparmor-annotation",
        'apparmor type "Localhost" disagrees with its annotation "unconfined"; annotation and field must match',
    ),
    Case(
        "seccomp-annotation-profile",
        "pod",
        ((("metadata", "annotations"), {"seccomp.security.alpha.kubernetes.io/pod": "default"}),),
        "$.metadata.annotations['seccomp.security.alpha.kubernetes.io/pod']",
        "seccomp-annotation",
        'annotation "seccomp.security.alpha.kubernetes.io/pod" value "default" is not a seccomp profile '
        "(runtime/default, unconfined or localhost/<path>)",
    ),
    # --- validateWindowsHostProcessPod, validateHostUsers, validateWindows ----------------------
    Case(
        "host-process-without-host-network",
        "deployment",
        (
            (
                ("spec", "template", "spec", "securityContext"),
                {"windowsOptions": {"hostProcess": True, "runAsUserName": "NT AUTHORITY\\SYSTEM"}},
            ),
        ),
        "$.spec.template.spec.hostNetwork",
        "host-process",
        "hostNetwork must be true in a pod with Windows HostProcess containers",
    ),
    Case(
        "host-process-not-all-containers",
        "pod",
        (
            (("spec", "hostNetwork"), True),
            ((*C0, "securityContext"), {"windowsOptions": {"hostProcess": True}}),
            (
                ("spec", "initContainers"),
                [{"name": "init", "image": "mcr.microsoft.com/windows/nanoserver:ltsc2022"}],
            ),
        ),
        "$.spec",
        "host-process",
        "1 of 2 containers are Windows HostProcess containers; if one is, all must be",
    ),
    Case(
        "host-process-pod-and-container-differ",
        "pod",
        (
            (("spec", "hostNetwork"), True),
            (("spec", "securityContext"), {"windowsOptions": {"hostProcess": True}}),
            ((*C0, "securityContext"), {"windowsOptions": {"hostProcess": False}}),
        ),
        "$.spec.containers[0].securityContext.windowsOptions.hostProcess",
        "host-process",
        "container hostProcess false differs from the pod's true; both must be the same when both are set",
    ),
    Case(
        "host-users-false-host-network",
        "deployment",
        (
            (("spec", "template", "spec", "hostUsers"), False),
            (("spec", "template", "spec", "hostNetwork"), True),
        ),
        "$.spec.template.spec.hostNetwork",
        "host-users",
        "hostNetwork may not be true when hostUsers is false",
    ),
    Case(
        "windows-pod-selinux",
        "pod",
        (
            (("spec", "os"), {"name": "windows"}),
            (("spec", "securityContext"), {"seLinuxOptions": {"level": "s0:c123,c456"}}),
        ),
        "$.spec.securityContext.seLinuxOptions",
        "pod-os",
        "pod securityContext seLinuxOptions cannot be set for a windows pod",
    ),
    Case(
        "linux-pod-windows-options",
        "deployment",
        (
            (("spec", "template", "spec", "os"), {"name": "linux"}),
            ((*T0, "securityContext"), {"windowsOptions": {"runAsUserName": "ContainerUser"}}),
        ),
        "$.spec.template.spec.containers[0].securityContext.windowsOptions",
        "pod-os",
        'container "nginx" securityContext windowsOptions cannot be set for a linux pod',
    ),
    Case(
        "sysctl-net-with-host-network",
        "pod",
        (
            (("spec", "hostNetwork"), True),
            (("spec", "securityContext"), {"sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}),
        ),
        "$.spec.securityContext.sysctls[0].name",
        "security-context",
        'sysctl "net.core.somaxconn" is namespaced (net) and may not be set when hostNetwork is true',
    ),
    Case(
        "sysctl-name",
        "job",
        (
            (
                ("spec", "template", "spec", "securityContext"),
                {"sysctls": [{"name": "kernel.shm_rmid_forced!", "value": "1"}]},
            ),
        ),
        "$.spec.template.spec.securityContext.sysctls[0].name",
        "security-context",
        'sysctl name "kernel.shm_rmid_forced!" must have at most 253 characters and match '
        "([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?",
    ),
    # --- validateProjectionSources, validatePodMetadataAndSpec ----------------------------------
    Case(
        "token-without-service-account",
        "pod",
        ((("spec", "volumes"), _token_volume()),),
        "$.spec.volumes[0].projected.sources[0].serviceAccountToken",
        "volume-source",
        'volume "token" projects a serviceAccountToken, which a Pod without spec.serviceAccountName may not',
    ),
    Case(
        "token-expiration-too-short",
        "deployment",
        ((("spec", "template", "spec", "volumes"), _token_volume(expirationSeconds=300)),),
        "$.spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds",
        "volume-source",
        'volume "token" projected serviceAccountToken expirationSeconds is 300; it must be between 600 '
        "(10 minutes) and 4294967296 (2^32)",
    ),
    Case(
        "token-path-escapes",
        "deployment",
        ((("spec", "template", "spec", "volumes"), _token_volume(path="../token")),),
        "$.spec.template.spec.volumes[0].projected.path",
        "volume-source",
        'volume "token" projected serviceAccountToken path "../token" must not contain \'..\'',
    ),
    Case(
        "projected-two-sources-in-one",
        "deployment",
        (
            (
                ("spec", "template", "spec", "volumes"),
                [
                    {
                        "name": "bundle",
                        "projected": {"sources": [{"configMap": {"name": "ca"}, "secret": {"name": "tls"}}]},
                    }
                ],
            ),
        ),
        "$.spec.template.spec.volumes[0].projected.sources[0]",
        "volume-source",
        'volume "bundle" projected sources[0] sets 2 sources (secret, configMap); each item of sources has '
        "exactly one",
    ),
]

#: Near misses the API server accepts: (id, base, changes, why).
ACCEPTED: list[tuple[str, str, tuple[tuple[tuple[Step, ...], Any], ...], str]] = [
    (
        "proc-mount-unmasked-user-namespace",
        "deployment",
        (
            ((*T0, "securityContext"), {"procMount": "Unmasked"}),
            (("spec", "template", "spec", "hostUsers"), False),
        ),
        "a user namespace allows an unmasked /proc",
    ),
    (
        "apparmor-annotation-agrees",
        "deployment",
        (
            (ANNOTATIONS, {f"{APPARMOR}nginx": "localhost/k8s-nginx"}),
            (
                (*T0, "securityContext"),
                {"appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-nginx"}},
            ),
        ),
        "annotation and field say the same",
    ),
    (
        "apparmor-pod-annotation-over-pod-field",
        "pod",
        (
            (("metadata", "annotations"), {f"{APPARMOR}cpu-demo-ctr": "runtime/default"}),
            (("spec", "securityContext"), {"appArmorProfile": {"type": "Unconfined"}}),
        ),
        "applyAppArmorVersionSkew copies a Pod's annotation into the container's field first",
    ),
    (
        "apparmor-annotation-empty",
        "deployment",
        ((ANNOTATIONS, {f"{APPARMOR}nginx": ""}),),
        "an empty profile is allowed",
    ),
    (
        "seccomp-annotation-docker-default",
        "deployment",
        (
            (ANNOTATIONS, {"seccomp.security.alpha.kubernetes.io/pod": "docker/default"}),
            (("spec", "template", "spec", "securityContext"), {"seccompProfile": {"type": "RuntimeDefault"}}),
        ),
        "docker/default is the old name of runtime/default",
    ),
    (
        "host-process-everywhere",
        "pod",
        (
            (("spec", "hostNetwork"), True),
            (("spec", "os"), {"name": "windows"}),
            (("spec", "securityContext"), {"windowsOptions": {"hostProcess": True}}),
            (
                (*C0, "securityContext"),
                {"windowsOptions": {"hostProcess": True, "runAsUserName": "NT AUTHORITY\\Local service"}},
            ),
        ),
        "every container inherits hostProcess and the pod uses the host network",
    ),
    (
        "token-in-template-without-service-account",
        "deployment",
        ((("spec", "template", "spec", "volumes"), _token_volume(expirationSeconds=600)),),
        "only a Pod needs serviceAccountName for a projected token (ValidatePodCreate)",
    ),
    (
        "token-with-service-account",
        "pod",
        ((("spec", "volumes"), _token_volume()), (("spec", "serviceAccountName"), "vault-auth")),
        "the Pod names its service account",
    ),
    (
        "sysctl-ipc-without-host-ipc",
        "pod",
        ((("spec", "securityContext"), {"sysctls": [{"name": "kernel.shm_rmid_forced", "value": "1"}]}),),
        "a namespaced sysctl of a pod that does not share the host's IPC namespace",
    ),
]


def _base(name: str) -> Doc:
    rel, index = BASES[name]
    doc = copy.deepcopy(load_file(str(EXAMPLES / rel)).documents[index].data)
    doc.pop("status", None)
    return doc


def _apply(doc: Doc, changes: tuple[tuple[tuple[Step, ...], Any], ...]) -> Doc:
    doc = copy.deepcopy(doc)
    for path, value in changes:
        node: Any = doc
        for step in path[:-1]:
            node = node.setdefault(step, {}) if isinstance(node, dict) and step not in node else node[step]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = copy.deepcopy(value)
    return doc


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.36", schema_cache)


def _errors(registry: SchemaRegistry, doc: Doc) -> list[Finding]:
    findings: list[Finding] = []
    for document in load_text(json.dumps(doc), "case.yaml").documents:
        findings += validate_document(document, registry, ValidateOptions())
    return [f for f in findings if f.level == "error" and f.rule != "secret-literal"]


@pytest.mark.parametrize("name", sorted(BASES))
def test_base_is_valid(registry: SchemaRegistry, name: str) -> None:
    assert _errors(registry, _base(name)) == []


@pytest.mark.parametrize("case", REJECTED, ids=[c.id for c in REJECTED])
def test_server_rejection_is_caught(registry: SchemaRegistry, case: Case) -> None:
    errors = _errors(registry, _apply(_base(case.base), case.changes))
    assert [(f.rule, f.keyword, f.path, f.message) for f in errors] == [
        ("api-server", case.keyword, case.path, case.message)
    ]


@pytest.mark.parametrize(("name", "base", "changes", "why"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_server_acceptance_raises_nothing(
    registry: SchemaRegistry,
    name: str,
    base: str,
    changes: tuple[tuple[tuple[Step, ...], Any], ...],
    why: str,
) -> None:
    assert _errors(registry, _apply(_base(base), changes)) == [], why


# --- objects without a spec ------------------------------------------------------------------------

#: kind → (base, apiVersion, what kube-apiserver v1.36 reports for it without spec: (path, keyword)).
NO_SPEC: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "Deployment": (
        "deployment",
        "apps/v1",
        [
            ("$.spec.selector", "label-selector"),
            ("$.spec.template.metadata.labels", "selector-mismatch"),
            ("$.spec.template.spec.containers", "containers-required"),
        ],
    ),
    "ReplicaSet": (
        "replicaset",
        "apps/v1",
        [
            ("$.spec.selector", "label-selector"),
            ("$.spec.template.metadata.labels", "selector-mismatch"),
            ("$.spec.template.spec.containers", "containers-required"),
        ],
    ),
    "StatefulSet": (
        "statefulset",
        "apps/v1",
        [
            ("$.spec.selector", "label-selector"),
            ("$.spec.template.metadata.labels", "selector-mismatch"),
            ("$.spec.template.spec.containers", "containers-required"),
        ],
    ),
    "DaemonSet": (
        "daemonset",
        "apps/v1",
        [
            ("$.spec.template.metadata.labels", "selector-mismatch"),
            ("$.spec.template.spec.containers", "containers-required"),
        ],
    ),
    "Job": (
        "job",
        "batch/v1",
        [
            ("$.spec.template.spec.containers", "containers-required"),
            ("$.spec.template.spec.restartPolicy", "restart-policy"),
        ],
    ),
    "CronJob": (
        "cronjob",
        "batch/v1",
        [
            ("$.spec.schedule", "cron-schedule"),
            ("$.spec.jobTemplate.spec.template.spec.containers", "containers-required"),
            ("$.spec.jobTemplate.spec.template.spec.restartPolicy", "restart-policy"),
        ],
    ),
    "Pod": ("pod", "v1", [("$.spec.containers", "containers-required")]),
    # No upstream example of these two: the Deployment example made one (its metadata kept).
    "ReplicationController": (
        "deployment",
        "v1",
        [("$.spec.selector", "label-selector"), ("$.spec.template", "pod-template")],
    ),
    "PodTemplate": ("deployment", "v1", [("$.template.spec.containers", "containers-required")]),
}


#: Kinds whose Kubernetes 1.36 OpenAPI schema itself requires ``spec``.
SCHEMA_REQUIRES_SPEC = frozenset({"CronJob"})


@pytest.mark.parametrize("spec", ["absent", "null"])
@pytest.mark.parametrize("kind", sorted(NO_SPEC))
def test_object_without_spec(registry: SchemaRegistry, kind: str, spec: str) -> None:
    base, api_version, expected = NO_SPEC[kind]
    doc = _base(base)
    doc.update({"apiVersion": api_version, "kind": kind})
    doc.pop("spec")
    if spec == "null":
        doc["template" if kind == "PodTemplate" else "spec"] = None
    errors = _errors(registry, doc)
    if kind in SCHEMA_REQUIRES_SPEC and spec == "absent":
        expected_findings = [("schema", "$", "required")]  # reported once, by the schema
    else:
        expected_findings = [("api-server", p, k) for p, k in expected]
        assert all(f.message.startswith(f"{kind} has no ") for f in errors)
    assert [(f.rule, f.path, f.keyword) for f in errors] == expected_findings


def test_spec_required_by_the_schema_is_reported_once(schema_cache: Path) -> None:
    """Kubernetes 1.37's OpenAPI requires a Deployment's spec: the schema's finding stands alone."""
    doc = _base("deployment")
    doc.pop("spec")
    findings = _errors(SchemaRegistry("1.37", schema_cache), doc)
    assert [(f.rule, f.path, f.message) for f in findings] == [
        ("schema", "$", 'missing required field "spec"')
    ]


# --- the server's recorded verdicts on Pods broken one security control at a time ---------------

GROUND = SHARED / "ground-truth" / "pod-security"


def _pod_security_rows() -> list[dict[str, str]]:
    verdicts = GROUND / "verdicts.tsv"
    if not verdicts.is_file():
        return []
    with verdicts.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle, delimiter="\t") if row["file"].startswith("mutations/")]


ROWS = _pod_security_rows()


@pytest.fixture(scope="module")
def pod_security_errors(schema_cache: Path) -> dict[tuple[str, int], list[str]]:
    files = sorted({GROUND / row["file"] for row in ROWS})
    return trainops_errors(files, schema_cache)


@pytest.mark.parametrize("row", ROWS, ids=[row["file"].removeprefix("mutations/") for row in ROWS])
def test_pod_security_mutation_agrees_with_the_server(
    pod_security_errors: dict[tuple[str, int], list[str]], row: dict[str, str]
) -> None:
    # secret-literal is trainops's own rule (the API server accepts literal credentials)
    found = pod_security_errors.get((str(GROUND / row["file"]), int(row["document"])), [])
    errors = [error for error in found if not error.endswith("[secret-literal]")]
    invalid = row["baseline"] == "invalid"
    assert bool(errors) == invalid, (row["baseline_violations"], errors)


#: Values of unexpected types where the new checks look: they must not raise, and a path the schema
#: family rejects is not reported again (a wrong type is reported once).
ODD_VALUES: list[Any] = ["x", 5, True, [], {}, [None], [1, "a"], {"a": None}]
ODD_PATHS: list[tuple[str, tuple[Step, ...]]] = [
    ("pod", ("spec", "securityContext")),
    ("pod", ("spec", "securityContext", "sysctls")),
    ("pod", ("spec", "securityContext", "windowsOptions")),
    ("pod", ("spec", "securityContext", "seccompProfile")),
    ("pod", ("spec", "os")),
    ("pod", ("spec", "hostUsers")),
    ("pod", ("metadata", "annotations")),
    ("pod", ("spec", "volumes")),
    ("pod", (*C0, "securityContext")),
    ("pod", (*C0, "securityContext", "appArmorProfile")),
    ("pod", (*C0, "securityContext", "capabilities")),
    ("deployment", ANNOTATIONS),
    ("deployment", ("spec", "template", "spec", "volumes")),
    ("deployment", ("spec",)),
]
ODD = [(base, path, value) for base, path in ODD_PATHS for value in ODD_VALUES]


@pytest.mark.parametrize(
    ("base", "path", "value"),
    ODD,
    ids=[f"{b}-{'.'.join(map(str, p))}-{i % len(ODD_VALUES)}" for i, (b, p, _) in enumerate(ODD)],
)
def test_odd_shapes_do_not_raise(
    registry: SchemaRegistry, base: str, path: tuple[Step, ...], value: Any
) -> None:
    errors = _errors(registry, _apply(_base(base), ((path, value),)))
    schema_paths = {f.path for f in errors if f.rule == "schema"}
    assert [f for f in errors if f.rule == "api-server" and f.path in schema_paths] == []


@pytest.mark.parametrize(
    "volume",
    [
        {"name": "v", "projected": {"sources": [None, 5, {"secret": None}, {"serviceAccountToken": "x"}]}},
        {"name": "v", "projected": {"sources": [{"configMap": {"name": "c", "items": [None, {"key": 1}]}}]}},
        {"name": "v", "projected": {"sources": [{"downwardAPI": {"items": [{"path": 5}]}}]}},
    ],
    ids=["sources", "items", "downward"],
)
def test_odd_projected_sources_do_not_raise(registry: SchemaRegistry, volume: dict[str, Any]) -> None:
    doc = _apply(_base("pod"), ((("spec", "volumes"), [volume]),))
    assert all(f.rule in ("schema", "api-server") for f in _errors(registry, doc))
