"""The exported ValidatingAdmissionPolicies in a real kube-apiserver (v1.36, ``../shared/oracle``).

For each CEL rule of the pack with core-kind fixtures: create its ConfigMap, policies and bindings
(``trainops policy export-vap``; the server compiles every expression on create and refuses what
does not compile), wait until admission enforces them, then send every core-kind document of the
rule's ``pass.yaml`` and ``fail.yaml`` with server-side dry run. A document the offline engine
flags must be denied by this rule's policy, with each offline finding (``<path>: <message>``) in the
server's message; a document it passes must not be denied by it. Documents the server refuses for
another reason are left out; Pods are sent without ``ephemeralContainers`` (forbidden on create)
and checked offline the same way. The bindings are deleted after
each rule, so one rule's policies never deny another rule's fixtures. A failing document that waives
the rule (``trainops.dev/waive-<rule-id>``) passes offline and is admitted by the server.

The oracle runs with its own state directory and ports (6843/2879), so it never meets the oracle of
``test_conformance.py``; the module skips when it cannot start.
"""

from __future__ import annotations

import copy
import os
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.oracle import ORACLE_SH, OracleEnv, OracleUnavailable, full_address_space
from tests.policy.test_policy_rules import FIXTURES, PACK, run_rule
from trainops.policy.config import DEFAULT_CONFIG, load_config
from trainops.policy.vap import export_objects, plural
from trainops.yaml.load import Document, stream_text

pytestmark = [pytest.mark.conformance]

REPO = Path(__file__).resolve().parents[2]
CONFIG = load_config(PACK, DEFAULT_CONFIG)
CORE: dict[str, str] = {"v1": "/api/v1", "apps/v1": "/apis/apps/v1", "batch/v1": "/apis/batch/v1"}
ADMISSION = "/apis/admissionregistration.k8s.io/v1"
NAMESPACE = "trainops-system"


def _environ() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ORACLE_DIR=f"/tmp/trainops-vap-oracle-{os.getuid()}", ORACLE_API_PORT="6843", ORACLE_ETCD_PORT="2879"
    )
    return env


def _start() -> OracleEnv:
    if not ORACLE_SH.is_file():
        raise OracleUnavailable(f"{ORACLE_SH} is missing")
    proc = subprocess.run(
        ["bash", str(ORACLE_SH), "start"],
        env={**_environ(), "FRESH": "1"},
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=full_address_space,
    )
    if proc.returncode != 0:
        raise OracleUnavailable(
            f"the kube-apiserver oracle cannot start here: {' '.join(proc.stderr.split())}"
        )
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines() if line.startswith("ORACLE_"))
    return OracleEnv(values["ORACLE_URL"], values["ORACLE_TOKEN"], values["ORACLE_CA"])


@pytest.fixture(scope="module")
def server() -> Iterator[httpx.Client]:
    try:
        env = _start()
    except (OracleUnavailable, OSError, subprocess.TimeoutExpired, KeyError) as exc:
        pytest.skip(str(exc))
    client = httpx.Client(
        base_url=env.url,
        verify=ssl.create_default_context(cafile=env.ca),
        headers={"Authorization": f"Bearer {env.token}"},
        timeout=60,
    )
    # kube-apiserver v1.36 stops the ConfigMap parameter informer when the last policy with that
    # paramKind is deleted, and a later policy then answers "no params found" for minutes: a policy
    # that matches nothing keeps it running for the whole module
    keeper = _policy(
        "vap-keeper",
        "  paramKind: {apiVersion: v1, kind: ConfigMap}\n  matchConstraints:\n    resourceRules:\n"
        "    - {apiGroups: [''], apiVersions: [v1], operations: [DELETE], resources: [limitranges]}\n"
        "  validations:\n  - expression: 'true'\n",
        "paramRef: {name: none, parameterNotFoundAction: Allow}\n  validationActions: [Deny]",
    )
    for item in yaml.safe_load_all(keeper):
        client.post(_url(item), json=item)
    try:
        yield client
    finally:
        client.close()
        subprocess.run(["bash", str(ORACLE_SH), "stop"], env=_environ(), capture_output=True, timeout=60)


def _url(obj: dict[str, Any]) -> str:
    base = CORE.get(obj["apiVersion"], "/apis/" + obj["apiVersion"])
    kind = obj["kind"]
    if kind in ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"):
        return f"{base}/{plural(kind)}"
    namespace = obj["metadata"].get("namespace", "default")
    return f"{base}/namespaces/{namespace}/{plural(kind)}"


