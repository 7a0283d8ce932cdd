"""Optional C accelerators (``setup.py``): the loader's block reader and splitter
(``trainops.yaml._blockyaml``) and the list-map pre-test (``trainops.validate.checks._listmap``)."""

from __future__ import annotations

import importlib
from typing import Any


def native(module: str, name: str) -> Any:
    """``module.name`` from a C accelerator, or ``None`` where it was not built (a ``pip install``
    without a C compiler): the caller then takes its pure-Python path, which gives the same results.

    Args:
        module: the extension's dotted name, e.g. ``"trainops.yaml._blockyaml"``.
        name: the function, e.g. ``"parse"``.
    """
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:  # pragma: no cover - a build without a C compiler
        return None
