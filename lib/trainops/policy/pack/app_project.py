"""Argo CD Applications and ApplicationSet templates name an AppProject other than ``default``.

Why: the ``default`` project allows every source repository, destination and resource kind, so an
Application in it can deploy anything anywhere; projects are where destinations and cluster-scoped
kinds are restricted.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: training, namespace: argocd}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {server: https://kubernetes.default.svc, namespace: ml-training}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: training, namespace: argocd}
    spec:
      project: default
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {server: https://kubernetes.default.svc, namespace: ml-training}

Remediation: Create an AppProject restricting sources, destinations and kinds, and set spec.project to it.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/projects/#the-default-project
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import APPLICATION_KINDS, app_spec
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "app-project"
LEVEL: Level = "error"
KINDS = APPLICATION_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The Application's (or ApplicationSet template's) spec.project."""
    found = app_spec(obj)
    if found is None:
        return
    parts, spec = found
    project = spec.get("project")
    if not project or project == "default":
        shown = "unset" if not project else "default"
        yield Issue((*parts, "project"), f"Application project is {shown}; use a restricted AppProject", ID)
