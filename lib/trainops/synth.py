"""``trainops synth``: run every app for every cluster and write ``generated/`` atomically.

Output layout: ``generated/<cluster>/<app>/<kind>_<name>.yaml`` (one object per file, kind
lower-cased) plus ``generated/<cluster>/lock.json`` (object identity → file, sha256, spec hash).
Objects are normalised first: standard labels, a spec-hash annotation, canonical quantities and a
stable key order, so the same input gives byte-identical output.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainops import __version__
from trainops.app import AppDef, build_chart, check_registry
from trainops.cluster import Cluster
from trainops.errors import UsageError
from trainops.hashing import content_hash
from trainops.quantity import QuantityError, canonical_quantity
from trainops.yamlio import dump_document

SPEC_HASH_ANNOTATION = "trainops.dev/spec-hash"
TEAM_LABEL = "trainops.dev/team"
MANAGED_BY = "trainops"

# Keys that come first, in this order; every other key follows in sorted order.
_KEY_PRIORITY: dict[str, int] = {
    key: index
    for index, key in enumerate(
        [
            "apiVersion",
            "kind",
            "metadata",
            "name",
            "namespace",
            "generateName",
            "labels",
            "annotations",
            "spec",
            "data",
            "stringData",
            "type",
            "image",
        ]
    )
}
_QUANTITY_MAPS = frozenset({"limits", "requests"})


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
        for cluster in self.clusters:
            if cluster.name == name:
                return cluster
        known = ", ".join(c.name for c in self.clusters)
        raise UsageError(f"unknown cluster {name!r} (apps/clusters.py declares: {known})")


@dataclass(frozen=True)
class AppResult:
    """What synth produced for one app on one cluster.

    Args:
        cluster: cluster name.
        app: app name.
        files: file name → YAML text, sorted by file name.
        objects: file name → the normalised object written there (for lock.json).
        seconds: wall time of the render, in seconds.
    """

    cluster: str
    app: str
    files: dict[str, str]
    objects: dict[str, dict[str, Any]]
    seconds: float


def load_project(root: Path, module: str = "apps") -> Project:
    """Import ``<root>/<module>`` and read ``APPS`` (a sequence of AppDef) and ``CLUSTERS``.

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
    try:
        package = importlib.import_module(module)
    except ValueError as exc:
        raise UsageError(f"{root / module}: {exc}") from exc
    apps = getattr(package, "APPS", None)
    clusters = getattr(package, "CLUSTERS", None)
    if apps is None or clusters is None:
        raise UsageError(f"{root / module}/__init__.py: must define APPS and CLUSTERS")
    try:
        registry = check_registry(list(apps))
    except ValueError as exc:
        raise UsageError(f"{root / module}/__init__.py: {exc}") from exc
    return Project(root=root, apps=registry, clusters=tuple(clusters))


def _forget(module: str) -> None:
    """Drop an already-imported ``module`` and its submodules so the user's current code is loaded."""
    for name in [n for n in sys.modules if n == module or n.startswith(f"{module}.")]:
        del sys.modules[name]


def normalise(obj: dict[str, Any], app_def: AppDef) -> dict[str, Any]:
    """Return ``obj`` with standard labels, spec hash, canonical quantities and stable key order.

    Labels added when absent: ``app.kubernetes.io/name`` (the app name), ``part-of``,
    ``version``, ``managed-by: trainops`` and ``trainops.dev/team``. The annotation
    ``trainops.dev/spec-hash`` is the sha256 (16 hex digits) of everything but ``metadata``
    and ``status``.

    Raises:
        ValueError: a resources quantity that does not parse, naming its path.
    """
    obj = _canonical_quantities(obj, "$")
    metadata = dict(obj.get("metadata") or {})
    labels = dict(metadata.get("labels") or {})
    labels.setdefault("app.kubernetes.io/name", app_def.name)
    labels.setdefault("app.kubernetes.io/part-of", app_def.name)
    labels.setdefault("app.kubernetes.io/version", app_def.version)
    labels.setdefault("app.kubernetes.io/managed-by", MANAGED_BY)
    labels.setdefault(TEAM_LABEL, app_def.team)
    metadata["labels"] = labels
    body = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    annotations = dict(metadata.get("annotations") or {})
    annotations[SPEC_HASH_ANNOTATION] = content_hash(body, 16)
    metadata["annotations"] = annotations
    obj = {**obj, "metadata": metadata}
    ordered: dict[str, Any] = _ordered(obj)
    return ordered


def file_name(obj: dict[str, Any]) -> str:
    """``<kind>_<name>.yaml`` with the kind lower-cased, e.g. ``pytorchjob_bert-3f2a1b.yaml``."""
    return f"{str(obj['kind']).lower()}_{obj['metadata']['name']}.yaml"


def render_app(app_def: AppDef, cluster: Cluster) -> dict[str, str]:
    """Synthesise one app for one cluster.

    Returns:
        file name → YAML text, sorted by file name.

    Raises:
        UsageError: a construct raised ``ValueError`` (a bad prop), or two objects map to one file.
    """
    return {name: dump_document(obj) for name, obj in render_objects(app_def, cluster).items()}


