"""Python source helpers for scaffolds: literals in the style ``ruff format`` writes (double
quotes, one item per line with a trailing comma when a call or list does not fit)."""

from __future__ import annotations

import json
from collections.abc import Sequence

#: The line length of the repository's ruff configuration.
LINE_LENGTH = 110


def q(value: str) -> str:
    """A double-quoted Python string literal (JSON escapes are valid Python escapes)."""
    return json.dumps(value, ensure_ascii=False)


def str_list(items: Sequence[str], indent: int) -> str:
    """A list of strings on one line when it fits after ``indent`` columns (plus a key), else one
    item per line, indented one level deeper than ``indent``."""
    one = "[" + ", ".join(q(i) for i in items) + "]"
    if indent + len(one) + 24 <= LINE_LENGTH:
        return one
    pad = " " * (indent + 4)
    return "[\n" + "".join(f"{pad}{q(i)},\n" for i in items) + " " * indent + "]"


def call(name: str, args: Sequence[str], indent: int) -> str:
    """``name(arg, ...)`` with each argument on its own line (the form ruff keeps for calls with a
    trailing comma), indented under ``indent`` columns."""
    pad = " " * (indent + 4)
    return f"{name}(\n" + "".join(f"{pad}{a},\n" for a in args) + " " * indent + ")"
