"""Loading the rule pack: the default pack shipped in the package plus a repository's own rules.

The **default pack** is the package :mod:`trainops.policy.pack`: one module per rule, listed
explicitly in its ``RULES`` (no import-time scanning; STYLE.md habit 2), with ``default.yaml``
(every rule's level and options) and ``README.md`` (the generated rule reference) beside them.

A **repository's** ``policies/`` directory (the nearest at or above the working directory holding
``config.yaml`` or ``__init__.py``) holds its config (``config.yaml``, usually ``extends: default``),
optionally its own rule modules listed in ``policies/__init__.py`` ``RULES`` (imported as the
package ``policies`` and added after the default pack's rules; an ID the default pack already has
is a usage error) and its own ValidatingAdmissionPolicies (:mod:`trainops.policy.uservap`).

Nothing here reads the trainops source tree: outside a repository the default pack alone is loaded.
Each rule module registers its :class:`~trainops.rules.RuleInfo` (family ``policy``) at import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from trainops import rules as registry
from trainops.errors import UsageError
from trainops.policy import admission_rule  # noqa: F401  registers admission-policy (user VAPs)
from trainops.policy.rule import Rule

#: The package of the default rule pack.
DEFAULT_PACKAGE = "trainops.policy.pack"
#: The directory of the default pack (``default.yaml``, ``README.md`` and the rule modules).
DEFAULT_DIR = Path(__file__).resolve().parent / "pack"
#: The repository directory (and package name of its own rule modules).
PACKAGE = "policies"
#: Files whose presence makes ``policies/`` a repository's policy directory.
MARKERS = ("config.yaml", "__init__.py")


@dataclass(frozen=True)
class Pack:
    """A loaded rule pack.

    Args:
        directory: the repository's ``policies/`` directory (config, own rules, own
            ValidatingAdmissionPolicies); ``None`` when only the default pack is loaded.
        rules: rules by ID: the default pack's in its ``RULES`` order, then the repository's.
    """

    directory: Path | None
    rules: dict[str, Rule]


_LOADED: dict[Path | None, Pack] = {}


def is_policy_dir(directory: Path) -> bool:
    """Whether ``directory`` is a repository's policy directory (holds ``config.yaml`` or ``__init__.py``)."""
    return any((directory / marker).is_file() for marker in MARKERS)


def find_policy_dir(start: Path | None = None) -> Path | None:
    """The nearest ``policies/`` (see :func:`is_policy_dir`) at or above ``start`` (default: the
    working directory), or ``None`` when there is none."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if is_policy_dir(directory / PACKAGE):
            return directory / PACKAGE
    return None


def default_pack() -> Pack:
    """The default rule pack alone (no repository rules, config or policies).

    Raises:
        UsageError: a default rule module breaks the rule shape (a packaging error).
    """
    if None not in _LOADED:
        module = importlib.import_module(DEFAULT_PACKAGE)
        _LOADED[None] = Pack(None, _rules(module, DEFAULT_DIR, {}))
    return _LOADED[None]


def load_pack(directory: Path | None = None) -> Pack:
    """The default pack plus the repository's ``policies/`` in ``directory`` (default:
    :func:`find_policy_dir`; the default pack alone when there is none), once per process.

    Raises:
        UsageError: the repository's package fails to import, its ``RULES`` is missing or not a
            tuple of modules, a module breaks the rule shape, a rule ID is listed twice or is one of
            the default pack's; a second repository with rule modules in the same process (rule IDs
            are registered globally; a ``policies/`` without modules is always loaded).
    """
    base = default_pack()
    if directory is None:
        directory = find_policy_dir()
        if directory is None:
            return base
    directory = directory.resolve()
    if directory in _LOADED:
        return _LOADED[directory]
    rules = dict(base.rules)
    if (directory / "__init__.py").is_file():
        other = next((d for d in _LOADED if d is not None and (d / "__init__.py").is_file()), None)
        if other is not None:
            raise UsageError(f"{directory}: another rule pack ({other}) is already loaded in this process")
        rules.update(_rules(_import(directory, base), directory, base.rules))
    pack = Pack(directory, rules)
    _LOADED[directory] = pack
    return pack


def _rules(package: ModuleType, directory: Path, taken: dict[str, Rule]) -> dict[str, Rule]:
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
        if rule.id in taken:
            raise UsageError(f"{directory}/__init__.py: rule {rule.id} is a rule of the default pack")
        rules[rule.id] = rule
    return rules


def _import(directory: Path, base: Pack) -> ModuleType:
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
    registered = set(registry.RULES)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # user code: report it, do not crash (and leave nothing half-loaded)
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        for rule_id in set(registry.RULES) - registered:
            del registry.RULES[rule_id]
        raise UsageError(f"{_where(exc, directory)}: failed to load: {_reason(exc, base)}") from None
    return module


def _where(exc: BaseException, directory: Path) -> str:
    """``file:line`` of the innermost frame of ``exc`` in ``directory``, else ``directory``."""
    inside = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(directory)
    ]
    return f"{inside[-1].filename}:{inside[-1].lineno}" if inside else str(directory)


def _reason(exc: BaseException, base: Pack) -> str:
    """The error, naming a clash with the default pack (``register`` refuses a second rule ``id``)."""
    clash = [rule_id for rule_id in base.rules if str(exc) == f"rule {rule_id!r} is registered twice"]
    if clash:
        return f"rule {clash[0]} is a rule of the default pack (choose another ID)"
    return f"{type(exc).__name__}: {exc}"
