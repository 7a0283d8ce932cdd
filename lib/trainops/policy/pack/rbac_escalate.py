"""Roles do not let their subjects raise their own privileges: no ``bind``, ``escalate`` or
``impersonate``, no write access to Roles, ClusterRoles or their bindings, to admission webhook
configurations, nor approval of CertificateSigningRequests.

Why: ``escalate`` and ``bind`` bypass RBAC's rule that you cannot grant what you do not hold;
``impersonate`` acts as another user, group or service account; writing roles or bindings grants
anything; a mutating webhook sees and changes every object it selects; an approved certificate
signing request is a client certificate for any user. Any of them is cluster-admin in a few steps.

Options: none.

Default: enabled, level error. A rule granting every verb on every resource is
``rbac-cluster-admin``'s and ``rbac-wildcard``'s.

PASS:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: rbac-viewer, namespace: team-vision}
    rules:
    - apiGroups: [rbac.authorization.k8s.io]
      resources: [roles, rolebindings]
      verbs: [get, list, watch]

FAIL:

    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata: {name: team-admin}
    rules:
    - apiGroups: [rbac.authorization.k8s.io]
      resources: [rolebindings]
      verbs: [create, update]
    - apiGroups: [""]
      resources: [serviceaccounts]
      verbs: [impersonate]

Remediation: Remove bind, escalate, impersonate and write verbs on RBAC objects; let an administrator (or GitOps) manage roles and bindings.

Source: Checkov CKV_K8S_155 (webhook configurations), CKV_K8S_156 (CSR approval), CKV_K8S_157 (bind), CKV_K8S_158 (escalate); https://kubernetes.io/docs/concepts/security/rbac-good-practices/#privilege-escalation-risks
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.rbac import RBAC, ROLES, WRITE_VERBS, role_rules
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "rbac-escalate"
LEVEL: Level = "error"
KINDS = ROLES
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

#: Verbs that escalate whatever they apply to.
ESCALATING: Final = ("bind", "escalate", "impersonate")
#: Objects whose write access grants anything: (API group, resource).
SENSITIVE: Final = (
    (RBAC, "roles"),
    (RBAC, "clusterroles"),
    (RBAC, "rolebindings"),
    (RBAC, "clusterrolebindings"),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
    ("certificates.k8s.io", "certificatesigningrequests/approval"),
)


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each rule naming an escalating verb (``approve`` of CSR signers too), or writing one of
    :data:`SENSITIVE` (not a rule granting everything)."""
    for rule in role_rules(obj):
        if rule.everything:
            continue
        named: list[str] = [verb for verb in ESCALATING if verb in rule.verbs]
        if "approve" in rule.verbs and rule.group("certificates.k8s.io") and rule.resource("signers"):
            named.append("approve on signers")
        if named:
            yield Issue((*rule.parts, "verbs"), f"rule grants {', '.join(named)}", ID)
            continue
        written = [resource for group, resource in SENSITIVE if rule.group(group) and rule.resource(resource)]
        if written and rule.verb(WRITE_VERBS):
            yield Issue((*rule.parts, "resources"), f"rule grants write access to {', '.join(written)}", ID)
