"""CEL-written policy rules and the offline ValidatingAdmissionPolicy evaluator
(``trainops.cel.celrule``, ``trainops.cel.admission``).

The generated pod variables are checked against :func:`trainops.core.kinds.pod_templates` on every
policy fixture and every upstream example document: the CEL finds exactly the pod specs (and
containers) the Python walker finds, at the same JSON paths, and like it skips values of the wrong
type (a snippet's ``tfReplicaSpecs: ...``) instead of failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, needs_shared
from tests.policy.test_policy_rules import PACK, run_rule
from trainops.cel.admission import (
    MatchCondition,
    Program,
    Validation,
    Variable,
    as_params,
    parse_path,
    violations,
)
from trainops.cel.celrule import CelRule, kind_groups, pod_variables
from trainops.core.findings import json_path
from trainops.core.kinds import group_kind
from trainops.policy.pods import POD_KINDS, all_containers, pod_templates
from trainops.yaml.load import Document, stream_text

REPO = Path(__file__).resolve().parents[2]
FIXTURE_FILES = sorted((REPO / "tests" / "policies").glob("*/*.yaml"))
EXAMPLE_FILES = sorted(EXAMPLES.rglob("*.yaml")) if EXAMPLES.is_dir() else []


def _objects(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        d.data for d in stream_text(text, str(path)) if isinstance(d, Document) and isinstance(d.data, dict)
    ]


def _cel_paths(obj: dict[str, Any], variable: str) -> list[str] | None:
    """The paths CEL finds, or ``None`` when the evaluation fails (malformed data)."""
    key = group_kind(obj)
    assert key is not None
    program = Program(
        "probe",
        (violations(f"variables.{variable}.map(p, {{'path': p.path, 'message': string(p.templated)}})"),),
        pod_variables(key),
    )
    decisions = program.evaluate(obj)
    if any(d.kind == "error" for d in decisions):
        return None
    return sorted(f"{d.path} {d.message}" for d in decisions)


def _pod_objects(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in paths:
        for index, obj in enumerate(_objects(path)):
            if group_kind(obj) in POD_KINDS:
                out.append((f"{path.relative_to(path.parents[1])}#{index}", obj))
    return out


FIXTURE_PODS = _pod_objects(FIXTURE_FILES)
EXAMPLE_PODS = _pod_objects(EXAMPLE_FILES)


def _python_sites(obj: dict[str, Any]) -> list[str]:
    return sorted(f"{site.path} {str(site.templated).lower()}" for site in pod_templates(obj))


def _python_containers(obj: dict[str, Any]) -> list[str]:
    return sorted(f"{json_path(c.parts)} {str(c.site.templated).lower()}" for c in all_containers(obj))


@pytest.mark.parametrize(("name", "obj"), FIXTURE_PODS, ids=[n for n, _ in FIXTURE_PODS])
def test_pod_specs_variable_finds_what_pod_templates_finds_in_fixtures(
    name: str, obj: dict[str, Any]
) -> None:
    assert _cel_paths(obj, "podSpecs") == _python_sites(obj)
    assert _cel_paths(obj, "containers") == _python_containers(obj)


@needs_shared
@pytest.mark.parametrize(("name", "obj"), EXAMPLE_PODS, ids=[n for n, _ in EXAMPLE_PODS])
def test_pod_specs_variable_finds_what_pod_templates_finds_in_upstream_examples(
    name: str, obj: dict[str, Any]
) -> None:
    assert _cel_paths(obj, "containers") == _python_containers(obj)


def test_fixtures_cover_nested_sites() -> None:
    kinds = {group_kind(obj) for _, obj in FIXTURE_PODS}
    assert {("kubeflow.org", "PyTorchJob"), ("kubeflow.org", "Experiment"), ("batch", "CronJob")} <= kinds


def test_kind_groups_share_one_expression_per_site_shape() -> None:
    groups = dict(kind_groups(POD_KINDS))
    assert groups["deployment-like"] == (
        ("", "ReplicationController"),
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("batch", "Job"),
        ("argoproj.io", "Rollout"),  # spec.template, walked for policy (Argo Rollouts v1.9.1)
        ("kubeflow.org", "Notebook"),  # spec.template too (issue 26: every pod spec walked)
        ("serving.knative.dev", "Service"),
    )
    assert groups["pytorchjob"] == (("kubeflow.org", "PyTorchJob"),)
    assert sum(len(members) for members in groups.values()) == len(POD_KINDS)


CEL_RULES = sorted(rule_id for rule_id, rule in PACK.rules.items() if rule.cel is not None)


def test_the_pack_has_cel_rules() -> None:
    assert len(CEL_RULES) >= 5


@pytest.mark.parametrize("rule_id", CEL_RULES)
def test_cel_rule_expressions_compile(rule_id: str) -> None:
    rule = PACK.rules[rule_id]
    assert rule.cel is not None and rule.check is not None and rule.check_all is None
    kinds = sorted(rule.kinds or ())
    program = Program(
        rule_id,
        rule.cel.validations,
        (*pod_variables(kinds[0]), *rule.cel.variables) if rule.cel.pods else rule.cel.variables,
        rule.cel.match_conditions,
    )
    assert program.compile_errors() == []


def test_a_cel_rule_reports_an_evaluation_error_at_the_object() -> None:
    text = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\n"
    found = run_rule("exposed-service", text, options={"annotation": "a"})
    assert [f.path for f in found] == ["$.spec.type"]
    text = "apiVersion: v1\nkind: Service\nmetadata: {name: s, annotations: {a: 7}}\nspec: {type: NodePort}\n"
    found = run_rule("exposed-service", text, options={"annotation": "a"})
    assert [(f.path, f.line) for f in found] == [("$", 1)]
    assert "resulted in error" in found[0].message


def test_cel_rule_shape_errors() -> None:
    with pytest.raises(ValueError, match="at least one validation"):
        CelRule(validations=())
    with pytest.raises(ValueError, match="distinct names"):
        CelRule(validations=(Validation("true"),), variables=(Variable("containers", "1"),), pods=True)


# --- the admission evaluator -------------------------------------------------------------------------

DEPLOY: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "ml", "labels": {"tier": "gpu"}},
    "spec": {"replicas": 7},
}


@pytest.mark.parametrize(
    ("validation", "message"),
    [
        (Validation("object.spec.replicas < 5"), "failed expression: object.spec.replicas < 5"),
        (Validation("object.spec.replicas < 5", message=" too many "), "too many"),
        (
            Validation("object.spec.replicas < 5", "m", "'replicas ' + string(object.spec.replicas)"),
            "replicas 7",
        ),
        (Validation("object.spec.replicas < 5", "m", "'  '"), "m"),
        (Validation("object.spec.replicas < 5", "m", "'a\\nb'"), "m"),
        (Validation("object.spec.replicas < 5", "m", "object.nope"), "m"),
    ],
)
def test_message_is_chosen_as_upstream(validation: Validation, message: str) -> None:
    [decision] = Program("p", (validation,)).evaluate(DEPLOY)
    assert (decision.kind, decision.message, decision.reason) == ("deny", message, "Invalid")


def test_reason_and_holding_validation() -> None:
    program = Program("p", (Validation("true"), Validation("false", reason="Forbidden")))
    assert [(d.validation, d.reason) for d in program.evaluate(DEPLOY)] == [(1, "Forbidden")]


@pytest.mark.parametrize(
    ("conditions", "failure_policy", "expected"),
    [
        ((MatchCondition("gpu", "object.metadata.labels.tier == 'gpu'"),), "Fail", ["deny"]),
        ((MatchCondition("cpu", "object.metadata.labels.tier == 'cpu'"),), "Fail", []),
        # a false condition wins over an erroring one (matcher.go Match)
        ((MatchCondition("bad", "object.nope"), MatchCondition("no", "false")), "Fail", []),
        ((MatchCondition("bad", "object.nope"),), "Fail", ["error"]),
        ((MatchCondition("bad", "object.nope"),), "Ignore", []),
    ],
)
def test_match_conditions(
    conditions: tuple[MatchCondition, ...], failure_policy: Any, expected: list[str]
) -> None:
    program = Program("p", (Validation("false"),), match_conditions=conditions, failure_policy=failure_policy)
    assert [d.kind for d in program.evaluate(DEPLOY)] == expected


def test_variables_compose_and_errors_reach_only_their_users() -> None:
    program = Program(
        "p",
        (Validation("variables.double == 14"), Validation("variables.broken == 1"), Validation("true")),
        (
            Variable("replicas", "object.spec.replicas"),
            Variable("double", "variables.replicas * 2"),
            Variable("broken", "object.spec.nope"),
        ),
    )
    decisions = program.evaluate(DEPLOY)
    assert [(d.kind, d.validation) for d in decisions] == [("error", 1)]
    assert "resulted in error: variable 'broken' failed: no such key: nope" in decisions[0].message


def test_params_request_and_authorizer() -> None:
    program = Program(
        "p",
        (
            Validation("object.spec.replicas <= int(params.data.max)"),
            Validation("request.operation == 'CREATE' && request.namespace == 'ml'"),
            Validation("authorizer.group('apps').resource('deployments').check('scale').allowed()"),
        ),
    )
    decisions = program.evaluate(DEPLOY, params={"data": as_params({"max": 5})})
    assert [(d.kind, d.validation) for d in decisions] == [("deny", 0), ("skipped", 2)]


def test_compile_errors_name_the_field() -> None:
    program = Program("p", (Validation("object.spec.replicas <"),), (Variable("v", "nosuch()"),))
    errors = program.compile_errors()
    assert [e.split(":")[0] for e in errors] == ["variables[0].expression", "validations[0].expression"]


@pytest.mark.parametrize(
    "parts",
    [(), ("spec", "containers", 0, "image"), ("metadata", "labels", "app.kubernetes.io/name"), ("a", "it's")],
)
def test_parse_path_reads_json_path(parts: tuple[str | int, ...]) -> None:
    assert parse_path(json_path(parts)) == parts


def test_as_params_are_strings() -> None:
    assert as_params({"a": True, "b": 3, "c": "x", "d": ["y"]}) == {
        "a": "true",
        "b": "3",
        "c": "x",
        "d": '["y"]',
    }
