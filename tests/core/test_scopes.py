"""What Python records about a construct's Chart (trainops.core.scopes): a recorded namespace,
inherited by a construct created in a scope whose namespace is known, and nothing otherwise."""

from __future__ import annotations

import pytest

from trainops.core.scopes import UNKNOWN, inherit_namespace, known_namespace, record_namespace


class _Scope:
    """Stands for a construct's Python object (any object that takes attributes)."""


@pytest.mark.parametrize("namespace", ["ml-team", None])
def test_a_recorded_namespace_is_known_and_inherited(namespace: str | None) -> None:
    chart, child, grandchild = _Scope(), _Scope(), _Scope()
    record_namespace(chart, namespace)
    inherit_namespace(child, chart)
    inherit_namespace(grandchild, child)
    assert known_namespace(chart) == known_namespace(child) == known_namespace(grandchild) == namespace


def test_nothing_is_known_of_an_unrecorded_scope_nor_inherited_from_it() -> None:
    chart, child = _Scope(), _Scope()
    inherit_namespace(child, chart)
    assert known_namespace(chart) is UNKNOWN
    assert known_namespace(child) is UNKNOWN
