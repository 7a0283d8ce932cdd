"""Render apps: one cdk8s App per (cluster, app), synthesised in memory into normalised objects.

``trainops synth`` records each app's objects in Python while its constructs are built
(:mod:`trainops.constructs._core.emission`) instead of creating them in cdk8s one jsii round trip at
a time, when the app's Chart holds trainops constructs only; any other app, and everything inside
:func:`through_cdk8s` (``cdk8s synth``, ``python -m apps``), renders with cdk8s's ``Chart.to_json()``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainops.app import AppDef, build_chart
from trainops.cluster import Cluster
from trainops.constructs._core.base import run_checks
from trainops.constructs._core.emission import Unsupported, recording
from trainops.constructs._core.props import plain
from trainops.errors import UsageError
from trainops.project import Project
from trainops.synth.fast_dump import dump as dump_document
from trainops.synth.normalise import file_name, normalise
from trainops.user_code import app_error, apps_dir_of, user_output

if TYPE_CHECKING:
    from cdk8s import Chart

_THROUGH_CDK8S = False
#: Modules whose constructs a recorded Chart may hold (each one emits through ``_core.base.emit``).
_CONSTRUCTS_PACKAGE = "trainops.constructs."


@contextmanager
def through_cdk8s() -> Iterator[None]:
    """Render every app in the block with cdk8s's own ``Chart.to_json()`` (no recording): the path
    of ``cdk8s synth``, which tests compare with ``trainops synth``'s ``generated/``."""
    global _THROUGH_CDK8S
    previous, _THROUGH_CDK8S = _THROUGH_CDK8S, True
    try:
        yield
    finally:
        _THROUGH_CDK8S = previous


@dataclass(frozen=True)
class AppResult:
    """What synth produced for one app on one cluster.

    Args:
        cluster: cluster name.
        app: app name.
        files: file name → YAML text, sorted by file name.
        objects: file name → the normalised object written there (for lock.json).
        seconds: wall time of the render, in seconds.
        kept: the directory holding exactly these files when they were kept as they are
            (``synth --changed``, :func:`trainops.synth.partial.kept_result`), else ``None``.
    """

    cluster: str
    app: str
    files: dict[str, str]
    objects: dict[str, dict[str, Any]]
    seconds: float
    kept: Path | None = None


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
        AppError: the app's code raised (a construct's ``ValueError`` for a bad prop, a failed
            cross-construct check (:func:`~trainops.constructs._core.base.add_check`), or any other
            exception), named by app, cluster and the file and line in ``apps/`` where known.
        UsageError: two objects map to one file; an object's kind or name cannot be a file name
            (:func:`~trainops.synth.normalise.file_name`).
    """
    try:
        with user_output():
            manifests = None if _THROUGH_CDK8S else _recorded(app_def, cluster)
            if manifests is None:
                run_checks()  # forget checks of an earlier, failed build
                _, chart = build_chart(app_def, cluster)
                problems = run_checks()
                if problems:
                    raise ValueError(problems[0])
                manifests = list(chart.to_json())
        normalised = [normalise(plain(m), app_def) for m in manifests]
    except (KeyboardInterrupt, UsageError):
        raise
    except Exception as exc:  # user code: one line naming app, file and line (issue 15 point 6)
        raise app_error(exc, apps_dir_of(app_def), app=app_def.name, cluster=cluster.name) from exc
    objects: dict[str, dict[str, Any]] = {}
    for obj in normalised:
        try:
            name = file_name(obj)
        except ValueError as exc:
            raise UsageError(f"apps: app {app_def.name!r} on cluster {cluster.name!r}: {exc}") from None
        if name in objects:
            raise UsageError(
                f"apps: app {app_def.name!r} on cluster {cluster.name!r}: two objects would be written to {name}"
            )
        objects[name] = obj
    return dict(sorted(objects.items()))


def _recorded(app_def: AppDef, cluster: Cluster) -> list[dict[str, Any]] | None:
    """The app's objects as cdk8s renders them, recorded in Python while it is built; ``None`` when
    the app must render through cdk8s: its build or a cross-construct check failed (cdk8s then
    raises the same error), the recording is unsupported, or its Chart holds a construct that is not
    a trainops construct (an ``ApiObject``, an ``Include``, a nested Chart, a user construct: their
    objects, validations or namespaces live in cdk8s only)."""
    run_checks()
    try:
        with recording(app_def.namespace) as recorded:
            _, chart = build_chart(app_def, cluster)
        if run_checks() or not _trainops_only(chart, recorded.scopes()):
            return None
        return recorded.documents()
    except KeyboardInterrupt:
        raise
    except (Unsupported, Exception):
        run_checks()
        return None


def _trainops_only(chart: Chart, scopes: list[Any]) -> bool:
    """Whether ``chart``'s tree is the chart and trainops constructs, holding every recorded scope
    (one jsii call: ``node.find_all()``)."""
    found = chart.node.find_all()
    if any(c is not chart and not type(c).__module__.startswith(_CONSTRUCTS_PACKAGE) for c in found):
        return False
    present = {id(c) for c in found}
    return all(id(scope) in present for scope in scopes)


def render_project(project: Project, *, cluster: str | None = None) -> list[AppResult]:
    """Render every (cluster, app) pair, optionally for one cluster only, then the Argo CD objects
    of each cluster (``<cluster>/argocd``, :func:`trainops.synth.delivery.deliver`)."""
    from trainops.synth.delivery import deliver

    clusters = [project.cluster(cluster)] if cluster else list(project.clusters)
    results = [result for target in clusters for result in render_cluster(project, target)]
    return results + deliver(project, clusters, results, render_cluster)


def render_cluster(project: Project, target: Cluster) -> list[AppResult]:
    """Render every app that targets ``target``, in declaration order."""
    results = []
    for app_def in project.apps.values():
        if not app_def.targets(target):
            continue
        start = time.perf_counter()
        objects = render_objects(app_def, target)
        files = {name: dump_document(obj) for name, obj in objects.items()}
        results.append(AppResult(target.name, app_def.name, files, objects, time.perf_counter() - start))
    return results
