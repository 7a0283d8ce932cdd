"""``Application``: an Argo CD Application of one of two classes, ``long-lived`` or ``training``.

The two classes differ because their objects live differently (DESIGN.md decision 4):

- **long-lived** (serving, monitoring, platform: Deployments, Services, HPAs, PVCs, monitors): git is
  the whole truth. Automated sync with ``prune`` (an object removed from git is removed from the
  cluster) and ``selfHeal`` (a hand edit is reverted), ``PruneLast=true`` (a renamed Service or
  Deployment is deleted only after the new one is healthy, so serving never has a gap), retry with
  exponential backoff for transient API errors, and the ``resources-finalizer.argocd.argoproj.io``
  finalizer so that deleting the Application deletes what it deployed (a cascading delete; PVCs
  keep their data through their own ``Delete=false``).
- **training** (run-once objects with content-hash names: Kubeflow jobs, TrainJob, batch Job, Katib
  Experiment): a changed spec is a *new* object with a new name, never a patch of a running one.
  Automated sync creates the new run at merge; **no self-heal**, because the Training Operator,
  Kueue (``suspend``) and people (suspending or deleting a run by hand) legitimately change run
  objects, and re-applying a running job from git is never wanted; ``ApplyOutOfSyncOnly=true`` so
  a sync applies only the new run and leaves running ones untouched. ``prune`` stays on for
  non-run objects, but every run-once object carries ``argocd.argoproj.io/sync-options:
  Prune=false`` (set by the constructs, checked at synth): "setting a Prune sync option on the
  resource will always override a Prune sync policy defined in the Application" (Argo CD
  sync-options.md, No Prune Resources), so a superseded run that may still be running is never
  deleted by a sync. Argo CD lists it as "requires pruning"; its compare option
  ``IgnoreExtraneous`` keeps the Application Synced meanwhile (its health still counts: a failed
  superseded run keeps the Application Degraded), until ``trainops argocd prune-finished`` deletes
  the superseded runs that finished. ``PruneLast`` is not used: it only moves pruning to the end
  of a sync and would not keep a running run alive. ``Prune=false`` at the Application level is not
  used either: other objects a training app stops emitting should still be pruned.
  No resources finalizer: deleting a training Application leaves its runs in place (non-cascading
  delete) instead of killing runs that are still going.

Both classes sync with ``ServerSideApply=true`` (the API server tracks field ownership, so fields
that controllers own - HPA replicas, Kueue ``suspend``, operator defaults - are not fought over, and
no ``last-applied-configuration`` annotation limits large pod templates) and
``RespectIgnoreDifferences=true`` (the ignored fields are also left alone when syncing), and carry
the compare option ``ServerSideDiff=true`` (the diff is computed from a server-side dry-run apply,
which includes the API server's and CRD schema defaults).

Sources: https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/,
https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/ (No Prune Resources, Prune Last,
Apply OutOfSync Only, Server-Side Apply, Respect ignore differences configs),
https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/ (the resources finalizer),
https://argo-cd.readthedocs.io/en/stable/user-guide/diff-strategies/ (ServerSideDiff), and the
Application CRD ``argoproj.io/v1alpha1`` of Argo CD v3.5.1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trainops.constructs._core.argocd import COMPARE_OPTIONS, SYNC_WAVE
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import require_labels
from trainops.core.naming import DNS1123_SUBDOMAIN

#: The Argo CD application classes.
AppClass = Literal["long-lived", "training"]
APP_CLASSES: tuple[AppClass, ...] = ("long-lived", "training")

API_VERSION = "argoproj.io/v1alpha1"
#: The finalizer that makes deleting an Application delete its resources (cascading delete).
RESOURCES_FINALIZER = "resources-finalizer.argocd.argoproj.io"
#: Compare option (on the Application) choosing the server-side diff strategy.
SERVER_SIDE_DIFF = "ServerSideDiff=true"
#: Label naming an Application's class (``long-lived`` | ``training``) for ``argocd apps -l``.
CLASS_LABEL = "trainops.dev/app-class"
#: Marks a training (run-once) application for the policy pack (``sync-policy``, ``app-finalizer``).
RUN_ONCE_LABEL = "trainops.dev/run-once"
#: Label on an Application (and on Argo CD cluster Secrets) naming the trainops cluster.
CLUSTER_LABEL = "trainops.dev/cluster"
#: Label on an Application and its AppProject naming the owning team.
TEAM_LABEL = "trainops.dev/team"
#: Annotation prefix of a policy waiver (``trainops.dev/waive-<rule-id>: "<reason>"``, DESIGN.md decision 7).
WAIVER_PREFIX = "trainops.dev/waive-"

_COMMON_OPTIONS = ("ServerSideApply=true", "RespectIgnoreDifferences=true")
#: Sync options per class (see the module docstring for the reasons).
SYNC_OPTIONS: dict[AppClass, tuple[str, ...]] = {
    "long-lived": (*_COMMON_OPTIONS, "PruneLast=true"),
    "training": (*_COMMON_OPTIONS, "ApplyOutOfSyncOnly=true"),
}
#: ``retry.limit`` per class: serving retries longer than a training submission.
RETRY_LIMIT: dict[AppClass, int] = {"long-lived": 5, "training": 3}
#: Retry backoff: 5 s doubling up to 3 minutes (Argo CD's own example values).
RETRY_BACKOFF: dict[str, Any] = {"duration": "5s", "factor": 2, "maxDuration": "3m"}
_INFO: dict[AppClass, str] = {
    "long-lived": "auto-sync, prune, self-heal",
    "training": "auto-sync, no self-heal; superseded runs stay until `trainops argocd prune-finished`",
}


@dataclass(frozen=True)
class IgnoreDifference:
    """One ``spec.ignoreDifferences`` entry: fields of ``group``/``kind`` Argo CD does not compare.

    Args:
        group: API group without version, ``""`` for core.
        kind: the kind, e.g. ``Deployment``.
        json_pointers: RFC 6901 pointers, e.g. ``("/spec/replicas",)``. Default: none.
        jq_path_expressions: jq paths, e.g. ``('.spec.x[] | select(.name == "a") | .ports',)``.
            Default: none.
        name: only the object of this name. Default: every object of the kind.
        namespace: only objects in this namespace. Default: any.

    Raises:
        ValueError: neither pointers nor jq expressions, or a pointer not starting with ``/``.

    Source: https://argo-cd.readthedocs.io/en/stable/user-guide/diffing/ (Application Level Configuration).
    """

    group: str
    kind: str
    json_pointers: tuple[str, ...] = ()
    jq_path_expressions: tuple[str, ...] = ()
    name: str | None = None
    namespace: str | None = None

    def __post_init__(self) -> None:
        if not self.kind:
            raise ValueError(f"IgnoreDifference kind={self.kind!r}: must not be empty")
        if not self.json_pointers and not self.jq_path_expressions:
            raise ValueError(
                f"IgnoreDifference {self.group}/{self.kind}: give json_pointers or jq_path_expressions"
            )
        for pointer in self.json_pointers:
            if not pointer.startswith("/"):
                raise ValueError(f"IgnoreDifference json_pointers: {pointer!r} must start with '/'")

    def to_dict(self) -> dict[str, Any]:
        """The entry as the Application CRD spells it."""
        out: dict[str, Any] = {"group": self.group, "kind": self.kind}
        if self.name is not None:
            out["name"] = self.name
        if self.namespace is not None:
            out["namespace"] = self.namespace
        if self.json_pointers:
            out["jsonPointers"] = list(self.json_pointers)
        if self.jq_path_expressions:
            out["jqPathExpressions"] = list(self.jq_path_expressions)
        return out

    def sort_key(self) -> tuple[str, ...]:
        """A total order for deterministic output."""
        return (
            self.group,
            self.kind,
            self.namespace or "",
            self.name or "",
            *self.json_pointers,
            "|",
            *self.jq_path_expressions,
        )


def merge_ignores(entries: Sequence[IgnoreDifference]) -> list[IgnoreDifference]:
    """One entry per (group, kind, namespace, name) with the union of its pointers and jq paths
    (each kept once, in the order of the sorted entries), sorted: the same entries in any order
    give the same output."""
    merged: dict[tuple[str, str, str | None, str | None], tuple[list[str], list[str]]] = {}
    for entry in sorted(entries, key=IgnoreDifference.sort_key):
        pointers, paths = merged.setdefault((entry.group, entry.kind, entry.namespace, entry.name), ([], []))
        pointers += [p for p in entry.json_pointers if p not in pointers]
        paths += [p for p in entry.jq_path_expressions if p not in paths]
    out = [
        IgnoreDifference(group, kind, tuple(pointers), tuple(paths), name, namespace)
        for (group, kind, namespace, name), (pointers, paths) in merged.items()
    ]
    return sorted(out, key=IgnoreDifference.sort_key)


def require_app_class(construct: str, value: object) -> AppClass:
    """Check ``kind_of_app``.

    Raises:
        ValueError: not ``long-lived`` or ``training``.
    """
    for app_class in APP_CLASSES:
        if value == app_class:
            return app_class
    raise ValueError(f"{construct} kind_of_app={value!r}: must be 'long-lived' or 'training'")


def require_repo_url(construct: str, value: object) -> str:
    """Check a repository URL (``https://``, ``http://``, ``ssh://`` or scp-like ``git@host:path``;
    ``oci://`` for an OCI artifact such as a Helm chart, Argo CD v3 docs/user-guide/oci.md).

    Argo CD accepts ``http://`` repositories (internal git servers without TLS), so this does too;
    Source: Argo CD ``util/git/client.go`` ``IsHTTPSURL``/``IsHTTPURL`` and the repository docs
    (https://argo-cd.readthedocs.io/en/stable/user-guide/private-repositories/).

    Raises:
        ValueError: anything else, quoting the value.
    """
    if isinstance(value, str) and not any(c.isspace() for c in value):
        if (
            value.startswith(("https://", "http://", "ssh://", "oci://"))
            and len(value.split("://", 1)[1]) > 0
        ):
            return value
        if value.startswith("git@") and ":" in value:
            return value
    raise ValueError(
        f"{construct} repo_url={value!r}: must be an https://, http://, ssh://, oci:// or git@host:path URL"
    )


def require_revision(construct: str, value: object) -> str:
    """Check a git revision (branch, tag, SHA or ``HEAD``): non-empty, no whitespace.

    Raises:
        ValueError: quoting the value.
    """
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise ValueError(f"{construct} target_revision={value!r}: must be a git branch, tag or commit SHA")
    return value


def sync_policy(kind_of_app: AppClass) -> dict[str, Any]:
    """``spec.syncPolicy`` of an Application of class ``kind_of_app`` (see the module docstring)."""
    return {
        "automated": {"prune": True, "selfHeal": kind_of_app == "long-lived"},
        "retry": {"limit": RETRY_LIMIT[kind_of_app], "backoff": dict(RETRY_BACKOFF)},
        "syncOptions": list(SYNC_OPTIONS[kind_of_app]),
    }


def application_spec(
    *,
    kind_of_app: AppClass,
    project: str,
    repo_url: str,
    path: str,
    target_revision: str,
    destination: Mapping[str, str],
    ignore_differences: Sequence[IgnoreDifference],
    directory: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``spec`` of an Application (or an ApplicationSet template) of class ``kind_of_app``.

    ``ignore_differences`` are merged per object selector (:func:`merge_ignores`) and sorted;
    ``directory`` (``include``/``exclude`` globs, :func:`directory_filter`) becomes
    ``source.directory`` when not empty.
    """
    entries = merge_ignores(ignore_differences)
    source: dict[str, Any] = {"repoURL": repo_url, "targetRevision": target_revision, "path": path}
    if directory:
        source["directory"] = dict(directory)
    spec: dict[str, Any] = {
        "project": project,
        "source": source,
        "destination": dict(destination),
        "syncPolicy": sync_policy(kind_of_app),
        "info": [{"name": "trainops class", "value": f"{kind_of_app}: {_INFO[kind_of_app]}"}],
    }
    if entries:
        spec["ignoreDifferences"] = [entry.to_dict() for entry in entries]
    return spec


def directory_filter(
    construct: str, *, include: str | None = None, exclude: str | None = None
) -> dict[str, str]:
    """``source.directory`` globs: only the files matching ``include``, none matching ``exclude``.

    Argo CD's repo-server matches each glob (``{a,b}`` alternatives, ``*``) against a manifest's
    path relative to the source path (reposerver ``findManifests``; directory.md "Including/Excluding
    Files"). Default: no filter.

    Raises:
        ValueError: an empty glob or one with whitespace.
    """
    out: dict[str, str] = {}
    for prop, value in (("include", include), ("exclude", exclude)):
        if value is None:
            continue
        if not isinstance(value, str) or not value or any(c.isspace() for c in value):
            raise ValueError(f"{construct} directory_{prop}={value!r}: must be a file glob such as '*.yaml'")
        out[prop] = value
    return out


def application_metadata(
    *, kind_of_app: AppClass, labels: Mapping[str, str], wave: int | None = None, cascade: bool | None = None
) -> dict[str, Any]:
    """Labels, the ServerSideDiff compare option, an optional sync wave and, when ``cascade``
    (default: for long-lived Applications), the resources finalizer (everything but
    ``name``/``namespace``)."""
    annotations = {COMPARE_OPTIONS: SERVER_SIDE_DIFF}
    if wave is not None:
        annotations[SYNC_WAVE] = str(wave)
    run_once = {RUN_ONCE_LABEL: "true"} if kind_of_app == "training" else {}
    metadata: dict[str, Any] = {
        "labels": {**labels, CLASS_LABEL: kind_of_app, **run_once},
        "annotations": annotations,
    }
    if (kind_of_app == "long-lived") if cascade is None else cascade:
        metadata["finalizers"] = [RESOURCES_FINALIZER]
    return metadata


class Application(ObjectConstruct):
    """An Argo CD Application that syncs one directory of ``generated/`` to one cluster.

    Args:
        scope: the parent construct (a Chart whose namespace is Argo CD's, e.g. ``argocd``).
        id: construct id.
        name: Application name, a DNS-1123 label (it names the app in the Argo CD UI and CLI).
        project: the AppProject name.
        repo_url: the git repository holding ``generated/``.
        path: the directory in the repository, e.g. ``generated/gpu-prod/tf-serving``.
        kind_of_app: ``"long-lived"`` or ``"training"``; see the module docstring for why they
            differ. Default: ``"long-lived"``.
        target_revision: git branch, tag or SHA to sync (a tag or SHA for protected clusters).
            Default: ``"HEAD"``.
        destination_server: the cluster's API server URL. Default: ``https://kubernetes.default.svc``.
        destination_namespace: namespace for objects without one. Default: none (every trainops
            object names its namespace).
        ignore_differences: controller-owned fields Argo CD ignores (and, with
            ``RespectIgnoreDifferences=true``, leaves alone when syncing). Default: none.
        wave: sync wave of the Application itself when an app-of-apps syncs it. Default: none.
        labels: extra labels. Default: none.
        directory_include: sync only the files of ``path`` matching this glob, e.g.
            ``"{job_*,pytorchjob_*}.yaml"`` (:func:`directory_filter`). Default: every file.
        directory_exclude: leave out the files matching this glob. Default: none.
        cascade_delete: add the resources finalizer (deleting the Application deletes what it
            deployed). Default: ``True`` for long-lived, ``False`` for training Applications.
        waivers: policy rule id -> reason, written as ``trainops.dev/waive-<rule-id>`` annotations
            (a deliberate exception, e.g. a root Application in project ``default``). Default: none.

    Raises:
        ValueError: a bad name, project, repo URL, revision, path, class, label or glob.
    """

    KIND = "Application"
    API_VERSION = API_VERSION

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        project: str,
        repo_url: str,
        path: str,
        kind_of_app: AppClass = "long-lived",
        target_revision: str = "HEAD",
        destination_server: str = "https://kubernetes.default.svc",
        destination_namespace: str | None = None,
        ignore_differences: Sequence[IgnoreDifference] = (),
        wave: int | None = None,
        labels: Mapping[str, str] | None = None,
        directory_include: str | None = None,
        directory_exclude: str | None = None,
        cascade_delete: bool | None = None,
        waivers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        kind = self.KIND
        self._name = require_name(kind, "name", name)
        self._class = require_app_class(kind, kind_of_app)
        require_name(kind, "project", project, syntax=DNS1123_SUBDOMAIN, max_length=253)
        revision = require_revision(kind, target_revision)
        if not isinstance(path, str) or not path or path.startswith("/") or ".." in path.split("/"):
            raise ValueError(f"{kind} path={path!r}: must be a relative path in the repository")
        if not isinstance(destination_server, str) or not destination_server.startswith("https://"):
            raise ValueError(f"{kind} destination_server={destination_server!r}: must be an https:// URL")
        destination = {"server": destination_server}
        if destination_namespace is not None:
            destination["namespace"] = require_name(kind, "destination_namespace", destination_namespace)
        if wave is not None and (isinstance(wave, bool) or not isinstance(wave, int)):
            raise ValueError(f"{kind} wave={wave!r}: must be an integer")
        metadata = {
            "name": self._name,
            **application_metadata(
                kind_of_app=self._class,
                labels=require_labels(kind, "labels", labels or {}),
                wave=wave,
                cascade=cascade_delete,
            ),
        }
        for rule, reason in sorted((waivers or {}).items()):
            require_name(kind, "waivers", rule)
            if not isinstance(reason, str) or not reason.strip():
                raise ValueError(f"{kind} waivers: rule {rule!r} needs a reason")
            metadata["annotations"][f"{WAIVER_PREFIX}{rule}"] = reason
        spec = application_spec(
            kind_of_app=self._class,
            project=project,
            repo_url=require_repo_url(kind, repo_url),
            path=path,
            target_revision=revision,
            destination=destination,
            ignore_differences=ignore_differences,
            directory=directory_filter(kind, include=directory_include, exclude=directory_exclude),
        )
        emit(self, {"apiVersion": self.api_version, "kind": kind, "metadata": metadata, "spec": spec})

    @property
    def kind_of_app(self) -> AppClass:
        """``long-lived`` or ``training``."""
        return self._class
