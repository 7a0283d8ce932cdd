"""Single-object policy rules written in CEL, the way a ValidatingAdmissionPolicy is written, so the
same rule runs in CI (offline, :mod:`trainops.cel.admission`) and in the cluster
(``trainops policy export-vap``, :mod:`trainops.policy.vap`).

A CEL rule module has the yamllint shape of every rule (``ID``, ``LEVEL``, ``KINDS``, ``CONF``,
``DEFAULT``, ``RULE``, docstring) and, instead of ``check()``, a ``CEL`` attribute::

    CEL = CelRule(
        pods=True,   # the rule reads variables.podSpecs / variables.containers (see below)
        variables=(Variable("privileged", "variables.containers.filter(c, ...)"),),
        validations=(violations("variables.privileged.map(c, {'path': ..., 'message': ...})"),),
    )

Expressions see what a ValidatingAdmissionPolicy sees: ``object``, ``request``, ``params`` (a
ConfigMap whose ``data`` holds the rule's options as strings, :func:`trainops.cel.admission.as_params`:
``params.data['require-digest'] == 'true'``), ``variables``. A validation built with
:func:`~trainops.cel.admission.violations` lists ``{'path': '$.json.path', 'message': '...'}``
maps, so offline findings carry the JSON path (and line) of each offending field, like Python rules.

Pod templates: with ``pods=True`` two variables come first, generated per kind group from
:mod:`trainops.core.kinds` (:data:`~trainops.core.kinds.POD_TEMPLATE_SITES`,
:data:`~trainops.core.kinds.POD_SPEC_SITES`, :data:`~trainops.core.kinds.EMBEDDED_OBJECTS`), so one
expression reaches every pod spec of a Deployment, Job, CronJob, each Kubeflow replica spec,
JobSet, Trainer runtime, TrainJob patch, KServe component or Katib trial template:

* ``variables.podSpecs``: a list of ``{'path': '$.spec.template.spec', 'spec': <PodSpec>, 'templated': bool,
  'partial': bool, 'extra': [{'path': ..., 'value': <Container>}]}`` (``templated``: inside a Katib
  trial template, where ``${trialParameters.x}`` placeholders stand; ``partial``: a patch of a pod spec
  defined elsewhere, whose missing fields are not missing; ``extra``: containers of the site's slots,
  e.g. KServe ``predictor.model``, :class:`trainops.core.kinds.SpecSite`);
* ``variables.containers``: a list of ``{'path': '<pod path>.containers[0]', 'field': 'containers',
  'name': <container name>, 'value': <Container>, 'templated': bool, 'partial': bool}`` over init,
  regular and ephemeral containers of every pod spec, then its slots' containers (as ``containers``),
  in the order of :func:`trainops.policy.pods.containers`.

Offline, both are computed in Python (:func:`native_pod_specs`, :func:`native_containers`, the same
values as their CEL, which exported policies carry) unless the object does not convert into CEL
exactly.

Kinds whose pod specs sit at the same places form one group (:func:`kind_groups`), and each group is
one exported ValidatingAdmissionPolicy, so its expressions type-check against every kind it matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from trainops.cel.admission import (
    NOT_NATIVE,
    MatchCondition,
    Program,
    Validation,
    Variable,
    as_params,
    cel_exact,
    parse_path,
)
from trainops.core.findings import Issue
from trainops.core.kinds import (
    CONTAINER_FIELDS,
    EACH_ITEM,
    EACH_VALUE,
    EMBEDDED_OBJECTS,
    POD_SPEC_SITES,
    POD_TEMPLATE_SITES,
    TRIAL_KINDS,
    WRAPPABLE_KINDS,
    WRAPPED_OBJECTS,
    GroupKind,
    group_kind,
    slot_name,
    walk,
)

#: Names of the generated pod variables.
POD_SPECS = "podSpecs"
CONTAINERS = "containers"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
#: One CEL string literal (a compound path expression such as ``'$.a[' + string(i0) + ']'`` is not).
_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'")


@dataclass(frozen=True)
class CelRule:
    """The CEL of a single-object rule (see the module docstring).

    Args:
        validations: what must hold; at least one.
        variables: the rule's variables, after the generated pod variables when ``pods``.
        match_conditions: preconditions (e.g. only Services of type LoadBalancer).
        pods: generate ``variables.podSpecs`` and ``variables.containers`` for the object's kind.
    """

    validations: tuple[Validation, ...]
    variables: tuple[Variable, ...] = ()
    match_conditions: tuple[MatchCondition, ...] = ()
    pods: bool = False

    def __post_init__(self) -> None:
        if not self.validations:
            raise ValueError("a CelRule needs at least one validation")
        names = [v.name for v in self.variables]
        if len(set(names)) != len(names) or (self.pods and {POD_SPECS, CONTAINERS} & set(names)):
            raise ValueError(f"CelRule variables must have distinct names, not {POD_SPECS}/{CONTAINERS}")


# --- pod-spec variables per kind group -----------------------------------------------------------


def _lit(text: str) -> str:
    """A CEL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _concat(pieces: list[str]) -> str:
    """CEL string concatenation of ``pieces`` (literals as ``'...'``), adjacent literals merged."""
    merged: list[str] = []
    for piece in pieces:
        if merged and _LITERAL.fullmatch(piece) and _LITERAL.fullmatch(merged[-1]) and piece != "'['":
            merged[-1] = _lit(_unlit(merged[-1]) + _unlit(piece))
        else:
            merged.append(piece)
    return " + ".join(merged)


