"""ValidatingAdmissionPolicies placed in ``policies/`` are evaluated offline on the checked set
(``trainops.policy.uservap``): matching, parameters, validation actions, authorizer, compile errors,
and the engine hook that runs them with the pack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.policy.test_policy_rules import FACTS, PACK
from trainops.core.findings import Finding
from trainops.policy.config import PolicyConfig
from trainops.policy.engine import PolicyRun, run_policies
from trainops.policy.loader import Pack
from trainops.policy.uservap import run_user_policies
from trainops.yaml.load import Document, stream_text

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: replica-cap}}
spec:
  failurePolicy: Fail
  paramKind: {{apiVersion: v1, kind: ConfigMap}}
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
{extra}
  variables:
  - name: replicas
    expression: "object.spec.?replicas.orValue(1)"
  validations:
  - expression: "variables.replicas <= int(params.data.max)"
    messageExpression: "'replicas ' + string(variables.replicas) + ' exceeds ' + params.data.max"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: replica-cap}}
spec:
  policyName: replica-cap
  paramRef: {{name: caps, namespace: policy, parameterNotFoundAction: {not_found}}}
  validationActions: {actions}
{binding_extra}
"""

PARAMS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: caps, namespace: policy}
data: {max: "3"}
"""

OBJECTS = """\
apiVersion: v1
kind: Namespace
metadata: {name: ml, labels: {tier: gpu}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: ml, labels: {app: big}}
spec:
  replicas: 5
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: small, namespace: ml}
spec:
  replicas: 2
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: elsewhere, namespace: other}
spec:
  replicas: 9
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ml}
spec: {ports: [{port: 80}]}
"""


def _run(tmp_path: Path, *, params: bool = True, objects: str = OBJECTS, **fields: str) -> list[Finding]:
    values = {"extra": "", "binding_extra": "", "actions": "[Deny]", "not_found": "Deny", **fields}
    (tmp_path / "replica-cap.yaml").write_text(POLICY.format(**values), encoding="utf-8")
    if params:
        (tmp_path / "params.yaml").write_text(PARAMS, encoding="utf-8")
    (tmp_path / "default.yaml").write_text("rules: {}\n", encoding="utf-8")
    documents = [d for d in stream_text(objects, "generated/app.yaml") if isinstance(d, Document)]
    return run_user_policies(documents, tmp_path)


def _show(findings: list[Finding]) -> list[str]:
    return [f"{f.line} {f.object_ref} {f.level} {f.message}" for f in findings]


def test_a_bound_policy_denies_with_its_message_at_the_object(tmp_path: Path) -> None:
    found = _run(tmp_path)
    assert _show(found) == [
        "5 Deployment/big error replica-cap: replicas 5 exceeds 3",
        "17 Deployment/elsewhere error replica-cap: replicas 9 exceeds 3",
    ]
    assert {(f.rule, f.keyword, f.file) for f in found} == {
        ("admission-policy", "replica-cap", "generated/app.yaml")
    }


@pytest.mark.parametrize(
    ("actions", "level"), [("[Deny]", "error"), ("[Warn, Audit]", "warning"), ("[Audit]", "info")]
)
def test_validation_actions_give_the_level(tmp_path: Path, actions: str, level: str) -> None:
    assert {f.level for f in _run(tmp_path, actions=actions)} == {level}


@pytest.mark.parametrize(
    ("fields", "names"),
    [
        (
            {
                "extra": "    excludeResourceRules:\n    - {apiGroups: [apps], apiVersions: ['*'], operations: ['*'], resources: ['*'], resourceNames: [elsewhere]}"
            },
            ["big"],
        ),
        ({"extra": "    objectSelector: {matchLabels: {app: big}}"}, ["big"]),
        (
            {
                "binding_extra": "  matchResources:\n    objectSelector: {matchExpressions: [{key: app, operator: DoesNotExist}]}"
            },
            ["elsewhere"],
        ),
        (
            {
                "extra": "    matchPolicy: Exact\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1beta1], operations: [CREATE], resources: [deployments]}]"
            },
            [],
        ),
    ],
)
def test_match_constraints_and_match_resources(
    tmp_path: Path, fields: dict[str, str], names: list[str]
) -> None:
    found = _run(tmp_path, **fields)
    assert [f.name for f in found] == names


def test_namespace_selector_uses_namespaces_of_the_set(tmp_path: Path) -> None:
    found = _run(tmp_path, extra="    namespaceSelector: {matchLabels: {tier: gpu}}")
    assert _show(found) == [
        "5 Deployment/big error replica-cap: replicas 5 exceeds 3",
        "17 Deployment/elsewhere info replica-cap: not evaluated: namespaceSelector needs the labels of "
        "Namespace other, which is not in the checked set",
    ]


@pytest.mark.parametrize(("not_found", "expected"), [("Deny", 3), ("Allow", 0)])
def test_missing_params(tmp_path: Path, not_found: str, expected: int) -> None:
    found = _run(tmp_path, params=False, not_found=not_found)
    assert len(found) == expected
    assert all(
        "no params found for policy binding with `Deny` parameterNotFoundAction" in f.message for f in found
    )


def test_params_from_the_checked_set(tmp_path: Path) -> None:
    found = _run(tmp_path, params=False, objects=OBJECTS + "---\n" + PARAMS)
    assert [f.name for f in found] == ["big", "elsewhere"]


def test_authorizer_is_reported_as_skipped(tmp_path: Path) -> None:
    text = POLICY.replace(
        'validations:\n  - expression: "variables.replicas',
        'validations:\n  - expression: "authorizer.requestResource.check(\'scale\').allowed()"\n  - expression: "variables.replicas',
    )
    (tmp_path / "replica-cap.yaml").write_text(
        text.format(extra="", binding_extra="", actions="[Deny]", not_found="Deny"), encoding="utf-8"
    )
    (tmp_path / "params.yaml").write_text(PARAMS, encoding="utf-8")
    documents = [d for d in stream_text(OBJECTS, "generated/app.yaml") if isinstance(d, Document)]
    found = run_user_policies(documents, tmp_path)
    skipped = [f for f in found if f.level == "info"]
    assert len(skipped) == 3 and all("skipped: validation 0 uses authorizer" in f.message for f in skipped)


def test_a_policy_that_does_not_compile_is_an_error_at_its_file(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: bad}\n"
        "spec:\n  validations:\n  - expression: 'object.spec.replicas <'\n---\n"
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: bad}\nspec: {policyName: bad, validationActions: [Deny]}\n",
        encoding="utf-8",
    )
    documents = [d for d in stream_text(OBJECTS, "generated/app.yaml") if isinstance(d, Document)]
    [finding] = run_user_policies(documents, tmp_path)
    assert (Path(finding.file).name, finding.line, finding.level) == ("bad.yaml", 6, "error")
    assert finding.message.startswith("bad: validations[0].expression: ERROR:")


def test_the_engine_runs_the_policies_of_the_pack_directory(tmp_path: Path) -> None:
    _run(tmp_path)
    documents = [d for d in stream_text(OBJECTS, "generated/app.yaml") if isinstance(d, Document)]
    run = PolicyRun(Pack(tmp_path, PACK.rules), PolicyConfig({}), FACTS)
    assert [f.name for f in run_policies(documents, run)] == ["big", "elsewhere"]


def test_no_policies_no_findings(tmp_path: Path) -> None:
    documents: list[Any] = [d for d in stream_text(OBJECTS, "x.yaml") if isinstance(d, Document)]
    assert run_user_policies(documents, tmp_path) == []


def test_the_rule_is_explained(cli: Any) -> None:
    result = cli("explain", "admission-policy")
    assert result.code == 0
    assert "ValidatingAdmissionPolicies placed in policies/" in result.out
