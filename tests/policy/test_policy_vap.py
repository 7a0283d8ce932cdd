"""``trainops policy export-vap``: ValidatingAdmissionPolicy + Binding (+ ConfigMap) per CEL rule.

The output is compared with a golden file, is byte-identical across runs, validates strictly with
``trainops validate``, and its resource names agree with the CRDs of ``../shared/crds``. That the
real kube-apiserver accepts the objects and enforces them like the offline engine is
``tests/conformance/test_vap_conformance.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CRDS, needs_shared
from tests.policy.test_policy_rules import PACK
from trainops.policy.config import DEFAULT_CONFIG, PolicyConfig, RuleConfig, load_config
from trainops.policy.vap import ACTIONS, export_objects, plural, render_stream

REPO = Path(__file__).resolve().parents[2]
CONFIG = load_config(PACK, DEFAULT_CONFIG)


def test_export_matches_the_golden_file(golden: Any) -> None:
    config = PolicyConfig({r: CONFIG.rules[r] for r in ("exposed-service", "run-policy")})
    golden("policy-vap/export.yaml", render_stream(export_objects(PACK, config)))


def test_export_is_deterministic(cli: Any) -> None:
    first, second = cli("policy", "export-vap"), cli("policy", "export-vap")
    assert first.code == second.code == 0
    assert first.out == second.out == render_stream(export_objects(PACK, CONFIG))


def test_export_covers_every_cel_rule_and_kind() -> None:
    objects = export_objects(PACK, CONFIG)
    cel_rules = {rule_id for rule_id, rule in PACK.rules.items() if rule.cel is not None}
    labelled = {o.body["metadata"]["labels"]["trainops.dev/rule"] for o in objects}
    assert labelled == cel_rules
    for rule_id in cel_rules:
        rule = PACK.rules[rule_id]
        policies = [
            o.body
            for o in objects
            if o.kind == "ValidatingAdmissionPolicy"
            and o.body["metadata"]["labels"]["trainops.dev/rule"] == rule_id
        ]
        matched = {
            (group, resource)
            for p in policies
            for r in p["spec"]["matchConstraints"]["resourceRules"]
            for group in r["apiGroups"]
            for resource in r["resources"]
        }
        assert matched == {(g, plural(k)) for g, k in rule.kinds or ()}


@pytest.mark.parametrize(("level", "actions"), list(ACTIONS.items()))
def test_binding_actions_follow_the_rule_level(level: Any, actions: list[str]) -> None:
    rule = PACK.rules["image-pinned"]
    config = PolicyConfig({"image-pinned": RuleConfig(level, {"require-digest": True})})
    objects = export_objects(PACK, config, namespace="policy-params")
    [config_map] = [o.body for o in objects if o.kind == "ConfigMap"]
    assert config_map["data"] == {"require-digest": "true"}
    assert config_map["metadata"]["namespace"] == "policy-params"
    bindings = [o.body for o in objects if o.kind == "ValidatingAdmissionPolicyBinding"]
    assert len(bindings) == len([o for o in objects if o.kind == "ValidatingAdmissionPolicy"]) > 1
    assert {tuple(b["spec"]["validationActions"]) for b in bindings} == {tuple(actions)}
    assert {b["spec"]["paramRef"]["name"] for b in bindings} == {f"trainops-{rule.id}"}


def test_disabled_rules_are_not_exported() -> None:
    config = PolicyConfig({"exposed-service": CONFIG.rules["exposed-service"]})
    assert [o.name for o in export_objects(PACK, config)] == ["trainops-exposed-service"] * 3


def test_export_validates_strictly(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "vap"
    result = cli("policy", "export-vap", "--output", str(out))
    assert result.code == 0, result.err
    files = sorted(out.glob("*.yaml"))
    assert len(files) == len(export_objects(PACK, CONFIG))
    checked = cli("validate", "--strict", "--kubernetes-version", "1.36", str(out))
    assert checked.code == 0, checked.out


def test_export_bad_namespace_is_a_usage_error(cli: Any) -> None:
    result = cli("policy", "export-vap", "--namespace", "Not_A_Label")
    assert result.code == 2
    assert "--namespace" in result.err


def _crd_names() -> list[tuple[str, str]]:
    out = []
    for path in sorted(CRDS.rglob("*.yaml")) if CRDS.is_dir() else []:
        loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # every tag as text: some CRDs use `=`
        for doc in yaml.load_all(path.read_text(encoding="utf-8"), Loader=loader):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                names = doc["spec"]["names"]
                out.append((names["kind"], names["plural"]))
    return sorted(set(out))


@needs_shared
@pytest.mark.parametrize(("kind", "resource"), _crd_names())
def test_plural_matches_every_upstream_crd(kind: str, resource: str) -> None:
    assert plural(kind) == resource


@pytest.mark.parametrize(
    ("kind", "resource"),
    [
        ("Deployment", "deployments"),
        ("Ingress", "ingresses"),
        ("NetworkPolicy", "networkpolicies"),
        ("Endpoints", "endpoints"),
    ],
)
def test_plural_of_built_in_kinds(kind: str, resource: str) -> None:
    assert plural(kind) == resource
