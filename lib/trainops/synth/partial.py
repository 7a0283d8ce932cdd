"""Synth of some apps only (``trainops synth --changed``): the chosen apps are rendered, every other
app's files are taken as they are from ``generated/`` (already checked against ``lock.json``), so
``lock.json`` and the tree come out as a full synth would write them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.project import Project
from trainops.synth.delivery import ARGOCD_OPERATOR, class_members, deliver
from trainops.synth.lockfile import read_lock
from trainops.synth.normalise import RUN_OF_LABEL, SPEC_HASH_ANNOTATION
from trainops.synth.render import AppResult, Pair, cluster_pairs, render_pairs

#: Generated files are written by the dumper so that a YAML 1.1 safe loader reads them back exactly.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def kept_result(
    out: Path, cluster: str, app: str, entries: dict[str, dict[str, Any]] | None = None
) -> AppResult | None:
    """The files of ``out/<cluster>/<app>/`` as an :class:`AppResult` (``seconds`` 0), or ``None``
    when the app has no directory there or a file is missing from ``lock.json``.

    The files are not parsed: each object is the identity ``lock.json`` records for its file
    (apiVersion, kind, namespace, name, run-of label, spec hash), all :func:`lock_entry` needs;
    :func:`~trainops.synth.lockfile.hand_edits` has already checked the files against the lock.
    ``entries`` is the cluster's lock indexed by file (:func:`lock_entries`); default: read it.
    """
    directory = out / cluster / app
    if not directory.is_dir():
        return None
    if entries is None:
        entries = lock_entries(out, cluster)
    files: dict[str, str] = {}
    objects: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob("*.yaml")):
        entry = entries.get(f"{app}/{path.name}")
        if entry is None or "base" not in entry:
            return None
        files[path.name] = path.read_text(encoding="utf-8")
        metadata: dict[str, Any] = {
            "name": entry["name"],
            "annotations": {SPEC_HASH_ANNOTATION: entry["specHash"]},
        }
        if entry["namespace"]:
            metadata["namespace"] = entry["namespace"]
        if entry["base"] != entry["name"]:
            metadata["labels"] = {RUN_OF_LABEL: entry["base"]}
        objects[path.name] = {"apiVersion": entry["apiVersion"], "kind": entry["kind"], "metadata": metadata}
    return AppResult(cluster, app, files, objects, 0.0, kept=directory)


def lock_entries(out: Path, cluster: str) -> dict[str, dict[str, Any]]:
    """The entries of ``out/<cluster>/lock.json`` by file (empty without a lock).

    Raises:
        UsageError: the lock file is unreadable.
    """
    lock = read_lock(out / cluster)
    return {str(e.get("file")): e for e in (lock or {}).get("objects", [])}


def render_some(
    project: Project,
    out: Path,
    *,
    cluster: str | None,
    render: Callable[[AppDef], bool],
    workers: int = 1,
) -> tuple[list[AppResult], set[tuple[str, str]]]:
    """Render the apps for which ``render(app)`` is true (and any app with no files yet); keep the
    others' files from ``out``; then the Argo CD objects of each cluster
    (:func:`trainops.synth.delivery.deliver`, rendered again from every app's objects, the kept ones
    read from their files), as :func:`~trainops.synth.delivery.render_project` does.

    Args:
        workers: processes to render in (:func:`~trainops.synth.render.render_pairs`). Default: 1.

    Returns:
        Every (cluster, app) result in :func:`~trainops.synth.delivery.render_project` order, and the
        ``(cluster, app)`` pairs that were rendered.

    Raises:
        AppError: a rendered app's code raised. UsageError: two objects map to one file.
    """
    clusters = [project.cluster(cluster)] if cluster else list(project.clusters)
    results, rendered = _render_apps(project, out, clusters, render, workers)
    if not any(class_members(project.clusters, c)[0].has_operator(ARGOCD_OPERATOR) for c in clusters):
        return results, rendered
    results = [_read_objects(r) for r in results]

    def others(project: Project, member: Cluster) -> list[AppResult]:
        return [_read_objects(r) for r in _render_apps(project, out, [member], render)[0]]

    delivered = deliver(project, clusters, results, others)
    rendered |= {(r.cluster, r.app) for r in delivered}
    return results + delivered, rendered


def _render_apps(
    project: Project,
    out: Path,
    clusters: list[Cluster],
    render: Callable[[AppDef], bool],
    workers: int = 1,
) -> tuple[list[AppResult], set[tuple[str, str]]]:
    """The apps part of :func:`render_some` for ``clusters``."""
    slots: list[AppResult | Pair] = []  # a kept result, or a pair to render, in render order
    for target in clusters:
        entries: dict[str, dict[str, Any]] | None = None
        for app_def, _, mode in cluster_pairs(project, target):
            if not render(app_def) and entries is None:
                entries = lock_entries(out, target.name)  # read once per cluster
            kept = None if render(app_def) else kept_result(out, target.name, app_def.name, entries)
            slots.append(kept if kept is not None else (app_def, target, mode))
    fresh = iter(render_pairs([slot for slot in slots if isinstance(slot, tuple)], workers=workers))
    results: list[AppResult] = []
    rendered: set[tuple[str, str]] = set()
    for slot in slots:
        result = next(fresh) if isinstance(slot, tuple) else slot
        if result is not None:
            results.append(result)
            if isinstance(slot, tuple):
                rendered.add((result.cluster, result.app))
    return results, rendered


def _read_objects(result: AppResult) -> AppResult:
    """A kept result with its objects read from its files (the lock's identities are not enough for
    the delivery step); others as they are."""
    if result.kept is None:
        return result
    objects = {name: yaml.load(text, Loader=_LOADER) for name, text in result.files.items()}
    return dataclasses.replace(result, objects=objects)