def _namespace(client: httpx.Client, name: str) -> None:
    client.post(
        "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )


def _documents(rule_id: str) -> list[tuple[str, dict[str, Any], list[str]]]:
    """Core-kind documents of the rule's fixtures with the offline findings ``<path>: <message>``."""
    out = []
    for name in ("fail.yaml", "pass.yaml"):
        path = FIXTURES / rule_id / name
        for document in stream_text(path.read_text(encoding="utf-8"), str(path)):
            if (
                isinstance(document, Document)
                and isinstance(document.data, dict)
                and document.data.get("apiVersion") in CORE
            ):
                data = dict(document.data)
                if data.get("kind") == "Pod" and isinstance(data.get("spec"), dict):
                    # the server forbids ephemeral containers on create: send (and check) the Pod without
                    data["spec"] = {k: v for k, v in data["spec"].items() if k != "ephemeralContainers"}
                text = yaml.safe_dump(data)
                found = run_rule(rule_id, text)
                out.append(
                    (f"{name}#{document.index}", document.data, [f"{f.path}: {f.message}" for f in found])
                )
    return out


#: CEL rules whose fixtures hold a core-kind document the offline engine flags.
RULES = sorted(
    r for r, rule in PACK.rules.items() if rule.cel is not None and any(f for _, _, f in _documents(r))
)


def _dry_run(client: httpx.Client, obj: dict[str, Any]) -> tuple[int, str]:
    _namespace(client, obj["metadata"].get("namespace", "default"))
    response = client.post(_url(obj) + "?dryRun=All", json=obj)
    return response.status_code, response.json().get("message", "") if response.status_code >= 300 else ""


def test_every_exported_policy_is_accepted_by_the_server(server: httpx.Client) -> None:
    """The server compiles each expression when a policy is created (and refuses, e.g., ``cel.bind``
    or a map literal mixing value types): every exported object of every CEL rule is created."""
    objects = export_objects(PACK, CONFIG)
    _namespace(server, NAMESPACE)
    try:
        refused = []
        for item in objects:
            response = server.post(_url(item.body), json=item.body)
            if response.status_code != 201:
                refused.append(f"{item.kind} {item.name}: {response.text[:500]}")
        assert refused == []
        assert len(objects) > 100
    finally:
        for item in objects:
            server.delete(f"{_url(item.body)}/{item.name}")


@pytest.mark.parametrize("rule_id", RULES)
def test_exported_policies_enforce_what_ci_checks(server: httpx.Client, rule_id: str) -> None:
    objects = [
        o
        for o in export_objects(PACK, CONFIG)
        if o.body["metadata"]["labels"]["trainops.dev/rule"] == rule_id
    ]
    _namespace(server, NAMESPACE)
    for item in objects:
        response = server.post(_url(item.body), json=item.body)
        assert response.status_code == 201, f"{item.kind} {item.name}: {response.text[:2000]}"
    documents = _documents(rule_id)
    marker = f"ValidatingAdmissionPolicy 'trainops-{rule_id}"
    try:
        failing = [obj for _, obj, found in documents if found]
        deadline = time.monotonic() + 60
        # the admission plugin picks new policies up asynchronously
        while not any(marker in (last := _dry_run(server, obj))[1] for obj in failing):
            assert time.monotonic() < deadline, f"the policies were not enforced within 60 s: {last}"
            time.sleep(1)
        compared = 0
        for label, obj, found in documents:
            code, message = _dry_run(server, obj)
            denied = marker in message
            if code >= 300 and not denied:
                continue  # refused for another reason than this rule
            compared += 1
            assert denied == bool(found), f"{label}: server {code} {message!r}, offline {found}"
            for finding in found:
                assert finding in message, f"{label}: {finding!r} not in the server's message {message!r}"
        assert compared >= 1
        waived = copy.deepcopy(failing[0])
        annotations = waived["metadata"].setdefault("annotations", {})
        annotations[f"trainops.dev/waive-{rule_id}"] = "accepted risk, ticket 42"
        assert run_rule(rule_id, yaml.safe_dump(waived)) == []
        assert marker not in _dry_run(server, waived)[1], "the cluster denies what CI waived"
    finally:
        for item in objects:
            server.delete(
                f"{_url(item.body)}/{item.name}"
                if item.kind != "ConfigMap"
                else _url(item.body) + f"/{item.name}"
            )


# --- user policies: the offline evaluator's decisions against the server's ----------------------------

OBJECTS = """\
apiVersion: v1
kind: Namespace
metadata: {name: vap-gpu, labels: {tier: gpu}}
---
apiVersion: v1
kind: Namespace
metadata: {name: vap-cpu, labels: {tier: cpu}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: caps, namespace: vap-gpu, labels: {caps: "yes"}}
data: {max: "3"}
"""


def _deployment(name: str, namespace: str, replicas: int, labels: str = "{}") -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: {namespace}, labels: {labels}}}\n"
        f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
        f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
        f"    spec: {{containers: [{{name: c, image: 'registry.example.com/c:1'}}]}}\n"
    )


DEPLOYMENTS = [
    _deployment("big", "vap-gpu", 5, "{team: a}"),
    _deployment("small", "vap-gpu", 2),
    _deployment("huge", "vap-cpu", 9),
    _deployment("skip", "vap-gpu", 7, "{exempt: 'true'}"),
]


def _policy(name: str, spec: str, binding: str = "validationActions: [Deny]") -> str:
    return (
        f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {{name: {name}}}\n"
        f"spec:\n{spec}---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        f"metadata: {{name: {name}}}\nspec:\n  policyName: {name}\n  {binding}\n"
    )


