"""ValidatingAdmissionPolicies users place in ``policies/`` (``*.yaml`` other than ``default.yaml`` and
``config.yaml``), evaluated offline on the rendered set by ``trainops policy check`` and ``trainops ci``.

Those files hold ``ValidatingAdmissionPolicy`` and ``ValidatingAdmissionPolicyBinding`` objects
(``admissionregistration.k8s.io/v1``) and any parameter objects (e.g. ConfigMaps); parameter
objects are also looked up in the checked set itself. A policy takes effect only through a binding,
as in a cluster. For each binding and each checked object (the creation of that object):

* matching (``k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`` ``Matcher.Matches``
  and ``pkg/admission/plugin/webhook/predicates/rules/rules.go`` ``Matcher.Matches``): the policy's
  ``matchConstraints`` and then the binding's ``matchResources``: ``resourceRules`` (apiGroups,
  apiVersions, resources, operations with ``*``; ``CREATE`` is the offline operation; ``scope``;
  ``resourceNames``), ``excludeResourceRules``, ``matchPolicy`` (``Equivalent``, the default,
  accepts any version of a matched group and resource; ``Exact`` needs the version),
  ``objectSelector`` on the object's labels, ``namespaceSelector`` on the labels of the object's
  Namespace when that Namespace is in the set (a cluster-scoped object always matches, a
  Namespace uses its own labels; otherwise the selector cannot be resolved offline and an info
  finding says so). Resources are the kinds' plurals (:func:`trainops.policy.vap.plural`);
* parameters (``validating/dispatcher.go`` ``collectParams``): ``paramRef.name`` or
  ``paramRef.selector`` among objects of the policy's ``paramKind`` (namespace: ``paramRef.namespace``,
  else the object's); none found with ``parameterNotFoundAction: Deny`` denies (``failed to configure
  binding: no params found for policy binding with `Deny` parameterNotFoundAction``, as the server
  says), with ``Allow`` skips;
* evaluation: :class:`trainops.cel.admission.Program` (matchConditions, variables, validations,
  messageExpression, reason, failurePolicy; ``authorizer`` reported as skipped);
* ``validationActions``: ``Deny`` → level error, ``Warn`` → warning, ``Audit`` alone → info.

Findings carry rule ``admission-policy`` with the policy's name as keyword and message prefix
(``<policy>: <message>``), at the object's file and line (a violation's path when a
:func:`~trainops.cel.admission.violations` validation is used). A policy whose expressions do
not compile is an error finding at the policy's own file and line (the API server refuses it).

Source: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from trainops.cel.admission import MatchCondition, Program, Validation, Variable, parse_path
from trainops.core.errors import UsageError
from trainops.core.findings import Finding, Issue, Level
from trainops.core.kinds import CLUSTER_SCOPED, group_kind
from trainops.policy.admission_rule import RULE
from trainops.policy.pods import as_dict, as_list, as_str, labels_of, metadata_of
from trainops.policy.selectors import matches
from trainops.policy.vap import plural
from trainops.yaml.load import Document, locate_issues, stream_text

ADMISSION = "admissionregistration.k8s.io"
_SKIPPED_FILES = frozenset({"default.yaml", "config.yaml"})


@dataclass(frozen=True)
class UserPolicy:
    """A ValidatingAdmissionPolicy read from ``policies/``: its document, spec and program."""

    name: str
    document: Document
    spec: dict[str, Any]
    program: Program


@dataclass(frozen=True)
class UserBinding:
    """A ValidatingAdmissionPolicyBinding read from ``policies/``."""

    name: str
    spec: dict[str, Any]


@dataclass(frozen=True)
class UserPolicies:
    """Everything read from the YAML files of ``policies/``."""

    policies: dict[str, UserPolicy]
    bindings: tuple[UserBinding, ...]
    params: tuple[dict[str, Any], ...]


_CACHE: dict[Path, UserPolicies] = {}


def _program(name: str, spec: Mapping[str, Any]) -> Program:
    validations = tuple(
        Validation(
            expression=str(v.get("expression", "")),
            message=str(v.get("message") or ""),
            message_expression=str(v.get("messageExpression") or ""),
            reason=str(v.get("reason") or ""),
        )
        for v in as_list(spec.get("validations"))
        if isinstance(v, dict)
    )
    variables = tuple(
        Variable(str(v.get("name", "")), str(v.get("expression", "")))
        for v in as_list(spec.get("variables"))
        if isinstance(v, dict)
    )
    conditions = tuple(
        MatchCondition(str(c.get("name", "")), str(c.get("expression", "")))
        for c in as_list(spec.get("matchConditions"))
        if isinstance(c, dict)
    )
    failure: Literal["Fail", "Ignore"] = "Ignore" if spec.get("failurePolicy") == "Ignore" else "Fail"
    return Program(name, validations, variables, conditions, failure)


def load_user_policies(directory: Path) -> UserPolicies:
    """Read the policies, bindings and parameter objects of ``directory/*.yaml`` (once per process).

    Raises:
        UsageError: a file that is not valid YAML, or a policy or binding without a name.
    """
    directory = directory.resolve()
    if directory in _CACHE:
        return _CACHE[directory]
    policies: dict[str, UserPolicy] = {}
    bindings: list[UserBinding] = []
    params: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.yaml")):
        if path.name in _SKIPPED_FILES:
            continue
        for item in stream_text(path.read_text(encoding="utf-8"), str(path)):
            if not isinstance(item, Document):
                raise UsageError(f"{path}: {getattr(item, 'message', 'not valid YAML')}")
            data = item.data
            if not isinstance(data, dict):
                continue
            key = group_kind(data)
            name = as_str(metadata_of(data).get("name"))
            if key in (
                (ADMISSION, "ValidatingAdmissionPolicy"),
                (ADMISSION, "ValidatingAdmissionPolicyBinding"),
            ):
                if not name:
                    raise UsageError(f"{path}: document {item.index}: {key[1]} without metadata.name")
                spec = as_dict(data.get("spec"))
                if key[1] == "ValidatingAdmissionPolicy":
                    policies[name] = UserPolicy(name, item, spec, _program(name, spec))
                else:
                    bindings.append(UserBinding(name, spec))
            else:
                params.append(data)
    loaded = UserPolicies(policies, tuple(bindings), tuple(params))
    _CACHE[directory] = loaded
    return loaded


# --- matching ----------------------------------------------------------------------------------------


def _namespaced(obj: Mapping[str, Any]) -> bool:
    return group_kind(obj) not in CLUSTER_SCOPED


def _rule_matches(rule: Mapping[str, Any], obj: Mapping[str, Any], exact: bool) -> bool:
    """One ``NamedRuleWithOperations`` against the creation of ``obj`` (``rules.go`` ``Matcher``)."""
    api_version = str(obj.get("apiVersion", ""))
    group, _, version = api_version.rpartition("/")
    resource = plural(str(obj.get("kind", "")))

    def has(field: str, value: str) -> bool:
        values = [str(v) for v in as_list(rule.get(field))]
        return "*" in values or value in values

    operations = [str(v) for v in as_list(rule.get("operations"))]
    resources = [str(v) for v in as_list(rule.get("resources"))]
    if not has("apiGroups", group) or not ("*" in operations or "CREATE" in operations):
        return False
    if exact and not has("apiVersions", version):
        return False
    if not any(r in ("*", "*/*", resource) for r in resources):
        return False
    scope = rule.get("scope") or "*"
    if (scope == "Namespaced" and not _namespaced(obj)) or (scope == "Cluster" and _namespaced(obj)):
        return False
    names = [str(v) for v in as_list(rule.get("resourceNames"))]
    return not names or as_str(metadata_of(dict(obj)).get("name")) in names