def _unlit(literal: str) -> str:
    return literal[1:-1].replace("\\'", "'").replace("\\\\", "\\")


def _key_piece(var: str) -> str:
    """The JSON path piece of a map key held in CEL variable ``var`` (as :func:`trainops.core.findings.json_path`)."""
    return f"({var}.matches('^[A-Za-z_][A-Za-z0-9_-]*$') ? '.' + {var} : '[\\'' + {var} + '\\']')"


def _field_piece(name: str) -> str:
    return _lit(_field_text(name))


def _field_text(name: str) -> str:
    return f".{name}" if _IDENTIFIER.match(name) else f"['{name}']"


Leaf = Callable[[str, str], str]


def _walk(expr: str, path: list[str], steps: tuple[str, ...], depth: int, leaf: Leaf) -> str:
    """CEL for the list of leaves at ``steps`` below ``expr`` (``"*"``/``"[]"`` as in
    :class:`trainops.core.kinds.TemplateSite`); ``leaf(expr, path)`` is the CEL list for one leaf.
    Values of the wrong type on the way are skipped, as :func:`trainops.core.kinds.walk` does (the API
    server refuses such objects before admission; offline they must not fail the rule). Consecutive
    fields are tested in one ``&&`` chain (CEL parsers balance those), which keeps the expression
    shallow: parsers bound nesting (cel-cpp: 32 levels)."""
    if not steps:
        return f"(type({expr}) == map ? {leaf(expr, _concat(path))} : [])"
    step, rest = steps[0], steps[1:]
    if step == EACH_VALUE:
        key = f"k{depth}"
        inner = _walk(f"{expr}[{key}]", [*path, _key_piece(key)], rest, depth + 1, leaf)
        return f"(type({expr}) == map ? {expr}.map({key}, {inner}).flatten() : [])"
    if step == EACH_ITEM:
        index, item = f"i{depth}", f"v{depth}"
        inner = _walk(item, [*path, "'['", f"string({index})", "']'"], rest, depth + 1, leaf)
        return f"(type({expr}) == list ? {expr}.transformList({index}, {item}, {inner}).flatten() : [])"
    tests: list[str] = []
    while steps and steps[0] not in (EACH_VALUE, EACH_ITEM):
        tests.append(f"type({expr}) == map && has({expr}.{steps[0]})")
        expr = f"{expr}.{steps[0]}"
        path = [*path, _field_piece(steps[0])]
        steps = steps[1:]
    return f"({' && '.join(tests)} ? {_walk(expr, path, steps, depth, leaf)} : [])"


#: Depth of the variables of a slot walk below a pod spec (above any site walk's).
_SLOT_DEPTH = 20


def _slot_leaf(name: str) -> Leaf:
    """Leaf of a single-container slot; ``name`` is what an unnamed one goes by (:func:`trainops.core.kinds.slot_name`)."""
    return lambda expr, path: f"[{{'path': dyn({path}), 'value': dyn({expr}), 'name': dyn({_lit(name)})}}]"


def _list_leaf(name: str) -> Leaf:
    """Leaf of a list slot (``(..., name, "[]")``): the list itself, expanded by
    :data:`CONTAINERS_EXPRESSION` (expanding it here would nest too deep inside Katib trial specs)."""

    def leaf(expr: str, path: str) -> str:
        field = f"{expr}.{name}"
        return (
            f"(has({field}) && type({field}) == list ? "
            f"[{{'path': dyn({_concat([path, _field_piece(name)])}), 'value': dyn({field}), 'name': dyn('?')}}] : [])"
        )

    return leaf


