"""The one loader of a trainops repository (``apps/clusters.py`` and the ``apps`` package) and the one
target resolver.

:func:`load_clusters` reads only ``apps/clusters.py`` (no cdk8s import: ``validate --cluster`` stays
fast); :func:`load_project` imports the whole ``apps`` package for ``synth``, ``ci`` and ``diff``,
reusing that same clusters module. User code that fails to import is a one-line usage error.

:func:`resolve_clusters` decides, for every file any command checks (``validate``, ``validate
--policy``, ``policy check``, ``synth``, ``ci``), which cluster it is checked against (DESIGN.md
decision 6); :func:`trainops.pipeline.resolve_targets` turns its answer into targets.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from trainops.core.errors import UsageError
from trainops.core.naming import DNS1123_LABEL
from trainops.user_code import user_output

if TYPE_CHECKING:  # pragma: no cover - types only
    from trainops.app import AppDef
    from trainops.core.cluster import Cluster

#: The package under the repository root that holds the apps.
APPS_PACKAGE = "apps"
#: The file that marks a tree ``trainops synth`` wrote, ``<out>/<cluster>/lock.json``
#: (:data:`trainops.synth.lockfile.LOCK_NAME`).
SYNTH_TREE_MARK = "lock.json"
#: How :attr:`Resolution.reason` starts for a file of a synth tree.
TREE = "synth tree "


class Project(NamedTuple):
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

    def render_mode(self, app_def: AppDef, target: Cluster) -> Literal["all", "mirror"] | None:
        """How ``app_def`` is rendered for ``target``: ``"all"`` when it targets it
        (:meth:`AppDef.targets`), ``"mirror"`` when ``target`` is a MultiKueue worker of a manager it
        targets (without its run-once objects: MultiKueue creates the jobs there), else ``None``. A
        worker gets an app in full only when the app names it in ``clusters`` (an app for every
        cluster reaches a worker through its manager)."""
        manager = multikueue_manager(self.clusters, target.name)
        if manager is None:
            return "all" if app_def.targets(target) else None
        if target.name in app_def.clusters:
            return "all"
        return "mirror" if app_def.targets(manager) else None


def multikueue_manager(clusters: tuple[Cluster, ...], worker: str) -> Cluster | None:
    """The MultiKueue manager among ``clusters`` whose workers include ``worker``, or ``None``."""
    return next((c for c in clusters if c.multikueue is not None and worker in c.multikueue.workers), None)


def check_multikueue(clusters: tuple[Cluster, ...], where: Path) -> None:
    """Check the MultiKueue roles of ``clusters`` (:class:`~trainops.core.cluster.MultiKueueManager`): every
    worker is a declared cluster that runs Kueue, is no manager itself and has one manager.

    Args:
        clusters: the declared clusters.
        where: the file declaring them, for messages.

    Raises:
        UsageError: one line naming the manager, the worker and what is wrong.
    """
    names = {c.name: c for c in clusters}
    managers: dict[str, str] = {}
    for manager in clusters:
        if manager.multikueue is None:
            continue
        for worker in manager.multikueue.workers:
            found = names.get(worker)
            prefix = f"{where}: cluster {manager.name!r} multikueue worker {worker!r}"
            if found is None:
                known = ", ".join(names) or "none"
                raise UsageError(f"{prefix} is not a declared cluster (declared: {known})")
            if found.multikueue is not None:
                raise UsageError(f"{prefix} is itself a MultiKueue manager")
            if not found.has_operator("kueue"):
                raise UsageError(f"{prefix} does not list kueue in operators (workers run Kueue too)")
            if worker in managers:
                raise UsageError(f"{prefix} is already a worker of {managers[worker]!r}")
            managers[worker] = manager.name


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


def check_cluster_option(name: str, root: Path) -> None:
    """Refuse a ``--cluster`` of ``synth`` or ``ci`` that is not a declared cluster's name, before
    any path is built from it (``generated/<name>``).

    Raises:
        UsageError: ``name`` is not a DNS-1123 label (what :class:`~trainops.core.cluster.Cluster`
            requires; so never ``..``, ``/`` nor any path), or the repository at or above ``root``
            declares no cluster of that name in ``apps/clusters.py``.
    """
    problem = DNS1123_LABEL.problem(name)
    if problem is not None:
        raise UsageError(f"--cluster {name!r}: not a cluster name: it {problem}")
    if find_root(root) is not None:
        find_cluster(declared_clusters(root), name)


def find_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` (default: the working directory) holding
    ``apps/clusters.py``, or ``None`` outside a trainops repository."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / APPS_PACKAGE / "clusters.py").is_file():
            return directory
    return None


def find_repository(paths: Sequence[str], start: Path | None = None) -> Path | None:
    """The trainops repository a run over ``paths`` uses (its ``apps/clusters.py`` and
    ``policies/``), found as linters find their configuration: from the checked paths upwards.

    The repository (:func:`find_root`) at or above the directory of each of ``paths`` that is
    inside one (``paths`` need not exist: a name such as ``<stdin>`` stands for the working
    directory); when none is, the repository at or above ``start`` (default: the working
    directory), as before; ``None`` outside any. So ``trainops policy check
    /abs/repo/generated`` from another directory checks against that repository's clusters and
    config, as it does from inside.

    Raises:
        UsageError: ``paths`` lie in two repositories (one run uses one repository's clusters,
            policy config and rules).
    """
    found: dict[Path, str] = {}  # repository → the first path in it
    roots: dict[str, Path | None] = {}  # directory → its repository
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in roots:
            roots[directory] = find_root(Path(directory))
        root = roots[directory]
        if root is not None:
            found.setdefault(root, path)
    if len(found) > 1:
        (first, one), (second, other) = list(found.items())[:2]
        raise UsageError(
            f"{one} and {other} are in two trainops repositories ({first} and {second}): "
            "check one repository per run"
        )
    if found:
        return next(iter(found))
    return find_root(start)


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
    from trainops.core.cluster import Cluster  # the cluster facts: only where a repository declares them

    clusters = getattr(loaded, "CLUSTERS", None)
    if not isinstance(clusters, tuple | list) or not all(isinstance(c, Cluster) for c in clusters):
        raise UsageError(f"{path}: must define CLUSTERS (a tuple of Cluster)")
    check_multikueue(tuple(clusters), path)
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
    if not has_module:
        check_multikueue(tuple(clusters), root / module / "__init__.py")
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


class Resolution(NamedTuple):
    """The cluster one file is checked against, and why.

    Args:
        cluster: the declared cluster, or ``None`` for every catalogued operator on the newest
            Kubernetes (outside a repository, or in one that declares no cluster).
        reason: how it was chosen, for ``-v``: ``synth tree generated/gpu-next``,
            ``--cluster gpu-prod``, ``first cluster of apps/clusters.py`` or ``no apps/clusters.py``.
        tree: the synth tree holding the file (``<out>/<cluster>``, as the path was named), when
            the cluster was taken from it.
    """

    cluster: Cluster | None
    reason: str
    tree: str | None = None


def resolve_clusters(
    paths: Sequence[str],
    *,
    cluster: str | None = None,
    root: Path | None = None,
    clusters: tuple[Cluster, ...] | None = None,
) -> dict[str, Resolution]:
    """The one target resolver: which declared cluster each of ``paths`` is checked against.

    In order (DESIGN.md decision 6):

    1. a file under a tree ``trainops synth`` wrote (the nearest directory above it holding
       ``lock.json``, :data:`SYNTH_TREE_MARK`) whose name is a declared cluster: that cluster,
       whatever the options (``validate generated`` checks each cluster's tree against its own
       cluster);
    2. ``cluster`` (``--cluster``): that declared cluster;
    3. inside a trainops repository: its first declared cluster;
    4. otherwise: ``None``, every catalogued operator on the newest Kubernetes.

    Args:
        paths: file paths as named (relative to the working directory, or absolute), or names of
            texts in memory (``<stdin>``, ``<out>/<cluster>/<app>/<file>`` for rendered objects);
            a path need not exist.
        cluster: the ``--cluster`` option, or ``None``.
        root: where the repository is looked for (at or above it); default: the repository of
            ``paths`` (:func:`find_repository`: at or above the checked paths, else the working
            directory).
        clusters: the declared clusters when the caller has loaded them (``synth`` and ``ci``:
            :attr:`Project.clusters`); default: ``apps/clusters.py`` of that repository.

    Returns:
        path → :class:`Resolution`, for every path.

    Raises:
        UsageError: ``cluster`` is not declared (checked even when no path needs it);
            ``apps/clusters.py`` fails to load.
    """
    if clusters is None:
        repository = find_root(root) if root is not None else find_repository(paths)
        clusters = declared_clusters(repository) if repository is not None else ()
    by_name = {c.name: c for c in clusters}
    if cluster is not None:
        default = Resolution(find_cluster(clusters, cluster), f"--cluster {cluster}")
    elif clusters:
        default = Resolution(clusters[0], f"first cluster of {APPS_PACKAGE}/clusters.py")
    else:
        default = Resolution(None, f"no {APPS_PACKAGE}/clusters.py")
    resolved: dict[str, Resolution] = {}
    for path, tree in synth_trees(paths).items():
        if tree is not None and os.path.basename(tree) in by_name:
            shown = _shown(path, tree)
            resolved[path] = Resolution(by_name[os.path.basename(tree)], f"{TREE}{shown}", shown)
        else:
            resolved[path] = default
    return resolved


def synth_trees(paths: Sequence[str]) -> dict[str, str | None]:
    """The synth tree holding each of ``paths``: the nearest directory above it holding
    :data:`SYNTH_TREE_MARK` (absolute), or ``None``. Objects of different trees go to different
    clusters (cross-object policy rules see one tree at a time)."""
    trees: dict[str, str | None] = {}  # directory → the synth tree holding it
    return {path: _synth_tree(os.path.dirname(os.path.abspath(path)), trees) for path in paths}


def _synth_tree(directory: str, trees: dict[str, str | None]) -> str | None:
    """The nearest directory at or above ``directory`` (absolute) holding :data:`SYNTH_TREE_MARK`,
    memoised in ``trees`` for every directory looked at."""
    walked: list[str] = []
    found: str | None = None
    current = directory
    while True:
        if current in trees:
            found = trees[current]
            break
        walked.append(current)
        if os.path.isfile(os.path.join(current, SYNTH_TREE_MARK)):
            found = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for seen in walked:
        trees[seen] = found
    return found


def _shown(path: str, tree: str) -> str:
    """``tree`` as the user named ``path``: relative when ``path`` was, e.g. ``generated/gpu-next``."""
    if os.path.isabs(path):
        return tree
    relative = os.path.relpath(tree)
    return relative if not relative.startswith("..") else tree
