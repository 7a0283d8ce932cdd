"""Argo CD Applications set ``syncPolicy`` explicitly with a retry backoff, and applications of
run-once training objects do not self-heal.

Why: without a retry a sync that races a CRD or webhook start-up stays failed until someone clicks;
self-heal on a training application reverts the Kueue ``suspend`` flag and operator-owned fields
and restarts runs (DESIGN.md decision 4).

Options: ``training-label``: the Application label whose value ``"true"`` marks a training
(run-once) application.

Default: enabled, level error, ``training-label: trainops.dev/run-once``.

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata:
      name: training
      namespace: argocd
      labels: {trainops.dev/run-once: "true"}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {server: https://kubernetes.default.svc, namespace: ml-training}
      syncPolicy:
        automated: {prune: false, selfHeal: false}
        retry: {limit: 5, backoff: {duration: 10s, factor: 2, maxDuration: 5m}}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata:
      name: training
      namespace: argocd
      labels: {trainops.dev/run-once: "true"}
    spec:
      project: ml-platform
      source: {repoURL: https://git.example.com/ml/deploy.git, path: generated/gpu-prod/training, targetRevision: v1.2.0}
      destination: {server: https://kubernetes.default.svc, namespace: ml-training}
      syncPolicy:
        automated: {selfHeal: true}

Remediation: Set syncPolicy with retry.backoff, and selfHeal false for training applications.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import APPLICATION_KINDS, app_spec
from trainops.policy.pods import as_dict, dig, labels_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "sync-policy"
LEVEL: Level = "error"
KINDS = APPLICATION_KINDS
CONF: dict[str, dict[str, Any]] = {"training-label": {"type": "string"}}
DEFAULT: dict[str, Any] = {"training-label": "trainops.dev/run-once"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """syncPolicy present, retry with backoff, no selfHeal on training applications."""
    found = app_spec(obj)
    if found is None:
        return
    parts, spec = found
    policy = spec.get("syncPolicy")
    where = (*parts, "syncPolicy")
    if not isinstance(policy, dict):
        yield Issue(where, "Application sets no syncPolicy", ID)
        return
    if not isinstance(dig(policy, "retry", "backoff"), dict):
        yield Issue((*where, "retry"), "syncPolicy has no retry with backoff", ID)
    labels = (
        labels_of(obj)
        if obj.get("kind") == "Application"
        else as_dict(dig(obj, "spec", "template", "metadata", "labels"))
    )
    training = str(labels.get(conf["training-label"], "")).lower() == "true"
    if training and dig(policy, "automated", "selfHeal") is True:
        yield Issue((*where, "automated", "selfHeal"), "training (run-once) application self-heals", ID)
