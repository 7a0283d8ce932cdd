"""The CEL environment of Dynamic Resource Allocation device selectors (``resource.k8s.io/v1``
``DeviceSelector.cel.expression``), as the API server compiles them when it validates a
ResourceClaim, ResourceClaimTemplate or DeviceClass.

Mirrors kubernetes/kubernetes v1.36 ``staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go``
(``newCompiler``, ``CompileCELExpression``): the Kubernetes base environment plus ``cel.bind`` and
one variable ``device`` of the object type ``kubernetes.DRADevice`` with the fields ``driver``
(string), ``attributes`` (domain → attribute name → value of any type) and ``capacity`` (domain →
capacity name → Quantity); the expression must evaluate to ``bool`` (or ``dyn``). Called from
``pkg/apis/resource/validation/validation.go`` ``validateCELExpression``: at most
:data:`MAX_LENGTH` characters, else "Too long" without compiling.

cel-expr-python declares no object types, so the three fields are bound as variables of their own
(``device.driver`` is read as ``__device_driver``...), which gives the checker their types; any
other field of ``device`` is refused as cel-go refuses it (``undefined field``). The semver library
is not provided: a selector calling ``semver(...)`` or ``isSemver(...)`` is not judged.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from cel_expr_python import cel

from trainops.cel import k8s
from trainops.cel.env import clean_error

#: ``CELSelectorExpressionMaxLength`` (``pkg/apis/resource/types.go``): 10 Ki characters.
MAX_LENGTH: Final = 10 * 1024
#: The fields of ``kubernetes.DRADevice``; ``allowMultipleAllocations`` comes with consumable capacity.
DEVICE_FIELDS: Final = ("driver", "attributes", "capacity", "allowMultipleAllocations")
_FIELD = re.compile(r"\bdevice\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
_UNJUDGED = re.compile(r"\b(?:semver|isSemver)\s*\(")
_BOUND = "__device_"


@functools.cache
def _env() -> cel.Env:
    t = cel.Type
    quantity = t.Map(t.STRING, t.STRING)  # trainops.cel.k8s's opaque Quantity
    config = cel.NewEnvConfigFromYaml(k8s.ENV_CONFIG_YAML + '  - name: "bindings"\n')
    variables = {
        "device": t.Map(t.STRING, t.DYN),
        f"{_BOUND}driver": t.STRING,
        f"{_BOUND}attributes": t.Map(t.STRING, t.Map(t.STRING, t.DYN)),
        f"{_BOUND}capacity": t.Map(t.STRING, t.Map(t.STRING, quantity)),
        f"{_BOUND}allowMultipleAllocations": t.BOOL,
    }
    return cel.NewEnv(config=config, variables=variables, extensions=[k8s.library()])


def selector_problem(expression: str) -> str | None:
    """Why the API server refuses ``expression`` as a device selector, or ``None`` (also when it
    cannot be judged here: see the module docstring).

    Args:
        expression: the CEL source of ``selectors[].cel.expression``.

    Returns:
        ``Too long: may not be more than 10240 bytes``-like text or ``compilation failed: ...`` /
        ``must evaluate to bool ...`` as in ``CompileCELExpression``.
    """
    if len(expression.encode("utf-8")) > MAX_LENGTH:
        return f"Too long: may not be more than {MAX_LENGTH} bytes"
    if _UNJUDGED.search(expression):
        return None
    for match in _FIELD.finditer(expression):
        if match.group(1) not in DEVICE_FIELDS:
            return f"compilation failed: ERROR: <input>: undefined field '{match.group(1)}'"
    source = _FIELD.sub(lambda m: f"{_BOUND}{m.group(1)}", expression)
    try:
        program = _env().compile(source)
    except RuntimeError as err:
        text = clean_error(str(err)).replace(_BOUND, "device.")
        return f"compilation failed: {text}"
    returned = str(program.return_type()).rsplit(".", 1)[-1].upper()
    if returned not in ("BOOL", "DYN"):
        return f"must evaluate to bool or the unknown type, not {returned.lower()}"
    return None
