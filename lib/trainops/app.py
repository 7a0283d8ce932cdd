"""App definitions: what ``apps/`` modules declare and how one is built into a cdk8s Chart."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from trainops.core.cluster import Cluster
from trainops.core.naming import DNS1123_LABEL, require
from trainops.core.nodeenv import configure_node
from trainops.core.scopes import record_namespace

if TYPE_CHECKING:
    from cdk8s import App, Chart

BuildFn = Callable[["Chart", Cluster], None]
#: The Argo CD application class of an app (see ``trainops.constructs.argocd_application``).
AppClass = Literal["long-lived", "training"]


@dataclass(frozen=True)
class AppDef:
    """One trainops app: a function that adds constructs to a Chart for a target cluster.

    Args:
        name: DNS-1123 label; the directory under ``generated/<cluster>/`` and the
            ``app.kubernetes.io/part-of`` label.
        build: ``build(chart, cluster)`` adds the app's constructs to ``chart``.
        namespace: namespace of every namespaced object (cdk8s ``Chart`` namespace).
        team: owning team, written as the ``trainops.dev/team`` label.
        version: app version, written as the ``app.kubernetes.io/version`` label. Default: ``"0.1.0"``.
        description: one line for summaries. Default: empty.
        clusters: names of the clusters the app targets; empty means all. Default: all.
        delivery: how Argo CD syncs the app. Default: ``None`` (and ``"long-lived"`` alike): its
            run-once objects (:data:`trainops.core.kinds.RUN_ONCE`) go to a ``training`` Application
            (auto-sync, no self-heal, runs never pruned by a sync) and the others to a
            ``long-lived`` one (auto-sync, prune, self-heal), named ``<cluster>-<app>-runs`` and
            ``<cluster>-<app>`` when it holds both (:func:`trainops.synth.delivery.split_app`).
            ``"training"``: every object in one training Application (one sync wave).

    Raises:
        ValueError: a name or namespace that is not a DNS-1123 label, or an unknown ``delivery``.
    """

    name: str
    build: BuildFn
    namespace: str
    team: str
    version: str = "0.1.0"
    description: str = ""
    clusters: tuple[str, ...] = field(default_factory=tuple)
    delivery: AppClass | None = None

    def __post_init__(self) -> None:
        for prop in ("name", "namespace", "team"):
            require(DNS1123_LABEL, "AppDef", prop, getattr(self, prop))
        if self.delivery not in (None, "long-lived", "training"):
            raise ValueError(f"AppDef delivery={self.delivery!r}: must be 'long-lived' or 'training'")

    def targets(self, cluster: Cluster) -> bool:
        """Whether this app is deployed to ``cluster``."""
        return not self.clusters or cluster.name in self.clusters


def build_chart(app_def: AppDef, cluster: Cluster, *, outdir: str = "dist") -> tuple[App, Chart]:
    """Create one cdk8s ``App`` holding one ``Chart`` for ``app_def`` on ``cluster``.

    Charts use ``disable_resource_name_hashes=True`` because every name is explicit.
    One App per trainops app keeps synth linear (DESIGN.md decision 3). The Chart's namespace is
    recorded on it (:func:`trainops.core.scopes.record_namespace`) so constructs need not ask Node.
    """
    configure_node()
    from cdk8s import App, Chart

    app = App(outdir=outdir)
    chart = Chart(app, app_def.name, namespace=app_def.namespace, disable_resource_name_hashes=True)
    record_namespace(chart, app_def.namespace)
    app_def.build(chart, cluster)
    return app, chart


def check_registry(apps: Sequence[AppDef]) -> dict[str, AppDef]:
    """Index apps by name.

    Raises:
        ValueError: two apps share a name.
    """
    registry: dict[str, AppDef] = {}
    for app_def in apps:
        if app_def.name in registry:
            raise ValueError(f"duplicate app name {app_def.name!r}")
        registry[app_def.name] = app_def
    return registry
