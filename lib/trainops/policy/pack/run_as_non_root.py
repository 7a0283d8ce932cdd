"""Containers run as a non-root user: ``runAsNonRoot: true`` (on the container, or on the pod and not
overridden) and no ``runAsUser: 0`` on the pod or a container, as Pod Security "restricted" checks.

Why: root in a container is root on the node once a kernel or runtime bug is found, and owns every
file of the volumes it mounts (shared datasets, checkpoints).

Options: none.

Default: enabled, level error. A pod in a user namespace (``hostUsers: false``) passes: its root is
not the node's. A finding's keyword names the Pod Security check it fails (``runAsNonRoot`` or
``runAsUser``, both restricted).

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

Source: k8s.io/pod-security-admission policy/check_runAsNonRoot.go and check_runAsUser.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, containers, dig, pod_templates, user_namespace
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "run-as-non-root"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """As Pod Security "restricted" checks them (``runAsNonRoot1_35``, ``runAsUser1_35``): a pod or
    container setting runAsNonRoot false or runAsUser 0, and each container (ephemeral ones
    included) without runAsNonRoot true of its own or from the pod; nothing for a pod in a user
    namespace (``hostUsers: false``)."""
    for site in pod_templates(obj):
        if user_namespace(site):
            continue
        pod_non_root = dig(site.spec, "securityContext", "runAsNonRoot")
        if pod_non_root is False:
            yield Issue(
                (*site.parts, "securityContext", "runAsNonRoot"),
                "pod sets runAsNonRoot: false",
                ID,
                "runAsNonRoot",
            )
        if _root(dig(site.spec, "securityContext", "runAsUser")):
            where = (*site.parts, "securityContext", "runAsUser")
            yield Issue(where, "pod runs as runAsUser 0 (root)", ID, "runAsUser")
        for container in containers(site):
            non_root = container.get("securityContext", "runAsNonRoot")
            if non_root is False:
                where = container.at("securityContext", "runAsNonRoot")
                yield Issue(
                    where, f'container "{container.name}" sets runAsNonRoot: false', ID, "runAsNonRoot"
                )
            elif non_root is None and pod_non_root is not True and not site.partial:
                yield Issue(
                    container.at("securityContext", "runAsNonRoot"),
                    f'container "{container.name}" does not set runAsNonRoot: true (pod or container)',
                    ID,
                    "runAsNonRoot",
                )
            if _root(container.get("securityContext", "runAsUser")):
                where = container.at("securityContext", "runAsUser")
                yield Issue(
                    where, f'container "{container.name}" runs as runAsUser 0 (root)', ID, "runAsUser"
                )


def _root(value: Any) -> bool:
    return value == 0 and not isinstance(value, bool)
