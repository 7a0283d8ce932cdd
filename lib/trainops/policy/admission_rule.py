"""The rule ``admission-policy``: findings of the ValidatingAdmissionPolicies users place in
``policies/`` (:mod:`trainops.policy.uservap`). Registered when the pack loads
(:mod:`trainops.policy.loader` imports this module), so ``trainops explain admission-policy`` and
SARIF rule metadata know it."""

from __future__ import annotations

from trainops.rules import RuleInfo, register

RULE = register(
    RuleInfo(
        id="admission-policy",
        level="error",
        summary="ValidatingAdmissionPolicies placed in policies/ hold for every checked object",
        rationale="The cluster will refuse (Deny), warn about (Warn) or audit what such a policy "
        "rejects; CI says so before Argo CD syncs.",
        remediation="Change the object so the policy's validations hold, or change the policy or its binding.",
        source="https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/",
        family="policy",
    )
)