def _slot_walk(expr: str, path: str, slot: tuple[str, ...], name: str) -> str:
    """CEL list of the ``extra`` entries of one slot below the pod spec at ``expr`` (``name``: of an
    unnamed single container)."""
    if slot and slot[-1] == EACH_ITEM:
        return _walk(expr, [path], slot[:-2], _SLOT_DEPTH, _list_leaf(slot[-2]))
    return _walk(expr, [path], slot, _SLOT_DEPTH, _slot_leaf(name))


def _pod_leaf(
    templated: bool,
    partial: bool = False,
    slots: tuple[tuple[str, ...], ...] = (),
    site: tuple[str, ...] = (),
) -> Leaf:
    flag = "true" if templated else "false"
    patch = "true" if partial else "false"

    def leaf(expr: str, path: str) -> str:
        walks = [_slot_walk(expr, path, slot, slot_name((*site, *slot))) for slot in slots]
        extra = f"[{', '.join(walks)}].flatten()" if walks else "[]"  # a list: '+' chains nest deep
        return (
            f"[{{'path': dyn({path}), 'spec': dyn({expr}), 'templated': dyn({flag}), "
            f"'partial': dyn({patch}), 'extra': dyn({extra})}}]"
        )

    return leaf


@dataclass(frozen=True)
class _Site:
    """A pod spec location of a kind for the CEL walks: path, patch flag, container slots."""

    path: tuple[str, ...]
    partial: bool = False
    slots: tuple[tuple[str, ...], ...] = ()


def _sites(key: GroupKind) -> list[_Site]:
    """The pod spec locations of a kind (template sites end in ``spec``), as :func:`trainops.core.kinds.pod_templates`."""
    sites = [_Site((*site.path, "spec")) for site in POD_TEMPLATE_SITES.get(key, ())]
    return sites + [_Site(s.spec_path, s.partial, s.slots) for s in POD_SPEC_SITES.get(key, ())]


def _kind_test(var: str, key: GroupKind) -> str:
    group, kind = key
    version = (
        f"{var}.apiVersion == 'v1'" if not group else f"{var}.apiVersion.startsWith({_lit(group + '/')})"
    )
    return f"(has({var}.kind) && has({var}.apiVersion) && {var}.kind == {_lit(kind)} && {version})"


def _embedded_leaf(depth: int, templated: bool = True) -> Leaf:
    """Leaf of an embedded object path (Katib ``trialSpec``, ``templated``; AppWrapper components,
    not): dispatch on the embedded object's kind."""

    def leaf(expr: str, path: str) -> str:
        branches = []
        for key in sorted(set(POD_TEMPLATE_SITES) | set(POD_SPEC_SITES)):
            if key not in (TRIAL_KINDS if templated else WRAPPABLE_KINDS):
                continue
            sites = [
                _walk(
                    expr,
                    [path],
                    site.path,
                    depth + 1,
                    _pod_leaf(templated, site.partial, site.slots, site.path),
                )
                for site in _sites(key)
            ]
            branches.append(f"({_kind_test(expr, key)} ? [{', '.join(sites)}].flatten() : [])")
        return f"[{', '.join(branches)}].flatten()"

    return leaf


def pod_specs_expression(key: GroupKind) -> str:
    """The CEL of ``variables.podSpecs`` for objects of kind ``key`` (``[]`` for kinds without pods)."""
    parts = [
        _walk("object", ["'$'"], site.path, 0, _pod_leaf(False, site.partial, site.slots, site.path))
        for site in _sites(key)
    ]
    for path in EMBEDDED_OBJECTS.get(key, ()):
        parts.append(_walk("object", ["'$'"], path, 0, _embedded_leaf(len(path))))
    for path in WRAPPED_OBJECTS.get(key, ()):
        parts.append(_walk("object", ["'$'"], path, 0, _embedded_leaf(len(path), templated=False)))
    return " + ".join(parts) if parts else "[]"


#: The CEL of ``variables.containers`` (over ``variables.podSpecs``): per pod spec, its container
#: lists, then the containers of its slots (``extra``) as ``containers``.
CONTAINERS_EXPRESSION = (
    "variables.podSpecs.map(p, ["
    + ", ".join(_lit(f) for f in CONTAINER_FIELDS)
    + "].map(f, type(p.spec[?f].orValue([])) == list ? p.spec[?f].orValue([]).transformList(i, c, type(c) == map ? [{"
    "'path': dyn(p.path + '.' + f + '[' + string(i) + ']'), 'field': dyn(f), "
    "'name': dyn(c.?name.orValue('?')), 'value': dyn(c), 'templated': dyn(p.templated), "
    "'partial': dyn(p.partial)}] : []).flatten() : []).flatten()"
    " + p.extra.map(e, type(e.value) == list ? e.value.transformList(i, c, type(c) == map ? [{"
    "'path': dyn(e.path + '[' + string(i) + ']'), 'field': dyn('containers'), "
    "'name': dyn(c.?name.orValue('?')), 'value': dyn(c), 'templated': dyn(p.templated), "
    "'partial': dyn(p.partial)}] : []).flatten() : [{'path': dyn(e.path), 'field': dyn('containers'), "
    "'name': dyn(e.value.?name.orValue(e.name)), 'value': dyn(e.value), 'templated': dyn(p.templated), "
    "'partial': dyn(p.partial)}]).flatten())"
    ".flatten()"
)


