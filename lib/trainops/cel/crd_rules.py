"""Offline evaluation of CRD ``x-kubernetes-validations`` (CEL) rules, as the API server does it.

Shapes::

    validator = CelValidator.for_schema(crd["spec"]["versions"][i]["schema"]["openAPIV3Schema"])
    validator.census            # RuleCensus: total / compiled / evaluated / skipped_transition / errors
    validator.validate(obj)     # list[CelViolation] for one custom resource (a dict from YAML)

:meth:`CelValidator.for_schema` compiles every rule once, with ``self`` declared as the CEL type of
the schema node that carries the rule (``object`` → ``map(string, dyn)``, ``additionalProperties`` →
``map(string, T)``, ``array`` → ``list(T)``, ``integer`` → ``int``, ``number`` → ``double``,
``boolean`` → ``bool``, ``string`` → ``string``, or ``timestamp`` / ``duration`` / ``bytes`` for the
``date``/``date-time``/``duration``/``byte`` formats; ``x-kubernetes-int-or-string``, and
``x-kubernetes-preserve-unknown-fields`` without ``properties``, → ``dyn``). :meth:`CelValidator.validate` then walks the
object along the schema (``properties``, ``items``, ``additionalProperties``, and rules under
``allOf``) and evaluates each rule against every value at its position. It never raises for bad
input: compile and evaluation errors come back as violations.

Kubernetes semantics reproduced (sources: ``k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/
validation.go`` and ``compilation.go``, ``k8s.io/apiserver/pkg/cel/common/{schemas,values}.go`` and
``escaping.go``; https://kubernetes.io/docs/reference/using-api/cel/ ):

* The object is first *defaulted and pruned* as the API server stores it: absent properties with a
  ``default`` get it, ``null`` in a non-nullable property counts as absent, unknown fields are not
  visible (``has(self.unknown)`` is false). At the root of the resource and of every
  ``x-kubernetes-embedded-resource``, ``self`` holds ``apiVersion``, ``kind`` and ``metadata`` with
  only ``name`` and ``generateName``.
* Property names are exposed escaped (``foo-bar`` → ``foo__dash__bar``, ``a.b`` → ``a__dot__b``,
  ``namespace`` → ``__namespace__``); CEL reserved words are also reachable unescaped, since current
  Kubernetes accepts rules such as JobSet's ``t.metadata.namespace``.
* A rule is not evaluated when its value is absent or null. Rules that reference ``oldSelf``
  (transition rules) only run on updates; offline there is no stored object, so they are *skipped*
  and listed in the census with :data:`TRANSITION_REASON`. A rule with ``optionalOldSelf: true`` is
  evaluated with ``oldSelf`` = ``optional.none()``, as on create.
* A false rule yields its ``messageExpression`` (when it evaluates to a non-empty one-line string),
  else its ``message``, else ``failed rule: <rule>``; its ``fieldPath`` is appended to the rule's
  position and its ``reason`` is passed on. An evaluation error (no such key, integer overflow,
  a type mismatch in the data ...) yields ``rule evaluation error: <detail>`` at the rule's position.
* The Kubernetes CEL environment: strings extension v2, optional syntax (``?.``, ``[?k]``,
  ``.orValue()``), sets, two-variable comprehensions, and the Kubernetes libraries in
  :mod:`trainops.cel.k8s` (lists, regex, URLs, quantity, IP, CIDR).

Not reproduced: cost limits (not needed offline); order-insensitive equality of
``x-kubernetes-list-type: set/map`` lists; compile-time rejection of undeclared fields (objects
are ``map(string, dyn)``, so ``self.typo`` fails at run time as a "no such key" evaluation error);
cross-type numeric comparisons (``self.replicas < 1.5``) are not accepted by the cel-cpp type
checker, so such rules are compiled without type checking and checked at run time instead; the
format, semver, image and authz libraries (see :mod:`trainops.cel.k8s` for the reasons).

What was learnt about cel-expr-python 0.1.3 (the official cel-cpp wrapper) is documented in
:mod:`trainops.cel.k8s`. Two more points matter here: ``NewEnvConfigFromYaml`` is the way
to enable cel-cpp's own extensions (sets, two-variable comprehensions), and evaluation never raises
for data problems: errors come back as values of type ``ERROR`` whose text starts with a status code
(``OUT_OF_RANGE: integer overflow``), which :func:`_clean_error` strips.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final, Literal

from cel_expr_python import cel

from trainops.cel import k8s
from trainops.cel.env import clean_error as _clean_error
from trainops.cel.env import compile_checked as _compile
from trainops.cel.values import plain as _plain
from trainops.core.durations import STRFMT_UNITS, duration_seconds

#: Why a transition rule is not evaluated (the reason recorded in the census).
TRANSITION_REASON: Final = (
    "transition rule: it references oldSelf, which only exists when an update is checked against "
    "the stored object; offline validation has no stored object"
)

RuleStatus = Literal["evaluated", "skipped", "error"]
_PathPart = str | int


@dataclass(frozen=True)
class CelViolation:
    """One failed or failing ``x-kubernetes-validations`` rule on one value.

    Args:
        path: JSON path of the offending value, e.g. ``$.spec.replicatedJobs[0].replicas``
            (``$`` is the resource); the rule's ``fieldPath`` is appended to the rule's position.
        message: the rule's evaluated ``messageExpression`` or ``message``, ``failed rule: <rule>``,
            or ``rule evaluation error: …`` / ``rule compile error: …``.
        rule: the CEL source of the rule.
        reason: the rule's ``reason`` (``FieldValueInvalid``, ``FieldValueForbidden``,
            ``FieldValueRequired``, ``FieldValueDuplicate``) when it gives one and the rule is false.
    """

    path: str
    message: str
    rule: str
    reason: str | None = None


@dataclass(frozen=True)
class RuleRecord:
    """How one rule was handled when the schema was compiled.

    Args:
        position: schema position of the rule, e.g. ``$.spec.replicatedJobs[*].dependsOn``
            (``[*]`` = every item, ``.*`` = every ``additionalProperties`` value).
        rule: the CEL source.
        status: ``evaluated`` (compiled, runs on every value at the position), ``skipped``
            (compiled, never run offline: see ``reason``) or ``error`` (did not compile).
        reason: why the rule is skipped, the compile error, or a note (e.g. compiled unchecked).
    """

    position: str
    rule: str
    status: RuleStatus
    reason: str = ""


@dataclass(frozen=True)
class RuleCensus:
    """What happened to every ``x-kubernetes-validations`` rule of a schema; censuses add up.

    ``compiled == evaluated + skipped_transition`` and ``total == compiled + errors``.
    """

    rules: tuple[RuleRecord, ...] = ()

    @property
    def total(self) -> int:
        """Number of rules in the schema."""
        return len(self.rules)

    @property
    def compiled(self) -> int:
        """Rules that compiled (evaluated or skipped)."""
        return self.total - self.errors

    @property
    def evaluated(self) -> int:
        """Rules evaluated on every matching value."""
        return sum(r.status == "evaluated" for r in self.rules)

    @property
    def skipped_transition(self) -> int:
        """Transition rules (``oldSelf``), compiled but not evaluated offline."""
        return sum(r.status == "skipped" for r in self.rules)

    @property
    def errors(self) -> int:
        """Rules that did not compile."""
        return sum(r.status == "error" for r in self.rules)

    @property
    def skipped(self) -> tuple[RuleRecord, ...]:
        """The skipped rules, each with its reason."""
        return tuple(r for r in self.rules if r.status == "skipped")

    @property
    def failed(self) -> tuple[RuleRecord, ...]:
        """The rules that did not compile, each with its compile error."""
        return tuple(r for r in self.rules if r.status == "error")

    def __add__(self, other: RuleCensus) -> RuleCensus:
        return RuleCensus(self.rules + other.rules)


# ------------------------------------------------------------------------------ compiled schema


@dataclass
class _Rule:
    source: str
    message: str | None
    reason: str | None
    field_path: tuple[str, ...] = ()
    program: cel.Expression | None = None  # None: skipped or failed
    message_program: cel.Expression | None = None
    message_source: str | None = None  # the messageExpression, when compiled
    plain: bool = False  # compiled type-checked in the node's own environment (no oldSelf binding)
    error: str | None = None


@dataclass
class _Node:
    kind: str  # object | map | array | string | integer | number | boolean | dyn
    fmt: str | None
    nullable: bool
    has_default: bool
    default: Any
    resource_root: bool
    cel_type: cel.Type
    type_key: str
    properties: dict[str, _Node] = field(default_factory=dict)
    cel_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    items: _Node | None = None
    additional: _Node | None = None
    rules: list[_Rule] = field(default_factory=list)
    env: cel.Env | None = None
    subtree_has_rules: bool = False
    #: The properties the node's own rules read (:func:`_self_fields`), ``None``: its whole value.
    reads: frozenset[str] | None = None
    #: The conjunction of the node's :attr:`_Rule.plain` rules (when two or more), evaluated first.
    all_rules: cel.Expression | None = None
    #: Scalar values (``(type, value)``, strings, integers and booleans) for which every rule held,
    #: when every rule of the node is plain (a rule reads only ``self``: the same value, the same
    #: outcome): such a value is not evaluated again. ``None``: not remembered. At most
    #: :data:`_HELD_MAX` entries.
    held: dict[tuple[type, Any], bool] | None = None


_ENV_CONFIG = cel.NewEnvConfigFromYaml(k8s.ENV_CONFIG_YAML)
_BIND_ENV_CONFIG = cel.NewEnvConfigFromYaml(k8s.ENV_CONFIG_YAML + '  - name: "bindings"\n')
_ENVS: dict[tuple[str, str], cel.Env] = {}


def _env(flavour: str, type_key: str, self_type: cel.Type) -> cel.Env:
    """A cached environment: ``plain`` (self), ``old`` (self, oldSelf) or ``bind`` (self + cel.bind)."""
    key = (flavour, type_key)
    env = _ENVS.get(key)
    if env is None:
        variables = {"self": self_type}
        if flavour == "old":
            variables["oldSelf"] = self_type
        config = _BIND_ENV_CONFIG if flavour == "bind" else _ENV_CONFIG
        env = cel.NewEnv(config=config, variables=variables, extensions=[k8s.library()])
        _ENVS[key] = env
    return env


_USES_OLD_SELF = re.compile(r"undeclared reference to 'oldSelf[.']")


def _type_name(cel_type: cel.Type) -> str:
    """CEL spelling of a type: ``int``, ``list<dyn>``."""
    return str(cel_type.name()).lower()


_RESERVED = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)


@lru_cache(maxsize=4096)
def _cel_keys(name: str) -> tuple[str, ...]:
    """The CEL field names a property is visible under (Kubernetes' ``cel.Escape``); () if none.
    Memoised: schemas repeat property names (``name``, ``image``) thousands of times."""
    if not name or name[0].isdigit() or not re.fullmatch(r"[A-Za-z0-9_./-]+", name):
        return ()
    if name in _RESERVED:
        return (f"__{name}__", name)
    escaped = re.sub(
        r"__|[./-]",
        lambda m: {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}[m.group(0)],
        name,
    )
    return (escaped,)


@lru_cache(maxsize=4096)
def _property_path(name: str) -> str:
    """What :func:`_json_path` appends for the property ``name`` (``.name`` or ``['a.b']``)."""
    return _json_path([name])[1:]


_FIELD_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


def _parse_field_path(text: str) -> tuple[str, ...]:
    """Parse a rule's ``fieldPath`` (``.a.b``, ``.a['x.y']``). Raises ValueError."""
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        match = _FIELD_PATH_TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"invalid fieldPath {text!r}: expected '.name' or \"['name']\" at offset {pos}")
        name = match.group(1) if match.group(1) is not None else re.sub(r"\\(.)", r"\1", match.group(2))
        parts.append(name)
        pos = match.end()
    return tuple(parts)


