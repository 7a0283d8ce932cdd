"""CEL plumbing shared by the validator (CRD ``x-kubernetes-validations``) and the policy engine
(CEL-written rules and ValidatingAdmissionPolicies): cel-expr-python environments with the
Kubernetes libraries of :mod:`trainops.cel_k8s`, checked compilation, readable errors and
YAML-to-CEL values.

It sits in the bottom layer (``pyproject.toml`` import-linter contracts) so that
:mod:`trainops.validate` and :mod:`trainops.policy`, which may not import each other, share one
CEL runtime. ``cel_expr_python`` is imported here, so importing this module costs its start-up
(about 0.1 s); callers that may not need CEL import it lazily.

Environments (:func:`admission_env`) mirror the one Kubernetes builds for admission policies
(``k8s.io/apiserver/pkg/admission/plugin/cel/compile.go``: ``object``, ``oldObject``, ``request``,
``params``, ``namespaceObject``, ``authorizer``, ``variables``, all ``dyn`` here) on the base
environment of ``k8s.io/apiserver/pkg/cel/environment/base.go`` (strings v2, optional types, sets,
two-variable comprehensions, the cel-go lists extension with ``flatten``, and the Kubernetes
libraries). What kube-apiserver v1.36 accepts was checked against ``../shared/oracle`` (an
expression that does not compile is refused when a ValidatingAdmissionPolicy is created):
``flatten`` and ``transformList`` compile; ``cel.bind`` does not; and aggregate literals must be
homogeneous (``{'a': 'x', 'b': true}`` is refused: wrap mixed values in ``dyn()``), which
cel-expr-python cannot be told to enforce, so the conformance suite checks it.
"""

from __future__ import annotations

import base64
import datetime
import re
from collections.abc import Mapping
from typing import Any

from cel_expr_python import cel

from trainops import cel_k8s

_CROSS_NUMERIC = re.compile(
    r"found no matching overload for '_(?:<|<=|>|>=)_' applied to '\((?:int|uint|double), (?:int|uint|double)\)'"
)

#: The admission environment's extensions: the validator's plus the lists extension (``flatten``).
#: Not ``cel.bind``: kube-apiserver v1.36 refuses it in admission policies ("undeclared reference to 'cel'").
ADMISSION_ENV_CONFIG_YAML = cel_k8s.ENV_CONFIG_YAML + '  - name: "lists"\n'

#: Variables of the admission environment (``compile.go``: ``ObjectVarName`` ... ``VariableVarName``).
ADMISSION_VARIABLES: tuple[str, ...] = (
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "authorizer",
    "variables",
)

_ADMISSION_ENV: list[cel.Env] = []


def admission_env() -> cel.Env:
    """The (cached) admission environment: every name of :data:`ADMISSION_VARIABLES` declared ``dyn``."""
    if not _ADMISSION_ENV:
        config = cel.NewEnvConfigFromYaml(ADMISSION_ENV_CONFIG_YAML)
        variables = {name: cel.Type.DYN for name in ADMISSION_VARIABLES}
        _ADMISSION_ENV.append(cel.NewEnv(config=config, variables=variables, extensions=[cel_k8s.library()]))
    return _ADMISSION_ENV[0]


def compile_checked(env: cel.Env, source: str) -> tuple[cel.Expression, str]:
    """Compile with type checking; fall back to an unchecked compile only for cross-type numeric
    comparisons (which Kubernetes allows). Returns the program and a note.

    Raises:
        RuntimeError: the expression does not compile (the text is cel-cpp's; see :func:`clean_error`).
    """
    try:
        return env.compile(source), ""
    except RuntimeError as err:
        if not _CROSS_NUMERIC.search(str(err)):
            raise
    note = "compiled without type checking (cross-type numeric comparison)"
    return env.compile(source, disable_check=True), note


