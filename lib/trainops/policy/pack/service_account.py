"""Pods that mount a ServiceAccount token run as a dedicated ServiceAccount and say so:
``automountServiceAccountToken: false``, or a ``serviceAccountName`` other than ``default`` with
the mount set explicitly.

Why: every pod of a namespace shares the ``default`` ServiceAccount; a token mounted there gives any
compromised training or serving process whatever that account was granted. Most ML pods never call
the API server and need no token at all.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      automountServiceAccountToken: false
      containers: [{name: train, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/train:1.0}]

Remediation: Set automountServiceAccountToken to false, or run as a dedicated serviceAccountName with automountServiceAccountToken set explicitly.

Source: https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "service-account"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per pod spec: no token, or a dedicated account with an explicit mount."""
    for site in pod_templates(obj):
        if site.partial:  # the runtime's pod spec sets the account
            continue
        automount = site.spec.get("automountServiceAccountToken")
        if automount is False:
            continue
        account = site.spec.get("serviceAccountName") or site.spec.get("serviceAccount")
        if account in (None, "", "default"):
            yield Issue(
                (*site.parts, "serviceAccountName"),
                "pod mounts the token of the namespace's default ServiceAccount",
                ID,
            )
        elif automount is None:
            yield Issue(
                (*site.parts, "automountServiceAccountToken"),
                f'pod mounts the token of ServiceAccount "{account}" implicitly '
                "(set automountServiceAccountToken: false unless it calls the API)",
                ID,
            )