def _json_path(parts: Iterable[_PathPart]) -> str:
    """``["spec", "containers", 0]`` → ``$.spec.containers[0]``; odd keys as ``['app.kubernetes.io/name']``
    (the same rendering as :func:`trainops.core.findings.json_path`)."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


def _flatten(validations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``validations`` and, depth first, the ``allOf`` members of each (which apply to the same value)."""
    flat: list[dict[str, Any]] = []
    stack = list(reversed(validations))
    while stack:
        vs = stack.pop()
        flat.append(vs)
        members = vs.get("allOf")
        if members:
            stack.extend(sub for sub in reversed(members) if isinstance(sub, dict))
    return flat


def _children(flat: list[dict[str, Any]], key: str, name: str | None = None) -> list[dict[str, Any]]:
    """The sub-schemas at ``key`` (and property ``name``) of each schema of ``flat`` that has one."""
    out = []
    for vs in flat:
        sub = vs.get(key)
        if name is not None:
            sub = sub.get(name) if isinstance(sub, dict) else None
        if isinstance(sub, dict):
            out.append(sub)
    return out


class _Compiler:
    """Turns a raw ``openAPIV3Schema`` into a tree of :class:`_Node` with compiled rules.

    Only what evaluation can reach is built: the nodes on the way to a rule and every node below one
    (a rule's ``self`` type is its whole subtree's). A subtree without rules under a node without
    rules above it is left out (a Training Operator PyTorchJob schema has one transition rule, deep in
    ``runPolicy``: only the path to it is built, once in every worker process).

    Evaluation is narrowed (``narrow``, the default; the plain reading is kept for the tests that
    compare both): a node's ``self`` holds only the properties its rules select (:func:`_reads`:
    TrainJob's root rules read ``self.metadata.name``, so its ``spec`` is not converted for them),
    and its rules are first evaluated as one conjunction (:func:`_conjunction`), alone only when it
    is not true. Reports are the same either way.
    """

    def __init__(self, *, prune: bool = True, narrow: bool = True) -> None:
        self.records: list[RuleRecord] = []
        self._holds_rules: dict[int, bool] = {}
        self._prune = prune
        self._narrow = narrow

    def holds_rules(self, schema: Any) -> bool:
        """Whether ``x-kubernetes-validations`` appears anywhere in ``schema`` (memoised by identity:
        the schema is alive, and not modified, while it is compiled)."""
        known = self._holds_rules.get(id(schema))
        if known is not None:
            return known
        if isinstance(schema, dict):
            found = "x-kubernetes-validations" in schema or any(self.holds_rules(v) for v in schema.values())
        elif isinstance(schema, list):
            found = any(self.holds_rules(v) for v in schema)
        else:
            return False
        self._holds_rules[id(schema)] = found
        return found

    def node(
        self,
        schema: dict[str, Any],
        validations: Sequence[dict[str, Any]],
        position: str,
        resource_root: bool,
        under_rules: bool = False,
    ) -> _Node:
        """The node of ``schema`` (JSON data: its mappings are ``dict`` s) and what its
        ``validations`` (``schema`` and the ``allOf`` members that apply to it) require."""
        flat = _flatten(validations)
        kind = "object" if resource_root and schema.get("type") in (None, "object") else _kind(schema)
        fmt = schema.get("format")
        node = _Node(
            kind=kind,
            fmt=fmt if isinstance(fmt, str) else None,
            nullable=schema.get("nullable") is True,
            has_default="default" in schema,
            default=schema.get("default"),
            resource_root=resource_root,
            cel_type=cel.Type.DYN,
            type_key="dyn",
        )
        # below a rule, every node types the rule's self; elsewhere only subtrees holding rules count
        whole = not self._prune or under_rules or any(vs.get("x-kubernetes-validations") for vs in flat)
        properties = schema.get("properties")
        if kind == "object" and isinstance(properties, dict):
            for name, sub in properties.items():
                if not isinstance(sub, dict):
                    continue
                sources = _children(flat, "properties", name)
                if whole or any(self.holds_rules(source) for source in sources):
                    node.properties[name] = self.node(
                        sub,
                        sources,
                        position + _property_path(name),
                        sub.get("x-kubernetes-embedded-resource") is True,
                        whole,
                    )
                    node.cel_keys[name] = _cel_keys(name)
        for key, suffix in (("items", "[*]"), ("additionalProperties", ".*")):
            sub = schema.get(key)
            if kind != ("array" if key == "items" else "map") or not isinstance(sub, dict):
                continue
            sources = _children(flat, key)
            if whole or any(self.holds_rules(source) for source in sources):
                child = self.node(
                    sub, sources, position + suffix, sub.get("x-kubernetes-embedded-resource") is True, whole
                )
                if key == "items":
                    node.items = child
                else:
                    node.additional = child
        node.cel_type, node.type_key = _cel_type(node)
        for vs in flat:
            for raw_rule in vs.get("x-kubernetes-validations") or ():
                if isinstance(raw_rule, dict):
                    rule = self.rule(node, raw_rule, position)
                    if rule.program is not None or rule.error is not None:
                        node.rules.append(rule)  # a transition rule is only in the census: never evaluated
        if node.rules:
            node.env = _env("plain", node.type_key, node.cel_type)
            if self._narrow:  # else every rule's self is the whole value, each evaluated alone
                node.reads = _reads(node)
                node.all_rules = _conjunction(node.env, node.rules)
                if node.kind in _SCALAR_KINDS and all(rule.plain for rule in node.rules):
                    node.held = {}
        node.subtree_has_rules = bool(node.rules) or any(
            child.subtree_has_rules
            for child in (*node.properties.values(), node.items, node.additional)
            if child is not None
        )
        return node

    def rule(self, node: _Node, raw: Mapping[str, Any], position: str) -> _Rule:
        source = raw.get("rule")
        message = raw.get("message")
        reason = raw.get("reason")
        rule = _Rule(
            source=source if isinstance(source, str) else "",
            message=message if isinstance(message, str) and message.strip() else None,
            reason=reason if isinstance(reason, str) and reason else None,
        )
        status: RuleStatus = "evaluated"
        note = ""
        try:
            if not rule.source.strip():
                raise ValueError("the rule is empty")
            field_path = raw.get("fieldPath")
            if isinstance(field_path, str) and field_path:
                rule.field_path = _parse_field_path(field_path)
            program, note, transition = self._compile_rule(
                node, rule.source, raw.get("optionalOldSelf") is True
            )
            if transition:
                status, note = "skipped", TRANSITION_REASON
            else:
                rule.program = program
                rule.plain = not note and raw.get("optionalOldSelf") is not True
            message_expression = raw.get("messageExpression")
            if isinstance(message_expression, str) and message_expression.strip():
                message_program, _, _ = self._compile_expression(
                    node, message_expression, raw.get("optionalOldSelf") is True
                )
                if message_program.return_type() not in (cel.Type.STRING, cel.Type.DYN):
                    raise ValueError(
                        f"messageExpression must evaluate to a string, not {_type_name(message_program.return_type())}"
                    )
                rule.message_program = message_program
                rule.message_source = message_expression
        except (RuntimeError, ValueError) as err:
            status, note = "error", _clean_error(str(err))
            rule.program, rule.message_program, rule.message_source, rule.error = None, None, None, note
        self.records.append(RuleRecord(position, rule.source, status, note))
        return rule

    @staticmethod
    def _compile_expression(
        node: _Node, source: str, optional_old_self: bool
    ) -> tuple[cel.Expression, str, bool]:
        """Compile a rule or messageExpression at ``node``; returns (program, note, transition), where
        ``transition`` means it needs an ``oldSelf`` that offline validation cannot provide."""
        try:
            program, note = _compile(_env("plain", node.type_key, node.cel_type), source)
            return program, note, False
        except RuntimeError as err:
            if not _USES_OLD_SELF.search(str(err)):
                raise
        if optional_old_self:
            # On create, Kubernetes evaluates these with oldSelf = optional.none().
            bound = f"cel.bind(oldSelf, optional.none(), (\n{source}\n))"
            program, note = _compile(_env("bind", node.type_key, node.cel_type), bound)
            return program, note, False
        program, note = _compile(_env("old", node.type_key, node.cel_type), source)
        return program, note, True

    def _compile_rule(
        self, node: _Node, source: str, optional_old_self: bool
    ) -> tuple[cel.Expression, str, bool]:
        """Compile a rule; returns (program, note, is_transition_rule_to_skip)."""
        program, note, transition = self._compile_expression(node, source, optional_old_self)
        if program.return_type() not in (cel.Type.BOOL, cel.Type.DYN):
            raise ValueError(f"the rule must evaluate to a bool, not {_type_name(program.return_type())}")
        return program, note, transition


