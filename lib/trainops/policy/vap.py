"""``trainops policy export-vap``: the CEL rules of the pack as ValidatingAdmissionPolicies, so the
cluster enforces what CI checked.

For every enabled CEL rule (:mod:`trainops.cel.celrule`), in rule ID order:

* a ``ConfigMap`` ``trainops-<rule-id>`` (in ``namespace``) holding the rule's options from the
  effective config as strings (:func:`trainops.cel.admission.as_params`), when the rule has options;
* per kind group (:func:`trainops.cel.celrule.kind_groups`; one group for rules without pod
  variables) a ``ValidatingAdmissionPolicy`` (``admissionregistration.k8s.io/v1``)
  ``trainops-<rule-id>[-<group>]``: ``failurePolicy: Fail``, ``paramKind: v1 ConfigMap`` (with
  options), ``matchConstraints.resourceRules`` for the group's kinds (operations CREATE and UPDATE,
  every version), a ``not-waived`` match condition (:func:`waiver_condition`) then the rule's, the
  pod variables then the rule's variables, and its validations with ``messageExpression``;
* a ``ValidatingAdmissionPolicyBinding`` of the same name: ``paramRef`` to the ConfigMap with
  ``parameterNotFoundAction: Deny``, and ``validationActions`` from the rule's configured level
  (``error`` → ``[Deny]``, ``warning`` → ``[Warn, Audit]``, ``info`` → ``[Audit]``).

Every object carries the labels ``app.kubernetes.io/managed-by: trainops`` and
``trainops.dev/rule: <rule-id>``. The output is deterministic (same pack and config, same bytes).

Resource names: :func:`plural` guesses a kind's resource as the API machinery does for CRDs
without an explicit plural (``k8s.io/apimachinery/pkg/api/meta/restmapper.go``
``UnsafeGuessKindToResource``), with the exceptions of the built-in kinds (:data:`IRREGULAR`);
``tests/policy/test_policy_vap.py`` checks it against the ``spec.names.plural`` of every CRD in
``../shared/crds`` and the conformance suite against the real server's discovery.

Sources: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/ and
``k8s.io/api/admissionregistration/v1/types.go``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainops.cel.admission import MatchCondition, Validation, Variable, as_params
from trainops.cel.celrule import kind_groups, pod_variables
from trainops.core.atomic import atomic_write
from trainops.core.findings import Level
from trainops.core.kinds import GroupKind
from trainops.policy.config import PolicyConfig
from trainops.policy.loader import Pack
from trainops.policy.rule import Rule
from trainops.policy.waivers import PREFIX
from trainops.yaml.dump import dump_document

ADMISSION = "admissionregistration.k8s.io/v1"
#: The namespace of the parameter ConfigMaps unless ``--namespace`` says otherwise.
DEFAULT_NAMESPACE = "trainops-system"
#: Binding ``validationActions`` for a rule's configured level.
ACTIONS: dict[Level, list[str]] = {"error": ["Deny"], "warning": ["Warn", "Audit"], "info": ["Audit"]}
#: Built-in kinds whose resource is not the guessed plural.
IRREGULAR: dict[str, str] = {"Endpoints": "endpoints", "PodSecurityPolicy": "podsecuritypolicies"}


def plural(kind: str) -> str:
    """The resource (plural, lower case) of ``kind``: ``Deployment`` → ``deployments``, ``Ingress`` →
    ``ingresses``, ``NetworkPolicy`` → ``networkpolicies`` (``UnsafeGuessKindToResource``)."""
    if kind in IRREGULAR:
        return IRREGULAR[kind]
    lower = kind.lower()
    if lower.endswith("s"):
        return lower + "es"
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    return lower + "s"


@dataclass(frozen=True)
class Exported:
    """One exported object: ``kind``, ``name`` and the object as a mapping."""

    kind: str
    name: str
    body: dict[str, Any]

    @property
    def file_name(self) -> str:
        """``<kind>_<name>.yaml`` (lower-case kind), as ``generated/`` names files."""
        return f"{self.kind.lower()}_{self.name}.yaml"


def _labels(rule_id: str) -> dict[str, str]:
    return {"app.kubernetes.io/managed-by": "trainops", "trainops.dev/rule": rule_id}


def _resource_rules(kinds: tuple[GroupKind, ...] | None) -> list[dict[str, Any]]:
    if kinds is None:
        return [
            {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"], "resources": ["*"]}
        ]
    groups: dict[str, set[str]] = {}
    for group, kind in kinds:
        groups.setdefault(group, set()).add(plural(kind))
    return [
        {
            "apiGroups": [group],
            "apiVersions": ["*"],
            "operations": ["CREATE", "UPDATE"],
            "resources": sorted(resources),
        }
        for group, resources in sorted(groups.items())
    ]


def waiver_condition(rule_id: str) -> MatchCondition:
    """The match condition that leaves out objects waiving ``rule_id`` with a reason (annotation
    ``trainops.dev/waive-<rule-id>``, :mod:`trainops.policy.waivers`), so the cluster admits what CI
    waived. Offline the engine applies waivers itself (and can show waived findings)."""
    key = f"{PREFIX}{rule_id}"
    return MatchCondition("not-waived", f"object.metadata.?annotations[?'{key}'].orValue('').trim() == ''")


def _validation(validation: Validation) -> dict[str, Any]:
    out: dict[str, Any] = {"expression": validation.expression}
    if validation.message:
        out["message"] = validation.message
    if validation.message_expression:
        out["messageExpression"] = validation.message_expression
    if validation.reason:
        out["reason"] = validation.reason
    return out


def _variables(variables: tuple[Variable, ...]) -> list[dict[str, str]]:
    return [{"name": v.name, "expression": v.expression} for v in variables]


def rule_objects(rule: Rule, level: Level, options: Mapping[str, Any], namespace: str) -> list[Exported]:
    """The ConfigMap (rules with options), then a policy and its binding per kind group, of one CEL rule.

    Raises:
        ValueError: ``rule`` is not written in CEL.
    """
    if rule.cel is None:
        raise ValueError(f"policy rule {rule.id} is not written in CEL")
    base = f"trainops-{rule.id}"
    out: list[Exported] = []
    if rule.conf:
        config_map = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": base, "namespace": namespace, "labels": _labels(rule.id)},
            "data": as_params(options),
        }
        out.append(Exported("ConfigMap", base, config_map))
    kinds = tuple(sorted(rule.kinds)) if rule.kinds is not None else None
    groups: list[tuple[str, tuple[GroupKind, ...] | None]]
    if rule.cel.pods and rule.kinds is not None:
        groups = [(f"{base}-{name}", members) for name, members in kind_groups(rule.kinds)]
    else:
        groups = [(base, kinds)]
    for name, members in groups:
        variables = rule.cel.variables
        if rule.cel.pods and members:
            variables = (*pod_variables(members[0]), *variables)
        spec: dict[str, Any] = {"failurePolicy": "Fail"}
        if rule.conf:
            spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
        spec["matchConstraints"] = {"resourceRules": _resource_rules(members)}
        conditions = (waiver_condition(rule.id), *rule.cel.match_conditions)
        spec["matchConditions"] = [{"name": c.name, "expression": c.expression} for c in conditions]
        if variables:
            spec["variables"] = _variables(variables)
        spec["validations"] = [_validation(v) for v in rule.cel.validations]
        policy = {
            "apiVersion": ADMISSION,
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name, "labels": _labels(rule.id)},
            "spec": spec,
        }
        binding_spec: dict[str, Any] = {"policyName": name}
        if rule.conf:
            binding_spec["paramRef"] = {
                "name": base,
                "namespace": namespace,
                "parameterNotFoundAction": "Deny",
            }
        binding_spec["validationActions"] = list(ACTIONS[level])
        binding = {
            "apiVersion": ADMISSION,
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name, "labels": _labels(rule.id)},
            "spec": binding_spec,
        }
        out += [Exported("ValidatingAdmissionPolicy", name, policy)]
        out += [Exported("ValidatingAdmissionPolicyBinding", name, binding)]
    return out


def export_objects(pack: Pack, config: PolicyConfig, namespace: str = DEFAULT_NAMESPACE) -> list[Exported]:
    """Every exported object of the enabled CEL rules of ``pack`` under ``config``, by rule ID."""
    out: list[Exported] = []
    for rule_id in sorted(config.rules):
        rule = pack.rules[rule_id]
        if rule.cel is not None:
            rule_config = config.rules[rule_id]
            out += rule_objects(rule, rule_config.level, rule_config.options, namespace)
    return out


def render_stream(objects: list[Exported]) -> str:
    """The objects as one multi-document YAML stream (``---`` between documents)."""
    return "---\n".join(dump_document(o.body) for o in objects)


def write_directory(objects: list[Exported], directory: Path) -> list[Path]:
    """Write one file per object (:attr:`Exported.file_name`) into ``directory`` (created); returns
    the paths. Files of other names are left alone."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for item in objects:
        path = directory / item.file_name
        atomic_write(path, dump_document(item.body).encode("utf-8"))
        paths.append(path)
    return paths
