"""Offline evaluation of ValidatingAdmissionPolicy CEL (``admissionregistration.k8s.io/v1``), the
one evaluator of CEL-written pack rules (:mod:`trainops.cel.celrule`) and of the policies users
place in ``policies/`` (:mod:`trainops.policy.uservap`).

Shapes::

    program = Program("my-policy", validations=(Validation("object.spec.replicas <= 5"),))
    program.evaluate(obj, params=None)   # -> list[Decision]; never raises for bad data

Semantics mirrored from ``k8s.io/apiserver/pkg/admission/plugin/policy/validating`` (Kubernetes
v1.36) and the CEL admission library it uses:

* ``matchConditions`` (``pkg/admission/plugin/webhook/matchconditions/matcher.go``
  ``Matcher.Match``): every condition is evaluated; one that is false means the policy does not
  apply, even when another failed; otherwise an error applies the failure policy
  (``Fail``: the request is denied with ``expression '<expression>' resulted in error: <detail>``,
  several errors as ``[e1, e2]``; ``Ignore``: the policy is skipped).
* ``variables`` (``pkg/admission/plugin/cel/composition.go``): evaluated in order, each seeing the
  earlier ones as ``variables.<name>``. Upstream evaluates them lazily; here they are evaluated
  eagerly, and an error is reported only by an expression that references the variable, which
  gives the same decisions.
* ``validations`` (``validator.go`` ``validator.Validate``): an expression that is not ``true`` denies
  with ``reason`` (default ``Invalid``) and the message chosen as upstream does: the
  ``messageExpression`` result when it evaluates without error to a string that is neither empty
  after trimming nor multi-line, else the trimmed ``message``, else ``failed expression: <expression>``.
  An evaluation error is ``expression '<expression>' resulted in error: <detail>`` (``filter.go``),
  subject to the failure policy.
* Variables bound: ``object`` (nulls pruned, as a typed decoding drops them; for built-in kinds
  empty maps and lists too, which their ``omitempty`` fields drop: checked against the server), ``oldObject`` (null:
  offline checks are creations), ``request`` (operation ``CREATE``, kind, resource, name,
  namespace, a ``trainops`` user), ``params`` (the parameter object or null), ``namespaceObject``
  (the Namespace when known, else null) and ``variables``.
* ``authorizer`` needs the cluster's RBAC: an expression that uses it is not evaluated and yields a
  ``skipped`` decision (reported at level info).

Compiled programs are cached per expression text; cel-expr-python is imported on first use.
Activations are reused while they bind the same objects (:func:`_activation`), and ``per_object``
variables with a ``native`` function are computed in Python when the object converts into CEL
exactly (:func:`cel_exact`): the same decisions, at a fraction of the conversions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pragma: no cover - types only
    from cel_expr_python import cel

FailurePolicy = Literal["Fail", "Ignore"]
DecisionKind = Literal["deny", "error", "skipped"]

#: Default ``reason`` of a failed validation (``metav1.StatusReasonInvalid``).
DEFAULT_REASON = "Invalid"
#: Upstream's bound on an evaluated messageExpression (``celconfig.MaxEvaluatedMessageExpressionSizeBytes``).
MAX_MESSAGE_BYTES = 5 * 1024
_AUTHORIZER = re.compile(r"\bauthorizer\b")


@lru_cache(maxsize=4096)
def _uses_authorizer(source: str) -> bool:
    """Whether ``source`` mentions ``authorizer`` (not evaluated offline)."""
    return _AUTHORIZER.search(source) is not None


@dataclass(frozen=True)
class Validation:
    """One validation of a policy (``admissionregistration.k8s.io/v1`` ``Validation``).

    Args:
        expression: CEL that must be true.
        message: the message when it is false (default ``failed expression: <expression>``).
        message_expression: CEL giving the message (a string), preferred to ``message``.
        reason: ``Invalid`` (default), ``Forbidden``, ``Unauthorized`` or ``RequestEntityTooLarge``.
        violations: trainops pack rules only: a CEL list of ``{'path': '$.json.path', 'message': '...'}``
            maps; offline, each item is one finding at its path. :func:`violations` builds such a
            validation, whose exported ``expression`` and ``messageExpression`` are derived from it.
    """

    expression: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""
    violations: str = ""


def violations(expression: str, *, message: str = "", reason: str = "") -> Validation:
    """A validation from a CEL list of violations (``{'path', 'message'}`` maps): it holds when the
    list is empty; its messageExpression joins ``<path>: <message>`` of every item with ``; ``."""
    listed = expression if re.fullmatch(r"[\w.]+", expression) else f"({expression})"
    return Validation(
        expression=f"size({listed}) == 0",
        message=message,
        message_expression=f"{listed}.map(v, v.path + ': ' + v.message).join('; ')",
        reason=reason,
        violations=expression,
    )


@dataclass(frozen=True)
class Variable:
    """A named CEL expression (``Variable``), visible to later ones as ``variables.<name>``.

    ``per_object``: the value depends on ``object`` and earlier ``per_object`` variables only (the
    generated pod variables of :mod:`trainops.cel.celrule`), so it is computed once per object and
    shared by every program evaluating that object (default ``False``).

    ``native``: for a ``per_object`` variable, a Python function of the object value
    (:func:`object_value`) and the earlier variables' values giving exactly what the expression gives,
    or :data:`NOT_NATIVE` when it cannot (then the expression is evaluated). Offline only: exported
    policies carry the expression. Not part of equality.
    """

    name: str
    expression: str
    per_object: bool = False
    native: Callable[[Any, Mapping[str, Any]], Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class MatchCondition:
    """A CEL precondition (``MatchCondition``): the policy applies only when every one is true."""

    name: str
    expression: str


@dataclass(frozen=True)
class Decision:
    """One outcome of a policy on one object.

    Args:
        kind: ``deny`` (a validation is false), ``error`` (an expression failed and the failure policy
            is Fail) or ``skipped`` (an ``authorizer`` expression, not evaluated offline).
        message: the upstream message (see the module docstring).
        validation: index of the validation, ``-1`` for the policy as a whole (match conditions).
        reason: the validation's reason (``deny`` only).
        path: for :func:`violations`: the JSON path of the violation, else ``""`` (the object).
    """

    kind: DecisionKind
    message: str
    validation: int = -1
    reason: str = DEFAULT_REASON
    path: str = ""


@dataclass(frozen=True)
class _Compiled:
    program: cel.Expression | None
    error: str = ""
    returns_string: bool = False


@lru_cache(maxsize=4096)
def _compile(source: str) -> _Compiled:
    from cel_expr_python import cel

    from trainops.cel.env import admission_env, clean_error, compile_checked

    try:
        program, _ = compile_checked(admission_env(), source)
    except RuntimeError as err:
        return _Compiled(None, clean_error(str(err)))
    return _Compiled(program, returns_string=program.return_type() == cel.Type.STRING)


@dataclass(frozen=True)
class _Failed:
    detail: str


def _eval(source: str, bindings: Mapping[str, Any], shared: Collection[str] = ()) -> Any:
    """The plain value of ``source``, or :class:`_Failed` (compile or evaluation error). Never raises.

    ``shared``: the variables whose values are shared by every program evaluating the object
    (``per_object`` ones); an evaluation that binds only those and the other bindings (the same
    objects for one object) runs on an activation kept for reuse (:func:`_activation`), one that
    binds another variable on its data (such values are made per evaluation).
    """
    compiled = _compile(source)
    if compiled.program is None:
        return _Failed(f"compilation error: {compiled.error}")
    key, activation, data = _activation(source, bindings, shared)
    runtime = _runtime()
    try:
        result = (
            compiled.program.eval(activation) if activation is not None else compiled.program.eval(data=data)
        )
        if result.type() == runtime.error_type:
            outcome: Any = _Failed(runtime.clean_error(str(result.value())))
        else:
            return result.plain_value()
    except Exception as err:  # cel-expr-python raises RuntimeError/TypeError for odd values
        outcome = _Failed(runtime.clean_error(str(err)))
    _ACTIVATIONS.pop(key, None)  # an activation is reused only after evaluations without errors
    return outcome


@dataclass(frozen=True)
class _Runtime:
    """cel-expr-python pieces :func:`_eval` needs on every call, imported once (:func:`_runtime`)."""

    error_type: cel.Type
    new_activation: Callable[[Mapping[str, Any]], cel.Activation]
    clean_error: Callable[[str], str]


@lru_cache(maxsize=1)
def _runtime() -> _Runtime:
    from cel_expr_python import cel

    from trainops.cel.env import admission_env, clean_error

    return _Runtime(cel.Type.ERROR, admission_env().Activation, clean_error)


#: Activations by the identities of the values they bind (see :func:`_activation`), oldest first.
_ACTIVATIONS: dict[tuple[Any, ...], tuple[tuple[Any, ...], cel.Activation]] = {}
_ACTIVATIONS_MAX = 64
#: Hits and misses of :data:`_ACTIVATIONS` (for tests and profiling).
ACTIVATION_STATS = {"hits": 0, "misses": 0}


def _activation(
    source: str, bindings: Mapping[str, Any], shared: Collection[str] = ()
) -> tuple[tuple[Any, ...], cel.Activation | None, dict[str, Any]]:
    """The activation for ``source`` over ``bindings`` and its cache key; or, when it binds a variable
    not in ``shared``, no activation (``None``: evaluate on the data) and the data to bind.

    Only the names ``source`` mentions are bound (:func:`_referenced`), and of ``variables`` only the
    fields it reads. cel-expr-python converts a bound value into CEL on first access, deeply, and keeps
    the conversion inside the activation: an activation built per evaluation converted the object (or
    ``variables.containers``, which holds whole containers) again for every expression of every rule.
    So activations are kept by the identities of the values they bind, holding those values (an ``id``
    cannot be reused while its entry lives), for the last :data:`_ACTIVATIONS_MAX` bindings: bound
    values are never modified (object values, parameters and variable outcomes are built for
    evaluation and only read), CEL evaluation has no side effects, and a conversion error is the same
    error on every later access, so a reused activation gives the results a fresh one would. Values
    made per evaluation (variables not in ``shared``) would only fill the cache: evaluating on the
    data (``Expression.eval(data=...)``, the same conversion) skips building an activation.
    """
    names, variable_names = _bound(source)
    key: list[Any] = []
    held: list[Any] = []
    reuse = True
    for name in names:
        if name not in bindings:
            continue
        value = bindings[name]
        if name == "variables":
            fields = value if variable_names is None else [k for k in variable_names if k in value]
            for field_name in fields:
                reuse = reuse and field_name in shared
                key.append(("variables", field_name, id(value[field_name])))
                held.append(value[field_name])
            key.append(("variables",))
        else:
            key.append((name, id(value)))
            held.append(value)
    cache_key = tuple(key)
    if reuse:
        cached = _ACTIVATIONS.get(cache_key)
        if cached is not None:
            ACTIVATION_STATS["hits"] += 1
            return cache_key, cached[1], {}
    data: dict[str, Any] = {name: bindings[name] for name in names if name in bindings}
    if "variables" in data and variable_names is not None:
        variables = data["variables"]
        data["variables"] = {k: variables[k] for k in variable_names if k in variables}
    if not reuse:
        return cache_key, None, data
    ACTIVATION_STATS["misses"] += 1
    activation = _runtime().new_activation(data)
    if len(_ACTIVATIONS) >= _ACTIVATIONS_MAX:
        del _ACTIVATIONS[next(iter(_ACTIVATIONS))]
    _ACTIVATIONS[cache_key] = (tuple(held), activation)
    return cache_key, activation, data


@lru_cache(maxsize=4096)
def _bound(source: str) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """:func:`_referenced` as sorted tuples (the order the activation key lists them in), names limited
    to the admission variables (:data:`trainops.cel.env.ADMISSION_VARIABLES`, the only bindings)."""
    from trainops.cel.env import ADMISSION_VARIABLES

    names, variable_names = _referenced(source)
    bound = tuple(sorted(names.intersection(ADMISSION_VARIABLES)))
    return bound, (None if variable_names is None else tuple(sorted(variable_names)))


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE_FIELD = re.compile(r"\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
_VARIABLES_OTHERWISE = re.compile(r"\bvariables\b(?!\s*\.)")


@lru_cache(maxsize=4096)
def _referenced(source: str) -> tuple[frozenset[str], frozenset[str] | None]:
    """The identifiers ``source`` mentions, and the ``variables.<name>`` fields it reads (``None``:
    ``variables`` is used otherwise, e.g. ``variables['name']``, so every variable is bound).

    Only these are bound for an evaluation: CEL has no dynamic name lookup, so a binding the text does
    not name cannot be read, and converting the whole object into CEL values for an expression that
    only reads ``variables.containers`` was most of the cost of the pack's CEL rules. A name inside a
    string literal is bound needlessly, never missed.
    """
    fields = None if _VARIABLES_OTHERWISE.search(source) else frozenset(_VARIABLE_FIELD.findall(source))
    return frozenset(_IDENTIFIER.findall(source)), fields


def compile_error(source: str) -> str:
    """The compile error of a CEL expression in the admission environment, ``""`` when it compiles."""
    return _compile(source).error


_VALUES_MAX = 2048
#: What :meth:`_ByIdentity.get` returns for an object it does not hold.
_MISSING: Any = object()


class _ByIdentity:
    """Values derived from objects that are never modified (loaded objects, their CEL values), kept by
    the object's identity and a tag: several rules evaluate the same object in a row. Each entry holds
    its object, so an ``id`` is not reused while the entry lives; past :data:`_VALUES_MAX` entries all
    are dropped."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, Any], tuple[Any, Any]] = {}

    def get(self, obj: Any, tag: Any = None) -> Any:
        """The value kept for ``obj`` and ``tag`` (hashable), or :data:`_MISSING`."""
        held = self._entries.get((id(obj), tag))
        return held[1] if held is not None and held[0] is obj else _MISSING

    def put(self, obj: Any, value: Any, tag: Any = None) -> None:
        """Keep ``value`` for ``obj`` and ``tag``."""
        if len(self._entries) >= _VALUES_MAX:
            self._entries.clear()
        self._entries[(id(obj), tag)] = (obj, value)

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()


