"""The JobSet spec (``jobset.x-k8s.io/v1alpha2``) shared by the ``JobSet`` construct and the Trainer v2
runtimes (whose ``spec.template.spec`` is a JobSet spec): replicated jobs, startup order, success and
failure policies, network, exclusive placement per topology domain.

:func:`jobset_spec` checks what JobSet's validating webhook checks on create, so that bad input is a
``ValueError`` at once rather than a rejected sync: kubernetes-sigs/jobset v0.12.0
``pkg/webhooks/jobset_webhook.go`` ``ValidateCreate`` (``dependsOn`` of the first replicated job,
``dependsOn`` naming an earlier replicated job, success-policy targets, the network subdomain),
``validateFailurePolicy`` (rule names, targets, job failure reasons); the JobSet CRD's own CEL rules
(StartupPolicy ``InOrder`` and ``dependsOn`` are mutually exclusive) are checked too. The webhook's
constants and name rules live in :mod:`trainops.core.jobset`, which the ``jobset-webhook`` validation
family also uses on hand-written JobSets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from trainops.core.jobset import GATED_ACTIONS, JOB_FAILURE_REASONS, rule_name_problem
from trainops.core.naming import DNS1035_LABEL, DNS1123_SUBDOMAIN, require

API_VERSION: Final = "jobset.x-k8s.io/v1alpha2"
StartupOrder = Literal["AnyOrder", "InOrder"]
DependencyStatus = Literal["Ready", "Complete"]
SuccessOperator = Literal["All", "Any"]
FailureAction = Literal[
    "FailJobSet",
    "RestartJobSet",
    "RestartJobSetAndIgnoreMaxRestarts",
    "RestartJob",
    "RestartJobAndIgnoreMaxRestarts",
]
_FAILURE_ACTIONS: Final = FailureAction.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class FailureRule:
    """One rule of a JobSet failure policy (``FailurePolicyRule``).

    Args:
        name: the rule's name (a letter, then letters, digits, ``_``, ``,``, ``:``; 1-128 characters).
        action: ``FailJobSet`` | ``RestartJobSet`` | ``RestartJobSetAndIgnoreMaxRestarts``.
        on_job_failure_reasons: the Job failure reasons it matches (:data:`JOB_FAILURE_REASONS`);
            empty matches every failure. Default: none.
        target_replicated_jobs: the replicated jobs it applies to; empty is all. Default: none.
    """

    name: str
    action: FailureAction
    on_job_failure_reasons: tuple[str, ...] = ()
    target_replicated_jobs: tuple[str, ...] = ()


@dataclass(frozen=True)
class FailurePolicy:
    """``spec.failurePolicy``: how often the whole JobSet restarts when a Job fails, and rules.

    Args:
        max_restarts: restarts of the whole JobSet before it fails. Default: 0.
        rules: rules tried in order before the default action (restart while restarts remain).
            Default: none.
    """

    max_restarts: int = 0
    rules: tuple[FailureRule, ...] = ()


@dataclass(frozen=True)
class Dependency:
    """A replicated job starts once all Jobs of ``name`` reach ``status`` (``dependsOn``).

    Args:
        name: an earlier replicated job.
        status: ``Ready`` (its pods are ready) or ``Complete``. Default: ``Ready``.
    """

    name: str
    status: DependencyStatus = "Ready"


@dataclass(frozen=True)
class JobTemplate:
    """One replicated job as :func:`jobset_spec` takes it: a name, a number of identical Jobs and the
    Job template (``metadata`` and ``spec`` with its pod template), already built.

    Args:
        name: the replicated job's name (a DNS-1035 label).
        replicas: how many Jobs; ``None`` leaves ``replicas`` out (1; a Trainer runtime's node count
            comes from its ML policy). pods: pods per Job (``parallelism`` = ``completions``).
        template: the batch/v1 ``JobTemplateSpec`` (``{"metadata"?: ..., "spec": ...}``).
        depends_on: dependencies on earlier replicated jobs. Default: none.
    """

    name: str
    replicas: int | None
    pods: int
    template: dict[str, Any]
    depends_on: tuple[Dependency, ...] = ()


def jobset_spec(
    owner: str,
    jobs: Sequence[JobTemplate],
    *,
    startup_order: StartupOrder | None = None,
    success: tuple[SuccessOperator, tuple[str, ...]] | None = None,
    failure: FailurePolicy | None = None,
    network: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A JobSet spec of ``jobs``, checked as JobSet's webhook checks it on create.

    Args:
        owner: the construct's kind, for messages.
        jobs: the replicated jobs in order.
        startup_order: ``InOrder`` (each replicated job starts once the previous one is ready) or
            ``AnyOrder``; ``None`` leaves it out (the webhook defaults ``AnyOrder``).
        success: ``(operator, target replicated jobs)`` of ``successPolicy``, or ``None`` (the
            webhook defaults ``All`` of every replicated job).
        failure: the failure policy, or ``None``.
        network: ``spec.network`` (``enableDNSHostnames``, ``subdomain``, ``publishNotReadyAddresses``),
            or ``None``.

    Raises:
        ValueError: no replicated job; a name that is not a DNS-1035 label or given twice; a
            dependency of the first replicated job or on one that is not earlier; ``InOrder`` with
            dependencies; a success or failure target that is no replicated job; a bad failure rule
            name, duplicate name, action or failure reason; a subdomain that is not a DNS-1035 label.
    """
    if not jobs:
        raise ValueError(f"{owner} replicated_jobs: at least one replicated job is required")
    names: list[str] = []
    replicated: list[dict[str, Any]] = []
    for index, job in enumerate(jobs):
        require(DNS1035_LABEL, owner, "replicated job name", job.name)
        if job.name in names:
            raise ValueError(f"{owner} replicated job name={job.name!r}: given twice")
        if job.depends_on and index == 0:
            raise ValueError(
                f"{owner} replicated job {job.name!r} depends_on: the first replicated job cannot depend on another"
            )
        for dep in job.depends_on:
            if dep.name not in names:
                raise ValueError(
                    f"{owner} replicated job {job.name!r} depends_on={dep.name!r}: must name an earlier replicated job "
                    f"({', '.join(names) or 'none'})"
                )
            if dep.status not in ("Ready", "Complete"):
                raise ValueError(f"{owner} depends_on status={dep.status!r}: must be Ready or Complete")
        names.append(job.name)
        entry: dict[str, Any] = {"name": job.name}
        if job.replicas is not None:
            entry["replicas"] = job.replicas
        if job.depends_on:
            entry["dependsOn"] = [{"name": d.name, "status": d.status} for d in job.depends_on]
        entry["template"] = job.template
        replicated.append(entry)
    spec: dict[str, Any] = {}
    if startup_order is not None:
        if startup_order not in ("AnyOrder", "InOrder"):
            raise ValueError(f"{owner} startup_order={startup_order!r}: must be AnyOrder or InOrder")
        if startup_order == "InOrder" and any(j.depends_on for j in jobs):
            raise ValueError(
                f"{owner} startup_order='InOrder': StartupPolicy and DependsOn are mutually exclusive (use one)"
            )
        spec["startupPolicy"] = {"startupPolicyOrder": startup_order}
    if network:
        subdomain = network.get("subdomain")
        if subdomain is not None:
            require(DNS1123_SUBDOMAIN, owner, "subdomain", subdomain)
            require(DNS1035_LABEL, owner, "subdomain", subdomain)
        spec["network"] = dict(network)
    if success is not None:
        operator, targets = success
        if operator not in ("All", "Any"):
            raise ValueError(f"{owner} success operator={operator!r}: must be All or Any")
        _targets(owner, "success_targets", targets, names)
        spec["successPolicy"] = {
            "operator": operator,
            **({"targetReplicatedJobs": list(targets)} if targets else {}),
        }
    if failure is not None:
        spec["failurePolicy"] = _failure_policy(owner, failure, names)
    spec["replicatedJobs"] = replicated
    return spec


