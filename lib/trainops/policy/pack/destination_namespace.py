"""Each Argo CD Application's destination namespace is created by an app: a Namespace object in the
rendered set (a ``TeamNamespace`` of the cluster's platform app), an external Namespace of the
cluster, or the Application's ``CreateNamespace=true`` sync option.

Why: Argo CD does not create a destination namespace by itself. The first sync on a new cluster
fails with ``namespaces "ml-training" not found``, retries a few times and stays failed until
someone creates the namespace and syncs by hand. trainops delivers the app that creates namespaces
in an earlier wave of the cluster's root Application, so every other Application finds its
namespace. Argo CD's own namespace (an Application deploying into the namespace it lives in, on
its own cluster) and the namespaces every cluster has (``default``, ``kube-system``,
``kube-public``, ``kube-node-lease``) are taken to exist.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Namespace
    metadata: {name: ml-training}
    ---
    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: gpu-prod-bert, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/bert, targetRevision: v1.2.0}
      destination: {server: https://gpu-prod.example.com:6443, namespace: ml-training}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: gpu-prod-bert, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/bert, targetRevision: v1.2.0}
      destination: {server: https://gpu-prod.example.com:6443, namespace: ml-training}

Remediation: Create the namespace in the cluster's platform app (TeamNamespace(chart, "Ns", cluster=cluster, name="<namespace>")), declare it as ExternalObject("Namespace", "<namespace>") in apps/clusters.py when something else creates it, or set the CreateNamespace=true sync option.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#create-namespace, https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.argocd import APPLICATION_KINDS, app_spec
from trainops.policy.index import ObjectIndex
from trainops.policy.pods import as_dict, as_list, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "destination-namespace"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Namespaces every cluster has (created by the API server).
BUILTIN = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
#: Argo CD's name for its own cluster's API server.
IN_CLUSTER = "https://kubernetes.default.svc"


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each Application (or ApplicationSet template) destination namespace no app creates."""
    index_ = ObjectIndex(objects, ctx.facts)
    for number, obj in enumerate(objects):
        if group_kind(obj) not in APPLICATION_KINDS:
            continue
        found = app_spec(obj)
        if found is None:
            continue
        parts, spec = found
        destination = as_dict(spec.get("destination"))
        namespace = destination.get("namespace")
        if not isinstance(namespace, str) or not namespace or "{{" in namespace or namespace in BUILTIN:
            continue
        options = as_list(as_dict(spec.get("syncPolicy")).get("syncOptions"))
        if "CreateNamespace=true" in options:
            continue
        own = destination.get("server") == IN_CLUSTER or destination.get("name") == "in-cluster"
        if own and namespace == metadata_of(obj).get("namespace"):
            continue  # Argo CD's own namespace
        if not index_.exists("Namespace", namespace, None):
            yield (
                number,
                Issue(
                    (*parts, "destination", "namespace"),
                    f'destination namespace "{namespace}" is created by no app in the set',
                    ID,
                ),
            )
