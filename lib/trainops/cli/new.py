"""``trainops new KIND NAME [options] [-- COMMAND...]``: scaffold an app the way ``arena submit``
users think (``--gpus``, ``--workers``, ``--image``, ``--data claim:path``, the command last)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli.options import require_utf8
from trainops.core.errors import UsageError
from trainops.project import load_clusters, load_project
from trainops.scaffold import KINDS, OPERATORS, Kind, Mount, Request, create_app


@dataclass(frozen=True)
class NewOptions:
    """Parsed options of ``trainops new`` (see :class:`trainops.scaffold.Request` for each field).

    Args:
        kind: the scaffold kind.
        name: the app name.
        command: the container command (everything after ``--``).
        image: container image.
        gpus: GPUs per pod. workers: training pods. cpu, memory: per pod.
        data: ``CLAIM:PATH`` mounts. env: ``KEY=VALUE`` variables.
        namespace: default ``ml-training`` (training) or ``ml-serving`` (serving).
        team: owning team. Default: the team of the first registered app, else ``ml-platform``.
        port, replicas, max_replicas: serving. metric: katib objective.
        model_format, storage_uri: kserve.
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


def run_new(opts: NewOptions, root: Path | None = None) -> int:
    """Scaffold, register, synthesise and validate the app; undo the scaffold when that fails.

    Raises:
        UsageError: see :func:`trainops.scaffold.create_app`; no cluster runs the operator the
            kind needs; a missing ``--image``.
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
    clusters = load_clusters(base)
    needed = OPERATORS.get(opts.kind, ())
    able = tuple(
        c.name for c in clusters if not needed or any(all(c.has_operator(op) for op in alt) for alt in needed)
    )
    if not able:
        wanted = " or ".join(" and ".join(alt) for alt in needed)
        raise UsageError(
            f"trainops new {opts.kind}: no cluster in apps/clusters.py lists {wanted} in operators"
        )
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
        clusters=able if len(able) < len(clusters) else (),
        port=opts.port,
        replicas=opts.replicas,
        max_replicas=opts.max_replicas,
        metric=opts.metric,
        model_format=opts.model_format,
        storage_uri=opts.storage_uri,
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
@click.option("--gpus", type=click.IntRange(min=0), default=0, show_default=True, help="GPUs per pod.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Training pods.")
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
    """
    for key in ("command", "data", "env"):
        kwargs[key] = tuple(kwargs[key])
    sys.exit(run_new(NewOptions(**kwargs)))
