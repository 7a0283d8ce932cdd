"""Register a new app module in ``apps/__init__.py``: add it to the ``from apps import ...``
statement and append ``<module>.APP`` to the ``APPS`` tuple, keeping the file's other lines as
they are (the statements are located with :mod:`ast`)."""

from __future__ import annotations

import ast
import sys

from trainops.core.errors import UsageError
from trainops.scaffold.source import LINE_LENGTH


def register(source: str, module: str, *, package: str = "apps") -> str:
    """Return ``source`` (the text of ``apps/__init__.py``) with ``module`` imported and its
    ``APP`` appended to ``APPS``.

    Raises:
        UsageError: the file does not parse, has no ``APPS = (...)`` tuple, or already imports
            ``module``.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise UsageError(f"{package}/__init__.py:{exc.lineno}: cannot register the app: {exc.msg}") from None
    lines = source.splitlines(keepends=True)
    apps = _apps_tuple(tree, package)
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == package and n.level == 0]
    names = [a.name for node in imports[:1] for a in node.names]
    if module in names:
        raise UsageError(f"{package}/__init__.py already imports {module}")
    # edits from the bottom up so earlier line numbers stay valid
    elements = [ast.get_source_segment(source, e) or "" for e in apps.elts]
    tuple_text = "(\n" + "".join(f"    {e},\n" for e in [*elements, f"{module}.APP"]) + ")"
    start, end = apps.lineno - 1, (apps.end_lineno or apps.lineno) - 1
    head = lines[start][: apps.col_offset]
    tail = lines[end][apps.end_col_offset :]
    lines[start : end + 1] = [head + tuple_text + tail]
    if imports:
        node = imports[0]
        statement = _import_statement(package, sorted([*names, module]))
        lines[node.lineno - 1 : (node.end_lineno or node.lineno)] = [statement]
    else:
        lines.insert(_first_import_line(tree, package, start), _import_statement(package, [module]))
    return "".join(lines)


def _first_import_line(tree: ast.Module, package: str, before: int) -> int:
    """Where the first ``from <package> import`` goes (a 0-based line index): before the first
    third-party or first-party ``from M import`` that sorts after ``package`` (isort's order, e.g.
    before ``from trainops.app import AppDef``), else after the first import above line ``before``."""
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom | ast.Import) and n.lineno - 1 < before]
    for node in imports:
        top = (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else ""
        if top and top != "__future__" and top not in sys.stdlib_module_names and top > package:
            return node.lineno - 1
    return (imports[0].end_lineno or imports[0].lineno) if imports else 0


def _apps_tuple(tree: ast.Module, package: str) -> ast.Tuple:
    for node in tree.body:
        target: ast.expr | None = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == "APPS" and isinstance(value, ast.Tuple):
            return value
    raise UsageError(f"{package}/__init__.py: no `APPS = (...)` tuple to register the app in")


def _import_statement(package: str, names: list[str]) -> str:
    one = f"from {package} import {', '.join(names)}\n"
    if len(one) - 1 <= LINE_LENGTH:
        return one
    return f"from {package} import (\n" + "".join(f"    {n},\n" for n in names) + ")\n"
