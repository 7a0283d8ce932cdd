"""What JobSet's validating webhook rejects when a JobSet is created, as pure functions shared by the
``JobSet`` construct (:mod:`trainops.constructs._core.jobset`, which refuses such props at once) and
the ``jobset-webhook`` validation family (:mod:`trainops.validate.checks.jobset`, which flags a
hand-written JobSet).

Mirrors kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook.go``: ``ValidateCreate``,
``validateFailurePolicy``, ``validateCoordinator``, ``validateCoordinatorLabelValue`` and the pure part
of ``validateVolumeClaimPolicies`` / ``validateReplicatedJobsVolumeClaims`` (the comparison with a PVC
that already exists in the cluster is cluster state, not checked). The object is judged as the webhook
sees it: after the JobSet CRD's defaults (``replicas`` 1, ``groupName`` ``default``) and the mutating
webhook's ``Default`` (``completionMode: Indexed``, failure rule names ``failurePolicyRule<i>``), with
the feature gates at their v0.12.0 defaults (``pkg/features/features.go``: ``InPlaceRestart`` and
``RestartJob`` alpha, off). A JobSet created with ``generateName`` has its name by the time validating
webhooks run (kubernetes/kubernetes ``staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go``
``Store.Create`` calls ``rest.BeforeCreate``, which generates it, before ``createValidation``): the
prefix (at most 58 characters) plus 5 random characters (``names.SimpleNameGenerator``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from trainops.core.kinds import Parts
from trainops.core.naming import DNS1035_LABEL, DNS1123_SUBDOMAIN, label_value_problem

#: ``validOnJobFailureReasons`` (the batch/v1 Job failure condition reasons).
JOB_FAILURE_REASONS: Final = (
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
)
#: ``ruleNameFmt``; names of ``minRuleNameLength`` 1 to ``maxRuleNameLength`` 128 characters.
RULE_NAME: Final = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
RULE_NAME_MAX: Final = 128
#: Failure actions behind the ``RestartJob`` feature gate (alpha, off by default in v0.12.0).
GATED_ACTIONS: Final = ("RestartJob", "RestartJobAndIgnoreMaxRestarts")
#: ``maxManagedByLength`` and ``maxVolumeClaimLength``.
MAX_MANAGED_BY: Final = 63
MAX_VOLUME_CLAIM: Final = 63
#: The random suffix the Job controller appends to an Indexed Job's pod names (``-abcde`` in the webhook).
POD_SUFFIX: Final = "-abcde"
_INT32_MAX: Final = 2**31 - 1
#: ``maxGeneratedNameLength``: 63 less the 5 random characters (``names.SimpleNameGenerator``).
_GENERATED_PREFIX_MAX: Final = 58
#: ``IsDomainPrefixedPath``: a DNS-1123 subdomain, ``/``, then a path of these characters.
_PATH: Final = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")

Problem = tuple[Parts, str]


def job_name(jobset: str, replicated_job: str, index: int) -> str:
    """The name of Job ``index`` of a replicated job (``placement.GenJobName``)."""
    return f"{jobset}-{replicated_job}-{index}"


def pod_name(jobset: str, replicated_job: str, job_index: int, pod_index: int) -> str:
    """The longest name of pod ``pod_index`` of that Job, with the random suffix
    (``placement.GenPodName`` + ``-abcde``)."""
    return f"{jobset}-{replicated_job}-{job_index}-{pod_index}{POD_SUFFIX}"


def rule_name_problem(name: Any) -> str | None:
    """Why ``name`` is no failure-policy rule name (``validateFailurePolicy``), or ``None``."""
    if not isinstance(name, str) or not 1 <= len(name) <= RULE_NAME_MAX or not RULE_NAME.match(name):
        return (
            "must start with a letter, then letters, digits, '_', ',' or ':', end with a letter, digit or '_', "
            f"1-{RULE_NAME_MAX} characters"
        )
    return None


def generated_name(metadata: Any) -> str:
    """The name the webhook sees: ``metadata.name``, else ``generateName`` (cut to 58 characters) and 5
    random characters (shown as ``xxxxx``), else ``""``."""
    if not isinstance(metadata, Mapping):
        return ""
    name, prefix = metadata.get("name"), metadata.get("generateName")
    if isinstance(name, str) and name:
        return name
    return f"{prefix[:_GENERATED_PREFIX_MAX]}xxxxx" if isinstance(prefix, str) and prefix else ""


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _dns1035(value: str, what: str) -> str | None:
    problem = DNS1035_LABEL.problem(value)
    return f"{what} {value!r} {problem}" if problem else None


def webhook_problems(obj: Mapping[str, Any]) -> list[Problem]:
    """Every reason JobSet's webhook rejects creating ``obj`` (a ``jobset.x-k8s.io/v1alpha2`` JobSet
    as a dict), as ``(path parts, message)`` in the webhook's order; ``[]`` when it accepts it. Fields
    of the wrong type are left to the schema check (they count as absent here).

    Mirrors ``ValidateCreate`` (kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook.go``).
    """
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return []
    name = generated_name(obj.get("metadata"))
    jobs = [j if isinstance(j, Mapping) else {} for j in _list(spec.get("replicatedJobs"))]
    out: list[Problem] = []
    failure = spec.get("failurePolicy")
    failure = failure if isinstance(failure, Mapping) else None
    if failure is not None and failure.get("restartStrategy") == "InPlaceRestart":
        out.append(
            (
                ("spec", "failurePolicy", "restartStrategy"),
                "InPlaceRestart needs JobSet's InPlaceRestart feature gate (alpha, off by default)",
            )
        )
    if jobs and jobs[0].get("dependsOn") is not None:
        out.append(
            (("spec", "replicatedJobs", 0, "dependsOn"), "the first replicated job cannot depend on another")
        )
    out += _network(spec)
    managed = spec.get("managedBy")
    if isinstance(managed, str):
        out += [(("spec", "managedBy"), p) for p in _managed_by_problems(managed)]
    names: list[str] = []
    for index, job in enumerate(jobs):
        out += _replicated_job(name, index, job, names)
    all_names = [str(j.get("name")) for j in jobs]
    success = spec.get("successPolicy")
    if isinstance(success, Mapping):
        for i, target in enumerate(_list(success.get("targetReplicatedJobs"))):
            if target not in all_names:
                out.append(
                    (
                        ("spec", "successPolicy", "targetReplicatedJobs", i),
                        f"{target!r} is no replicated job of this JobSet ({', '.join(all_names)})",
                    )
                )
    if failure is not None:
        out += failure_policy_problems(failure, jobs)
    coordinator = spec.get("coordinator")
    if isinstance(coordinator, Mapping):
        out += _coordinator(name, spec, coordinator, jobs)
    out += _volume_claims(name, spec, jobs)
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _network(spec: Mapping[str, Any]) -> list[Problem]:
    network = spec.get("network")
    subdomain = network.get("subdomain") if isinstance(network, Mapping) else None
    if not isinstance(subdomain, str) or not subdomain:
        return []
    at: Parts = ("spec", "network", "subdomain")
    found = [DNS1123_SUBDOMAIN.problem(subdomain), DNS1035_LABEL.problem(subdomain)]
    return [(at, f"subdomain {subdomain!r} {p} (it is also the Service's name)") for p in found if p]


def _managed_by_problems(value: str) -> list[str]:
    """``IsDomainPrefixedPath`` and ``maxManagedByLength``."""
    out: list[str] = []
    host, slash, path = value.partition("/")
    if not slash or not path:
        out.append(f"managedBy {value!r} must be a domain-prefixed path, e.g. kueue.x-k8s.io/multikueue")
    else:
        problem = DNS1123_SUBDOMAIN.problem(host)
        if problem:
            out.append(f"managedBy {value!r}: its domain {problem}")
        if not _PATH.fullmatch(path):
            out.append(f"managedBy {value!r}: its path holds characters a URL path may not")
    if len(value) > MAX_MANAGED_BY:
        out.append(f"managedBy {value!r} is longer than {MAX_MANAGED_BY} characters")
    return out


def _replicated_job(jobset: str, index: int, job: Mapping[str, Any], names: list[str]) -> Iterator[Problem]:
    at: Parts = ("spec", "replicatedJobs", index)
    name = str(job.get("name", ""))
    names.append(name)
    replicas = _int(job.get("replicas"), 1)
    template = job.get("template")
    job_spec = template.get("spec") if isinstance(template, Mapping) else None
    job_spec = job_spec if isinstance(job_spec, Mapping) else {}
    parallelism = _int(job_spec.get("parallelism"), 1)
    if parallelism * replicas > _INT32_MAX:
        yield (at, f"replicas x parallelism of {name!r} ({replicas} x {parallelism}) exceeds {_INT32_MAX}")
    group = job.get("groupName", "default")
    problem = _dns1035(str(group), "groupName") if isinstance(group, str) else None
    if problem:
        yield ((*at, "groupName"), problem)
    longest = job_name(jobset, name, replicas - 1)
    problem = _dns1035(longest, "Job name")
    if problem:
        yield ((*at, "name"), f"{problem}: shorten the JobSet's or the replicated job's name")
    completions = job_spec.get("completions")
    if job_spec.get("completionMode", "Indexed") == "Indexed" and isinstance(completions, int):
        pod = pod_name(jobset, name, replicas - 1, completions - 1)
        problem = _dns1035(pod, "pod name")
        if problem:
            yield ((*at, "name"), f"{problem}: shorten the JobSet's or the replicated job's name")
    for i, dependency in enumerate(_list(job.get("dependsOn"))):
        target = dependency.get("name") if isinstance(dependency, Mapping) else None
        if target not in names:
            yield (
                (*at, "dependsOn", i, "name"),
                f"replicated job {name!r} cannot depend on {target!r}: not this or an earlier replicated job",
            )


def failure_policy_problems(failure: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """``validateFailurePolicy``: gated actions (then nothing else), rule names (after the default
    ``failurePolicyRule<i>``), unique names, targets and job failure reasons."""
    at: Parts = ("spec", "failurePolicy", "rules")
    rules = [r if isinstance(r, Mapping) else {} for r in _list(failure.get("rules"))]
    gated = [i for i, r in enumerate(rules) if r.get("action") in GATED_ACTIONS]
    if gated:
        return [
            (
                (*at, gated[0], "action"),
                f"{rules[gated[0]].get('action')} needs JobSet's RestartJob feature gate (alpha, off by default)",
            )
        ]
    names = [str(j.get("name")) for j in jobs]
    out: list[Problem] = []
    seen: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        rule_name = rule.get("name") or f"failurePolicyRule{i}"
        seen.setdefault(str(rule_name), []).append(i)
        problem = rule_name_problem(rule_name)
        if problem:
            out.append(((*at, i, "name"), f"rule name {rule_name!r} {problem}"))
        for k, target in enumerate(_list(rule.get("targetReplicatedJobs"))):
            if target not in names:
                out.append(
                    (
                        (*at, i, "targetReplicatedJobs", k),
                        f"{target!r} is no replicated job of this JobSet ({', '.join(names)})",
                    )
                )
        for k, reason in enumerate(_list(rule.get("onJobFailureReasons"))):
            if reason not in JOB_FAILURE_REASONS:
                out.append(
                    (
                        (*at, i, "onJobFailureReasons", k),
                        f"{reason!r} is no Job failure reason ({', '.join(JOB_FAILURE_REASONS)})",
                    )
                )
    for rule_name, indexes in seen.items():
        if len(indexes) > 1:
            out.append(((*at, indexes[1], "name"), f"rule name {rule_name!r} is given to rules {indexes}"))
    return out


def _coordinator(
    jobset: str, spec: Mapping[str, Any], coordinator: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]
) -> list[Problem]:
    """``validateCoordinator`` (its first problem only, as the webhook returns) and
    ``validateCoordinatorLabelValue`` (``CoordinatorEndpoint``)."""
    at: Parts = ("spec", "coordinator")
    target = coordinator.get("replicatedJob")
    job_index, pod_index = _int(coordinator.get("jobIndex"), 0), _int(coordinator.get("podIndex"), 0)
    out: list[Problem] = []
    job = next((j for j in jobs if j.get("name") == target), None)
    template = job.get("template") if job is not None else None
    job_spec = template.get("spec") if isinstance(template, Mapping) else None
    job_spec = job_spec if isinstance(job_spec, Mapping) else {}
    completions = job_spec.get("completions")
    if job is None:
        out.append(((*at, "replicatedJob"), f"coordinator replicated job {target!r} does not exist"))
    elif not 0 <= job_index < _int(job.get("replicas"), 1):
        out.append(((*at, "jobIndex"), f"coordinator job index {job_index} is not a Job of {target!r}"))
    elif job_spec.get("completionMode", "Indexed") != "Indexed" or not isinstance(completions, int):
        out.append((at, f"the coordinator's replicated job {target!r} must be Indexed and set completions"))
    elif not 0 <= pod_index < completions:
        out.append(((*at, "podIndex"), f"coordinator pod index {pod_index} is not a pod of {target!r}"))
    network = spec.get("network")
    subdomain = network.get("subdomain") if isinstance(network, Mapping) else None
    endpoint = f"{jobset}-{target}-{job_index}-{pod_index}.{subdomain or jobset}"
    problem = label_value_problem(endpoint)
    if problem:
        out.append(
            (at, f"coordinator endpoint {endpoint!r} is no label value ({problem}): shorten the names")
        )
    return out


def _volume_claims(jobset: str, spec: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """The pure part of ``validateVolumeClaimPolicies`` and ``validateReplicatedJobsVolumeClaims``."""
    out: list[Problem] = []
    seen: set[str] = set()
    for p, policy in enumerate(_list(spec.get("volumeClaimPolicies"))):
        templates = policy.get("templates") if isinstance(policy, Mapping) else None
        for t, template in enumerate(_list(templates)):
            meta = template.get("metadata") if isinstance(template, Mapping) else None
            claim = str(meta.get("name", "")) if isinstance(meta, Mapping) else ""
            at: Parts = ("spec", "volumeClaimPolicies", p, "templates", t, "metadata", "name")
            if claim in seen:
                out.append((at, f"claim template name {claim!r} is given twice"))
            seen.add(claim)
            problem = DNS1123_SUBDOMAIN.problem(claim)
            if problem:
                out.append((at, f"claim template name {claim!r} {problem}"))
            if len(f"{claim}-{jobset}") > MAX_VOLUME_CLAIM:
                out.append(
                    (at, f"claim name {claim}-{jobset!s} is longer than {MAX_VOLUME_CLAIM} characters")
                )
            out += _claim_mounts(claim, jobs)
    return out


def _claim_mounts(claim: str, jobs: Sequence[Mapping[str, Any]]) -> list[Problem]:
    out: list[Problem] = []
    mounted = False
    for index, job in enumerate(jobs):
        pod: Any = job
        for key in ("template", "spec", "template", "spec"):
            pod = pod.get(key) if isinstance(pod, Mapping) else None
        if not isinstance(pod, Mapping):
            continue
        for v, volume in enumerate(_list(pod.get("volumes"))):
            if isinstance(volume, Mapping) and volume.get("name") == claim:
                out.append(
                    (
                        (
                            "spec",
                            "replicatedJobs",
                            index,
                            "template",
                            "spec",
                            "template",
                            "spec",
                            "volumes",
                            v,
                            "name",
                        ),
                        f"volume {claim!r} has the name of a volumeClaimPolicies template",
                    )
                )
        for group in ("initContainers", "containers"):
            for container in _list(pod.get(group)):
                mounts = container.get("volumeMounts") if isinstance(container, Mapping) else None
                mounted = mounted or any(
                    isinstance(m, Mapping) and m.get("name") == claim for m in _list(mounts)
                )
    if not mounted:
        out.append(
            (("spec", "replicatedJobs"), f"no container mounts the volumeClaimPolicies template {claim!r}")
        )
    return out
