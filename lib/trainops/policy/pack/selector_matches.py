"""Workload selectors select their own pod template's labels.

Why: the API server rejects a Deployment whose selector does not match its template, but only at
apply time (in Argo CD, after merge); a selector that matches more than intended (e.g. only
``app: model``) adopts other workloads' pods.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve, tier: model}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve}
    spec:
      selector: {matchLabels: {app: serving}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

Remediation: Make spec.selector match spec.template.metadata.labels.

Source: https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import SELECTOR_WORKLOADS
from trainops.policy.pods import dig
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import matches
from trainops.rules import register

ID = "selector-matches"
LEVEL: Level = "error"
KINDS = SELECTOR_WORKLOADS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The selector against the template labels (an empty or missing selector is reported too)."""
    selector = dig(obj, "spec", "selector")
    labels = dig(obj, "spec", "template", "metadata", "labels")
    labels = labels if isinstance(labels, dict) else {}
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        yield Issue(("spec", "selector"), "workload has no selector", ID)
    elif not matches(selector, labels):
        yield Issue(("spec", "selector"), "spec.selector does not select the pod template's labels", ID)