def pod_variables(key: GroupKind) -> tuple[Variable, ...]:
    """``podSpecs`` and ``containers`` for objects of kind ``key``, computed offline in Python
    (:func:`native_pod_specs`, :func:`native_containers`) when that gives exactly their CEL's value."""
    return (
        Variable(POD_SPECS, pod_specs_expression(key), per_object=True, native=native_pod_specs(key)),
        Variable(CONTAINERS, CONTAINERS_EXPRESSION, per_object=True, native=native_containers),
    )


# --- the pod variables in Python -------------------------------------------------------------------
#
# Evaluating the two pod variables in CEL converted the whole object into CEL, the pod specs back into
# Python, the pod specs into CEL again and the containers back: most of the cost of the pack's CEL
# rules. On an object that converts exactly (admission.cel_exact) the walks below give the same values
# (the CEL of _walk and CONTAINERS_EXPRESSION, step by step); the rules' own expressions still run in
# CEL. Pod specs under a mapping (EACH_VALUE) come in the mapping's order, where CEL iterates in its
# own order: findings are sorted, so the report does not change. On exact values (no nulls, plain
# dicts and lists) trainops.core.kinds.walk steps exactly as _walk's tests do.

_KEY_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # _key_piece's RE2 '^...$' matches the whole key


def native_pod_specs(key: GroupKind) -> Callable[[Any, Mapping[str, Any]], Any] | None:
    """``variables.podSpecs`` of :func:`pod_specs_expression` in Python, for objects of kind ``key``
    (``None`` for kinds embedding objects, Katib's: those keep the CEL). The function returns
    :data:`~trainops.cel.admission.NOT_NATIVE` for an object that does not convert exactly."""
    if key in EMBEDDED_OBJECTS or key in WRAPPED_OBJECTS:
        return None
    sites = tuple(_sites(key))

    def pod_specs(value: Any, variables: Mapping[str, Any]) -> Any:
        if not cel_exact(value):
            return NOT_NATIVE
        return [
            {
                "path": _cel_path(parts),
                "spec": node,
                "templated": False,
                "partial": site.partial,
                "extra": [
                    {"path": _cel_path(found), "value": item, "name": slot_name((*site.path, *slot))}
                    for slot in site.slots
                    for item, found in walk(node, slot[:-1] if slot[-1:] == (EACH_ITEM,) else slot, parts)
                    if type(item) is (list if slot[-1:] == (EACH_ITEM,) else dict)
                ],
            }
            for site in sites
            for node, parts in walk(value, site.path)
            if type(node) is dict  # _pod_leaf: only a map is a pod spec
        ]

    return pod_specs


def _cel_path(parts: tuple[str | int, ...]) -> str:
    """The path text the CEL of :func:`_walk` builds for ``parts`` (:func:`_field_piece` and
    :func:`_key_piece`: names are not escaped, unlike :func:`trainops.core.findings.json_path`)."""
    return "$" + "".join(
        f"[{part}]" if isinstance(part, int) else "." + part if _KEY_TEXT.fullmatch(part) else f"['{part}']"
        for part in parts
    )


def native_containers(value: Any, variables: Mapping[str, Any]) -> Any:
    """``variables.containers`` (:data:`CONTAINERS_EXPRESSION`) in Python, from ``variables.podSpecs``;
    :data:`~trainops.cel.admission.NOT_NATIVE` when podSpecs failed or ``value`` (the object) does
    not convert exactly."""
    specs = variables.get(POD_SPECS)
    if type(specs) is not list or not cel_exact(value):
        return NOT_NATIVE
    found: list[dict[str, Any]] = []
    for pod in specs:
        spec = pod["spec"]
        for field in CONTAINER_FIELDS:
            items = spec.get(field, [])
            if type(items) is not list:
                continue
            for index, item in enumerate(items):
                if type(item) is dict:
                    name = item.get("name", "?")
                    where = f"{pod['path']}.{field}[{index}]"
                    found.append(
                        {
                            "path": where,
                            "field": field,
                            "name": name,
                            "value": item,
                            "templated": pod["templated"],
                            "partial": pod["partial"],
                        }
                    )
        for extra in pod["extra"]:
            value = extra["value"]
            items = (
                [(f"{extra['path']}[{i}]", item) for i, item in enumerate(value) if type(item) is dict]
                if type(value) is list
                else [(extra["path"], value)]
            )
            for where, item in items:
                found.append(
                    {
                        "path": where,
                        "field": "containers",
                        "name": item.get("name", extra["name"]),
                        "value": item,
                        "templated": pod["templated"],
                        "partial": pod["partial"],
                    }
                )
    return found


