"""Argo CD Applications carry the ``resources-finalizer.argocd.argoproj.io`` finalizer.

Why: without it, deleting an Application orphans everything it deployed (model servers keep
running and holding GPUs with nobody owning them); with it, deletion cascades. Training (run-once)
applications are exempt: their runs must outlive the Application (a deleted Application must not
kill a job that is still training), so they deliberately carry no finalizer.

Options: ``training-label``: the Application label whose value ``"true"`` marks a training
application (as in ``sync-policy``).

Default: enabled, level warning, ``training-label: trainops.dev/run-once``.

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
CONF: dict[str, dict[str, Any]] = {"training-label": {"type": "string"}}
DEFAULT: dict[str, Any] = {"training-label": "trainops.dev/run-once"}
RULE = register(describe(ID, LEVEL, __doc__))

FINALIZER = "resources-finalizer.argocd.argoproj.io"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The finalizer (plain or with a /background or /foreground suffix)."""
    parts: tuple[str, ...]
    if obj.get("kind") == "ApplicationSet":
        meta = dig(obj, "spec", "template", "metadata")
        meta, parts = (meta if isinstance(meta, dict) else {}), ("spec", "template", "metadata")
    else:
        meta, parts = metadata_of(obj), ("metadata",)
    labels = meta.get("labels")
    if isinstance(labels, dict) and str(labels.get(conf["training-label"], "")).lower() == "true":
        return  # deleting a training Application must leave its runs (see the docstring)
    finalizers = meta.get("finalizers")
    names = [f for f in finalizers if isinstance(f, str)] if isinstance(finalizers, list) else []
    if not any(f == FINALIZER or f.startswith(FINALIZER + "/") for f in names):
        yield Issue((*parts, "finalizers"), f"Application lacks the {FINALIZER} finalizer", ID)
