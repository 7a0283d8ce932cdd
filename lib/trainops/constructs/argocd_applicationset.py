"""``ApplicationSet``: one Argo CD Application per (cluster of a class, app directory).

A matrix of two generators: the **cluster generator** selects the Argo CD cluster Secrets labelled
``trainops.dev/cluster-class: <class>`` (and, when given, ``trainops.dev/cluster`` in a list of
clusters, so clusters of one class that pin different revisions get separate sets), and the **git
directory generator** lists the app directories under ``generated/<cluster>/`` in the repository
at the set's revision, the cluster's name coming from the first generator's ``trainops.dev/cluster``
label (a matrix child may use the parameters of the one before it). Each (cluster, directory) pair
becomes an Application named ``<cluster>-<app>`` with the class policy of
:mod:`trainops.constructs.argocd_application`.

Register each cluster once in Argo CD with both labels, e.g.
``argocd cluster add CONTEXT --name gpu-prod --label trainops.dev/cluster=gpu-prod
--label trainops.dev/cluster-class=gpu``.

Sources: https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/Generators-Matrix/,
.../Generators-Cluster/, .../Generators-Git/ (directories, exclude), .../GoTemplate/, and the
ApplicationSet CRD ``argoproj.io/v1alpha1`` of Argo CD v3.5.1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from trainops.constructs._core.argocd import argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.props import require_labels
from trainops.constructs.argocd_application import (
    API_VERSION,
    CLUSTER_LABEL,
    TEAM_LABEL,
    AppClass,
    IgnoreDifference,
    application_metadata,
    application_spec,
    directory_filter,
    require_app_class,
    require_repo_url,
    require_revision,
)
from trainops.naming import DNS1123_SUBDOMAIN

_KIND = "ApplicationSet"
#: Label on Argo CD cluster Secrets naming the trainops cluster class.
CLASS_LABEL = "trainops.dev/cluster-class"
#: The trainops cluster name as a Go template over the cluster generator's parameters.
CLUSTER_PARAM = f'{{{{ index .metadata.labels "{CLUSTER_LABEL}" }}}}'
#: The directory under ``generated/<cluster>/`` holding the Argo CD objects themselves.
ARGOCD_DIR = "argocd"


class ApplicationSet(ObjectConstruct):
    """An Argo CD ApplicationSet generating the Applications of one app class on a cluster class.

    Args:
        scope: the parent construct (a Chart whose namespace is Argo CD's).
        id: construct id.
        name: ApplicationSet name, a DNS-1123 subdomain.
        project: the AppProject of the generated Applications.
        team: the owning team (``trainops.dev/team`` label of the set and its Applications).
        cluster_class: the ``trainops.dev/cluster-class`` label value the cluster generator selects.
        repo_url: the git repository holding ``generated/``.
        directories: app directories under ``<root>/<cluster>/`` (names or globs such as ``*``);
            at least one.
        kind_of_app: ``"long-lived"`` or ``"training"`` (the class policy). Default: ``"long-lived"``.
        target_revision: the revision the git generator reads and the Applications sync (a tag or
            SHA for protected clusters). Default: ``"HEAD"``.
        clusters: only these trainops cluster names of the class (``trainops.dev/cluster In``).
            Default: every cluster of the class.
        exclude: directories to leave out. Default: ``("argocd",)`` (the set's own directory).
        root: the output root in the repository. Default: ``"generated"``.
        destination_namespace: the Applications' destination namespace (an AppProject matches
            an Application's destination, namespace included, against its destinations). Default:
            none.
        ignore_differences: controller-owned fields (see ``Application``). Default: none.
        labels: extra labels on the set. Default: none.
        name_suffix: appended to each generated Application's name ``<cluster>-<app>``, e.g.
            ``"-runs"`` for the run-once part of an app. Default: none.
        directory_include: sync only the files of each directory matching this glob (see
            ``Application``). Default: every file.
        directory_exclude: leave out the files matching this glob. Default: none.

    Raises:
        ValueError: a bad name, project, team, class, URL, revision, directory or label; no
            directories.
    """

    KIND = _KIND
    API_VERSION = API_VERSION

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        name: str,
        project: str,
        team: str,
        cluster_class: str,
        repo_url: str,
        directories: Sequence[str],
        kind_of_app: AppClass = "long-lived",
        target_revision: str = "HEAD",
        clusters: Sequence[str] | None = None,
        exclude: Sequence[str] = (ARGOCD_DIR,),
        root: str = "generated",
        destination_namespace: str | None = None,
        ignore_differences: Sequence[IgnoreDifference] = (),
        labels: Mapping[str, str] | None = None,
        name_suffix: str = "",
        directory_include: str | None = None,
        directory_exclude: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name, syntax=DNS1123_SUBDOMAIN, max_length=253)
        if name_suffix and not re.fullmatch(r"-[a-z0-9]([-a-z0-9]*[a-z0-9])?", name_suffix):
            raise ValueError(
                f"{_KIND} name_suffix={name_suffix!r}: must be '-' and lower-case letters, digits or '-'"
            )
        require_name(_KIND, "project", project)
        require_name(_KIND, "team", team)
        require_name(_KIND, "cluster_class", cluster_class)
        self._class = require_app_class(_KIND, kind_of_app)
        revision = require_revision(_KIND, target_revision)
        if isinstance(directories, str) or not directories:
            raise ValueError(f"{_KIND} directories={directories!r}: give at least one app directory")
        for prop, values in (("directories", directories), ("exclude", exclude)):
            for value in values:
                if not isinstance(value, str) or not value or "/" in value or value in (".", ".."):
                    raise ValueError(f"{_KIND} {prop}: {value!r} must be one directory name or glob")
        if not isinstance(root, str) or not root or root.startswith("/") or ".." in root.split("/"):
            raise ValueError(f"{_KIND} root={root!r}: must be a relative path in the repository")
        selector: dict[str, Any] = {"matchLabels": {CLASS_LABEL: cluster_class}}
        if clusters is not None:
            if isinstance(clusters, str) or not clusters:
                raise ValueError(f"{_KIND} clusters={clusters!r}: give at least one cluster name or None")
            names = sorted({require_name(_KIND, "clusters", c) for c in clusters})
            selector["matchExpressions"] = [{"key": CLUSTER_LABEL, "operator": "In", "values": names}]
        base = f"{root}/{CLUSTER_PARAM}"
        git_dirs: list[dict[str, Any]] = [{"path": f"{base}/{d}"} for d in sorted(set(directories))]
        git_dirs += [{"path": f"{base}/{d}", "exclude": True} for d in sorted(set(exclude))]
        destination = {"server": "{{ .server }}"}
        if destination_namespace is not None:
            destination["namespace"] = require_name(_KIND, "destination_namespace", destination_namespace)
        url = require_repo_url(_KIND, repo_url)
        set_labels = {**require_labels(_KIND, "labels", labels or {}), TEAM_LABEL: team}
        template_metadata = {
            "name": f"{CLUSTER_PARAM}-{{{{ .path.basename }}}}{name_suffix}",
            **application_metadata(
                kind_of_app=self._class, labels={TEAM_LABEL: team, CLUSTER_LABEL: CLUSTER_PARAM}
            ),
        }
        template_spec = application_spec(
            kind_of_app=self._class,
            project=project,
            repo_url=url,
            path="{{ .path.path }}",
            target_revision=revision,
            destination=destination,
            ignore_differences=ignore_differences,
            directory=directory_filter(_KIND, include=directory_include, exclude=directory_exclude),
        )
        spec: dict[str, Any] = {
            "goTemplate": True,
            "goTemplateOptions": ["missingkey=error"],
            "generators": [
                {
                    "matrix": {
                        "generators": [
                            {"clusters": {"selector": selector}},
                            {"git": {"repoURL": url, "revision": revision, "directories": git_dirs}},
                        ]
                    }
                }
            ],
            "template": {"metadata": template_metadata, "spec": template_spec},
            # A training Application removed from the set must not take its runs with it.
            "syncPolicy": {"preserveResourcesOnDeletion": self._class == "training"},
        }
        metadata = {"name": self._name, "labels": set_labels, "annotations": argocd_annotations(wave=0)}
        emit(self, {"apiVersion": self.api_version, "kind": _KIND, "metadata": metadata, "spec": spec})

    @property
    def kind_of_app(self) -> AppClass:
        """``long-lived`` or ``training``."""
        return self._class
