"""Render apps: one cdk8s App per (cluster, app), synthesised in memory with cdk8s's
``Chart.to_json()`` into normalised objects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainops.app import AppDef, build_chart
from trainops.constructs._core.base import run_checks
from trainops.constructs._core.props import plain
from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError
from trainops.core.kinds import RUN_ONCE, group_kind
from trainops.project import Project
from trainops.synth.normalise import file_name, normalise
from trainops.user_code import app_error, apps_dir_of, user_output
from trainops.yaml.dump import dump_document


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


def render_objects(
    app_def: AppDef, cluster: Cluster, *, without_runs: bool = False
) -> dict[str, dict[str, Any]]:
    """Synthesise one app for one cluster into normalised objects keyed by file name (sorted).

    Args:
        app_def: the app.
        cluster: the target.
        without_runs: leave out run-once objects (:data:`trainops.core.kinds.RUN_ONCE`): the app is
            rendered for a MultiKueue worker of a manager it targets (:meth:`Project.render_mode`), where
            MultiKueue creates the jobs. Default: ``False``.

    Raises:
        AppError: the app's code raised (a construct's ``ValueError`` for a bad prop, a failed
            cross-construct check (:func:`~trainops.constructs._core.base.add_check`), or any other
            exception), named by app, cluster and the file and line in ``apps/`` where known.
        UsageError: two objects map to one file; an object's kind or name cannot be a file name
            (:func:`~trainops.synth.normalise.file_name`).
    """
    try:
        with user_output():
            run_checks()  # forget checks of an earlier, failed build
            _, chart = build_chart(app_def, cluster)
            problems = run_checks()
            if problems:
                raise ValueError(problems[0])
            manifests = list(chart.to_json())
        normalised = [normalise(plain(m), app_def) for m in manifests]
        if without_runs:
            normalised = [obj for obj in normalised if group_kind(obj) not in RUN_ONCE]
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


def render_cluster(project: Project, target: Cluster) -> list[AppResult]:
    """Render every app that targets ``target``, in declaration order; on a MultiKueue worker also
    the apps of its manager, without their run-once objects (:meth:`Project.render_mode`)."""
    results = []
    for app_def in project.apps.values():
        mode = project.render_mode(app_def, target)
        if mode is None:
            continue
        start = time.perf_counter()
        objects = render_objects(app_def, target, without_runs=mode == "mirror")
        if (
            mode == "mirror" and not objects
        ):  # only jobs: nothing runs on the worker but what MultiKueue sends
            continue
        files = {name: dump_document(obj) for name, obj in objects.items()}
        results.append(AppResult(target.name, app_def.name, files, objects, time.perf_counter() - start))
    return results