def clean_error(text: str) -> str:
    """cel-cpp status text → one readable line: ``OUT_OF_RANGE: integer overflow`` → ``integer overflow``."""
    text = re.sub(r"\s*\[[A-Z_]+\]\s*$", "", text.strip())
    while (match := re.match(r"^[A-Z][A-Z_]+: ", text)) and not text.startswith("ERROR: "):
        text = text[match.end() :]
    errors = [line.strip() for line in text.splitlines() if line.strip().startswith("ERROR: ")]
    if errors:  # compile errors: keep the "ERROR: <input>:line:col: what" lines, drop the source excerpts
        text = "; ".join(errors)
    key = re.fullmatch(r'Key not found in map ?: "?(.*?)"?', text)
    if key:
        return f"no such key: {key.group(1)}"
    return _without_object_data(text).replace("\n", " ")


#: cel-expr-python's errors converting a bound Python value (``cel.cc``): each quotes the whole
#: chain of values it descended through (``object['spec'] -> {...}['x'] -> ...``), object data and
#: any secret in it included. The start of such a message, up to the chain.
_CONVERSION = re.compile(
    r"(?P<what>Integer value '[^']*' out of range|Unexpected value type|Unexpected None value|"
    r"Non-CEL value type) for '"
)
#: What follows the chain: ``'.`` or ``': <type>.`` and an optional ``(Expected <type>)``.
_CONVERSION_TAIL = re.compile(r"'(?:\.|: [\w.]+\.)(?: \(Expected (?P<expected>[\w .,<>|()]*?)\))?\s*$")
#: One step of the chain: ``['key']`` or ``[index]`` right before `` -> ``, keys limited to the
#: characters of Kubernetes field names (a string value cannot pass for a step).
_STEP = re.compile(r"((?:\[(?:'[A-Za-z0-9_.$/-]{1,253}'|\d{1,9})\])+) -> ")
_STEP_PART = re.compile(r"\['([^']*)'\]|\[(\d+)\]")


def _without_object_data(text: str) -> str:
    """A conversion error without the values it quotes: ``an integer beyond the int64 range at
    object.spec.x[0].y`` for ``Integer value '1...0' out of range for 'object['spec'] -> {...}...'``
    (the number, which may be a credential, and every value on the way are left out)."""
    match = _CONVERSION.search(text)
    if match is None:
        return text
    rest = text[match.end() :]
    tail = _CONVERSION_TAIL.search(rest)
    chain = rest[: tail.start()] if tail else rest
    if " -> " not in chain:  # a bare variable name (``'self'``): no value is quoted
        return text
    root = re.match(r"[A-Za-z_]\w*", chain)
    path = root.group(0) if root else "the value"
    for step in _STEP.finditer(chain):
        for key, index in _STEP_PART.findall(step.group(1)):
            path += f"[{index}]" if index else f".{key}"
    what = match.group("what")
    if what.startswith("Integer"):
        detail = f"an integer beyond the int64 range at {path}"
    elif what.startswith("Unexpected None"):
        detail = f"an unexpected null at {path}"
    else:
        detail = f"a value of a type CEL cannot hold at {path}"
    expected = tail.group("expected") if tail else None
    if expected:
        detail += f" (expected {expected})"
    return text[: match.start()] + detail


def plain(raw: Any) -> Any:
    """YAML data → the JSON-like value the API server would see (string keys, RFC 3339 strings)."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, Mapping):
        return {str(k): plain(v) for k, v in raw.items()}
    if isinstance(raw, list | tuple):
        return [plain(v) for v in raw]
    if isinstance(raw, datetime.datetime):
        stamp = raw if raw.tzinfo is not None else raw.replace(tzinfo=datetime.UTC)
        return stamp.isoformat().replace("+00:00", "Z")
    if isinstance(raw, datetime.date):
        return raw.isoformat()
    if isinstance(raw, bytes):
        return base64.b64encode(raw).decode()
    return str(raw)