#: :func:`object_value` of each object.
_VALUES = _ByIdentity()
#: Outcomes of ``per_object`` variables, by object value and expression.
_PER_OBJECT = _ByIdentity()


def object_value(obj: Mapping[str, Any]) -> Any:
    """``object`` as the API server's CEL sees it (plain data, nulls pruned; for built-in kinds also
    empty maps and lists). Several rules evaluate the same object in a row, so the last
    :data:`_VALUES_MAX` conversions are kept by identity (rules never modify objects)."""
    value = _VALUES.get(obj)
    if value is not _MISSING:
        return value
    _INEXACT[0] = False
    value = _cel_data(obj, built_in(obj))
    _VALUES.put(obj, value)
    _EXACT.put(value, not _INEXACT[0])
    return value


#: Set by :func:`_cel_data` when it outputs a value :func:`cel_exact` refuses (or one it does not
#: vouch for: any but plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None``).
_INEXACT = [False]


def _cel_data(raw: Any, drop_empty: bool) -> Any:
    """``raw`` as CEL data, in one pass: plain JSON-like values (:func:`trainops.cel.values.plain`) without
    null mapping entries (what a typed decoding keeps) and, with ``drop_empty`` (built-in kinds),
    without empty mappings and lists inside mappings (what Go's ``omitempty`` drops).

    Loaded documents hold plain ``dict``, ``list``, ``str``, ``int``, ``float`` and ``bool`` values
    (and ``None``): those are tested by exact type first, the general tests (other mappings and
    sequences, subclasses, other scalars) follow, with the same outcome. On the way, what
    :func:`cel_exact` would refuse in the output sets :data:`_INEXACT` (the general tests set it
    for whatever they meet)."""
    kind = type(raw)
    if kind is dict:
        out: dict[str, Any] = {}
        for key, item in raw.items():
            if item is None:
                continue
            item_kind = type(item)
            if item_kind is str:
                if "\x00" in item or not (item.isascii() or _utf8(item)):
                    _INEXACT[0] = True
            elif item_kind is int:
                if not _INT64_MIN <= item <= _INT64_MAX:
                    _INEXACT[0] = True
            elif item_kind is not bool and item_kind is not float:
                item = _cel_data(item, drop_empty)
                if drop_empty and not item and isinstance(item, dict | list):
                    continue
            if type(key) is not str:
                key = str(key)
                _INEXACT[0] = True
            elif "\x00" in key or not (key.isascii() or _utf8(key)):
                _INEXACT[0] = True
            out[key] = item
        return out
    if kind is list:
        items: list[Any] = []
        for item in raw:
            item_kind = type(item)
            if item_kind is str:
                if "\x00" in item or not (item.isascii() or _utf8(item)):
                    _INEXACT[0] = True
            elif item_kind is int:
                if not _INT64_MIN <= item <= _INT64_MAX:
                    _INEXACT[0] = True
            elif item_kind is not bool and item_kind is not float and item is not None:
                item = _cel_data(item, drop_empty)
            items.append(item)
        return items
    if raw is None:
        return raw
    _INEXACT[0] = True
    if isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, Mapping):
        mapped: dict[str, Any] = {}
        for key, item in raw.items():
            if item is None:
                continue
            value = _cel_data(item, drop_empty)
            if drop_empty and not value and isinstance(value, dict | list):
                continue
            mapped[str(key)] = value
        return mapped
    if isinstance(raw, list | tuple):
        return [_cel_data(item, drop_empty) for item in raw]
    from trainops.cel.values import plain

    return plain(raw)


