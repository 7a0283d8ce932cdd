"""Source templates of ``trainops new``: one function per kind returning an app module's text.

The generated module follows the bundled apps (``apps/pytorch_ddp_multi_node.py``,
``apps/tf_serving.py``): a module docstring, a ``build(chart, cluster)`` function adding
trainops constructs, and ``APP = AppDef(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from trainops.core.kinds import KIND_TABLE, GroupKind, KindInfo
from trainops.scaffold.source import call, q, str_list

Kind = Literal["pytorchjob", "tfjob", "mpijob", "xgboostjob", "katib", "serving", "kserve"]

#: Every kind ``trainops new`` knows, in help order.
KINDS: tuple[Kind, ...] = ("pytorchjob", "tfjob", "mpijob", "xgboostjob", "katib", "serving", "kserve")
#: The kinds whose job takes a Kueue queue and a topology placement (``--queue``, ``--placement``).
QUEUED_KINDS: tuple[Kind, ...] = ("pytorchjob", "tfjob", "mpijob", "xgboostjob")
#: How a placement binds (:class:`trainops.constructs.TopologyPlacement` ``required`` or ``preferred``).
PlacementMode = Literal["required", "preferred"]


@dataclass(frozen=True)
class Mount:
    """``--data CLAIM:PATH``: an existing PersistentVolumeClaim mounted at an absolute path."""

    claim: str
    path: str


@dataclass(frozen=True)
class Placement:
    """``--placement [required:|preferred:]LEVEL``: the topology level a job's pods share.

    Args:
        level: a level of the target clusters' topology (short name such as ``rack``, or node label).
        mode: ``required`` (one domain or the job waits) or ``preferred``. Default: ``required``.
    """

    level: str
    mode: PlacementMode = "required"


@dataclass(frozen=True)
class Request:
    """What ``trainops new KIND NAME [options] -- COMMAND`` asked for.

    Args:
        kind: the scaffold kind.
        name: the app name (DNS-1123 label); also the base name of its main object.
        image: container image.
        command: the container command (after ``--``). Default: none (the image's entrypoint).
        gpus: GPUs per pod (arena ``--gpus``). Default: 0.
        workers: training pods (arena ``--workers``). Default: 1.
        cpu: CPU per pod. Default: ``"4"`` for training, ``"1"`` for serving.
        memory: memory per pod. Default: ``"16Gi"`` for training, ``"2Gi"`` for serving.
        data: claims to mount (arena ``--data claim:path``).
        env: environment variables (arena ``--env KEY=VALUE``).
        namespace: namespace of the app.
        team: owning team label.
        clusters: clusters the app targets; empty for all.
        port: serving port. Default: 8080.
        replicas: serving replicas (the autoscaler's minimum). Default: 2.
        max_replicas: serving autoscaler maximum. Default: 10.
        metric: katib objective metric. Default: ``loss``.
        model_format: kserve model format, e.g. ``sklearn``, ``pytorch``. Default: ``sklearn``.
        storage_uri: kserve model location (``s3://``, ``gs://``, ``pvc://``...); else the first
            ``data`` claim and path.
        queue: Kueue LocalQueue of a training job (:data:`QUEUED_KINDS`), or ``None``. Default: ``None``.
        placement: topology placement of a queued training job, or ``None``. Default: ``None``.
    """

    kind: Kind
    name: str
    image: str
    command: tuple[str, ...] = ()
    gpus: int = 0
    workers: int = 1
    cpu: str | None = None
    memory: str | None = None
    data: tuple[Mount, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    namespace: str = "ml-training"
    team: str = "ml-platform"
    clusters: tuple[str, ...] = field(default_factory=tuple)
    port: int = 8080
    replicas: int = 2
    max_replicas: int = 10
    metric: str = "loss"
    model_format: str = "sklearn"
    storage_uri: str | None = None
    queue: str | None = None
    placement: Placement | None = None


def module_name(app: str) -> str:
    """The module of app ``bert-ft``: ``bert_ft``."""
    return app.replace("-", "_")


def _header(request: Request, summary: str, imports: list[str]) -> str:
    argv = f"trainops new {request.kind} {request.name}"
    lines = [
        f'"""``{request.name}``: {summary}.',
        "",
        f"Scaffolded by ``{argv}``; edit it freely, then run ``trainops synth``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING",
        "",
        "from trainops.app import AppDef",
        "from trainops.cluster import Cluster",
        f"from trainops.constructs import {', '.join(sorted(imports))}",
        "",
        "if TYPE_CHECKING:",
        "    from cdk8s import Chart",
        "",
    ]
    return "\n".join(lines) + "\n"


def _app(request: Request, description: str) -> str:
    args = [
        f"name={q(request.name)}",
        "build=build",
        f"namespace={q(request.namespace)}",
        f"team={q(request.team)}",
        f"description={q(description)}",
    ]
    if request.clusters:
        names = [q(c) for c in request.clusters]
        args.append(f"clusters=({names[0]},)" if len(names) == 1 else f"clusters=({', '.join(names)})")
    return f"\n\nAPP = {call('AppDef', args, 0)}\n"


def _training_args(
    request: Request,
    *,
    name: str,
    indent: int,
    extra: tuple[str, ...] = (),
    replicas: tuple[str, ...] = ("master=False",),
    workers: int | None = None,
) -> list[str]:
    args = [f"name={q(name)}", f"image={q(request.image)}"]
    command = (*request.command, *extra)
    if command:
        args.append(f"command={str_list(command, indent + 4)}")
    args += [*replicas, f"workers={request.workers if workers is None else workers}"]
    if request.gpus:
        args.append(f"gpus_per_node={request.gpus}")
    args += [f"cpu={q(request.cpu or '4')}", f"memory={q(request.memory or '16Gi')}"]
    if request.env:
        args.append("env={" + ", ".join(f"{q(k)}: {q(v)}" for k, v in request.env) + "}")
    if request.queue is not None:
        args.append(f"queue={q(request.queue)}")
    if request.placement is not None:
        args.append(f"placement=TopologyPlacement({request.placement.mode}={q(request.placement.level)})")
    return args


def _imports(request: Request, *constructs: str) -> list[str]:
    """The constructs a training template imports: ``constructs`` and ``TopologyPlacement`` when placed."""
    return [*constructs, *(["TopologyPlacement"] if request.placement is not None else [])]


def pytorchjob(request: Request) -> str:
    """A ``PyTorchJob`` (workers only, torchrun style) with the ``--data`` claims mounted."""
    pods = f"{request.workers}x{request.gpus}-GPU" if request.gpus else f"{request.workers}-pod"
    summary = f"a {pods} PyTorchJob"
    body = [
        "",
        "def build(chart: Chart, cluster: Cluster) -> None:",
        f'    """Add the PyTorchJob{" and mount its volumes" if request.data else ""}."""',
        f"    {'job = ' if request.data else ''}"
        + call(
            "PyTorchJob",
            ["chart", q("Job"), "cluster=cluster", *_training_args(request, name=request.name, indent=4)],
            4,
        ),
    ]
    body += [f"    job.mount({q(m.claim)}, {q(m.path)})" for m in request.data]
    return (
        _header(request, summary, _imports(request, "PyTorchJob"))
        + "\n".join(body)
        + "\n"
        + _app(request, summary)
    )


def _kubeflow_job(
    request: Request,
    construct: str,
    summary: str,
    *,
    workers: int | None = None,
) -> str:
    """One Kubeflow v1 job construct (Worker replicas only, unless the kind adds a Master) with the
    ``--data`` claims mounted."""
    args = _training_args(request, name=request.name, indent=4, replicas=(), workers=workers)
    body = [
        "",
        "def build(chart: Chart, cluster: Cluster) -> None:",
        f'    """Add the {construct}{" and mount its volumes" if request.data else ""}."""',
        f"    {'job = ' if request.data else ''}"
        + call(construct, ["chart", q("Job"), "cluster=cluster", *args], 4),
    ]
    body += [f"    job.mount({q(m.claim)}, {q(m.path)})" for m in request.data]
    return (
        _header(request, summary, _imports(request, construct))
        + "\n".join(body)
        + "\n"
        + _app(request, summary)
    )


def tfjob(request: Request) -> str:
    """A ``TFJob`` of ``workers`` Workers (MultiWorkerMirroredStrategy style: no PS, no Chief)."""
    return _kubeflow_job(request, "TFJob", f"a {request.workers}-worker TFJob")


def xgboostjob(request: Request) -> str:
    """An ``XGBoostJob``: one Master plus ``workers - 1`` Workers (``workers`` pods in all)."""
    return _kubeflow_job(
        request, "XGBoostJob", f"a {request.workers}-pod XGBoostJob", workers=request.workers - 1
    )


def mpijob(request: Request) -> str:
    """An ``MPIJob`` (mpi-operator v2beta1, or the Training Operator's v1 where that is what the
    cluster has) with ``workers`` workers of ``gpus`` GPUs each; the launcher runs the command."""
    return _kubeflow_job(request, "MPIJob", f"a {request.workers}-worker MPIJob")


def katib(request: Request) -> str:
    """A Katib ``Experiment`` tuning the learning rate of a PyTorchJob trial (random search)."""
    summary = f"a Katib experiment minimising {request.metric} over a PyTorchJob trial"
    trial_args = [
        "scope",
        q("Trial"),
        "cluster=cluster",
        *_training_args(
            request, name=request.name, indent=8, extra=("--lr=${trialParameters.learningRate}",)
        ),
    ]
    body = [
        "",
        "def build(chart: Chart, cluster: Cluster) -> None:",
        '    """Add the experiment; each trial is a PyTorchJob."""',
        "",
        "    def trial(scope: Construct) -> PyTorchJob:",
        "        job = " + call("PyTorchJob", trial_args, 8),
        *[f"        job.mount({q(m.claim)}, {q(m.path)})" for m in request.data],
        "        return job",
        "",
        "    "
        + call(
            "Experiment",
            [
                "chart",
                q("Experiment"),
                "cluster=cluster",
                f"name={q(request.name)}",
                f"objective=Objective({q('minimize')}, {q(request.metric)})",
                f"algorithm=Algorithm({q('random')})",
                f"parameters=[Parameter.double({q('lr')}, 0.001, 0.1)]",
                "trial=trial",
                f"trial_parameters={{{q('learningRate')}: {q('lr')}}}",
            ],
            4,
        ),
    ]
    header = _header(request, summary, ["Algorithm", "Experiment", "Objective", "Parameter", "PyTorchJob"])
    header = header.replace(
        "if TYPE_CHECKING:\n    from cdk8s import Chart\n",
        "if TYPE_CHECKING:\n    from cdk8s import Chart\n    from constructs import Construct\n",
    )
    return header + "\n".join(body) + "\n" + _app(request, summary)


def serving(request: Request) -> str:
    """A ``ModelServer`` with a Service and an ``Autoscaler`` (``replicas``..``max_replicas``)."""
    summary = f"a model server on port {request.port} with a Service and an autoscaler"
    args = [
        "chart",
        q("Server"),
        "cluster=cluster",
        f"name={q(request.name)}",
        f"image={q(request.image)}",
        f"port={request.port}",
        f"replicas={request.replicas}",
        f"cpu={q(request.cpu or '1')}",
        f"memory={q(request.memory or '2Gi')}",
    ]
    if request.command:
        args.append(f"args={str_list(request.command, 8)}")
    if request.data:
        args += [f"model_volume={q(request.data[0].claim)}", f"model_path={q(request.data[0].path)}"]
    if request.env:
        args.append("env={" + ", ".join(f"{q(k)}: {q(v)}" for k, v in request.env) + "}")
    body = [
        "",
        "def build(chart: Chart, cluster: Cluster) -> None:",
        '    """Add the server, its Service and its autoscaler."""',
        "    server = " + call("ModelServer", args, 4),
        "    server.expose()",
        "    "
        + call(
            "Autoscaler",
            [
                "chart",
                q("Autoscaler"),
                "target=server",
                f"min_replicas={request.replicas}",
                f"max_replicas={request.max_replicas}",
            ],
            4,
        ),
    ]
    return (
        _header(request, summary, ["Autoscaler", "ModelServer"])
        + "\n".join(body)
        + "\n"
        + _app(request, summary)
    )


def kserve(request: Request) -> str:
    """A KServe ``InferenceService`` (``predictor.model``) scaling between ``replicas`` and
    ``max_replicas``, its model from ``storage_uri`` or the first ``--data`` claim."""
    summary = f"a KServe InferenceService serving a {request.model_format} model"
    args = [
        "chart",
        q("Model"),
        "cluster=cluster",
        f"name={q(request.name)}",
        f"model_format={q(request.model_format)}",
    ]
    if request.storage_uri:
        args.append(f"storage_uri={q(request.storage_uri)}")
    elif request.data:
        args += [
            f"model_volume={q(request.data[0].claim)}",
            f"model_path={q(request.data[0].path.lstrip('/'))}",
        ]
    if request.command:
        args.append(f"args={str_list(request.command, 8)}")
    if request.env:
        args.append("env={" + ", ".join(f"{q(k)}: {q(v)}" for k, v in request.env) + "}")
    args += [f"cpu={q(request.cpu or '1')}", f"memory={q(request.memory or '2Gi')}"]
    if request.gpus:
        args.append(f"gpus={request.gpus}")
    args += [f"min_replicas={request.replicas}", f"max_replicas={request.max_replicas}"]
    body = [
        "",
        "def build(chart: Chart, cluster: Cluster) -> None:",
        '    """Add the InferenceService."""',
        "    " + call("InferenceService", args, 4),
    ]
    return _header(request, summary, ["InferenceService"]) + "\n".join(body) + "\n" + _app(request, summary)


#: Kind → template, for the kinds whose constructs exist.
TEMPLATES: dict[Kind, Callable[[Request], str]] = {
    "pytorchjob": pytorchjob,
    "tfjob": tfjob,
    "mpijob": mpijob,
    "xgboostjob": xgboostjob,
    "katib": katib,
    "serving": serving,
    "kserve": kserve,
}

#: Kind → further kinds its template emits besides its own (:attr:`trainops.core.kinds.KindInfo.scaffold`):
#: the Katib experiment's trial is a PyTorchJob.
ALSO_EMITS: dict[Kind, tuple[GroupKind, ...]] = {"katib": (("kubeflow.org", "PyTorchJob"),)}


def scaffolded(kind: Kind) -> KindInfo:
    """The entry of the kinds table that ``trainops new KIND`` scaffolds (``pytorchjob`` → PyTorchJob).

    Raises:
        KeyError: no entry has that :attr:`~trainops.core.kinds.KindInfo.scaffold` kind.
    """
    for info in KIND_TABLE.values():
        if info.scaffold == kind:
            return info
    raise KeyError(kind)


def operators(kind: Kind) -> tuple[tuple[str, ...], ...]:
    """What a target cluster must list in ``Cluster.operators`` for the app of ``kind`` to build: any
    one of the alternatives, each a set of operators all required (``()``: none). From the
    :attr:`~trainops.core.kinds.KindInfo.operators` of the scaffolded kind and of :data:`ALSO_EMITS`."""
    alternatives: list[tuple[str, ...]] = [(name,) for name in scaffolded(kind).operators]
    for key in ALSO_EMITS.get(kind, ()):
        alternatives = [(*alt, name) for alt in alternatives for name in KIND_TABLE[key].operators]
    return tuple(alternatives)


#: Kind → what a target cluster must list in ``Cluster.operators`` (:func:`operators`), for the kinds
#: that need an operator.
OPERATORS: dict[Kind, tuple[tuple[str, ...], ...]] = {
    kind: operators(kind) for kind in KINDS if operators(kind)
}
