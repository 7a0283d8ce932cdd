"""The delivery step of synth: Argo CD objects in ``generated/<cluster>/argocd/`` from the rendered apps.

After the apps of a cluster are rendered, this step reads what they emitted and writes what Argo CD
needs to sync them (DESIGN.md decisions 4 and 5):

- each app's **class** (:data:`~trainops.constructs.argocd_application.AppClass`): ``AppDef.delivery``
  or, by default, ``training`` when the app emits a run-once kind (:data:`trainops.kinds.RUN_ONCE`)
  and ``long-lived`` otherwise. A training app's run-once objects must carry ``Prune=false``; a
  long-lived app must not emit run-once objects (its sync would self-heal and prune runs);
- the **controller-owned fields** Argo CD ignores (:func:`controller_owned`);
- one **AppProject** per team and cluster class (``<team>-<class>``), allowing exactly the kinds,
  namespaces and clusters the team's apps use;
- per cluster, as ``Cluster.delivery`` chooses: ``applicationset`` - one **ApplicationSet** per
  (team, app class, namespace, pinned revision) for the whole class, with a cluster and a git
  directory generator (an AppProject checks an Application's destination namespace too); ``applications`` - one plain **Application** ``<cluster>-<app>`` per app, in the
  sync wave of its earliest object (PVCs in wave -1 come before the workloads that mount them).

Objects shared by a cluster class (AppProjects, ApplicationSets) are written once, under the first
cluster of the class in ``apps/clusters.py``; all clusters of a class must agree on ``delivery``,
``repo_url`` and ``argocd_namespace``. A class is delivered by Argo CD when its first cluster lists
the ``argo-cd`` operator (``operators={"argo-cd": "v3.5.1"}``: the Argo CD release whose CRDs
validate the objects); a class without it gets no ``argocd/`` directory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs._core.argocd import SYNC_OPTIONS, SYNC_WAVE
from trainops.constructs.argocd_application import (
    CLUSTER_LABEL,
    TEAM_LABEL,
    AppClass,
    Application,
    IgnoreDifference,
    merge_ignores,
)
from trainops.constructs.argocd_applicationset import ARGOCD_DIR, ApplicationSet
from trainops.constructs.argocd_project import AppProject, Destination
from trainops.errors import UsageError
from trainops.kinds import CLUSTER_SCOPED, KUBEFLOW_JOBS, REPLICA_SPECS_FIELD, RUN_ONCE, GroupKind, group_kind

if TYPE_CHECKING:
    from cdk8s import Chart

    from trainops.project import Project
    from trainops.synth.render import AppResult

#: The directory (and pseudo app name) of the Argo CD objects under ``generated/<cluster>/``.
DELIVERY_APP = ARGOCD_DIR
#: Argo CD's operator key in ``Cluster.operators``.
ARGOCD_OPERATOR = "argo-cd"

#: Where the controller that suspends and resumes a run-once kind (Kueue, or a person) writes
#: ``suspend``: kubernetes ``batch/v1`` JobSpec.suspend, Training Operator ``RunPolicy.suspend``,
#: Trainer v2 ``TrainJobSpec.suspend``, JobSet ``JobSetSpec.suspend``. Source: Kueue's job
#: integrations (``pkg/controller/jobs/*``) suspend through these fields.
SUSPEND_POINTER: dict[GroupKind, str] = {
    ("batch", "Job"): "/spec/suspend",
    ("trainer.kubeflow.org", "TrainJob"): "/spec/suspend",
    ("jobset.x-k8s.io", "JobSet"): "/spec/suspend",
    **{gk: "/spec/runPolicy/suspend" for gk in KUBEFLOW_JOBS},
}

#: The container the Training Operator adds its default port to, per Kubeflow v1 kind
#: (``<Kind>DefaultContainerName`` in kubeflow/trainer v1.9 ``pkg/apis/kubeflow.org/v1/*_types.go``;
#: MPIJob has no default port).
DEFAULT_CONTAINER: dict[str, str] = {
    "PyTorchJob": "pytorch",
    "TFJob": "tensorflow",
    "XGBoostJob": "xgboost",
    "PaddleJob": "paddle",
    "JAXJob": "jax",
}

#: Fields the Trainer v2 API server fills from the TrainJob CRD's schema defaults
#: (kubeflow/trainer ``pkg/apis/trainer/v1alpha1/trainjob_types.go`` ``+kubebuilder:default``).
TRAINJOB_DEFAULTED = ("/spec/managedBy", "/spec/runtimeRef/apiGroup", "/spec/runtimeRef/kind")


def kubeflow_defaulted(kind: str) -> tuple[str, ...]:
    """jq paths of the fields the Training Operator defaults in a Kubeflow v1 job of ``kind``.

    Mirrors ``SetDefaults_<Kind>`` (kubeflow/trainer v1.9 ``pkg/apis/kubeflow.org/v1/<kind>_defaults.go``,
    e.g. ``SetDefaults_PyTorchJob``): ``runPolicy.cleanPodPolicy`` (None), each replica's
    ``replicas`` (1) and ``restartPolicy``, the default container's port (``setDefaultPort``) and,
    for PyTorchJob, ``elasticPolicy.minReplicas``/``maxReplicas`` (``setElasticPolicy``).
    """
    specs = f".spec.{REPLICA_SPECS_FIELD[kind]}[]"
    paths = [".spec.runPolicy.cleanPodPolicy", f"{specs}.replicas", f"{specs}.restartPolicy"]
    if kind in DEFAULT_CONTAINER:
        container = DEFAULT_CONTAINER[kind]
        paths.append(f'{specs}.template.spec.containers[] | select(.name == "{container}") | .ports')
    if kind == "PyTorchJob":
        paths += [".spec.elasticPolicy.minReplicas", ".spec.elasticPolicy.maxReplicas"]
    return tuple(paths)


def controller_owned(objects: Iterable[dict[str, Any]]) -> list[IgnoreDifference]:
    """The ``ignoreDifferences`` entries for the fields controllers own in ``objects``.

    - ``/spec/replicas`` of each workload an HPA scales (by name and namespace, from the HPA's
      ``scaleTargetRef``): the HPA owns it (Argo CD diffing.md, the ``/spec/replicas`` example);
    - ``suspend`` of every run-once kind present (:data:`SUSPEND_POINTER`): Kueue owns it;
    - the fields the Training Operator defaults in Kubeflow v1 jobs (:func:`kubeflow_defaulted`)
      and the API server defaults in TrainJobs (:data:`TRAINJOB_DEFAULTED`).

    Returns:
        One entry per kind or named object (:func:`merge_ignores`), sorted.
    """
    entries: set[IgnoreDifference] = set()
    for obj in objects:
        gk = group_kind(obj)
        if gk is None:
            continue
        group, kind = gk
        if gk == ("autoscaling", "HorizontalPodAutoscaler"):
            ref = obj.get("spec", {}).get("scaleTargetRef", {})
            target_group = str(ref.get("apiVersion", "")).rpartition("/")[0]
            entries.add(
                IgnoreDifference(
                    group=target_group,
                    kind=str(ref.get("kind", "")),
                    name=str(ref.get("name", "")),
                    namespace=obj.get("metadata", {}).get("namespace"),
                    json_pointers=("/spec/replicas",),
                )
            )
        if gk in SUSPEND_POINTER:
            entries.add(IgnoreDifference(group=group, kind=kind, json_pointers=(SUSPEND_POINTER[gk],)))
        if gk in KUBEFLOW_JOBS:
            entries.add(
                IgnoreDifference(group=group, kind=kind, jq_path_expressions=kubeflow_defaulted(kind))
            )
        if gk == ("trainer.kubeflow.org", "TrainJob"):
            entries.add(IgnoreDifference(group=group, kind=kind, json_pointers=TRAINJOB_DEFAULTED))
    return merge_ignores(list(entries))


def sync_options(obj: dict[str, Any]) -> set[str]:
    """The per-object sync options of ``obj`` (``argocd.argoproj.io/sync-options``, comma-separated)."""
    raw = (obj.get("metadata", {}).get("annotations") or {}).get(SYNC_OPTIONS, "")
    return {part.strip() for part in str(raw).split(",") if part.strip()}


def app_class(app_def: AppDef, cluster: Cluster, objects: Sequence[dict[str, Any]]) -> AppClass:
    """The Argo CD class of ``app_def`` on ``cluster`` given its rendered ``objects``.

    ``AppDef.delivery`` when set, else ``training`` if any object is of a run-once kind.

    A training app's objects must all sit in one sync wave: Argo CD waits for every applied
    object to be healthy only when a sync spans several waves (gitops-engine ``sync_tasks.go``
    ``multiStep``), and a run is Progressing until it finishes, so a multi-wave training sync would
    stay Running for the whole run (blocking the next one) and fail when the run fails. Put
    queues, runtimes and volumes in a long-lived app instead.

    Raises:
        UsageError: a long-lived app emitting run-once objects, a training app's run-once object
            without ``Prune=false`` (a sync could delete a superseded run that is still running),
            or a training app spanning several sync waves.
    """
    run_once = [o for o in objects if group_kind(o) in RUN_ONCE]
    where = f"apps: app {app_def.name!r} on cluster {cluster.name!r}"
    chosen: AppClass = app_def.delivery or ("training" if run_once else "long-lived")
    if chosen == "long-lived" and run_once:
        first = run_once[0]
        raise UsageError(
            f"{where}: delivery='long-lived' but it emits the run-once {first['kind']}/"
            f"{first['metadata']['name']}: run-once objects need delivery='training'"
        )
    for obj in run_once:
        if "Prune=false" not in sync_options(obj):
            raise UsageError(
                f"{where}: training object {obj['kind']}/{obj['metadata']['name']} lacks the sync option "
                "Prune=false: a sync would delete a superseded run that may still be running"
            )
    waves = sorted({_wave(o) for o in objects})
    if chosen == "training" and len(waves) > 1:
        raise UsageError(
            f"{where}: a training app must sit in one sync wave, not {waves}: Argo CD would hold "
            "the sync until the run finishes; move queues, runtimes and volumes to a long-lived app"
        )
    return chosen


@dataclass(frozen=True)
class _AppInfo:
    """What delivery needs to know about one app on one cluster."""

    cluster: Cluster
    app: AppDef
    app_class: AppClass
    ignore: tuple[IgnoreDifference, ...]
    namespaces: frozenset[str]
    namespaced_kinds: frozenset[GroupKind]
    cluster_kinds: frozenset[GroupKind]
    wave: int


def _info(app_def: AppDef, cluster: Cluster, objects: Sequence[dict[str, Any]]) -> _AppInfo:
    kinds = [(group_kind(o), o) for o in objects]
    waves = [_wave(o) for o in objects]
    return _AppInfo(
        cluster=cluster,
        app=app_def,
        app_class=app_class(app_def, cluster, objects),
        ignore=tuple(controller_owned(objects)),
        namespaces=frozenset(
            str(o["metadata"]["namespace"])
            for gk, o in kinds
            if gk not in CLUSTER_SCOPED and o.get("metadata", {}).get("namespace")
        ),
        namespaced_kinds=frozenset(gk for gk, _ in kinds if gk is not None and gk not in CLUSTER_SCOPED),
        cluster_kinds=frozenset(gk for gk, _ in kinds if gk is not None and gk in CLUSTER_SCOPED),
        wave=min(waves, default=0),
    )


def _wave(obj: dict[str, Any]) -> int:
    raw = (obj.get("metadata", {}).get("annotations") or {}).get(SYNC_WAVE, "0")
    try:
        return int(raw)
    except ValueError:
        raise UsageError(
            f"apps: {obj.get('kind')}/{obj.get('metadata', {}).get('name')}: {SYNC_WAVE}={raw!r} is not an integer"
        ) from None


def class_members(clusters: Sequence[Cluster], cluster: Cluster) -> list[Cluster]:
    """The clusters of ``cluster``'s class, in declaration order (the first one holds shared objects).

    Raises:
        UsageError: members disagree on ``delivery``, ``repo_url`` or ``argocd_namespace``.
    """
    members = [c for c in clusters if c.delivery_class == cluster.delivery_class]
    lead = members[0]
    for member in members[1:]:
        for prop in ("delivery", "repo_url", "argocd_namespace"):
            if getattr(member, prop) != getattr(lead, prop):
                raise UsageError(
                    f"apps/clusters.py: clusters {lead.name!r} and {member.name!r} share the class "
                    f"{lead.delivery_class!r} but differ in {prop} "
                    f"({getattr(lead, prop)!r} vs {getattr(member, prop)!r})"
                )
    return members


RenderCluster = Callable[["Project", Cluster], list["AppResult"]]


def deliver(
    project: Project, targets: Sequence[Cluster], results: Sequence[AppResult], render_cluster: RenderCluster
) -> list[AppResult]:
    """The ``argocd`` results (one per target cluster that holds Argo CD objects).

    ``results`` are the rendered apps of ``targets``; apps of other clusters of a target's class
    are rendered with ``render_cluster`` when the target holds the class's shared objects.

    Raises:
        UsageError: an app named ``argocd``, inconsistent class members, or a bad app class.
    """
    if DELIVERY_APP in project.apps:
        raise UsageError(
            f"apps: the app name {DELIVERY_APP!r} is reserved for generated/<cluster>/{DELIVERY_APP}/"
        )
    rendered: dict[str, list[AppResult]] = {}
    for result in results:
        rendered.setdefault(result.cluster, []).append(result)
    out = []
    for target in targets:
        members = class_members(project.clusters, target)
        if not members[0].has_operator(ARGOCD_OPERATOR):
            continue
        lead = target.name == members[0].name
        needed = members if lead else [target]
        for member in needed:
            if member.name not in rendered:
                rendered[member.name] = render_cluster(project, member)
        infos = [
            _info(project.apps[r.app], member, list(r.objects.values()))
            for member in needed
            for r in rendered[member.name]
        ]
        delivered = _deliver_cluster(target, members, lead, infos)
        if delivered is not None:
            out.append(delivered)
    return out


def _deliver_cluster(
    target: Cluster, members: list[Cluster], lead: bool, infos: list[_AppInfo]
) -> AppResult | None:
    from trainops.synth.render import AppResult, render_objects

    own = [i for i in infos if i.cluster.name == target.name]
    if not (lead or target.delivery == "applications") or not infos:
        return None

    def build(chart: Chart, cluster: Cluster) -> None:
        if lead:
            _projects(chart, target, members, infos)
            if target.delivery == "applicationset":
                _application_sets(chart, target, members, infos)
        if target.delivery == "applications":
            _applications(chart, target, own)

    start = time.perf_counter()
    pseudo = AppDef(name=DELIVERY_APP, build=build, namespace=target.argocd_namespace, team=DELIVERY_APP)
    objects = render_objects(pseudo, target)
    from trainops.yaml.dump import dump_document

    files = {name: dump_document(obj) for name, obj in objects.items()}
    return AppResult(target.name, DELIVERY_APP, files, objects, time.perf_counter() - start)


def project_name(team: str, cluster_class: str) -> str:
    """The AppProject of ``team`` on ``cluster_class``: ``<team>-<class>``."""
    return f"{team}-{cluster_class}"


def _projects(chart: Chart, target: Cluster, members: list[Cluster], infos: list[_AppInfo]) -> None:
    for team in sorted({i.app.team for i in infos}):
        mine = [i for i in infos if i.app.team == team]
        namespaces = sorted(set().union(*(i.namespaces for i in mine))) or ["*"]
        AppProject(
            chart,
            f"Project-{team}",
            name=_label(project_name(team, target.delivery_class), "AppProject name"),
            team=team,
            source_repos=[target.repo_url],
            destinations=[Destination(c.argocd_server, ns) for c in members for ns in namespaces],
            namespace_resources=sorted(set().union(*(i.namespaced_kinds for i in mine))),
            cluster_resources=sorted(set().union(*(i.cluster_kinds for i in mine))),
            description=f"trainops apps of team {team} on cluster class {target.delivery_class}",
        )


def _application_sets(chart: Chart, target: Cluster, members: list[Cluster], infos: list[_AppInfo]) -> None:
    revisions = sorted({c.target_revision for c in members})
    for info in infos:  # the name each generated Application gets
        _label(f"{info.cluster.name}-{info.app.name}", "Application name")

    def key(i: _AppInfo) -> tuple[str, AppClass, str, str]:
        return (i.app.team, i.app_class, i.app.namespace, i.cluster.target_revision)

    for team, kind_of_app, namespace, revision in sorted({key(i) for i in infos}):
        mine = [i for i in infos if key(i) == (team, kind_of_app, namespace, revision)]
        pinned = [c.name for c in members if c.target_revision == revision]
        name = f"{target.delivery_class}-{team}-{kind_of_app}-{namespace}"
        if len(revisions) > 1:
            name = f"{name}-{pinned[0]}"
        ApplicationSet(
            chart,
            f"Set-{name}",
            name=name,
            project=project_name(team, target.delivery_class),
            team=team,
            cluster_class=target.delivery_class,
            repo_url=target.repo_url,
            directories=sorted({i.app.name for i in mine}),
            kind_of_app=kind_of_app,
            target_revision=revision,
            clusters=pinned,
            destination_namespace=namespace,
            ignore_differences=[entry for i in mine for entry in i.ignore],
        )


def _applications(chart: Chart, target: Cluster, own: list[_AppInfo]) -> None:
    for info in own:
        name = _label(f"{target.name}-{info.app.name}", "Application name")
        Application(
            chart,
            f"App-{info.app.name}",
            name=name,
            project=project_name(info.app.team, target.delivery_class),
            repo_url=target.repo_url,
            path=f"generated/{target.name}/{info.app.name}",
            kind_of_app=info.app_class,
            target_revision=target.target_revision,
            destination_server=target.argocd_server,
            destination_namespace=info.app.namespace,
            ignore_differences=info.ignore,
            wave=info.wave,
            labels={TEAM_LABEL: info.app.team, CLUSTER_LABEL: target.name},
        )


def _label(value: str, what: str) -> str:
    if len(value) > 63:
        raise UsageError(
            f"apps: {what} {value!r} is longer than 63 characters: use shorter app or cluster names"
        )
    return value
