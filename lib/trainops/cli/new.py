"""``trainops new KIND NAME [options] [-- COMMAND...]``: scaffold an app the way ``arena submit``
users think (``--gpus``, ``--workers``, ``--image``, ``--data claim:path``, the command last), and
the way a team training a large model thinks (``--nodes``, ``--gpus-per-node``, ``--queue``,
``--placement rack``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli.options import require_utf8
from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError
from trainops.core.naming import DNS1123_LABEL, require
from trainops.project import load_clusters, load_project, multikueue_manager
from trainops.scaffold import KINDS, OPERATORS, QUEUED_KINDS, Kind, Mount, Placement, Request, create_app


@dataclass(frozen=True)
class NewOptions:
    """Parsed options of ``trainops new`` (see :class:`trainops.scaffold.Request` for each field).

    Args:
        kind: the scaffold kind.
        name: the app name.
        command: the container command (everything after ``--``).
        image: container image.
        gpus: GPUs per pod (``--gpus-per-node``). workers: training pods (``--nodes``). cpu, memory: per pod.
        data: ``CLAIM:PATH`` mounts. env: ``KEY=VALUE`` variables.
        namespace: default ``ml-training`` (training) or ``ml-serving`` (serving).
        team: owning team. Default: the team of the first registered app, else ``ml-platform``.
        port, replicas, max_replicas: serving. metric: katib objective.
        model_format, storage_uri: kserve.
        queue: Kueue LocalQueue of a training job. placement: ``[required:|preferred:]LEVEL``.
        cluster: target clusters by name; empty for every cluster that can run the app.
        out: the generated root the scaffold is synthesised into.
    """

    kind: Kind
    name: str
    command: tuple[str, ...] = ()
    image: str | None = None
    gpus: int = 0
    workers: int = 1
    cpu: str | None = None
    memory: str | None = None
    data: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    namespace: str | None = None
    team: str | None = None
    port: int = 8080
    replicas: int = 2
    max_replicas: int = 10
    metric: str = "loss"
    model_format: str = "sklearn"
    storage_uri: str | None = None
    queue: str | None = None
    placement: str | None = None
    cluster: tuple[str, ...] = ()
    out: Path = Path("generated")


def parse_mount(value: str) -> Mount:
    """``training-data:/data`` → ``Mount("training-data", "/data")`` (arena ``--data``).

    Raises:
        UsageError: not ``CLAIM:/ABSOLUTE/PATH``.
    """
    claim, sep, path = value.partition(":")
    if not sep or not claim or not path.startswith("/"):
        raise UsageError(f"--data {value!r}: expected CLAIM:/absolute/path, e.g. training-data:/data")
    return Mount(claim, path)


def parse_env(value: str) -> tuple[str, str]:
    """``KEY=VALUE`` → ``("KEY", "VALUE")``.

    Raises:
        UsageError: no ``=`` or an empty key.
    """
    key, sep, val = value.partition("=")
    if not sep or not key:
        raise UsageError(f"--env {value!r}: expected KEY=VALUE")
    return key, val


def parse_placement(value: str) -> Placement:
    """``rack`` → ``Placement("rack")``; ``preferred:rack`` → ``Placement("rack", "preferred")``.

    Raises:
        UsageError: an empty level or a mode other than ``required``/``preferred``.
    """
    mode, sep, level = value.rpartition(":") if value.count(":") == 1 else ("", "", value)
    if sep and mode not in ("required", "preferred"):
        raise UsageError(f"--placement {value!r}: expected LEVEL, required:LEVEL or preferred:LEVEL")
    if not level:
        raise UsageError(f"--placement {value!r}: name a topology level, e.g. rack")
    return Placement(level, "preferred" if mode == "preferred" else "required")


def _problem(cluster: Cluster, queue: str | None, placement: Placement | None) -> str | None:
    """Why ``cluster`` cannot run a job in ``queue`` placed by ``placement``, or ``None``."""
    if queue is not None and not cluster.has_operator("kueue"):
        return f"cluster {cluster.name!r} does not run Kueue (no kueue in operators) for --queue {queue!r}"
    if placement is None:
        return None
    topology = cluster.topology
    if topology is None:
        return f"cluster {cluster.name!r} declares no topology (Cluster.topology) for --placement {placement.level!r}"
    if topology.level(placement.level) is None:
        return (
            f"cluster {cluster.name!r} topology {topology.name!r} has no level {placement.level!r} "
            f"(levels: {', '.join(topology.level_names)})"
        )
    return None


def target_clusters(
    opts: NewOptions, clusters: tuple[Cluster, ...], placement: Placement | None
) -> tuple[str, ...]:
    """The clusters the new app targets: those named by ``--cluster`` (each must run the kind's
    operator, Kueue for ``--queue`` and declare the ``--placement`` level), else every cluster that
    can, less the MultiKueue workers of a manager among them (jobs go to the manager, which
    dispatches them; the workers mirror the rest of its apps); ``()`` when that is every cluster of
    ``apps/clusters.py``.

    Raises:
        UsageError: a ``--cluster`` that is unknown or cannot run the app; no cluster that can.
    """
    needed = OPERATORS.get(opts.kind, ())

    def runs_operator(c: Cluster) -> bool:
        return not needed or any(all(c.has_operator(op) for op in alt) for alt in needed)

    wanted = " or ".join(" and ".join(alt) for alt in needed)
    known = {c.name: c for c in clusters}
    for name in opts.cluster:
        if name not in known:
            raise UsageError(
                f"trainops new {opts.kind}: --cluster {name!r} is not in apps/clusters.py ({', '.join(known)})"
            )
        problem = (
            None if runs_operator(known[name]) else f"cluster {name!r} does not list {wanted} in operators"
        )
        problem = problem or _problem(known[name], opts.queue, placement)
        if problem:
            raise UsageError(f"trainops new {opts.kind}: {problem}")
    chosen = [known[n] for n in dict.fromkeys(opts.cluster)] if opts.cluster else list(clusters)
    able = [c for c in chosen if runs_operator(c)]
    if not able:
        raise UsageError(
            f"trainops new {opts.kind}: no cluster in apps/clusters.py lists {wanted} in operators"
        )
    fit = [c for c in able if _problem(c, opts.queue, placement) is None]
    if not fit:
        problems = "; ".join(str(_problem(c, opts.queue, placement)) for c in able)
        raise UsageError(
            f"trainops new {opts.kind}: no cluster that runs {wanted or 'it'} can take the job: {problems}"
        )
    if not opts.cluster:  # a MultiKueue worker mirrors its manager's apps, without their jobs
        chosen_names = {c.name for c in fit}
        fit = [c for c in fit if _manager_of(clusters, c.name) not in chosen_names]
    names = tuple(c.name for c in fit)
    return names if len(names) < len(clusters) else ()


def _manager_of(clusters: tuple[Cluster, ...], worker: str) -> str | None:
    manager = multikueue_manager(clusters, worker)
    return manager.name if manager is not None else None


def run_new(opts: NewOptions, root: Path | None = None) -> int:
    """Scaffold, register, synthesise and validate the app; undo the scaffold when that fails.

    Raises:
        UsageError: see :func:`trainops.scaffold.create_app` and :func:`target_clusters`; a missing
            ``--image``; ``--queue``/``--placement`` on a kind that takes none, a bad queue name,
            ``--placement`` without ``--queue``.
        AppError, findings: the synth of the new app failed (the scaffold is removed again).
    """
    from trainops.cli.synth import SynthOptions, run_synth

    base = (root or Path.cwd()).resolve()
    require_utf8(
        f"trainops new {opts.kind}",
        {f"--{k.replace('_', '-')}": v for k, v in vars(opts).items() if k not in ("command", "name", "kind")}
        | {"NAME": opts.name, "COMMAND": opts.command},
    )
    if opts.image is None and opts.kind != "kserve":
        raise UsageError(f"trainops new {opts.kind}: --image is required")
    for flag, value in (("--queue", opts.queue), ("--placement", opts.placement)):
        if value is not None and opts.kind not in QUEUED_KINDS:
            raise UsageError(f"trainops new {opts.kind}: {flag} applies to {', '.join(QUEUED_KINDS)} only")
    if opts.queue is not None:
        try:
            require(DNS1123_LABEL, f"trainops new {opts.kind}", "--queue", opts.queue)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    placement = None if opts.placement is None else parse_placement(opts.placement)
    if placement is not None and opts.queue is None:
        raise UsageError(
            f"trainops new {opts.kind}: --placement {opts.placement!r} needs --queue "
            "(Kueue places only the jobs it admits from a LocalQueue)"
        )
    targets = target_clusters(opts, load_clusters(base), placement)
    request = Request(
        kind=opts.kind,
        name=opts.name,
        image=opts.image or "",
        command=opts.command,
        gpus=opts.gpus,
        workers=opts.workers,
        cpu=opts.cpu,
        memory=opts.memory,
        data=tuple(parse_mount(d) for d in opts.data),
        env=tuple(parse_env(e) for e in opts.env),
        namespace=opts.namespace or ("ml-serving" if opts.kind in ("serving", "kserve") else "ml-training"),
        team=opts.team or _default_team(base),
        clusters=targets,
        port=opts.port,
        replicas=opts.replicas,
        max_replicas=opts.max_replicas,
        metric=opts.metric,
        model_format=opts.model_format,
        storage_uri=opts.storage_uri,
        queue=opts.queue,
        placement=placement,
    )

    def check() -> None:
        code = run_synth(SynthOptions(out=opts.out), base)
        if code != 0:
            raise UsageError(
                f"trainops new: the scaffold of {opts.name!r} does not validate; nothing was kept"
            )

    created = create_app(base / "apps", request, check)
    print(
        f"new: wrote {created.module.relative_to(base)} and registered it in {created.registry.relative_to(base)}",
        file=sys.stderr,
    )
    return 0


def _default_team(root: Path) -> str:
    try:
        project = load_project(root)
    except UsageError:
        return "ml-platform"
    return next((app.team for app in project.apps.values()), "ml-platform")


@click.command("new")
@click.argument("kind", type=click.Choice(KINDS))
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--image", help="Container image, e.g. registry/train:1.2 (required).")
@click.option(
    "--gpus", "--gpus-per-node", "gpus", type=click.IntRange(min=0), default=0, show_default=True,
    help="GPUs per pod (one pod per node).",
)  # fmt: skip
@click.option(
    "--workers", "--nodes", "workers", type=click.IntRange(min=1), default=1, show_default=True,
    help="Training pods (one per node).",
)  # fmt: skip
@click.option("--queue", help="Kueue LocalQueue of a training job (the cluster must run Kueue).")
@click.option(
    "--placement",
    metavar="[required:|preferred:]LEVEL",
    help="Keep the pods in one domain of this topology level (needs --queue), e.g. rack.",
)
@click.option(
    "--cluster", multiple=True, help="Target this cluster only (repeatable). Default: every able cluster."
)
@click.option("--cpu", help="CPU per pod. Default: 4 (training), 1 (serving).")
@click.option("--memory", help="Memory per pod. Default: 16Gi (training), 2Gi (serving).")
@click.option("--data", multiple=True, help="Mount an existing claim: CLAIM:/path (repeatable).")
@click.option("--env", multiple=True, help="Environment variable KEY=VALUE (repeatable).")
@click.option("--namespace", help="Namespace. Default: ml-training (training) or ml-serving (serving).")
@click.option("--team", help="Owning team. Default: the first registered app's team.")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True, help="Serving port.")
@click.option(
    "--replicas", type=click.IntRange(min=1), default=2, show_default=True, help="Serving replicas."
)
@click.option(
    "--max-replicas", type=click.IntRange(min=1), default=10, show_default=True, help="Autoscaler max."
)
@click.option("--metric", default="loss", show_default=True, help="Katib objective metric (minimised).")
@click.option("--model-format", default="sklearn", show_default=True, help="KServe model format.")
@click.option("--storage-uri", help="KServe model location, e.g. s3://bucket/model (else the first --data).")
@click.option(
    "--out",
    default="generated",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Root of the generated tree.",
)
def command(**kwargs: Any) -> None:
    """Scaffold apps/NAME.py for KIND, register it, then synthesise and validate it.

    KIND: pytorchjob, tfjob, mpijob, xgboostjob, katib, serving, kserve.
    Example: trainops new pytorchjob bert-ft --gpus 4 --workers 4 --image registry/train:1.2
    --data training-data:/data -- python -m torch.distributed.run --nproc_per_node=4 train.py

    Large model: trainops new mpijob big --nodes 4 --gpus-per-node 8 --queue ml-training
    --placement rack --image registry/train:1.2 -- python train.py
    """
    for key in ("command", "data", "env", "cluster"):
        kwargs[key] = tuple(kwargs[key])
    sys.exit(run_new(NewOptions(**kwargs)))
