"""Which apps a change touches (``trainops synth --changed``): an app is changed when its module,
or a module of the apps package it imports (directly or not), differs from BASE in the working
tree (tracked or untracked); a change to ``apps/__init__.py`` or ``apps/clusters.py``, or a
``lock.json`` written by another trainops version, changes every app."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from trainops import __version__
from trainops.app import AppDef
from trainops.diff.snapshot import git
from trainops.project import Project


def changed_files(root: Path, base: str) -> set[Path]:
    """Files that differ between commit ``base`` and the working tree, plus untracked ones
    (``git diff --name-only``, ``git ls-files --others --exclude-standard``), resolved.

    Raises:
        UsageError: git fails (not a repository, unknown revision).
    """
    top = Path(git(root, "rev-parse", "--show-toplevel").decode().strip())
    names = git(root, "diff", "--name-only", "-z", base, "--").split(b"\0")
    names += git(root, "ls-files", "--others", "--exclude-standard", "-z", "--full-name").split(b"\0")
    return {(top / n.decode("utf-8")).resolve() for n in names if n}


def module_imports(apps_dir: Path, package: str) -> dict[Path, set[Path]]:
    """For each ``.py`` file of the apps package: the files of the package it imports (resolved)."""
    modules = _modules(apps_dir, package)
    return {path: _imports(here, path, path.read_bytes(), modules) for here, path in modules.items()}


def importers(apps_dir: Path, package: str, changed: set[Path]) -> set[Path]:
    """The files of the apps package that are in ``changed`` or import one of them, directly or not
    (the reverse of :func:`module_imports`' closure).

    A file is parsed only when its text names a module found so far (the last part of its dotted
    name, which every import statement of it spells out) or, for a changed package, imports
    relatively: the others cannot import one.
    """
    modules = _modules(apps_dir, package)
    sources = {path: path.read_bytes() for path in modules.values()}
    affected = {path for path in modules.values() if path in changed}
    names = {here: here.rsplit(".", 1)[-1].encode() for here in modules}
    graph: dict[Path, set[Path]] = {}
    grew = bool(affected)
    while grew:
        grew = False
        wanted = [names[here] for here, path in modules.items() if path in affected]
        packages = any(path.name == "__init__.py" for path in affected)
        for here, path in modules.items():
            if path in affected:
                continue
            source = sources[path]
            if not (any(name in source for name in wanted) or (packages and b"from ." in source)):
                continue
            if path not in graph:
                graph[path] = _imports(here, path, source, modules)
            if graph[path] & affected:
                affected.add(path)
                grew = True
    return affected


def _modules(apps_dir: Path, package: str) -> dict[str, Path]:
    """Dotted module name → resolved file, for every ``.py`` file of the apps package."""
    root = apps_dir.resolve()
    modules: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _imports(here: str, path: Path, source: bytes, modules: dict[str, Path]) -> set[Path]:
    """The files of ``modules`` that module ``here`` (file ``path``, text ``source``) imports."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    found: set[Path] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                own = here.split(".") if path.name == "__init__.py" else here.split(".")[:-1]
                anchor = own[: len(own) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        found |= {modules[t] for t in targets if t in modules and modules[t] != path}
    return found


def app_sources(project: Project, package: str = "apps") -> dict[str, set[Path]]:
    """App name → the apps-package files its build depends on (its module and what it imports)."""
    apps_dir = project.root / package
    graph = module_imports(apps_dir, package)
    out: dict[str, set[Path]] = {}
    for name, app_def in project.apps.items():
        start = _module_file(app_def)
        seen: set[Path] = set()
        todo = [start] if start is not None else []
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo.extend(graph.get(current, ()))
        out[name] = seen
    return out


def changed_apps(project: Project, base: str, out: Path, package: str = "apps") -> set[str]:
    """Names of the apps whose sources changed since ``base`` (see the module docstring).

    Raises:
        UsageError: git fails.
    """
    changed = changed_files(project.root, base)
    apps_dir = (project.root / package).resolve()
    everything = {apps_dir / "__init__.py", apps_dir / "clusters.py"}
    if changed & everything or _other_version(out):
        return set(project.apps)
    if not any(path.is_relative_to(apps_dir) for path in changed):
        return set()
    affected = importers(apps_dir, package, changed)
    return {name for name, app_def in project.apps.items() if _module_file(app_def) in affected}


def _module_file(app_def: AppDef) -> Path | None:
    module = sys.modules.get(app_def.build.__module__)
    file = getattr(module, "__file__", None)
    return Path(file).resolve() if file else None


def _other_version(out: Path) -> bool:
    for lock in out.glob("*/lock.json"):
        try:
            if json.loads(lock.read_text(encoding="utf-8")).get("trainops") != __version__:
                return True
        except ValueError:
            return True
    return False
