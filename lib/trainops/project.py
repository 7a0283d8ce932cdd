"""The one loader of a trainops repository: ``apps/clusters.py`` (targets) and the ``apps`` package.

:func:`load_clusters` reads only ``apps/clusters.py`` (no cdk8s import: ``validate --cluster`` stays
fast); :func:`load_project` imports the whole ``apps`` package for ``synth``, ``ci`` and ``diff``,
reusing that same clusters module. User code that fails to import is a one-line usage error.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainops.cluster import Cluster
from trainops.errors import UsageError
from trainops.user_code import user_output

if TYPE_CHECKING:  # pragma: no cover - types only
    from trainops.app import AppDef

#: The package under the repository root that holds the apps.
APPS_PACKAGE = "apps"


@dataclass(frozen=True)
class Project:
    """The user's apps and clusters, loaded from the ``apps`` package under ``root``.

    Args:
        root: repository root (the directory holding ``apps/``).
        apps: registry of apps by name, in declaration order.
        clusters: target clusters in declaration order.
    """

    root: Path
    apps: dict[str, AppDef]
    clusters: tuple[Cluster, ...]

    def cluster(self, name: str) -> Cluster:
        """Return the cluster called ``name``.

        Raises:
            UsageError: no such cluster.
        """
        return find_cluster(self.clusters, name)


def find_cluster(clusters: tuple[Cluster, ...], name: str) -> Cluster:
    """The cluster called ``name`` among ``clusters``.

    Raises:
        UsageError: no such cluster (the message lists the declared ones).
    """
    for cluster in clusters:
        if cluster.name == name:
            return cluster
    known = ", ".join(c.name for c in clusters) or "none"
    raise UsageError(f"unknown cluster {name!r} (apps/clusters.py declares: {known})")


def find_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` (default: the working directory) holding
    ``apps/clusters.py``, or ``None`` outside a trainops repository."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / APPS_PACKAGE / "clusters.py").is_file():
            return directory
    return None


def load_clusters(root: Path, module: str = APPS_PACKAGE) -> tuple[Cluster, ...]:
    """``CLUSTERS`` of ``<root>/<module>/clusters.py``, loaded on its own as ``<module>.clusters``.

    The module is registered in ``sys.modules`` so that a later :func:`load_project` (whose
    ``apps/__init__.py`` imports it) reuses it: clusters are loaded one way only.

    Raises:
        UsageError: the file is missing, fails to load, or lacks a ``CLUSTERS`` tuple of Cluster.
    """
    path = root / module / "clusters.py"
    name = f"{module}.clusters"
    if not path.is_file():
        raise UsageError(f"{path}: no such file (run from the repository root)")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise UsageError(f"{path}: cannot be loaded")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        with user_output():
            spec.loader.exec_module(loaded)
    except Exception as exc:  # user code: report it, do not crash
        del sys.modules[name]
        raise UsageError(f"{path}: failed to load: {type(exc).__name__}: {exc}") from None
    clusters = getattr(loaded, "CLUSTERS", None)
    if not isinstance(clusters, tuple | list) or not all(isinstance(c, Cluster) for c in clusters):
        raise UsageError(f"{path}: must define CLUSTERS (a tuple of Cluster)")
    return tuple(clusters)


def declared_clusters(root: Path | None = None) -> tuple[Cluster, ...]:
    """Clusters of the repository at or above ``root`` (default: the working directory); an empty
    tuple outside a trainops repository.

    Raises:
        UsageError: ``apps/clusters.py`` exists but fails to load.
    """
    found = find_root(root)
    if found is None:
        return ()
    _forget(APPS_PACKAGE)
    return load_clusters(found)


def load_project(root: Path, module: str = APPS_PACKAGE) -> Project:
    """Import ``<root>/<module>`` and read ``APPS`` (a sequence of AppDef) and the clusters: those of
    ``<module>/clusters.py`` (loaded by :func:`load_clusters`) when it exists, else the package's
    own ``CLUSTERS``.

    Raises:
        UsageError: the module is missing, fails to import, or lacks ``APPS``/``CLUSTERS``.
    """
    root = root.resolve()
    if not (root / module / "__init__.py").is_file():
        raise UsageError(f"{root / module}/__init__.py: no apps package here (run from the repository root)")
    _forget(module)
    importlib.invalidate_caches()
    if not sys.path or sys.path[0] != str(root):
        sys.path.insert(0, str(root))
    has_module = (root / module / "clusters.py").is_file()
    clusters: Any = load_clusters(root, module) if has_module else ()
    try:
        with user_output():
            package = importlib.import_module(module)
    except ValueError as exc:
        raise UsageError(f"{root / module}: {exc}") from exc
    except (KeyboardInterrupt, UsageError):
        raise
    except Exception as exc:  # user code: one line naming file and line (issue 15 point 6)
        from trainops.user_code import app_error

        raise app_error(exc, root / module, app=None, cluster=None) from exc
    apps = getattr(package, "APPS", None)
    if not has_module:
        clusters = getattr(package, "CLUSTERS", None)
    if apps is None or clusters is None:
        raise UsageError(f"{root / module}/__init__.py: must define APPS and CLUSTERS")
    from trainops.app import check_registry  # apps are read here only (validate reads clusters)

    try:
        registry = check_registry(list(apps))
    except ValueError as exc:
        raise UsageError(f"{root / module}/__init__.py: {exc}") from exc
    return Project(root=root, apps=registry, clusters=tuple(clusters))


def _forget(module: str) -> None:
    """Drop an already-imported ``module`` and its submodules so the user's current code is loaded."""
    for name in [n for n in sys.modules if n == module or n.startswith(f"{module}.")]:
        del sys.modules[name]
