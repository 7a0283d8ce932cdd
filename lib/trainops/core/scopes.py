"""What Python already knows about a cdk8s construct's Chart, so constructs need not ask Node.

Every question to a cdk8s object is a jsii round trip to the Node process (DESIGN.md decision 3).
A construct's namespace is its Chart's (cdk8s ``Chart.of(scope).namespace``: two round trips), and
the Chart's namespace is fixed when the Chart is created (cdk8s-core ``src/chart.ts``,
``Chart`` constructor: ``this.namespace = props.namespace``, a readonly field). So whoever creates a
Chart records its namespace on the Python object (:func:`record_namespace`), and a construct created
directly in a scope whose namespace is known inherits it (:func:`inherit_namespace`); anything else
is asked of cdk8s once and remembered.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["UNKNOWN", "inherit_namespace", "known_namespace", "record_namespace"]

#: :func:`known_namespace` of a construct whose Chart's namespace Python does not know.
UNKNOWN: Final = object()

#: The attribute set on a construct's Python object: its Chart's namespace (``None``: no namespace).
_ATTRIBUTE = "_trainops_chart_namespace"


def record_namespace(construct: Any, namespace: str | None) -> None:
    """Record ``namespace`` (``None``: none) as the namespace of ``construct``'s Chart.

    Args:
        construct: a cdk8s ``Chart`` just created with ``namespace=namespace``, or a construct whose
            Chart has that namespace.
        namespace: the Chart's namespace, or ``None``.
    """
    setattr(construct, _ATTRIBUTE, namespace)


def known_namespace(construct: Any) -> object:
    """The recorded namespace of ``construct``'s Chart (a ``str`` or ``None``), or :data:`UNKNOWN`."""
    return getattr(construct, _ATTRIBUTE, UNKNOWN)


def inherit_namespace(construct: Any, scope: Any) -> None:
    """Record for ``construct``, just created directly in ``scope`` (not itself a Chart), the namespace
    recorded for ``scope``, if any: a construct that is not a Chart belongs to its scope's Chart (cdk8s
    ``Chart.of``: the nearest Chart up the tree)."""
    namespace = known_namespace(scope)
    if namespace is not UNKNOWN:
        setattr(construct, _ATTRIBUTE, namespace)