#: CEL tokens, enough to find where ``self`` is used: comments, string and bytes literals (quoted
#: and triple-quoted; raw literals are told apart by :func:`_self_fields`), identifiers, other
#: characters one at a time.
_CEL_TOKEN = re.compile(
    r"""//[^\n]*|\s+|[bB]?(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")"""
    r"|[A-Za-z_][A-Za-z0-9_]*|\S",
    re.DOTALL,
)


@lru_cache(maxsize=1024)
def _self_fields(source: str) -> frozenset[str] | None:
    """The fields of ``self`` a CEL expression reads, when it uses ``self`` only as ``self.f``,
    ``self.?f`` or ``has(self.f)`` (CEL field names: escaped property names); ``None`` when it may
    read more (``self`` alone, ``self.f(...)`` a method of ``self``, ``self[k]``) or the text is not
    understood (a raw string literal, which escapes differently). A value that holds only these
    fields gives the expression the same result, error or message as the whole value.
    """
    fields: set[str] = set()
    tokens = [t for t in _CEL_TOKEN.findall(source) if not t.isspace() and not t.startswith("//")]
    for i, token in enumerate(tokens):
        if token.lower() in ("r", "rb", "br") and tokens[i + 1 : i + 2] and tokens[i + 1][:1] in "'\"":
            return None  # a raw string: not tokenised by these rules
        if token != "self" or (i > 0 and tokens[i - 1] == "."):
            continue  # not the variable (``x.self`` is a field of x)
        rest = tokens[i + 1 : i + 4]
        if rest[:1] != ["."]:
            return None
        name_at = 2 if rest[1:2] == ["?"] else 1
        name = rest[name_at] if len(rest) > name_at else ""
        following = tokens[i + 1 + name_at + 1 : i + 1 + name_at + 2]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or following == ["("]:
            return None
        fields.add(name)
    return frozenset(fields)


