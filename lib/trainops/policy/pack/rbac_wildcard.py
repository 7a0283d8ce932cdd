"""Roles name what they grant: no ``*`` in a rule's verbs, resources or apiGroups.

Why: a wildcard grants today's and every future verb, resource and API group (a CRD installed next
year included), so nobody can say what the role allows; least privilege lists them.

Options: none.

Default: enabled, level warning. Aggregated ClusterRoles (``aggregationRule``) are not judged:
their rules are the union of the roles they select.

PASS:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: training-submitter, namespace: team-vision}
    rules:
    - apiGroups: [kubeflow.org]
      resources: [pytorchjobs]
      verbs: [get, list, watch, create, delete]

FAIL:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: training-submitter, namespace: team-vision}
    rules:
    - apiGroups: [kubeflow.org]
      resources: ["*"]
      verbs: ["*"]

Remediation: List the API groups, resources and verbs the subject needs instead of "*".

Source: kube-linter wildcard-in-rules; Checkov CKV_K8S_49; https://kubernetes.io/docs/concepts/security/rbac-good-practices/#least-privilege
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.rbac import ROLES, role_rules
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "rbac-wildcard"
LEVEL: Level = "warning"
KINDS = ROLES
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each rule with ``*`` in verbs, resources or apiGroups (one finding per rule)."""
    for rule in role_rules(obj):
        fields = [
            name
            for name, values in (
                ("verbs", rule.verbs),
                ("resources", rule.resources),
                ("apiGroups", rule.api_groups),
            )
            if "*" in values
        ]
        if fields:
            yield Issue((*rule.parts, fields[0]), f'rule grants "*" in {", ".join(fields)}', ID)