def _matches_resources(
    constraints: Mapping[str, Any],
    obj: dict[str, Any],
    namespaces: Mapping[str, dict[str, Any]],
    *,
    rules_required: bool,
) -> bool | str:
    """Whether ``MatchResources`` match ``obj``; a string says why it cannot be decided offline.
    ``rules_required``: a policy's ``matchConstraints`` match nothing without ``resourceRules``; a
    binding's ``matchResources`` without them does not constrain resources (``types.go``)."""
    exact = constraints.get("matchPolicy") == "Exact"
    rules = as_list(constraints.get("resourceRules"))
    if (rules or rules_required) and not any(
        isinstance(r, dict) and _rule_matches(r, obj, exact) for r in rules
    ):
        return False
    if any(
        isinstance(r, dict) and _rule_matches(r, obj, exact)
        for r in as_list(constraints.get("excludeResourceRules"))
    ):
        return False
    object_selector = constraints.get("objectSelector")
    if isinstance(object_selector, dict) and not matches(object_selector, labels_of(obj)):
        return False
    namespace_selector = constraints.get("namespaceSelector")
    if isinstance(namespace_selector, dict) and namespace_selector:
        if group_kind(obj) == ("", "Namespace"):
            return matches(namespace_selector, labels_of(obj))
        if not _namespaced(obj):
            return True
        namespace = as_str(metadata_of(obj).get("namespace")) or "default"
        if namespace not in namespaces:
            return f"namespaceSelector needs the labels of Namespace {namespace}, which is not in the checked set"
        return matches(namespace_selector, labels_of(namespaces[namespace]))
    return True