def render_objects(app_def: AppDef, cluster: Cluster) -> dict[str, dict[str, Any]]:
    """Synthesise one app for one cluster into normalised objects keyed by file name (sorted).

    Raises:
        UsageError: a construct raised ``ValueError`` (a bad prop), or two objects map to one file.
    """
    try:
        _, chart = build_chart(app_def, cluster)
        manifests: list[dict[str, Any]] = list(chart.to_json())
        normalised = [normalise(_plain(m), app_def) for m in manifests]
    except ValueError as exc:
        raise UsageError(f"apps: app {app_def.name!r} on cluster {cluster.name!r}: {exc}") from exc
    objects: dict[str, dict[str, Any]] = {}
    for obj in normalised:
        name = file_name(obj)
        if name in objects:
            raise UsageError(
                f"apps: app {app_def.name!r} on cluster {cluster.name!r}: two objects would be written to {name}"
            )
        objects[name] = obj
    return dict(sorted(objects.items()))


def render_project(project: Project, *, cluster: str | None = None) -> list[AppResult]:
    """Render every (cluster, app) pair, optionally for one cluster only."""
    clusters = [project.cluster(cluster)] if cluster else list(project.clusters)
    results = []
    for target in clusters:
        for app_def in project.apps.values():
            if not app_def.targets(target):
                continue
            start = time.perf_counter()
            objects = render_objects(app_def, target)
            files = {name: dump_document(obj) for name, obj in objects.items()}
            results.append(AppResult(target.name, app_def.name, files, objects, time.perf_counter() - start))
    return results


def lock_file(cluster: str, results: Iterable[AppResult]) -> str:
    """Build ``lock.json`` for one cluster: object identity → file, sha256 and spec hash."""
    objects = []
    for result in results:
        if result.cluster != cluster:
            continue
        for name, text in result.files.items():
            meta = result.objects[name]["metadata"]
            obj = result.objects[name]
            objects.append(
                {
                    "apiVersion": obj["apiVersion"],
                    "kind": obj["kind"],
                    "namespace": meta.get("namespace", ""),
                    "name": meta["name"],
                    "file": f"{result.app}/{name}",
                    "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "specHash": meta.get("annotations", {}).get(SPEC_HASH_ANNOTATION, ""),
                }
            )
    objects.sort(key=lambda o: o["file"])
    lock = {"cluster": cluster, "generator": f"trainops {__version__}", "objects": objects}
    return json.dumps(lock, indent=2, sort_keys=True) + "\n"


def tree_for(results: Sequence[AppResult]) -> dict[str, str]:
    """Relative path under ``generated/`` → text, for every app file and each cluster's lock.json."""
    tree: dict[str, str] = {}
    for result in results:
        for name, text in result.files.items():
            tree[f"{result.cluster}/{result.app}/{name}"] = text
    for cluster in sorted({r.cluster for r in results}):
        tree[f"{cluster}/lock.json"] = lock_file(cluster, results)
    return tree


def write_tree(out: Path, tree: dict[str, str], clusters: Iterable[str]) -> None:
    """Replace ``out/<cluster>`` for each cluster with the files of ``tree``, atomically per cluster.

    Each cluster directory is written in full to a temporary sibling and renamed into place, so a
    failure never leaves a half-written ``generated/``. Paths are confined to ``out``.

    Raises:
        UsageError: a path in ``tree`` escapes ``out``.
    """
    out.mkdir(parents=True, exist_ok=True)
    root = out.resolve()
    for cluster in sorted(set(clusters)):
        staging = Path(tempfile.mkdtemp(prefix=f".{cluster}.", dir=root))
        try:
            for rel, text in tree.items():
                if not rel.startswith(f"{cluster}/"):
                    continue
                target = (staging / rel[len(cluster) + 1 :]).resolve()
                if not target.is_relative_to(staging.resolve()):
                    raise UsageError(f"refusing to write outside {out}: {rel}")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))
            for directory, _, files in os.walk(staging):
                os.chmod(directory, 0o755)
                for f in files:
                    os.chmod(os.path.join(directory, f), 0o644)
            final = root / cluster
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{cluster}.old.", dir=root))
                old.rmdir()
                final.rename(old)
                staging.rename(final)
                shutil.rmtree(old)
            else:
                staging.rename(final)
        finally:
            if staging.exists():
                shutil.rmtree(staging)


def read_tree(out: Path, clusters: Iterable[str]) -> dict[str, str]:
    """Read the files under ``out/<cluster>`` for each cluster as relative path → text."""
    tree: dict[str, str] = {}
    for cluster in clusters:
        base = out / cluster
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file():
                tree[path.relative_to(out).as_posix()] = path.read_text(encoding="utf-8")
    return tree


def _plain(value: Any) -> Any:
    """Convert jsii proxies (mappings/sequences) into plain dicts and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _ordered(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (_KEY_PRIORITY.get(k, len(_KEY_PRIORITY)), k))
        return {k: _ordered(value[k]) for k in keys}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


def _canonical_quantities(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            child = f"{path}.{key}"
            if key in _QUANTITY_MAPS and isinstance(item, dict) and path.endswith("resources"):
                out[key] = {name: _quantity(q, f"{child}.{name}") for name, q in item.items()}
            elif key == "sizeLimit" and isinstance(item, str | int | float):
                out[key] = _quantity(item, child)
            else:
                out[key] = _canonical_quantities(item, child)
        return out
    if isinstance(value, list):
        return [_canonical_quantities(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _quantity(raw: Any, path: str) -> str:
    try:
        return canonical_quantity(raw)
    except QuantityError as exc:
        raise ValueError(f"{path}: {exc}") from None
