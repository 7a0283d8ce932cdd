"""``AppProject``: the Argo CD project of one team: what it may deploy, from where, to where."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.argocd_application import API_VERSION, TEAM_LABEL, require_repo_url

_KIND = "AppProject"
#: The sync wave of an AppProject under the root Application: before the Applications of the
#: cluster's platform apps (-1) and the ApplicationSets and other Applications (0) that use it.
PROJECT_WAVE = -2

#: Objects every namespace holds without any Application owning them; the orphaned-resource
#: warning ignores them (``orphanedResources.ignore``).
DEFAULT_ORPHAN_IGNORES: tuple[tuple[str, str, str], ...] = (
    ("", "ConfigMap", "kube-root-ca.crt"),
    ("", "ServiceAccount", "default"),
)


@dataclass(frozen=True)
class Destination:
    """A cluster and namespace an AppProject may deploy to.

    Args:
        server: the cluster's API server URL, e.g. ``https://kubernetes.default.svc``.
        namespace: a namespace, or ``*`` for all. Default: ``*``.
    """

    server: str
    namespace: str = "*"


class AppProject(ObjectConstruct):
    """An Argo CD AppProject that limits one team's Applications to least privilege.

    Only the team's git repository may be a source, only the listed clusters and namespaces may be
    destinations, only the listed namespaced kinds may be deployed (an allow-list: any other kind
    fails the sync), no cluster-scoped kind unless listed, and Argo CD warns about objects in the
    destination namespaces that no Application owns (orphaned resources, e.g. a run left after its
    Application was deleted). The root Application syncs it in wave ``-2`` (:data:`PROJECT_WAVE`),
    before the Applications and ApplicationSets using it.

    Args:
        scope: the parent construct (a Chart whose namespace is Argo CD's).
        id: construct id.
        name: project name, a DNS-1123 label.
        team: the owning team, written as the ``trainops.dev/team`` label.
        source_repos: git repository URLs Applications of the project may use (at least one).
        destinations: clusters/namespaces it may deploy to (at least one).
        namespace_resources: ``(group, kind)`` pairs of namespaced kinds it may deploy (the
            ``namespaceResourceWhitelist``); the core group is ``""``. Empty (a project whose apps
            create only cluster-scoped objects, e.g. a platform app of Namespaces): every
            namespaced kind is denied (``namespaceResourceBlacklist: [{group: "*", kind: "*"}]``).
        cluster_resources: ``(group, kind)`` pairs of cluster-scoped kinds it may deploy. Default:
            none (no Namespace, ClusterRole, CRD...).
        orphaned_resources_warn: warn about unowned objects in destination namespaces. Default: ``True``.
        description: one line shown in the Argo CD UI. Default: ``"trainops apps of team <team>"``.
        labels: extra labels. Default: none.
        any_kind: allow every kind, namespaced and cluster-scoped (``{group: "*", kind: "*"}``
            whitelists), instead of the listed ones: the platform project, whose Helm charts and
            kustomizations are rendered by Argo CD from upstream releases (ClusterRoles, webhooks,
            CRDs...), so their kinds are not known at synth time. Default: ``False``.
        wave: its sync wave under the root Application. Default: :data:`PROJECT_WAVE`.

    Raises:
        ValueError: a bad name, team, URL, destination or kind; an empty source or destination list.

    Source: https://argo-cd.readthedocs.io/en/stable/user-guide/projects/ and the AppProject CRD
    ``argoproj.io/v1alpha1`` of Argo CD v3.5.1 (``namespaceResourceWhitelist``,
    ``clusterResourceWhitelist``, ``orphanedResources``); argo-cd
    ``pkg/apis/application/v1alpha1/app_project_types.go`` ``IsGroupKindPermitted`` (whitelist and
    blacklist semantics).
    """

    KIND = _KIND
    API_VERSION = API_VERSION

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        team: str,
        source_repos: Sequence[str],
        destinations: Sequence[Destination],
        namespace_resources: Sequence[tuple[str, str]],
        cluster_resources: Sequence[tuple[str, str]] = (),
        orphaned_resources_warn: bool = True,
        description: str | None = None,
        labels: Mapping[str, str] | None = None,
        any_kind: bool = False,
        wave: int = PROJECT_WAVE,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        require_name(_KIND, "team", team)
        if isinstance(source_repos, str) or not source_repos:
            raise ValueError(f"{_KIND} source_repos={source_repos!r}: give at least one repository URL")
        repos = sorted({require_repo_url(_KIND, url) for url in source_repos})
        if not destinations:
            raise ValueError(f"{_KIND} destinations={destinations!r}: give at least one destination")
        dests = sorted({_destination(d) for d in destinations})
        self._destinations = tuple(Destination(server, namespace) for server, namespace in dests)
        spec: dict[str, Any] = {
            "description": description if description is not None else f"trainops apps of team {team}",
            "sourceRepos": repos,
            "destinations": [{"server": server, "namespace": namespace} for server, namespace in dests],
            "namespaceResourceWhitelist": _kinds("namespace_resources", namespace_resources),
            "clusterResourceWhitelist": _kinds("cluster_resources", cluster_resources),
        }
        if any_kind:
            spec["namespaceResourceWhitelist"] = [{"group": "*", "kind": "*"}]
            spec["clusterResourceWhitelist"] = [{"group": "*", "kind": "*"}]
        elif not namespace_resources:
            # Argo CD reads an empty namespaceResourceWhitelist as "every namespaced kind" in some
            # releases and as "none" in others (AppProject.IsGroupKindPermitted): deny them all
            spec["namespaceResourceBlacklist"] = [{"group": "*", "kind": "*"}]
        if orphaned_resources_warn:
            spec["orphanedResources"] = {
                "warn": True,
                "ignore": [{"group": g, "kind": k, "name": n} for g, k, n in DEFAULT_ORPHAN_IGNORES],
            }
        metadata = {
            "name": self._name,
            "labels": {**require_labels(_KIND, "labels", labels or {}), TEAM_LABEL: team},
            "annotations": argocd_annotations(wave=wave),
        }
        emit(self, {"apiVersion": self.api_version, "kind": _KIND, "metadata": metadata, "spec": spec})

    @property
    def destinations(self) -> tuple[Destination, ...]:
        """The allowed destinations, sorted."""
        return self._destinations


def _destination(value: object) -> tuple[str, str]:
    if not isinstance(value, Destination):
        raise ValueError(f"{_KIND} destinations: {value!r} is not a Destination")
    if not value.server.startswith("https://"):
        raise ValueError(f"{_KIND} destinations: server={value.server!r} must be an https:// URL")
    if value.namespace != "*":
        require_name(_KIND, "destinations namespace", value.namespace)
    return value.server, value.namespace


def _kinds(prop: str, pairs: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    out = set()
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or not all(isinstance(p, str) for p in pair):
            raise ValueError(f"{_KIND} {prop}: {pair!r} is not a (group, kind) pair")
        group, kind = pair
        if not kind or not kind[0].isupper():
            raise ValueError(f"{_KIND} {prop}: kind {kind!r} must be a Kind such as 'Deployment'")
        out.add((group, kind))
    return [{"group": g, "kind": k} for g, k in sorted(out)]
