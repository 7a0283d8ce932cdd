"""Argo CD Applications carry the ``resources-finalizer.argocd.argoproj.io`` finalizer.

Why: without it, deleting an Application orphans everything it deployed (model servers keep
running and holding GPUs with nobody owning them); with it, deletion cascades.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata:
      name: serving
      namespace: argocd
      finalizers: [resources-finalizer.argocd.argoproj.io]
    spec:
      project: ml-platform
      destination: {server: https://kubernetes.default.svc, namespace: ml-serving}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: serving, namespace: argocd}
    spec:
      project: ml-platform
      destination: {server: https://kubernetes.default.svc, namespace: ml-serving}

Remediation: Add resources-finalizer.argocd.argoproj.io to metadata.finalizers.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/#about-the-deletion-finalizer
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import APPLICATION_KINDS
from trainops.policy.pods import dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "app-finalizer"
LEVEL: Level = "warning"
KINDS = APPLICATION_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

FINALIZER = "resources-finalizer.argocd.argoproj.io"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The finalizer (plain or with a /background or /foreground suffix)."""
    parts: tuple[str, ...]
    if obj.get("kind") == "ApplicationSet":
        finalizers, parts = (
            dig(obj, "spec", "template", "metadata", "finalizers"),
            ("spec", "template", "metadata"),
        )
    else:
        finalizers, parts = metadata_of(obj).get("finalizers"), ("metadata",)
    names = [f for f in finalizers if isinstance(f, str)] if isinstance(finalizers, list) else []
    if not any(f == FINALIZER or f.startswith(FINALIZER + "/") for f in names):
        yield Issue((*parts, "finalizers"), f"Application lacks the {FINALIZER} finalizer", ID)
