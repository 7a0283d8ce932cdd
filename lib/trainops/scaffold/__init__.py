"""``trainops new``: scaffold an app module in ``apps/`` and register it.

- :mod:`~trainops.scaffold.templates`: the module text per kind (PyTorchJob, Katib, serving);
- :mod:`~trainops.scaffold.register`: the edit of ``apps/__init__.py``;
- :func:`create_app`: refuse to overwrite, write both files, and undo them when ``check`` fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trainops.core.atomic import atomic_write
from trainops.core.errors import UsageError
from trainops.core.naming import DNS1123_LABEL, require
from trainops.scaffold.register import register
from trainops.scaffold.templates import (
    KINDS,
    OPERATORS,
    QUEUED_KINDS,
    TEMPLATES,
    Kind,
    Mount,
    Placement,
    Request,
    module_name,
)

__all__ = [
    "KINDS",
    "OPERATORS",
    "QUEUED_KINDS",
    "TEMPLATES",
    "Created",
    "Kind",
    "Mount",
    "Placement",
    "Request",
    "create_app",
    "module_name",
]


@dataclass(frozen=True)
class Created:
    """The files ``trainops new`` wrote: the app module and the updated ``apps/__init__.py``."""

    module: Path
    registry: Path


def create_app(apps_dir: Path, request: Request, check: Callable[[], None]) -> Created:
    """Write ``apps/<module>.py`` for ``request``, register it in ``apps/__init__.py`` and call
    ``check()`` (synth and validate); when ``check`` raises, both files are restored and the
    exception propagates. Each file is written whole or not at all (:func:`trainops.core.atomic.atomic_write`).

    Raises:
        UsageError: an unsupported kind ("not yet supported: <kind>"), a name that is not a
            DNS-1123 label, an existing module or registered app of that name, or an
            ``apps/__init__.py`` that cannot be edited; a request text that is not valid UTF-8.
    """
    if request.kind not in TEMPLATES:
        raise UsageError(f"not yet supported: {request.kind} (supported: {', '.join(TEMPLATES)})")
    try:
        require(DNS1123_LABEL, "trainops new", "NAME", request.name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    module = module_name(request.name)
    path = apps_dir / f"{module}.py"
    registry = apps_dir / "__init__.py"
    if path.exists() or path.is_symlink():
        raise UsageError(f"{path} already exists: refusing to overwrite an existing app")
    if not registry.is_file():
        raise UsageError(f"{registry}: no apps package here (run from the repository root)")
    before = registry.read_text(encoding="utf-8")
    if f'name="{request.name}"' in before:
        raise UsageError(f"{registry} already registers an app named {request.name!r}")
    updated = register(before, module, package=apps_dir.name)
    try:
        text = TEMPLATES[request.kind](request).encode("utf-8")
    except UnicodeEncodeError as exc:  # an argument that was not valid UTF-8 (surrogate escapes)
        bad = exc.object[exc.start : exc.end].encode("utf-8", "surrogateescape")
        raise UsageError(f"trainops new {request.name}: an argument holds {bad!r}, not valid UTF-8") from None
    try:
        atomic_write(path, text, mode=0o644)
        atomic_write(registry, updated.encode("utf-8"), mode=registry.stat().st_mode & 0o777)
        check()
    except BaseException:
        path.unlink(missing_ok=True)
        atomic_write(registry, before.encode("utf-8"), mode=registry.stat().st_mode & 0o777)
        raise
    return Created(path, registry)
