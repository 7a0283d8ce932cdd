"""On protected clusters, Argo CD Applications pin ``targetRevision`` to a tag or a commit SHA.

Why: an Application following ``HEAD`` or a branch deploys whatever is merged next, to production,
without a release decision; a tag or SHA makes the deployed state reviewable and revertible.

Options: ``pattern``: regular expression a pinned revision matches (default: a 7-40 hex commit
SHA, or a version tag like ``v1.2.3``/``1.2.3-rc.1``).

Default: enabled, level error, applies only when the cluster facts say ``protected`` (an
ApplicationSet that selects other clusters by the ``trainops.dev/cluster`` label, or an Application labelled with another cluster, is not checked).

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: serving, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/prod/serving, targetRevision: v2.4.1}
      destination: {server: https://kubernetes.default.svc, namespace: ml-serving}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: serving, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/prod/serving, targetRevision: main}
      destination: {server: https://kubernetes.default.svc, namespace: ml-serving}

Remediation: Set targetRevision to a release tag or a commit SHA for applications on protected clusters.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/tracking_strategies/
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import APPLICATION_KINDS, app_spec, sources
from trainops.policy.pods import as_dict, as_list, dig
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "pinned-revision"
LEVEL: Level = "error"
KINDS = APPLICATION_KINDS
CONF: dict[str, dict[str, Any]] = {"pattern": {"type": "string"}}
DEFAULT: dict[str, Any] = {"pattern": r"^([0-9a-f]{7,40}|v?[0-9]+(\.[0-9]+){1,2}([-+][0-9A-Za-z.-]+)?)$"}
RULE = register(describe(ID, LEVEL, __doc__))

#: The label trainops's ApplicationSets select clusters by.
CLUSTER_LABEL = "trainops.dev/cluster"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each source's targetRevision on a protected cluster."""
    if not ctx.facts.protected or not _targets(obj, ctx.facts.cluster):
        return
    found = app_spec(obj)
    if found is None:
        return
    pattern = re.compile(conf["pattern"])
    for parts, source in sources(*found):
        revision = source.get("targetRevision")
        if not isinstance(revision, str) or not pattern.match(revision):
            shown = "unset (HEAD)" if revision in (None, "") else f'"{revision}"'
            yield Issue((*parts, "targetRevision"), f"targetRevision {shown} is not a tag or commit SHA", ID)


def _targets(obj: dict[str, Any], cluster: str | None) -> bool:
    """Whether ``obj`` deploys to ``cluster``: an ApplicationSet whose cluster generators select
    clusters by the ``trainops.dev/cluster`` label (``In`` values) targets only those, an
    Application labelled ``trainops.dev/cluster`` only that cluster (a class's shared objects are
    written under its first cluster); anything else (or unknown facts) is taken to target it."""
    if cluster is None:
        return True
    if obj.get("kind") != "ApplicationSet":
        labels = as_dict(dig(obj, "metadata", "labels"))
        named_cluster = labels.get(CLUSTER_LABEL)
        return not isinstance(named_cluster, str) or named_cluster == cluster
    named: set[str] = set()
    for generator in _cluster_generators(dig(obj, "spec", "generators")):
        selector = as_dict(generator.get("selector"))
        for expression in as_list(selector.get("matchExpressions")):
            if not isinstance(expression, dict):
                continue
            if expression.get("key") == CLUSTER_LABEL and expression.get("operator") == "In":
                named.update(str(v) for v in as_list(expression.get("values")))
        label = as_dict(selector.get("matchLabels")).get(CLUSTER_LABEL)
        if isinstance(label, str):
            named.add(label)
    return not named or cluster in named


def _cluster_generators(generators: Any) -> list[dict[str, Any]]:
    """Every ``clusters`` generator, also inside ``matrix``/``merge`` generators."""
    found: list[dict[str, Any]] = []
    for generator in generators if isinstance(generators, list) else []:
        if not isinstance(generator, dict):
            continue
        if isinstance(generator.get("clusters"), dict):
            found.append(generator["clusters"])
        for combiner in ("matrix", "merge"):
            inner = generator.get(combiner)
            if isinstance(inner, dict):
                found.extend(_cluster_generators(inner.get("generators")))
    return found