def _reads(node: _Node) -> frozenset[str] | None:
    """The properties of an object node (names as in the schema) its rules and message expressions
    read, or ``None`` for all of them (see :func:`_self_fields`; other kinds: always ``None``).
    At the root of a resource, ``apiVersion``, ``kind`` and ``metadata`` are always given."""
    if node.kind != "object":
        return None
    wanted: set[str] = set()
    for rule in node.rules:
        if rule.program is None:
            continue  # a compile error is reported without evaluating anything
        for source in (rule.source, rule.message_source):
            fields = _self_fields(source) if source is not None else frozenset()
            if fields is None:
                return None
            wanted |= fields
    return frozenset(name for name, keys in node.cel_keys.items() if wanted.intersection(keys))


def _conjunction(env: cel.Env, rules: Sequence[_Rule]) -> cel.Expression | None:
    """One program ``(r1) && (r2) && ...`` of the :attr:`_Rule.plain` rules of a node, when it has two
    or more and no rule failed to compile, or ``None``. CEL's ``&&`` is true only when every operand
    is true (an error or a non-bool operand makes it false or an error), so a true conjunction means
    every one of these rules holds and need not be evaluated alone; otherwise each is."""
    if any(rule.error is not None for rule in rules):
        return None
    sources = [rule.source for rule in rules if rule.plain]
    if len(sources) < 2:
        return None
    try:
        return env.compile(" && ".join(f"({source}\n)" for source in sources))
    except RuntimeError:
        return None


