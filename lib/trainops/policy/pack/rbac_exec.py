"""Roles do not let their subjects into running containers: no ``pods/exec``, ``pods/attach`` or
``pods/portforward``.

Why: exec and attach run commands in any pod of the namespace, with its service account token,
mounted secrets and data (a training job's credentials for the object store); port-forward
reaches ports no Service exposes. Debugging access belongs to a separate, short-lived role.
``get`` counts as much as ``create``: exec over WebSocket is a GET.

Options: none.

Default: enabled, level warning. A ``*`` resource is ``rbac-wildcard``'s.

PASS:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: job-viewer, namespace: team-vision}
    rules:
    - apiGroups: [""]
      resources: [pods, pods/log]
      verbs: [get, list, watch]

FAIL:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: job-debugger, namespace: team-vision}
    rules:
    - apiGroups: [""]
      resources: [pods/exec, pods/portforward]
      verbs: [create, get]

Remediation: Remove pods/exec, pods/attach and pods/portforward from the role (grant them in a separate break-glass role).

Source: Polaris clusterrolePodExecAttach and rolePodExecAttach; https://kubernetes.io/docs/concepts/security/rbac-good-practices/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.rbac import ROLES, role_rules
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "rbac-exec"
LEVEL: Level = "warning"
KINDS = ROLES
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Subresources that reach into a running container.
SUBRESOURCES: Final = ("pods/exec", "pods/attach", "pods/portforward")
_VERBS: Final = ("create", "get")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each rule granting create or get on one of :data:`SUBRESOURCES` of the core group, named or by
    ``pods/*`` (``*`` alone is ``rbac-wildcard``'s)."""
    for rule in role_rules(obj):
        if "*" in rule.resources or not rule.group(""):
            continue
        found = [s for s in SUBRESOURCES if rule.resource(s)]
        if found and rule.verb(_VERBS):
            yield Issue((*rule.parts, "resources"), f"rule grants {', '.join(found)}", ID)
