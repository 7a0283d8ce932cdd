"""``trainops new`` registration: the edit of ``apps/__init__.py`` keeps every other line."""

from __future__ import annotations

import re

import pytest

from trainops.core.errors import UsageError
from trainops.scaffold.register import register


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "from apps import a, c\nfrom trainops.app import AppDef\n\nAPPS: tuple[AppDef, ...] = (\n    a.APP,\n    c.APP,\n)\n",
            "from apps import a, b, c\nfrom trainops.app import AppDef\n\nAPPS: tuple[AppDef, ...] = (\n    a.APP,\n    c.APP,\n    b.APP,\n)\n",
            id="multi-line",
        ),
        pytest.param(
            "from apps import a\n\nAPPS = (a.APP,)  # registry\n",
            "from apps import a, b\n\nAPPS = (\n    a.APP,\n    b.APP,\n)  # registry\n",
            id="one-line-tuple",
        ),
        pytest.param(
            "import json\n\nAPPS = ()\n",
            "import json\nfrom apps import b\n\nAPPS = (\n    b.APP,\n)\n",
            id="first-app",
        ),
        pytest.param(
            "from __future__ import annotations\n\nfrom trainops.app import AppDef\n\nAPPS: tuple[AppDef, ...] = ()\n",
            "from __future__ import annotations\n\nfrom apps import b\nfrom trainops.app import AppDef\n\n"
            "APPS: tuple[AppDef, ...] = (\n    b.APP,\n)\n",
            id="first-app-sorted-before-trainops",
        ),
    ],
)
def test_register(source: str, expected: str) -> None:
    assert register(source, "b") == expected


def test_long_import_wraps() -> None:
    names = [f"module_with_a_long_name_{i}" for i in range(5)]
    source = f"from apps import {', '.join(names)}\n\nAPPS = ()\n"
    out = register(source, "zeta")
    assert out.startswith("from apps import (\n    module_with_a_long_name_0,\n")
    assert "    zeta,\n)\n" in out


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param("APPS = [1]\n", "no `APPS = (...)` tuple", id="list"),
        pytest.param("from apps import b\nAPPS = (b.APP,)\n", "already imports b", id="duplicate"),
        pytest.param("APPS = (\n", "cannot register the app", id="syntax"),
    ],
)
def test_register_errors(source: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        register(source, "b")