RULES_DEPLOY = (
    "  matchConstraints:\n    resourceRules:\n    - {apiGroups: [apps], apiVersions: [v1], "
    "operations: [CREATE, UPDATE], resources: [deployments]}\n"
)

USER_POLICIES: dict[str, str] = {
    # message choice: messageExpression, blank/multi-line/failing messageExpression, message, default
    "vap-messages": _policy(
        "vap-messages",
        RULES_DEPLOY + "  validations:\n"
        "  - {expression: 'object.spec.replicas <= 4', messageExpression: \"'too many: ' + string(object.spec.replicas)\"}\n"
        "  - {expression: 'object.spec.replicas <= 6', message: fallback, messageExpression: \"' '\"}\n"
        "  - {expression: 'object.spec.replicas <= 8', message: ' m8 ', messageExpression: \"string(object.nope)\"}\n"
        "  - {expression: 'object.spec.replicas < 2', reason: Forbidden}\n",
    ),
    # match conditions (a false one wins over an error), variables, failure policy Fail on errors
    "vap-conditions": _policy(
        "vap-conditions",
        RULES_DEPLOY + "  matchConditions:\n"
        "  - {name: not-exempt, expression: \"!('exempt' in object.metadata.labels)\"}\n"
        "  - {name: erroring, expression: \"object.metadata.labels.team == 'a' || true\"}\n"
        "  variables:\n  - {name: r, expression: 'object.spec.replicas'}\n"
        "  validations:\n  - {expression: 'variables.r != 9'}\n  - {expression: 'variables.r != 5 || object.nope'}\n",
    ),
    # params by name and by selector, namespace selector, object selector
    "vap-params": _policy(
        "vap-params",
        "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"
        + RULES_DEPLOY.replace(
            "    resourceRules:", "    namespaceSelector: {matchLabels: {tier: gpu}}\n    resourceRules:"
        )
        + "  validations:\n  - expression: 'object.spec.replicas <= int(params.data.max)'\n"
        "    messageExpression: \"'replicas over ' + params.data.max\"\n",
        "paramRef: {selector: {matchLabels: {caps: 'yes'}}, parameterNotFoundAction: Deny}\n  validationActions: [Deny]",
    ),
    "vap-noparams": _policy(
        "vap-noparams",
        "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"
        + RULES_DEPLOY
        + "  validations:\n  - expression: 'true'\n",
        "paramRef: {name: missing, parameterNotFoundAction: Deny}\n  validationActions: [Deny]",
    ),
}


def _offline(tmp_path: Path, policy: str) -> dict[str, list[str]]:
    from trainops.policy.uservap import run_user_policies

    (tmp_path / "policy.yaml").write_text(policy, encoding="utf-8")
    text = OBJECTS + "---\n" + "---\n".join(DEPLOYMENTS)
    documents = [d for d in stream_text(text, "objects.yaml") if isinstance(d, Document)]
    out: dict[str, list[str]] = {}
    for finding in run_user_policies(documents, tmp_path):
        assert finding.level == "error", finding
        out.setdefault(str(finding.name), []).append(finding.message.split(": ", 1)[1])
    return out


@pytest.mark.parametrize("case", sorted(USER_POLICIES))
def test_user_policies_decide_as_the_server(server: httpx.Client, tmp_path: Path, case: str) -> None:
    expected = _offline(tmp_path, USER_POLICIES[case])
    assert expected, "the case denies nothing offline"
    for obj in yaml.safe_load_all(OBJECTS):
        if obj["kind"] == "Namespace":
            server.post("/api/v1/namespaces", json=obj)
        else:
            server.post(_url(obj), json=obj)
    policy, binding = yaml.safe_load_all(USER_POLICIES[case])
    for item in (policy, binding):
        response = server.post(_url(item), json=item)
        assert response.status_code == 201, response.text
    deployments = [yaml.safe_load(text) for text in DEPLOYMENTS]
    marker = f"ValidatingAdmissionPolicy '{case}' with binding '{case}' denied request: "
    try:
        deadline = time.monotonic() + 60

        def agrees(deployment: dict[str, Any]) -> bool:
            message = _dry_run(server, deployment)[1]
            return marker in message and message.split(marker, 1)[1] in expected.get(
                deployment["metadata"]["name"], []
            )

        # the plugin picks policies, bindings and parameter informers up asynchronously (until then a
        # binding may answer "no params found"): wait for one denial that agrees
        while not any(agrees(d) for d in deployments):
            assert time.monotonic() < deadline, "the policy was not enforced within 60 s"
            time.sleep(1)
        for deployment in deployments:
            name = deployment["metadata"]["name"]
            code, message = _dry_run(server, deployment)
            offline = expected.get(name, [])
            if not offline:
                assert code == 201, f"{name}: the server denied {message!r}, offline nothing"
                continue
            assert marker in message, f"{name}: server {code} {message!r}, offline {offline}"
            assert message.split(marker, 1)[1] in offline, f"{name}: server {message!r}, offline {offline}"
    finally:
        server.delete(f"{_url(binding)}/{case}")
        server.delete(f"{_url(policy)}/{case}")