def _kind(schema: Mapping[str, Any]) -> str:
    if schema.get("x-kubernetes-int-or-string") is True:
        return "dyn"
    declared = schema.get("type")
    if declared == "object" or (declared is None and isinstance(schema.get("properties"), Mapping)):
        if isinstance(schema.get("additionalProperties"), Mapping):
            return "map"
        if schema.get("additionalProperties") is True or (
            schema.get("x-kubernetes-preserve-unknown-fields") is True and not schema.get("properties")
        ):
            return "dyn"
        return "object"
    if declared in ("array", "string", "integer", "number", "boolean"):
        return str(declared)
    return "dyn"


def _cel_type(node: _Node) -> tuple[cel.Type, str]:
    """The CEL type of ``self`` at a node, and a key naming it (for the environment cache)."""
    t = cel.Type

    def element(child: _Node | None) -> tuple[cel.Type, str]:
        if child is None or child.nullable:
            return t.DYN, "dyn"
        return child.cel_type, child.type_key

    if node.kind == "object":
        return t.Map(t.STRING, t.DYN), "map(string,dyn)"
    if node.kind == "map":
        value_type, value_key = element(node.additional)
        return t.Map(t.STRING, value_type), f"map(string,{value_key})"
    if node.kind == "array":
        item_type, item_key = element(node.items)
        return t.List(item_type), f"list({item_key})"
    if node.kind == "string":
        if node.fmt in ("date", "date-time"):
            return t.TIMESTAMP, "timestamp"
        by_format = {"duration": (t.DURATION, "duration"), "byte": (t.BYTES, "bytes")}
        return by_format.get(node.fmt or "", (t.STRING, "string"))
    scalars = {"integer": (t.INT, "int"), "number": (t.DOUBLE, "double"), "boolean": (t.BOOL, "bool")}
    return scalars.get(node.kind, (t.DYN, "dyn"))