#: What a :attr:`Variable.native` function returns when the expression must be evaluated instead.
NOT_NATIVE: Any = object()
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: :func:`cel_exact` of each object value.
_EXACT = _ByIdentity()


def cel_exact(value: Any) -> bool:
    """Whether cel-expr-python converts ``value`` (an :func:`object_value`) into CEL and back without
    failing or changing it, so that Python code may compute on it what a CEL expression would
    (:attr:`Variable.native`): ``dict``s with string keys, ``list``s, ``None``, ``bool``, ``float``,
    ``int`` in the int64 range (beyond it the conversion gives uint or fails), and strings without
    NUL (the conversion cuts them there) or lone surrogates (it fails). Nesting is no limit: the
    conversion takes any depth that :func:`object_value` (Python recursion) takes. Memoised by
    identity, as :func:`object_value`, which records it while converting (then values that came from
    other types, such as mapping subclasses or tuples, count as not exact)."""
    exact = _EXACT.get(value)
    if exact is _MISSING:
        exact = _exact_list([value])
        _EXACT.put(value, exact)
    return bool(exact)


def _exact_map(value: dict[Any, Any]) -> bool:
    """:func:`cel_exact` of a mapping: its keys, then its values as :func:`_exact_list` tests them."""
    for key in value:
        if type(key) is not str or "\x00" in key or not (key.isascii() or _utf8(key)):
            return False
    return _exact_list(value.values())