def kind_groups(kinds: frozenset[GroupKind]) -> list[tuple[str, tuple[GroupKind, ...]]]:
    """``kinds`` split into groups whose pod specs sit at the same places (one exported policy each),
    named after their kind (``pytorchjob``; a group of several kinds after Deployment, or its first
    kind in :data:`~trainops.core.kinds.POD_TEMPLATE_SITES` order, plus ``-like``), sorted by name.
    Groups that would share a name (Katib's and Argo Rollouts' ``Experiment``) are told apart by
    their first kind's API group: ``experiment-kubeflow-org``, ``experiment-argoproj-io``."""
    by_expression: dict[str, list[GroupKind]] = {}
    order = {
        key: index
        for index, key in enumerate(
            [*POD_TEMPLATE_SITES, *POD_SPEC_SITES, *EMBEDDED_OBJECTS, *WRAPPED_OBJECTS]
        )
    }
    for key in sorted(kinds, key=lambda k: (order.get(k, len(order)), k)):
        by_expression.setdefault(pod_specs_expression(key), []).append(key)
    groups = []
    for members in by_expression.values():
        first = ("apps", "Deployment") if ("apps", "Deployment") in members else members[0]
        name = first[1].lower() + ("-like" if len(members) > 1 else "")
        groups.append((name, first[0], tuple(members)))
    names = [name for name, _, _ in groups]
    return sorted(
        (f"{name}-{group.replace('.', '-')}" if names.count(name) > 1 else name, members)
        for name, group, members in groups
    )


# --- offline evaluation ----------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def program_for(rule_id: str, cel_rule: CelRule, key: GroupKind | None) -> Program:
    """The admission program of a CEL rule for objects of kind ``key`` (pod variables first)."""
    variables = (*pod_variables(key), *cel_rule.variables) if cel_rule.pods and key else cel_rule.variables
    return Program(f"trainops-{rule_id}", cel_rule.validations, variables, cel_rule.match_conditions)


def params_object(rule_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The parameter ConfigMap of a rule's options, as exported and as bound offline."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"trainops-{rule_id}"},
        "data": as_params(options),
    }


#: ``check(conf, obj, ctx)`` of a CEL rule: a :data:`trainops.policy.rule.CheckOne` (``ctx`` unused).
CelCheck = Callable[[Mapping[str, Any], dict[str, Any], Any], Iterator[Issue]]


def make_check(rule_id: str, cel_rule: CelRule) -> CelCheck:
    """The ``check(conf, obj, ctx)`` of a CEL rule: its decisions on ``obj`` as issues (a violation at
    its path; a plain validation, or an evaluation error, at the object).

    Per rule, the program of each kind and the parameter object of each set of options are built once
    (the same parameter object for equal options, so evaluations binding ``params`` reuse their
    activations: :func:`trainops.cel.admission._activation`); so is the parsed path of each
    violation path."""
    programs: dict[GroupKind | None, Program] = {}
    params_of: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}

    def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Any) -> Iterator[Issue]:
        key = group_kind(obj)
        program = programs.get(key)
        if program is None:
            program = programs[key] = program_for(rule_id, cel_rule, key)
        params = None
        if conf:
            data = tuple(as_params(conf).items())  # params_object depends on these strings only
            params = params_of.get(data)
            if params is None:
                if len(params_of) >= 64:  # one set of options per run; bounded all the same
                    params_of.clear()
                params = params_of[data] = params_object(rule_id, conf)
        for decision in program.evaluate(obj, params=params):
            yield Issue(_parts(decision.path), decision.message, rule_id, keyword="cel", level="error")

    return check


@lru_cache(maxsize=4096)
def _parts(path: str) -> tuple[str | int, ...]:
    """:func:`~trainops.cel.admission.parse_path` of a violation's path; ``()`` (the object) for a
    path it refuses."""
    try:
        return parse_path(path)
    except ValueError:
        return ()