# ------------------------------------------------------------------------------- value building


def _parse_duration(text: str) -> datetime.timedelta | None:
    """A ``format: duration`` string (Go duration syntax plus ``d``/``w``, as kube-openapi's strfmt)."""
    seconds = duration_seconds(text, STRFMT_UNITS)
    return None if seconds is None else datetime.timedelta(seconds=seconds)


def _parse_timestamp(text: str, date_only: bool) -> datetime.datetime | None:
    try:
        if date_only:
            day = datetime.date.fromisoformat(text)
            return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
        stamp = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=datetime.UTC)


def _scalar(node: _Node, raw: Any) -> Any:
    if node.kind == "string":
        if isinstance(raw, datetime.date) and node.fmt in ("date", "date-time"):
            if not isinstance(raw, datetime.datetime):
                return datetime.datetime(raw.year, raw.month, raw.day, tzinfo=datetime.UTC)
            return raw if raw.tzinfo is not None else raw.replace(tzinfo=datetime.UTC)
        value = _plain(raw)
        if not isinstance(value, str):
            return value
        if node.fmt in ("date", "date-time"):
            return _parse_timestamp(value, node.fmt == "date") or value
        if node.fmt == "duration":
            duration = _parse_duration(value)
            return value if duration is None else duration
        if node.fmt == "byte":
            try:
                return base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return value
        return value
    if node.kind == "integer" and isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if node.kind == "number" and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    return _plain(raw)


_Task = tuple[_Node, tuple[_PathPart, ...], Any]


