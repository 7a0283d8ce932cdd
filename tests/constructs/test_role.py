"""Role and RoleBinding: golden manifests, least-privilege rule checks, binding, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.constructs import PolicyRule, Role, RoleBinding, ServiceAccount


def test_defaults(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    account = ServiceAccount(chart, "Account", name="ci")
    role = Role.training_submitter(chart, "Role")
    role.bind(account)
    docs = synth(chart)
    golden("role/defaults.yaml", docs["Role/training-submitter"])
    golden("role/binding_defaults.yaml", docs["RoleBinding/training-submitter"])
    rules = yaml.safe_load(docs["Role/training-submitter"])["rules"]
    binding = yaml.safe_load(docs["RoleBinding/training-submitter"])
    # Jobs can be submitted and deleted; pods and logs only read; no wildcard anywhere.
    assert rules[0] == {
        "apiGroups": ["kubeflow.org"],
        "resources": ["pytorchjobs"],
        "verbs": ["get", "list", "watch", "create", "delete"],
    }
    assert set(rules[1]["verbs"]) == {"get", "list", "watch"}
    assert "*" not in yaml.safe_dump(rules)
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "training-submitter",
    }
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "ci", "namespace": "ml-test"}]
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    role = Role(
        chart,
        "Role",
        name="config-reader",
        rules=[
            PolicyRule(("",), ("configmaps",), ("get", "list", "watch")),
            PolicyRule(("",), ("secrets",), ("get",), resource_names=("hf-token",)),
        ],
        labels={"team": "vision"},
    )
    role.bind("notebook", ServiceAccount(chart, "Account", name="ci"))
    role.bind("serving", name="config-reader-serving")
    docs = synth(chart)
    golden("role/custom.yaml", docs["Role/config-reader"])
    rules = yaml.safe_load(docs["Role/config-reader"])["rules"]
    assert rules[1] == {
        "apiGroups": [""],
        "resources": ["secrets"],
        "verbs": ["get"],
        "resourceNames": ["hf-token"],
    }
    first = yaml.safe_load(docs["RoleBinding/config-reader"])
    assert [s["name"] for s in first["subjects"]] == ["notebook", "ci"]
    assert yaml.safe_load(docs["RoleBinding/config-reader-serving"])["subjects"][0]["name"] == "serving"
    validate_docs(cli, tmp_path, docs)


def test_second_binding_gets_a_suffix(chart: Any, synth: Any) -> None:
    role = Role.training_submitter(chart, "Role", kinds=("pytorchjobs", "tfjobs"))
    role.bind("a")
    second = role.bind("b")
    assert second.name == "training-submitter-2" and second.role is role
    assert yaml.safe_load(synth(chart)["Role/training-submitter"])["rules"][0]["resources"] == [
        "pytorchjobs",
        "tfjobs",
    ]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"api_groups": ()}, "Role PolicyRule api_groups=(): must not be empty"),
        ({"verbs": "get"}, "Role PolicyRule verbs='get': must be a tuple of strings"),
        ({"resources": ("*",)}, "Role PolicyRule resources=['*']: wildcards are not least privilege"),
        ({"api_groups": ("*",)}, "Role PolicyRule api_groups=['*']: wildcards are not least privilege"),
        ({"verbs": ("*",)}, "Role PolicyRule verbs=['*']: wildcards are not least privilege"),
        (
            {"verbs": ("escalate",)},
            "Role PolicyRule verbs: 'escalate' lets the subject escalate its privileges",
        ),
        ({"verbs": ("impersonate",)}, "Role PolicyRule verbs: 'impersonate' lets the subject escalate"),
        ({"verbs": ("read",)}, "Role PolicyRule verbs: 'read' is not one of get, list"),
        (
            {"resources": ("secrets",), "verbs": ("list",)},
            "Role PolicyRule verbs: 'list' on secrets reveals every",
        ),
        ({"resources": ("secrets",)}, "Role PolicyRule resources: secrets must be named in resource_names"),
    ],
)
def test_bad_policy_rule(props: dict[str, Any], message: str) -> None:
    rule: dict[str, Any] = {"api_groups": ("",), "resources": ("configmaps",), "verbs": ("get",), **props}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        PolicyRule(**rule)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"rules": []}, "Role rules=[]: give at least one PolicyRule"),
        ({"rules": [{"verbs": ["get"]}]}, "Role rules: {'verbs': ['get']} is not a PolicyRule"),
        ({"name": "Reader"}, "Role name='Reader': must be a DNS-1123 subdomain"),
        ({"labels": {"a": "b c"}}, "Role labels: label a='b c' is not a valid label value"),
    ],
)
def test_bad_role_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {"name": "reader", "rules": [PolicyRule(("",), ("pods",), ("get",))], **props}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        Role(chart, "Role", **base)


@pytest.mark.parametrize(
    ("subjects", "name", "message"),
    [
        ((), None, "RoleBinding subjects=(): give at least one ServiceAccount"),
        (("a", "a"), None, "RoleBinding subjects=['a', 'a']: a ServiceAccount repeats"),
        (("A",), None, "RoleBinding subjects='A': must be a DNS-1123 subdomain"),
        ((7,), None, "RoleBinding subjects: 7 is not a ServiceAccount or a name"),
        (("a",), "Bind", "RoleBinding name='Bind': must be a DNS-1123 subdomain"),
    ],
)
def test_bad_binding(chart: Any, subjects: tuple[Any, ...], name: str | None, message: str) -> None:
    role = Role.training_submitter(chart, "Role")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        RoleBinding(chart, "Binding", role=role, subjects=subjects, name=name)


def test_service_account_of_another_namespace_is_refused(chart: Any) -> None:
    from cdk8s import App, Chart

    other = Chart(App(), "other", namespace="ml-other", disable_resource_name_hashes=True)
    account = ServiceAccount(other, "Account", name="ci")
    role = Role.training_submitter(chart, "Role")
    with pytest.raises(
        ValueError, match=r"^RoleBinding subjects: ServiceAccount 'ci' is in namespace 'ml-other'"
    ):
        role.bind(account)


def test_chart_without_namespace_is_refused() -> None:
    from cdk8s import App, Chart

    chart = Chart(App(), "nons", disable_resource_name_hashes=True)
    role = Role.training_submitter(chart, "Role")
    with pytest.raises(ValueError, match=r"^RoleBinding 'training-submitter': the Chart has no namespace"):
        role.bind("ci")
