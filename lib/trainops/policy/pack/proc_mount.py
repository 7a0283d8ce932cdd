"""Containers keep the default masked ``/proc`` (no ``procMount: Unmasked``).

Why: an unmasked ``/proc`` exposes kernel interfaces the runtime hides (``/proc/sys``,
``/proc/kcore``...). Pod Security "baseline" allows it only in a user namespace (``hostUsers:
false``, where the pod's root is not the node's), "restricted" never.

Options: none.

Default: enabled, level error. A finding's keyword names the Pod Security check it fails:
``procMount`` (baseline: outside a user namespace) or ``procMount_restricted`` (restricted only).

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: build}
    spec:
      containers:
      - name: build
        image: registry.example.com/build:1.0
        securityContext: {procMount: Default}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: build}
    spec:
      containers:
      - name: build
        image: registry.example.com/build:1.0
        securityContext: {procMount: Unmasked}

Remediation: Remove securityContext.procMount (or set it to Default).

Source: k8s.io/pod-security-admission policy/check_procMount_baseline.go (procMount1_35baseline) and check_procMount_restricted.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, pod_templates, show, user_namespace
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "proc-mount"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each container (ephemeral ones included) with a procMount other than Default."""
    for site in pod_templates(obj):
        relaxed = user_namespace(site)
        for container in containers(site):
            value = container.get("securityContext", "procMount")
            if value is None or value == "Default":
                continue
            where = " (allowed at baseline in its user namespace, never at restricted)" if relaxed else ""
            yield Issue(
                container.at("securityContext", "procMount"),
                f'container "{container.name}" sets procMount {show(value)}{where}',
                ID,
                keyword="procMount_restricted" if relaxed else "procMount",
            )