# --- parameters ----------------------------------------------------------------------------------------


def _params(
    policy: UserPolicy, binding: UserBinding, obj: dict[str, Any], candidates: Sequence[dict[str, Any]]
) -> list[Any] | str:
    """The parameter objects to evaluate with (``[None]`` without paramKind), or the deny message."""
    param_kind = as_dict(policy.spec.get("paramKind"))
    ref = as_dict(binding.spec.get("paramRef"))
    if not param_kind or not ref:
        return [None]
    kind_api, kind_name = param_kind.get("apiVersion"), param_kind.get("kind")
    namespace = as_str(ref.get("namespace")) or as_str(metadata_of(obj).get("namespace")) or "default"
    found = []
    for param in candidates:
        if param.get("apiVersion") != kind_api or param.get("kind") != kind_name:
            continue
        meta = metadata_of(param)
        if _namespaced(param) and (as_str(meta.get("namespace")) or "default") != namespace:
            continue
        name = as_str(ref.get("name"))
        if name is not None and meta.get("name") != name:
            continue
        selector = ref.get("selector")
        if name is None and isinstance(selector, dict) and not matches(selector, labels_of(param)):
            continue
        found.append(param)
    if found:
        return found
    if ref.get("parameterNotFoundAction") == "Allow":
        return []
    return (
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
    )


# --- running ---------------------------------------------------------------------------------------------


def _level(binding: UserBinding) -> Level:
    actions = {str(a) for a in as_list(binding.spec.get("validationActions"))}
    if "Deny" in actions:
        return "error"
    return "warning" if "Warn" in actions else "info"


def compile_findings(user: UserPolicies) -> list[Finding]:
    """An error finding at each policy whose expressions do not compile."""
    findings: list[Finding] = []
    for policy in user.policies.values():
        errors = policy.program.compile_errors()
        issues = [
            Issue(
                ("spec", *parse_path("$." + e.split(":", 1)[0])), f"{policy.name}: {e}", RULE.id, policy.name
            )
            for e in errors
        ]
        findings.extend(locate_issues(policy.document, issues))
    return findings


def run_user_policies(documents: Sequence[Document], directory: Path) -> list[Finding]:
    """Findings of the bound policies of ``directory`` on ``documents`` (see the module docstring);
    ``[]`` when the directory holds none."""
    user = load_user_policies(directory)
    if not user.bindings:
        return []
    docs = [d for d in documents if isinstance(d.data, dict)]
    objects = [d.data for d in docs]
    namespaces = {
        name: obj
        for obj in objects
        if group_kind(obj) == ("", "Namespace") and (name := as_str(metadata_of(obj).get("name")))
    }
    candidates = [*user.params, *objects]
    findings = compile_findings(user)
    for binding in user.bindings:
        policy = user.policies.get(as_str(binding.spec.get("policyName")) or "")
        if policy is None:
            continue  # as in a cluster: a binding to a missing policy does nothing
        level = _level(binding)
        for document, obj in zip(docs, objects, strict=True):
            issues = _check(policy, binding, obj, namespaces, candidates, level)
            findings.extend(locate_issues(document, issues))
    return findings


def _check(
    policy: UserPolicy,
    binding: UserBinding,
    obj: dict[str, Any],
    namespaces: Mapping[str, dict[str, Any]],
    candidates: Sequence[dict[str, Any]],
    level: Level,
) -> list[Issue]:
    name = policy.name
    for constraints, required in (
        (as_dict(policy.spec.get("matchConstraints")), True),
        (as_dict(binding.spec.get("matchResources")), False),
    ):
        matched = _matches_resources(constraints, obj, namespaces, rules_required=required)
        if isinstance(matched, str):
            return [Issue((), f"{name}: not evaluated: {matched}", RULE.id, name, "info")]
        if not matched:
            return []
    params = _params(policy, binding, obj, candidates)
    if isinstance(params, str):
        return [Issue((), f"{name}: {params}", RULE.id, name, level)]
    issues: list[Issue] = []
    for param in params:
        for decision in policy.program.evaluate(obj, params=param, resource=plural(str(obj.get("kind", "")))):
            shown = "info" if decision.kind == "skipped" else level
            prefix = f"{name}: skipped: " if decision.kind == "skipped" else f"{name}: "
            issues.append(Issue((), prefix + decision.message, RULE.id, name, shown))
    return issues