def _present(child: _Node, raw: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """Whether a property counts as present after defaulting and null pruning, and its value."""
    value = raw.get(name)
    if name in raw and (value is not None or child.nullable):
        return True, value
    if child.has_default:
        return True, copy.deepcopy(child.default)
    return False, None


def _visit(node: _Node, raw: Any, parts: tuple[_PathPart, ...], need: bool, tasks: list[_Task | None]) -> Any:
    """Build the CEL value of ``raw`` (when ``need``) and queue the rules found on the way."""
    if raw is None:
        return None
    slot = -1
    reads: frozenset[str] | None = None  # the properties the value needs, None: all
    if node.rules:
        if not need:  # only this node's rules read the value: only what they select
            reads = node.reads
        slot, need = len(tasks), True
        tasks.append(None)
    value: Any = None
    if node.kind == "object" and isinstance(raw, Mapping):
        out: dict[str, Any] = {}
        defaulted = [name for name in node.properties if name not in raw]
        for name in [*raw, *defaulted]:  # document order, then absent properties that may get a default
            child = node.properties.get(name)
            if child is None or (node.resource_root and name == "metadata"):
                continue
            child_need = need and (reads is None or name in reads)
            if not (child_need or child.subtree_has_rules):
                continue
            present, child_raw = _present(child, raw, name)
            if present:
                child_value = _visit(child, child_raw, (*parts, name), child_need, tasks)
                if child_need:
                    for key in node.cel_keys[name]:
                        out[key] = child_value
        if node.resource_root:
            for key in ("apiVersion", "kind"):
                if isinstance(raw.get(key), str):
                    out[key] = raw[key]
            metadata = raw.get("metadata")
            if isinstance(metadata, Mapping):
                out["metadata"] = {
                    k: metadata[k] for k in ("name", "generateName") if isinstance(metadata.get(k), str)
                }
        value = out if need else None
    elif node.kind == "map" and isinstance(raw, Mapping) and node.additional is not None:
        child = node.additional
        entries: dict[str, Any] = {}
        for key in raw:
            present, child_raw = _present(child, raw, key)
            if present and (need or child.subtree_has_rules):
                entries[str(key)] = _visit(child, child_raw, (*parts, str(key)), need, tasks)
        value = entries if need else None
    elif node.kind == "array" and isinstance(raw, list) and node.items is not None:
        child = node.items
        elements = [
            _visit(child, item, (*parts, i), need, tasks) if need or child.subtree_has_rules else None
            for i, item in enumerate(raw)
        ]
        value = elements if need else None
    elif need:
        value = _scalar(node, raw)
    if slot >= 0:
        tasks[slot] = (node, parts, value)
    return value


# ----------------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class _EvalError:
    detail: str


def _run(program: cel.Expression, activation: cel.Activation) -> bool | str | _EvalError:
    """Evaluate; a bool or string result, or the evaluation error. Never raises."""
    try:
        result = program.eval(activation)
        result_type = result.type()
        if result_type == cel.Type.ERROR:
            return _EvalError(_clean_error(str(result.value())))
        if result_type in (cel.Type.BOOL, cel.Type.STRING):
            value = result.value()
            if isinstance(value, bool | str):
                return value
        return _EvalError(f"the rule evaluated to {_type_name(result_type)}, not bool")
    except Exception as err:  # cel-expr-python raises RuntimeError/TypeError for odd values
        return _EvalError(_clean_error(str(err)))


def _failure_message(rule: _Rule, activation: cel.Activation) -> str:
    """Kubernetes' message choice: messageExpression (non-empty, one line), message, default."""
    if rule.message_program is not None:
        outcome = _run(rule.message_program, activation)
        if isinstance(outcome, str) and outcome.strip() and "\n" not in outcome.strip():
            return outcome.strip()
    if rule.message is not None:
        return rule.message.strip()
    return f"failed rule: {rule.source.strip()}"


#: Node kinds whose values :attr:`_Node.held` may remember, and the value types it keys.
_SCALAR_KINDS: Final = frozenset({"string", "integer", "boolean"})
_HELD_TYPES: Final = frozenset({str, int, bool})
_HELD_MAX = 1024


def _evaluate(node: _Node, parts: tuple[_PathPart, ...], value: Any) -> Iterable[CelViolation]:
    held = node.held
    key = (type(value), value) if held is not None and type(value) in _HELD_TYPES else None
    if key is not None:
        assert held is not None
        if key in held:
            return  # every rule held for this value before
        violations = list(_evaluate_rules(node, parts, value))
        if not violations:
            if len(held) >= _HELD_MAX:
                held.clear()
            held[key] = True
        yield from violations
        return
    yield from _evaluate_rules(node, parts, value)


def _evaluate_rules(node: _Node, parts: tuple[_PathPart, ...], value: Any) -> Iterable[CelViolation]:
    activation: cel.Activation | None = None
    activation_error = ""
    if node.env is not None:
        try:
            activation = node.env.Activation({"self": value})
        except Exception as err:
            activation_error = _clean_error(str(err))
    all_hold = (
        node.all_rules is not None and activation is not None and _run(node.all_rules, activation) is True
    )
    for rule in node.rules:
        if all_hold and rule.plain:
            continue  # held in the conjunction
        if rule.error is not None:
            yield CelViolation(_json_path(parts), f"rule compile error: {rule.error}", rule.source)
            continue
        if rule.program is None:
            continue  # transition rule: see the census
        outcome: bool | str | _EvalError = (
            _EvalError(activation_error) if activation is None else _run(rule.program, activation)
        )
        if isinstance(outcome, _EvalError):
            yield CelViolation(_json_path(parts), f"rule evaluation error: {outcome.detail}", rule.source)
        elif isinstance(outcome, str):
            yield CelViolation(
                _json_path(parts),
                "rule evaluation error: the rule evaluated to string, not bool",
                rule.source,
            )
        elif not outcome:
            assert activation is not None
            where = _json_path((*parts, *rule.field_path))
            yield CelViolation(where, _failure_message(rule, activation), rule.source, rule.reason)


class CelValidator:
    """The compiled ``x-kubernetes-validations`` rules of one CRD version's schema.

    Build it with :meth:`for_schema`; it is immutable afterwards and can be reused for any number of
    objects. Pickling recompiles from the schema (cel-cpp objects cannot be pickled).
    """

    def __init__(self, schema: Mapping[str, Any], root: _Node, census: RuleCensus) -> None:
        self._schema = schema
        self._root = root
        self._census = census

    @classmethod
    def for_schema(cls, schema: dict[str, Any]) -> CelValidator:
        """Compile every rule of a CRD version's ``openAPIV3Schema`` (raw, as in the CRD: JSON data,
        whose mappings are ``dict`` s).

        Rules that do not compile do not raise: they are counted in :attr:`census` (status
        ``error``) and reported by :meth:`validate` as ``rule compile error: …``.

        Raises:
            TypeError: ``schema`` is not a ``dict``.
        """
        if not isinstance(schema, dict):
            raise TypeError(f"an openAPIV3Schema must be a mapping, got {type(schema).__name__}")
        compiler = _Compiler()
        root = compiler.node(schema, [schema], "$", resource_root=True)
        return cls(schema, root, RuleCensus(tuple(compiler.records)))

    @property
    def census(self) -> RuleCensus:
        """What happened to each rule at compile time (evaluated, skipped with reason, error)."""
        return self._census

    @property
    def has_rules(self) -> bool:
        """Whether the schema holds any rule :meth:`validate` evaluates (else it always returns ``[]``):
        transition rules, skipped offline, are only in the :attr:`census`."""
        return self._root.subtree_has_rules

    def validate(self, obj: Mapping[str, Any]) -> list[CelViolation]:
        """Evaluate every rule against the values of ``obj`` (the whole custom resource).

        Returns:
            The violations, parents before children and siblings in document order; ``[]`` when all
            rules hold or ``obj`` is not a mapping. Never raises for bad data.
        """
        if not isinstance(obj, Mapping) or not self._root.subtree_has_rules:
            return []
        tasks: list[_Task | None] = []
        _visit(self._root, obj, (), False, tasks)
        return [violation for task in tasks if task is not None for violation in _evaluate(*task)]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (CelValidator.for_schema, (self._schema,))


def evaluate(expression: str, value: Any = None) -> Any:
    """Evaluate one CEL expression in the Kubernetes environment with ``self`` bound to ``value``
    (``dyn``); for ad-hoc checks, policies and tests.

    Returns:
        The plain Python result (``bool``, ``int``, ``str``, ``list``, ``dict`` …).

    Raises:
        ValueError: the expression does not compile or its evaluation fails; the message is the
            cleaned CEL error, e.g. ``integer overflow``.
    """
    env = _env("plain", "dyn", cel.Type.DYN)
    try:
        program, _ = _compile(env, expression)
    except RuntimeError as err:
        raise ValueError(_clean_error(str(err))) from None
    try:
        result = program.eval(env.Activation({"self": _plain(value)}))
        if result.type() == cel.Type.ERROR:
            raise ValueError(_clean_error(str(result.value())))
        return result.plain_value()
    except (RuntimeError, TypeError) as err:
        raise ValueError(_clean_error(str(err))) from None
