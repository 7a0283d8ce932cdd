"""Render apps: one cdk8s App per (cluster, app), synthesised in memory with cdk8s's
``Chart.to_json()`` into normalised objects.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from trainops.app import AppDef, build_chart
from trainops.constructs._core.base import run_checks
from trainops.constructs._core.props import plain
from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError
from trainops.core.kinds import RUN_ONCE, group_kind
from trainops.core.nodeenv import own_kernel, stop_kernel
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


#: A render: the app, the target cluster and the app's :meth:`Project.render_mode` there.
Pair = tuple[AppDef, Cluster, Literal["all", "mirror"]]

#: Renders from which :func:`render_pairs` uses worker processes: below it, forking and starting a
#: Node.js per worker cost more than they save.
PARALLEL_RENDERS = 64

#: Renders per worker process at most: each batch gets a new process and Node.js, whose memory grows
#: with every object rendered (jsii frees none) and is returned when the batch ends.
BATCH_RENDERS = 400


def render_pair(app_def: AppDef, target: Cluster, mode: Literal["all", "mirror"]) -> AppResult | None:
    """Render ``app_def`` for ``target`` in ``mode`` (:meth:`Project.render_mode`): its objects and
    their YAML; ``None`` for a ``"mirror"`` render left empty (only jobs: nothing runs on a MultiKueue
    worker but what MultiKueue sends).

    Raises:
        AppError, UsageError: see :func:`render_objects`.
    """
    start = time.perf_counter()
    objects = render_objects(app_def, target, without_runs=mode == "mirror")
    if mode == "mirror" and not objects:
        return None
    files = {name: dump_document(obj) for name, obj in objects.items()}
    return AppResult(target.name, app_def.name, files, objects, time.perf_counter() - start)


def render_pairs(pairs: Sequence[Pair], *, workers: int = 1) -> list[AppResult | None]:
    """:func:`render_pair` of every pair, in order; byte-identical whatever ``workers`` is.

    With ``workers`` > 1 and at least :data:`PARALLEL_RENDERS` pairs, the pairs are split into
    batches of at most :data:`BATCH_RENDERS`, a multiple of ``workers`` of them, each rendered by a
    process forked for it (:func:`trainops.core.forking.fork_map`, ``workers`` at a time) with its own
    Node.js (:func:`trainops.core.nodeenv.own_kernel`): jsii round trips, most of a render's time,
    wait on one Node.js each, and memory is returned batch by batch.

    Args:
        pairs: ``(app, target cluster, render mode)`` triples.
        workers: processes to render in. Default: 1 (this process).

    Raises:
        AppError, UsageError: of the first failing pair in order (:func:`render_objects`).
        WorkerDied: a worker process ended without its results.
    """
    if workers < 2 or len(pairs) < PARALLEL_RENDERS:
        return [render_pair(*pair) for pair in pairs]
    from trainops.core.forking import fork_map  # most renders never fork

    count = workers * -(-len(pairs) // (workers * BATCH_RENDERS))
    size = -(-len(pairs) // count)
    batches = [pairs[i : i + size] for i in range(0, len(pairs), size)]
    done: dict[int, list[AppResult | None] | UsageError] = {}
    for first in range(0, len(batches), workers):  # a new process per batch
        for index, outcome in fork_map(_render_batch, batches[first : first + workers], workers):
            done[first + index] = outcome
    results: list[AppResult | None] = []
    for index in range(len(batches)):
        outcome = done[index]
        if isinstance(outcome, UsageError):
            raise outcome
        results.extend(outcome)
    return results


def _render_batch(batch: Sequence[Pair]) -> list[AppResult | None] | UsageError:  # runs in a worker
    """:func:`render_pair` of each pair of ``batch`` on a Node.js of this worker's own; the first
    error of the batch is returned, not raised, so the parent raises the first one in pair order."""
    own_kernel()
    try:
        return [render_pair(*pair) for pair in batch]
    except UsageError as exc:
        return exc
    finally:
        stop_kernel()


def render_cluster(project: Project, target: Cluster, *, workers: int = 1) -> list[AppResult]:
    """Render every app that targets ``target``, in declaration order; on a MultiKueue worker also
    the apps of its manager, without their run-once objects (:meth:`Project.render_mode`).

    Args:
        workers: processes to render in (:func:`render_pairs`). Default: 1.
    """
    return [r for r in render_pairs(cluster_pairs(project, target), workers=workers) if r is not None]


def cluster_pairs(project: Project, target: Cluster) -> list[Pair]:
    """The renders of ``target``: each app that :meth:`Project.render_mode` places there, in
    declaration order, with its mode."""
    pairs: list[Pair] = []
    for app_def in project.apps.values():
        mode = project.render_mode(app_def, target)
        if mode is not None:
            pairs.append((app_def, target, mode))
    return pairs
