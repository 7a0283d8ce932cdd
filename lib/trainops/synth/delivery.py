"""The delivery step of synth: Argo CD objects in ``generated/<cluster>/argocd/`` from the rendered apps.

After the apps of a cluster are rendered, this step reads what they emitted and writes what Argo CD
needs to sync them (DESIGN.md decisions 4 and 5):

- each app's **parts** (:func:`split_app`): a user writes one app per workload; its run-once
  objects (:data:`trainops.core.kinds.RUN_ONCE`: jobs, TrainJobs, Experiments) go to a **training**
  Application and everything else (PVCs, monitors, dashboards, queues, runtimes, servers) to a
  **long-lived** one (:data:`~trainops.constructs.argocd_application.AppClass`). An app holding
  both becomes ``<cluster>-<app>`` and ``<cluster>-<app>-runs``, two Applications on the same
  directory told apart by file globs (:func:`run_once_files`); an app holding one kind keeps the
  name ``<cluster>-<app>``. Run-once objects must carry ``Prune=false`` and sit in one sync wave;
- the **controller-owned fields** Argo CD ignores (:func:`controller_owned`);
- **platform apps**: an app whose long-lived part emits a Namespace creates the destination
  namespaces; it is delivered as a plain Application in the root's wave ``-1``, before every other
  Application and ApplicationSet (wave ``0``), so no sync meets a missing namespace;
- one **AppProject** per team and cluster class (``<team>-<class>``), allowing exactly the kinds,
  namespaces (each object's and each Application's destination) and clusters the team's apps use;
- per cluster, as ``Cluster.delivery`` chooses: ``applicationset`` - one **ApplicationSet** per
  (team, part, namespace, pinned revision) for the whole class, with a cluster and a git directory
  generator (an AppProject checks an Application's destination namespace too); ``applications`` -
  one plain **Application** per part;
- one **root Application** (app of apps) per ``argocd/`` directory, ``root.yaml``
  (:func:`root_application`): it owns the other objects of the directory and syncs them in wave
  order (AppProjects ``-2``, platform Applications ``-1``, the rest ``0``), so a cluster is set up
  with ``kubectl apply -f generated/<cluster>/argocd/root.yaml``. With ``delivery="applications"``
  every cluster has a root of its own; the AppProjects are in the first cluster's, so apply that
  one first (an Application whose project is missing waits for it).

Objects shared by a cluster class (AppProjects, ApplicationSets, platform Applications) are written
once, under the first cluster of the class in ``apps/clusters.py``; all clusters of a class must
agree on ``delivery``, ``repo_url`` and ``argocd_namespace``. A class is delivered by Argo CD when
its first cluster lists the ``argo-cd`` operator (``operators={"argo-cd": "v3.5.1"}``: the Argo CD
release whose CRDs validate the objects); a class without it gets no ``argocd/`` directory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trainops.app import AppDef
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
from trainops.constructs.argocd_platform import PlatformApplication
from trainops.constructs.argocd_project import PROJECT_WAVE, AppProject, Destination
from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError
from trainops.core.kinds import (
    CLUSTER_SCOPED,
    DEFAULT_PORT_CONTAINER,
    KIND_TABLE,
    KUBEFLOW_JOBS,
    REPLICA_SPECS_FIELD,
    RUN_ONCE,
    GroupKind,
    group_kind,
)
from trainops.core.platform import PlatformApp, check_destinations, platform_apps
from trainops.synth.render import AppResult, cluster_pairs, render_cluster, render_objects, render_pairs
from trainops.yaml.dump import dump_document

if TYPE_CHECKING:
    from cdk8s import Chart

    from trainops.project import Project

#: The directory (and pseudo app name) of the Argo CD objects under ``generated/<cluster>/``.
DELIVERY_APP = ARGOCD_DIR
#: Argo CD's operator key in ``Cluster.operators``.
ARGOCD_OPERATOR = "argo-cd"
#: The root Application's file in ``generated/<cluster>/argocd/`` (``kubectl apply -f`` it once).
ROOT_FILE = "root.yaml"
#: Name suffix of the training Application of an app that also holds long-lived objects.
RUNS_SUFFIX = "-runs"
#: Root waves: platform Applications (they create the namespaces) before every other Application
#: and ApplicationSet; AppProjects come before both (``argocd_project.PROJECT_WAVE``).
PLATFORM_APP_WAVE = -1
APP_WAVE = 0
#: The platform (issue 35): its AppProject, then each component in install order from this wave
#: (:attr:`trainops.core.platform.PlatformApp.depth` added), all before the team AppProjects (-2).
PLATFORM_PROJECT_WAVE = -10
PLATFORM_FIRST_WAVE = -9
#: The team name reserved for the platform AppProject (``platform-<class>``).
PLATFORM_TEAM = "platform"


def run_once_files() -> str:
    """The files of run-once objects (``<kind>_<name>.yaml``, :func:`trainops.synth.normalise.file_name`)
    as an Argo CD ``directory`` glob, e.g. ``{job_*.yaml,pytorchjob_*.yaml}``: the training Application
    of a split app includes them, every long-lived Application excludes them. From
    :data:`trainops.core.kinds.RUN_ONCE`, sorted."""
    return "{" + ",".join(sorted({f"{kind.lower()}_*.yaml" for _, kind in RUN_ONCE})) + "}"


#: The container the Training Operator adds its default port to, per Kubeflow v1 kind
#: (:attr:`trainops.core.kinds.KindInfo.default_port`; ``<Kind>DefaultContainerName`` in kubeflow/trainer
#: v1.9 ``pkg/apis/kubeflow.org/v1/*_types.go``; MPIJob has no default port).
DEFAULT_CONTAINER = DEFAULT_PORT_CONTAINER

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
    - ``suspend`` of every run-once kind present (:attr:`trainops.core.kinds.KindInfo.suspend`: where
      Kueue's job integrations, ``pkg/controller/jobs/*``, or a person suspend and resume it): Kueue
      owns it;
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
        info = KIND_TABLE.get(gk)
        if info is not None and info.suspend is not None:
            entries.add(IgnoreDifference(group=group, kind=kind, json_pointers=(info.suspend,)))
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


def split_app(
    app_def: AppDef, cluster: Cluster, objects: Sequence[dict[str, Any]]
) -> list[tuple[AppClass, list[dict[str, Any]]]]:
    """The Argo CD parts of ``app_def`` on ``cluster``: ``(class, objects)``, long-lived first.

    The run-once objects form the training part, the others the long-lived part; an app with only
    one kind of object has one part. ``AppDef.delivery="training"`` keeps every object in one
    training part instead (a run-once object with the ConfigMap it alone reads).

    The training part must sit in one sync wave: Argo CD waits for every applied object to be
    healthy only when a sync spans several waves (gitops-engine ``sync_tasks.go`` ``multiStep``),
    and a run is Progressing until it finishes, so a multi-wave training sync would stay Running for
    the whole run (blocking the next one) and fail when the run fails.

    Raises:
        UsageError: a run-once object without ``Prune=false`` (a sync could delete a superseded
            run that is still running), or a training part spanning several sync waves.
    """
    run_once = [o for o in objects if group_kind(o) in RUN_ONCE]
    rest = [o for o in objects if group_kind(o) not in RUN_ONCE]
    where = f"apps: app {app_def.name!r} on cluster {cluster.name!r}"
    for obj in run_once:
        if "Prune=false" not in sync_options(obj):
            raise UsageError(
                f"{where}: training object {obj['kind']}/{obj['metadata']['name']} lacks the sync option "
                "Prune=false: a sync would delete a superseded run that may still be running"
            )
    parts: list[tuple[AppClass, list[dict[str, Any]]]]
    if app_def.delivery == "training":
        parts = [("training", list(objects))]
    else:
        parts = [("long-lived", rest)] if rest else []
        parts += [("training", run_once)] if run_once else []
    for app_class, members in parts:
        waves = sorted({_wave(o) for o in members})
        if app_class == "training" and len(waves) > 1:
            advice = (
                "leave delivery unset and the long-lived objects get their own Application"
                if app_def.delivery == "training"
                else "give the run-once objects one sync wave"
            )
            raise UsageError(
                f"{where}: a training Application must sit in one sync wave, not {waves}: Argo CD "
                f"would hold the sync until the run finishes; {advice}"
            )
    return parts


@dataclass(frozen=True)
class Part:
    """What delivery needs to know about one Argo CD Application's share of an app on a cluster.

    Args:
        cluster: the cluster. app: the app. app_class: ``long-lived`` or ``training``.
        split: the app's directory holds both parts (the Application filters files by kind).
        ignore: controller-owned fields. namespaces: namespaces of its namespaced objects.
        namespaced_kinds, cluster_kinds: its (group, Kind) pairs by scope.
        creates: the Namespaces it emits (a platform part when not empty).
    """

    cluster: Cluster
    app: AppDef
    app_class: AppClass
    split: bool
    ignore: tuple[IgnoreDifference, ...]
    namespaces: frozenset[str]
    namespaced_kinds: frozenset[GroupKind]
    cluster_kinds: frozenset[GroupKind]
    creates: frozenset[str]

    @property
    def suffix(self) -> str:
        """``-runs`` for the training part of a split app, else empty."""
        return RUNS_SUFFIX if self.split and self.app_class == "training" else ""

    @property
    def name(self) -> str:
        """The Application name: ``<cluster>-<app>`` or ``<cluster>-<app>-runs``."""
        return f"{self.cluster.name}-{self.app.name}{self.suffix}"

    @property
    def platform(self) -> bool:
        """Whether this part creates namespaces (delivered before the others)."""
        return bool(self.creates)

    @property
    def include(self) -> str | None:
        """The file glob of its Application: the training part of a split app syncs only run-once files."""
        return run_once_files() if self.split and self.app_class == "training" else None

    @property
    def exclude(self) -> str | None:
        """The files its Application leaves out: a long-lived part never syncs run-once files."""
        return run_once_files() if self.app_class == "long-lived" else None

    @property
    def destinations(self) -> frozenset[str]:
        """The namespaces its AppProject must allow: its objects' and its Application's."""
        return self.namespaces | {self.app.namespace}


def _parts(app_def: AppDef, cluster: Cluster, objects: Sequence[dict[str, Any]]) -> list[Part]:
    split = split_app(app_def, cluster, objects)
    out = []
    for app_class, members in split:
        kinds = [(group_kind(o), o) for o in members]
        out.append(
            Part(
                cluster=cluster,
                app=app_def,
                app_class=app_class,
                split=len(split) > 1,
                ignore=tuple(controller_owned(members)),
                namespaces=frozenset(
                    str(o["metadata"]["namespace"])
                    for gk, o in kinds
                    if gk not in CLUSTER_SCOPED and o.get("metadata", {}).get("namespace")
                ),
                namespaced_kinds=frozenset(
                    gk for gk, _ in kinds if gk is not None and gk not in CLUSTER_SCOPED
                ),
                cluster_kinds=frozenset(gk for gk, _ in kinds if gk is not None and gk in CLUSTER_SCOPED),
                creates=frozenset(str(o["metadata"]["name"]) for gk, o in kinds if gk == ("", "Namespace"))
                if app_class == "long-lived"
                else frozenset(),
            )
        )
    return out


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


def render_project(project: Project, *, cluster: str | None = None, workers: int = 1) -> list[AppResult]:
    """Render every (cluster, app) pair, optionally for one cluster only, then the Argo CD objects
    of each cluster (``<cluster>/argocd``, :func:`deliver`).

    Args:
        project: the loaded project.
        cluster: render this cluster only. Default: every cluster.
        workers: processes to render the apps in (:func:`~trainops.synth.render.render_pairs`; the
            same output for any number). Default: 1.
    """
    clusters = [project.cluster(cluster)] if cluster else list(project.clusters)
    pairs = [pair for target in clusters for pair in cluster_pairs(project, target)]
    results = [r for r in render_pairs(pairs, workers=workers) if r is not None]
    return results + deliver(project, clusters, results, render_cluster)


def deliver(
    project: Project, targets: Sequence[Cluster], results: Sequence[AppResult], render_cluster: RenderCluster
) -> list[AppResult]:
    """The ``argocd`` results (one per target cluster that holds Argo CD objects).

    ``results`` are the rendered apps of ``targets``; apps of other clusters of a target's class
    are rendered with ``render_cluster`` when the target holds the class's shared objects.

    Raises:
        UsageError: an app named ``argocd``, inconsistent class members, a bad app part, or two
            Applications of one name.
    """
    if DELIVERY_APP in project.apps:
        raise UsageError(
            f"apps: the app name {DELIVERY_APP!r} is reserved for generated/<cluster>/{DELIVERY_APP}/"
        )
    check_destinations(project.clusters)
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
        parts = [
            part
            for member in needed
            for r in rendered[member.name]
            for part in _parts(project.apps[r.app], member, list(r.objects.values()))
        ]
        delivered = _deliver_cluster(target, members, lead, parts)
        if delivered is not None:
            out.append(delivered)
    return out


def _deliver_cluster(
    target: Cluster, members: list[Cluster], lead: bool, parts: list[Part]
) -> AppResult | None:
    own = [p for p in parts if p.cluster.name == target.name]
    if not (lead or target.delivery == "applications"):
        return None
    servers = {c.name: c.argocd_server for c in members}
    platform = [
        app
        for member in members
        if member.name == target.name or target.delivery == "applicationset"
        for app in platform_apps(member)
    ]
    if not parts and not platform:
        return None
    names: dict[str, Part] = {}
    platform_names = {app.name for app in platform}
    for part in parts:
        if part.app.team == PLATFORM_TEAM and platform:
            raise UsageError(
                f"apps: app {part.app.name!r}: the team name {PLATFORM_TEAM!r} is reserved for the "
                f"platform AppProject {project_name(PLATFORM_TEAM, target.delivery_class)!r}"
            )
        if part.name in platform_names:
            raise UsageError(
                f"apps: Application name {part.name!r} of app {part.app.name!r} is also the platform "
                "Application of that component: rename the app"
            )
        _label(part.name, "Application name")
        if part.name in names or part.name == root_name(target):
            raise UsageError(
                f"apps: Application name {part.name!r} is used twice on cluster {part.cluster.name!r} "
                f"(apps {names[part.name].app.name if part.name in names else 'root'!r} and "
                f"{part.app.name!r}): rename one app"
            )
        names[part.name] = part

    def build(chart: Chart, cluster: Cluster) -> None:
        if lead:
            _projects(chart, target, members, parts)
            _platform_project(chart, target, members)
        _platform(chart, target, platform, servers)
        if target.delivery == "applicationset":  # only the lead gets here
            _applications(chart, target, [p for p in parts if p.platform])
            _application_sets(chart, target, members, [p for p in parts if not p.platform])
        else:
            _applications(chart, target, own)
        root_application(chart, target)

    start = time.perf_counter()
    pseudo = AppDef(name=DELIVERY_APP, build=build, namespace=target.argocd_namespace, team=DELIVERY_APP)
    objects = render_objects(pseudo, target)
    root_key = f"application_{root_name(target)}.yaml"
    objects = dict(sorted({(ROOT_FILE if k == root_key else k): v for k, v in objects.items()}.items()))
    files = {name: dump_document(obj) for name, obj in objects.items()}
    return AppResult(target.name, DELIVERY_APP, files, objects, time.perf_counter() - start)


def project_name(team: str, cluster_class: str) -> str:
    """The AppProject of ``team`` on ``cluster_class``: ``<team>-<class>``."""
    return f"{team}-{cluster_class}"


def root_name(cluster: Cluster) -> str:
    """The root Application of ``generated/<cluster>/argocd/``: ``<cluster>-root``."""
    return f"{cluster.name}-root"


def root_application(chart: Chart, target: Cluster) -> Application:
    """The root Application (app of apps) of ``generated/<target>/argocd/``, written as ``root.yaml``.

    It syncs the directory but itself (``directory.exclude: root.yaml``: applying the file by hand
    stays the one bootstrap step, and the root never prunes itself) from the target's repository
    and revision into Argo CD's own namespace on Argo CD's own cluster
    (``https://kubernetes.default.svc``), in project ``default`` (the project of a fresh install;
    the AppProjects it creates cannot hold it). The objects sync in wave order: AppProjects
    (``-2``), platform Applications (``-1``), ApplicationSets and the other Applications (``0``).
    Argo CD waits for an earlier wave's Applications to be healthy only with the Application health
    check in argocd-cm (docs/operator-manual/health.md "Argocd App"), which ``trainops argocd
    health-checks`` includes. Long-lived policy (auto-sync, prune, self-heal), but no resources
    finalizer: deleting the root leaves the Applications, their AppProjects and workloads alone.
    It follows the target's revision: under a protected first cluster of a class (a pinned tag), the
    class's shared objects change when the pin moves.

    Source: https://argo-cd.readthedocs.io/en/stable/operator-manual/cluster-bootstrapping/ (app of
    apps) and .../user-guide/sync-waves/.
    """
    return Application(
        chart,
        "Root",
        name=_label(root_name(target), "Application name"),
        project="default",
        repo_url=target.repo_url,
        path=f"generated/{target.name}/{ARGOCD_DIR}",
        kind_of_app="long-lived",
        target_revision=target.target_revision,
        destination_namespace=target.argocd_namespace,
        labels={CLUSTER_LABEL: target.name},
        directory_exclude=ROOT_FILE,
        cascade_delete=False,
        waivers={
            "app-project": "the root Application creates the AppProjects, so it cannot be in one of them",
            "app-finalizer": "deleting the root must not delete every Application, project and workload",
        },
    )


def _projects(chart: Chart, target: Cluster, members: list[Cluster], parts: list[Part]) -> None:
    for team in sorted({p.app.team for p in parts}):
        mine = [p for p in parts if p.app.team == team]
        namespaces = sorted(set().union(*(p.destinations for p in mine)))
        AppProject(
            chart,
            f"Project-{team}",
            name=_label(project_name(team, target.delivery_class), "AppProject name"),
            team=team,
            source_repos=[target.repo_url],
            destinations=[Destination(c.argocd_server, ns) for c in members for ns in namespaces],
            namespace_resources=sorted(set().union(*(p.namespaced_kinds for p in mine))),
            cluster_resources=sorted(set().union(*(p.cluster_kinds for p in mine))),
            description=f"trainops apps of team {team} on cluster class {target.delivery_class}",
        )


def _platform_project(chart: Chart, target: Cluster, members: list[Cluster]) -> None:
    """The ``platform-<class>`` AppProject: the catalogued upstream repositories of the class's
    components, their namespaces on the class's clusters, any kind (the charts' kinds are rendered
    by Argo CD, not known here); wave :data:`PLATFORM_PROJECT_WAVE`."""
    apps = [app for member in members for app in platform_apps(member)]
    if not apps:
        return
    servers = {c.name: c.argocd_server for c in members}
    AppProject(
        chart,
        "Project-platform",
        name=_label(project_name(PLATFORM_TEAM, target.delivery_class), "AppProject name"),
        team=PLATFORM_TEAM,
        source_repos=sorted({app.source.repo for app in apps}),
        destinations=[Destination(servers[app.cluster], app.namespace) for app in apps],
        namespace_resources=(),
        any_kind=True,
        description=f"trainops platform components on cluster class {target.delivery_class}",
        wave=PLATFORM_PROJECT_WAVE,
    )


def _platform(chart: Chart, target: Cluster, apps: list[PlatformApp], servers: dict[str, str]) -> None:
    """One :class:`PlatformApplication` per platform source, in wave
    ``PLATFORM_FIRST_WAVE + depth``.

    Raises:
        UsageError: a chain of components too long to fit before the team AppProjects' wave.
    """
    for app in apps:
        wave = PLATFORM_FIRST_WAVE + app.depth
        if wave >= PROJECT_WAVE:
            raise UsageError(
                f"apps/clusters.py: cluster {app.cluster!r}: {app.component} is {app.depth} steps deep in "
                "the platform's install order, more than the sync waves before the apps allow"
            )
        PlatformApplication(
            chart,
            f"Platform-{app.name}",
            app=app,
            project=project_name(PLATFORM_TEAM, target.delivery_class),
            destination_server=servers[app.cluster],
            wave=wave,
            labels={CLUSTER_LABEL: app.cluster},
        )


def _application_sets(chart: Chart, target: Cluster, members: list[Cluster], parts: list[Part]) -> None:
    revisions = sorted({c.target_revision for c in members})

    def key(p: Part) -> tuple[str, AppClass, str, str, str]:
        return (p.app.team, p.app_class, p.suffix, p.app.namespace, p.cluster.target_revision)

    for team, kind_of_app, suffix, namespace, revision in sorted({key(p) for p in parts}):
        mine = [p for p in parts if key(p) == (team, kind_of_app, suffix, namespace, revision)]
        pinned = [c.name for c in members if c.target_revision == revision]
        name = f"{target.delivery_class}-{team}-{'runs' if suffix else kind_of_app}-{namespace}"
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
            directories=sorted({p.app.name for p in mine}),
            kind_of_app=kind_of_app,
            target_revision=revision,
            clusters=pinned,
            destination_namespace=namespace,
            ignore_differences=[entry for p in mine for entry in p.ignore],
            name_suffix=suffix,
            directory_include=mine[0].include,
            directory_exclude=mine[0].exclude,
        )


def _applications(chart: Chart, target: Cluster, parts: list[Part]) -> None:
    for part in parts:
        Application(
            chart,
            f"App-{part.name}",
            name=part.name,
            project=project_name(part.app.team, target.delivery_class),
            repo_url=target.repo_url,
            path=f"generated/{part.cluster.name}/{part.app.name}",
            kind_of_app=part.app_class,
            target_revision=part.cluster.target_revision,
            destination_server=part.cluster.argocd_server,
            destination_namespace=part.app.namespace,
            ignore_differences=part.ignore,
            wave=PLATFORM_APP_WAVE if part.platform else APP_WAVE,
            labels={TEAM_LABEL: part.app.team, CLUSTER_LABEL: part.cluster.name},
            directory_include=part.include,
            directory_exclude=part.exclude,
        )


def _label(value: str, what: str) -> str:
    if len(value) > 63:
        raise UsageError(
            f"apps: {what} {value!r} is longer than 63 characters: use shorter app or cluster names"
        )
    return value