def _exact_list(values: Iterable[Any]) -> bool:
    """:func:`cel_exact` of the items of a list (or a mapping's values): one loop per mapping or list,
    scalars tested in place (this runs on every object of a pod kind)."""
    for item in values:
        kind = type(item)
        if kind is str:
            if "\x00" in item or not (item.isascii() or _utf8(item)):
                return False
        elif kind is dict:
            if not _exact_map(item):
                return False
        elif kind is list:
            if not _exact_list(item):
                return False
        elif kind is int:
            if not _INT64_MIN <= item <= _INT64_MAX:
                return False
        elif kind is not bool and kind is not float and item is not None:
            return False
    return True


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def built_in(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` is of a built-in API group (core, ``apps``, ``*.k8s.io``...): decoded into Go
    types whose ``omitempty`` fields drop empty values, unlike custom resources."""
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return "." not in group or group.endswith(".k8s.io")


def request_of(obj: Mapping[str, Any], resource: str = "") -> dict[str, Any]:
    """The ``request`` variable for creating ``obj`` (``admission/v1`` ``AdmissionRequest`` fields
    that do not need a live server)."""
    api_version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    group, _, version = str(api_version).rpartition("/")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
    return {
        "operation": "CREATE",
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": resource},
        "name": meta.get("name") if isinstance(meta.get("name"), str) else "",
        "namespace": meta.get("namespace") if isinstance(meta.get("namespace"), str) else "",
        "userInfo": {"username": "trainops"},
        "dryRun": True,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    }


#: :func:`request_of` by object value and resource.
_REQUESTS = _ByIdentity()


def _request(value: Any, resource: str) -> dict[str, Any]:
    """:func:`request_of` ``value``, the same dictionary for the same object value (so activations
    binding ``request`` are reused across rules, :func:`_activation`)."""
    request: dict[str, Any] = _REQUESTS.get(value, resource)
    if request is _MISSING:
        request = request_of(value, resource)
        _REQUESTS.put(value, request, resource)
    return request


@dataclass(frozen=True)
class Program:
    """A policy's CEL, ready to evaluate on objects.

    Args:
        name: the policy name (for messages).
        validations: the validations, in order.
        variables: the variables, in order.
        match_conditions: the match conditions.
        failure_policy: ``Fail`` (default, as upstream) or ``Ignore``.
    """

    name: str
    validations: tuple[Validation, ...]
    variables: tuple[Variable, ...] = ()
    match_conditions: tuple[MatchCondition, ...] = ()
    failure_policy: FailurePolicy = "Fail"

    def compile_errors(self) -> list[str]:
        """``<field>: <error>`` for every expression that does not compile (what the API server refuses
        when the policy is created)."""
        out = []
        for index, condition in enumerate(self.match_conditions):
            if error := compile_error(condition.expression):
                out.append(f"matchConditions[{index}].expression: {error}")
        for index, variable in enumerate(self.variables):
            if error := compile_error(variable.expression):
                out.append(f"variables[{index}].expression: {error}")
        for index, validation in enumerate(self.validations):
            if error := compile_error(validation.expression):
                out.append(f"validations[{index}].expression: {error}")
            if validation.message_expression:
                compiled = _compile(validation.message_expression)
                if compiled.error:
                    out.append(f"validations[{index}].messageExpression: {compiled.error}")
                elif not compiled.returns_string:  # the server refuses dyn too (validation.go)
                    out.append(f"validations[{index}].messageExpression: must evaluate to string")
        return out

    def evaluate(
        self,
        obj: Mapping[str, Any],
        *,
        params: Any = None,
        namespace_object: Any = None,
        resource: str = "",
    ) -> list[Decision]:
        """Evaluate the policy on the creation of ``obj``.

        Args:
            obj: the object (plain data; nulls are pruned here).
            params: the parameter resource bound as ``params`` (``None``: null).
            namespace_object: the object's Namespace when known.
            resource: the plural resource name for ``request.resource``.

        Returns:
            The decisions: ``[]`` when the policy does not apply or every validation holds.
        """
        value = object_value(obj)
        bindings: dict[str, Any] = {
            "object": value,
            "oldObject": None,
            "request": _request(value, resource),
            "params": object_value(params) if params is not None else None,
            "namespaceObject": object_value(namespace_object) if namespace_object is not None else None,
            "authorizer": None,
            "variables": {},
        }
        matched = self._match(bindings)
        if matched is not None:
            return matched
        failed: dict[str, str] = {}
        values: dict[str, Any] = {}
        for variable in self.variables:
            bindings["variables"] = dict(values)
            outcome = _PER_OBJECT.get(value, variable.expression) if variable.per_object else _MISSING
            if outcome is _MISSING:
                outcome = NOT_NATIVE
                if variable.native is not None and variable.per_object:
                    outcome = variable.native(value, values)
                if outcome is NOT_NATIVE:
                    outcome = self._guarded(variable.expression, bindings, failed)
                if variable.per_object:
                    _PER_OBJECT.put(value, outcome, variable.expression)
            if isinstance(outcome, _Failed):
                failed[variable.name] = outcome.detail
            else:
                values[variable.name] = outcome
        bindings["variables"] = values
        decisions: list[Decision] = []
        for index, validation in enumerate(self.validations):
            decisions.extend(self._validate(index, validation, bindings, failed))
        return decisions

    def _match(self, bindings: Mapping[str, Any]) -> list[Decision] | None:
        """``None`` when the policy applies; ``[]`` when it does not; an error decision (Fail)."""
        errors: list[str] = []
        for condition in self.match_conditions:
            if _uses_authorizer(condition.expression):
                return [Decision("skipped", f"matchCondition {condition.name!r} uses authorizer")]
            outcome = _eval(condition.expression, bindings)
            if isinstance(outcome, _Failed):
                errors.append(f"expression '{condition.expression}' resulted in error: {outcome.detail}")
            elif outcome is not True:
                return []
        if not errors:
            return None
        if self.failure_policy == "Ignore":
            return []
        # errors.NewAggregate: one error as it is, several as "[e1, e2]"
        return [Decision("error", errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")]

    def _guarded(self, source: str, bindings: Mapping[str, Any], failed: Mapping[str, str]) -> Any:
        """Evaluate ``source`` unless it references a failed variable (then that variable's error)."""
        for name, detail in failed.items():
            if re.search(rf"\bvariables\.{re.escape(name)}\b", source):
                return _Failed(f"variable {name!r} failed: {detail}")
        return _eval(source, bindings, self._shared)

    @cached_property
    def _shared(self) -> frozenset[str]:
        """Names of the ``per_object`` variables (their values are shared: see :func:`_eval`)."""
        return frozenset(v.name for v in self.variables if v.per_object)

    def _validate(
        self, index: int, validation: Validation, bindings: Mapping[str, Any], failed: Mapping[str, str]
    ) -> list[Decision]:
        if _uses_authorizer(validation.expression) or _uses_authorizer(validation.message_expression):
            message = f"validation {index} uses authorizer (needs the cluster's RBAC): not evaluated offline"
            return [Decision("skipped", message, index)]
        source = validation.violations or validation.expression
        outcome = self._guarded(source, bindings, failed)
        if isinstance(outcome, _Failed):
            if self.failure_policy == "Ignore":
                return []
            message = f"expression '{validation.expression}' resulted in error: {outcome.detail}"
            return [Decision("error", message, index)]
        reason = validation.reason or DEFAULT_REASON
        if validation.violations:
            return _violations(index, outcome, reason)
        if outcome is True:
            return []
        return [Decision("deny", self._message(validation, bindings, failed), index, reason)]

    def _message(self, validation: Validation, bindings: Mapping[str, Any], failed: Mapping[str, str]) -> str:
        if validation.message_expression:
            outcome = self._guarded(validation.message_expression, bindings, failed)
            if isinstance(outcome, str):
                text = outcome.strip()
                if text and "\n" not in text and len(text.encode()) <= MAX_MESSAGE_BYTES:
                    return text
        if validation.message.strip():
            return validation.message.strip()
        return f"failed expression: {validation.expression.strip()}"


def _violations(index: int, outcome: Any, reason: str) -> list[Decision]:
    """Decisions from a violations list (see :class:`Validation`)."""
    if not isinstance(outcome, list):
        return [Decision("error", f"violations must be a list, got {type(outcome).__name__}", index)]
    out = []
    for item in outcome:
        if isinstance(item, dict) and isinstance(item.get("message"), str):
            path = item.get("path") if isinstance(item.get("path"), str) else ""
            out.append(Decision("deny", item["message"], index, reason, str(path)))
        else:
            out.append(Decision("error", f"a violation must be {{path, message}}, got {item!r}", index))
    return out


_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def parse_path(text: str) -> tuple[str | int, ...]:
    """``$.spec.containers[0]['a.b']`` → ``("spec", "containers", 0, "a.b")``; ``()`` for ``$`` or ``""``.

    Raises:
        ValueError: text that is not such a path.
    """
    if text in ("", "$"):
        return ()
    if not text.startswith("$"):
        raise ValueError(f"not a JSON path: {text!r}")
    parts: list[str | int] = []
    pos = 1
    while pos < len(text):
        match = _PATH_TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"not a JSON path: {text!r} (at offset {pos})")
        if match.group(1) is not None:
            parts.append(match.group(1))
        elif match.group(2) is not None:
            parts.append(int(match.group(2)))
        else:
            parts.append(re.sub(r"\\(.)", r"\1", match.group(3)))
        pos = match.end()
    return tuple(parts)


def as_params(options: Mapping[str, Any]) -> dict[str, str]:
    """Rule options as the ``data`` of a ConfigMap (strings only): strings as they are, booleans
    ``true``/``false``, numbers in decimal, anything else as JSON."""
    import json

    out: dict[str, str] = {}
    for key, value in options.items():
        if isinstance(value, str):
            out[key] = value
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, int | float):
            out[key] = str(value)
        else:
            out[key] = json.dumps(value, sort_keys=True)
    return out