def _targets(owner: str, prop: str, targets: Sequence[str], names: Sequence[str]) -> None:
    for target in targets:
        if target not in names:
            raise ValueError(
                f"{owner} {prop}={target!r}: no replicated job has that name ({', '.join(names)})"
            )


def _failure_policy(owner: str, failure: FailurePolicy, names: Sequence[str]) -> dict[str, Any]:
    if (
        isinstance(failure.max_restarts, bool)
        or not isinstance(failure.max_restarts, int)
        or failure.max_restarts < 0
    ):
        raise ValueError(
            f"{owner} failure_policy.max_restarts={failure.max_restarts!r}: must be a whole number >= 0"
        )
    policy: dict[str, Any] = {"maxRestarts": failure.max_restarts}
    seen: set[str] = set()
    rules: list[dict[str, Any]] = []
    for rule in failure.rules:
        problem = rule_name_problem(rule.name)
        if problem:
            raise ValueError(f"{owner} failure rule name={rule.name!r}: {problem}")
        if rule.name in seen:
            raise ValueError(f"{owner} failure rule name={rule.name!r}: rule names must be unique")
        seen.add(rule.name)
        if rule.action not in _FAILURE_ACTIONS:
            raise ValueError(
                f"{owner} failure rule {rule.name!r} action={rule.action!r}: must be one of {', '.join(_FAILURE_ACTIONS)}"
            )
        if rule.action in GATED_ACTIONS:
            raise ValueError(
                f"{owner} failure rule {rule.name!r} action={rule.action!r}: needs JobSet's RestartJob feature gate (off by default)"
            )
        for reason in rule.on_job_failure_reasons:
            if reason not in JOB_FAILURE_REASONS:
                raise ValueError(
                    f"{owner} failure rule {rule.name!r} on_job_failure_reasons={reason!r}: must be one of "
                    f"{', '.join(JOB_FAILURE_REASONS)}"
                )
        _targets(
            owner, f"failure rule {rule.name!r} target_replicated_jobs", rule.target_replicated_jobs, names
        )
        out: dict[str, Any] = {"name": rule.name, "action": rule.action}
        if rule.on_job_failure_reasons:
            out["onJobFailureReasons"] = list(rule.on_job_failure_reasons)
        if rule.target_replicated_jobs:
            out["targetReplicatedJobs"] = list(rule.target_replicated_jobs)
        rules.append(out)
    if rules:
        policy["rules"] = rules
    return policy
