"""The Pod Security Standards level of each finding of the pack's pod security rules.

The PodSecurity admission plugin (k8s.io/pod-security-admission ``policy/check_*.go``) runs one
check per control, each at a level: a namespace enforcing ``baseline`` forbids a pod that fails a
baseline check, one enforcing ``restricted`` a pod that fails any check. The pack covers the same
controls with rules; where a rule covers controls at both levels (capabilities, seccomp, procMount)
its findings name the upstream check in :attr:`trainops.core.findings.Issue.keyword`. :func:`level_of`
gives the level of a finding, so ``trainops`` can say what a namespace at each level would refuse
(``tests/policy/test_pod_security_ground_truth.py`` compares that with a real kube-apiserver's verdicts).
"""

from __future__ import annotations

from typing import Final, Literal

PssLevel = Literal["baseline", "restricted"]

#: Upstream check ID (``Check.ID`` in ``policy/check_*.go``, v1.36) → its level.
CHECKS: Final[dict[str, PssLevel]] = {
    "privileged": "baseline",
    "hostNamespaces": "baseline",
    "hostPathVolumes": "baseline",
    "hostPorts": "baseline",
    "capabilities_baseline": "baseline",
    "sysctls": "baseline",
    "procMount": "baseline",
    "seLinuxOptions": "baseline",
    "appArmorProfile": "baseline",
    "seccompProfile_baseline": "baseline",
    "windowsHostProcess": "baseline",
    "hostProbesAndHostLifecycle": "baseline",
    "capabilities_restricted": "restricted",
    "procMount_restricted": "restricted",
    "seccompProfile_restricted": "restricted",
    "restrictedVolumes": "restricted",
    "allowPrivilegeEscalation": "restricted",
    "runAsNonRoot": "restricted",
    "runAsUser": "restricted",
}

#: Pack rule → the upstream check every finding of it stands for; rules covering several checks
#: (``drop-capabilities``, ``seccomp-profile``, ``proc-mount``, ``run-as-non-root``,
#: ``selinux-apparmor``, ``no-host-namespaces`` for hostPort) name it in each finding's keyword.
RULE_CHECK: Final[dict[str, str]] = {
    "no-privileged": "privileged",
    "no-host-path": "hostPathVolumes",
    "no-privilege-escalation": "allowPrivilegeEscalation",
    "unsafe-sysctls": "sysctls",
    "host-process": "windowsHostProcess",
    "volume-types": "restrictedVolumes",
    "probe-host": "hostProbesAndHostLifecycle",
    "no-host-namespaces": "hostNamespaces",
}

#: Every rule whose findings have a Pod Security level.
PSS_RULES: Final[frozenset[str]] = frozenset(
    {*RULE_CHECK, "drop-capabilities", "seccomp-profile", "proc-mount", "run-as-non-root", "selinux-apparmor"}
)


def level_of(rule: str, keyword: str | None) -> PssLevel | None:
    """The Pod Security level a finding of ``rule`` (with ``keyword``) violates, ``None`` when the
    finding is no Pod Security control (a rule of the pack beyond the standard)."""
    if keyword in CHECKS:
        return CHECKS[keyword]
    check = RULE_CHECK.get(rule)
    return CHECKS[check] if check else None


def forbids(level: PssLevel, rule: str, keyword: str | None) -> bool:
    """Whether a namespace enforcing ``level`` refuses a pod with this finding (restricted includes
    baseline)."""
    found = level_of(rule, keyword)
    return found is not None and (found == "baseline" or level == "restricted")
