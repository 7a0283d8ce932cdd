"""The rule pack: the repository's ``policies/`` package, whose ``__init__.py`` lists its rule
modules explicitly in ``RULES`` (no import-time scanning; STYLE.md habit 2).

The pack is found at or above the working directory (a directory holding ``policies/__init__.py``),
else in the trainops source tree. It is imported once per process as the package ``policies``;
each rule module registers its :class:`~trainops.rules.RuleInfo` (family ``policy``) at import.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from trainops.errors import UsageError
from trainops.policy import admission_rule  # noqa: F401  registers admission-policy (user VAPs)
from trainops.policy.rule import Rule

PACKAGE = "policies"


@dataclass(frozen=True)
class Pack:
    """A loaded rule pack.

    Args:
        directory: the ``policies/`` directory (holding ``default.yaml`` and ``README.md``).
        rules: rules by ID, in the order ``RULES`` lists them.
    """

    directory: Path
    rules: dict[str, Rule]


_LOADED: dict[Path, Pack] = {}


def find_pack_dir(start: Path | None = None) -> Path:
    """The nearest ``policies/`` (with ``__init__.py``) at or above ``start`` (default: the working
    directory), else the one beside ``lib/`` in the trainops source tree.

    Raises:
        UsageError: none exists.
    """
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / PACKAGE / "__init__.py").is_file():
            return directory / PACKAGE
    source = Path(__file__).resolve().parents[3] / PACKAGE
    if (source / "__init__.py").is_file():
        return source
    raise UsageError(f"no {PACKAGE}/ rule pack found at or above {here}")


def load_pack(directory: Path | None = None) -> Pack:
    """Import the rule pack in ``directory`` (default: :func:`find_pack_dir`) once per process.

    Raises:
        UsageError: the pack fails to import, ``RULES`` is missing, or a module breaks the rule shape;
            a second, different pack in the same process (rule IDs are registered globally).
    """
    directory = (directory or find_pack_dir()).resolve()
    if directory in _LOADED:
        return _LOADED[directory]
    if _LOADED:
        other = next(iter(_LOADED))
        raise UsageError(f"{directory}: another rule pack ({other}) is already loaded in this process")
    package = _import(directory)
    modules = getattr(package, "RULES", None)
    if not isinstance(modules, tuple) or not all(isinstance(m, ModuleType) for m in modules):
        raise UsageError(f"{directory}/__init__.py: must define RULES, a tuple of rule modules")
    rules: dict[str, Rule] = {}
    for module in modules:
        try:
            rule = Rule.from_module(module)
        except ValueError as exc:
            raise UsageError(f"{directory}: {exc}") from None
        if rule.id in rules:
            raise UsageError(f"{directory}/__init__.py: rule {rule.id} is listed twice")
        rules[rule.id] = rule
    pack = Pack(directory, rules)
    _LOADED[directory] = pack
    return pack


def _import(directory: Path) -> ModuleType:
    existing = sys.modules.get(PACKAGE)
    if existing is not None and Path(existing.__file__ or "").resolve().parent == directory:
        return existing
    spec = importlib.util.spec_from_file_location(
        PACKAGE, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise UsageError(f"{directory}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # user code: report it, do not crash
        del sys.modules[PACKAGE]
        raise UsageError(f"{directory}: failed to load: {type(exc).__name__}: {exc}") from None
    return module
