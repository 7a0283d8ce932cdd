"""Containers run as a non-root user: ``runAsNonRoot: true`` and a ``runAsUser`` other than 0, set
on the pod or the container (the container's value wins).

Why: root in a container is root on the node once a kernel or runtime bug is found, and owns every
file of the volumes it mounts (shared datasets, checkpoints).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 1000}
      containers: [{name: train, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      securityContext: {runAsUser: 0}
      containers: [{name: train, image: registry.example.com/train:1.0}]

Remediation: Set securityContext.runAsNonRoot to true and runAsUser to a non-zero UID on the pod (or each container).

Source: https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, dig, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "run-as-non-root"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per container, the effective runAsNonRoot and runAsUser (container over pod)."""
    for site in pod_templates(obj):
        pod_non_root = dig(site.spec, "securityContext", "runAsNonRoot")
        pod_user = dig(site.spec, "securityContext", "runAsUser")
        for container in containers(site, ephemeral=False):
            non_root = container.get("securityContext", "runAsNonRoot")
            user = container.get("securityContext", "runAsUser")
            own_user = user is not None
            non_root = pod_non_root if non_root is None else non_root
            user = pod_user if user is None else user
            if user == 0:
                where = (
                    container.at("securityContext", "runAsUser")
                    if own_user
                    else (*site.parts, "securityContext", "runAsUser")
                )
                yield Issue(where, f'container "{container.name}" runs as runAsUser 0 (root)', ID)
            elif non_root is not True:
                yield Issue(
                    container.at("securityContext", "runAsNonRoot"),
                    f'container "{container.name}" does not set runAsNonRoot: true (pod or container)',
                    ID,
                )
