"""Pods that mount a ServiceAccount token run as a dedicated ServiceAccount and say so:
``automountServiceAccountToken: false``, or a ``serviceAccountName`` other than ``default`` with
the mount set explicitly.

Why: every pod of a namespace shares the ``default`` ServiceAccount; a token mounted there gives any
compromised training or serving process whatever that account was granted. Most ML pods never call
the API server and need no token at all.

A pod that leaves ``automountServiceAccountToken`` unset takes its ServiceAccount's: a rendered
ServiceAccount (of the pod's namespace) with ``automountServiceAccountToken: false`` mounts no token,
so its pods pass (kubernetes ``plugin/pkg/admission/serviceaccount/admission.go``
``shouldAutomount``: the pod's field wins, then the account's, else true). A dedicated account
whose pods set ``automountServiceAccountToken: true`` passes: the pod says it calls the API.

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

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.pods import POD_KINDS, as_str, metadata_of, pod_templates
from trainops.policy.rule import Context, describe

ID = "service-account"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


SERVICE_ACCOUNT = ("", "ServiceAccount")


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per pod spec: no token (the pod's field, else its rendered ServiceAccount's), or a dedicated
    account with an explicit mount."""
    unmounted = {
        (as_str(metadata_of(o).get("namespace")), metadata_of(o).get("name"))
        for o in objects
        if group_kind(o) == SERVICE_ACCOUNT
        and o.get("automountServiceAccountToken") is False
        and isinstance(metadata_of(o).get("name"), str)
    }
    for index, obj in enumerate(objects):
        if group_kind(obj) not in POD_KINDS:
            continue
        namespace = as_str(metadata_of(obj).get("namespace"))
        for issue in _check_pods(obj, namespace, unmounted):
            yield index, issue


def _check_pods(
    obj: dict[str, Any], namespace: str | None, unmounted: set[tuple[Any, Any]]
) -> Iterator[Issue]:
    for site in pod_templates(obj):
        if site.partial:  # the runtime's pod spec sets the account
            continue
        automount = site.spec.get("automountServiceAccountToken")
        account = site.spec.get("serviceAccountName") or site.spec.get("serviceAccount")
        name = account if isinstance(account, str) and account else "default"
        if automount is False or (automount is None and (namespace, name) in unmounted):
            continue
        if name == "default":
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
