"""Pods and training jobs use a priority class from an allow-list (an option; empty allows any),
and, where the config requires one, name a priority class at all.

Why: a priority class decides who is preempted when GPUs run out; a job that names a production
serving class can evict the model servers, one that names a class that does not exist is rejected.

A pod without a priority class runs at the cluster's ``globalDefault`` PriorityClass, or at
priority 0: below every job that names one, so the first to be preempted.

Options: ``allowed``: PriorityClass names pods and jobs may use (Pod ``priorityClassName``,
Kubeflow ``runPolicy.schedulingPolicy.priorityClass``, Kueue ``kueue.x-k8s.io/priority-class`` label).
Empty: not checked. ``require``: every pod template names a priority class (its
``priorityClassName``, or its job's ``runPolicy.schedulingPolicy.priorityClass`` or Kueue
``kueue.x-k8s.io/priority-class`` label), as Polaris ``priorityClassNotSet``. Off by default: a
cluster with a ``globalDefault`` PriorityClass, or one where only Kueue orders the jobs, gives
every pod the priority it needs without a name in each manifest; turn it on where pods must choose.

Default: enabled, level warning, ``allowed: []``, ``require: false``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      priorityClassName: training-low
      containers: [{name: train, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      priorityClassName: system-cluster-critical
      containers: [{name: train, image: registry.example.com/train:1.0}]

Remediation: Use one of the allowed priority classes.

Source: https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.pods import POD_KINDS, dig, labels_of, pod_templates
from trainops.policy.rule import Context, describe

ID = "priority-class"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {
    "allowed": {"type": "array", "items": {"type": "string"}},
    "require": {"type": "boolean"},
}
DEFAULT: dict[str, Any] = {"allowed": [], "require": False}
RULE = register(describe(ID, LEVEL, __doc__))

KUEUE_PRIORITY = "kueue.x-k8s.io/priority-class"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each priority class name (pod specs, runPolicy, Kueue label) outside the allow-list; with
    ``require``, each pod template without one (when neither runPolicy nor the Kueue label names one)."""
    allowed = list(conf["allowed"])
    sites = pod_templates(obj) if group_kind(obj) in POD_KINDS else []
    found: list[tuple[tuple[str | int, ...], Any]] = [
        ((*s.parts, "priorityClassName"), s.spec.get("priorityClassName")) for s in sites
    ]
    found.append(
        (
            ("spec", "runPolicy", "schedulingPolicy", "priorityClass"),
            dig(obj, "spec", "runPolicy", "schedulingPolicy", "priorityClass"),
        )
    )
    found.append((("metadata", "labels", KUEUE_PRIORITY), labels_of(obj).get(KUEUE_PRIORITY)))
    for parts, name in found:
        if allowed and isinstance(name, str) and name and "${" not in name and name not in allowed:
            yield Issue(parts, f'priority class "{name}" is not allowed ({", ".join(allowed)})', ID)
    if not conf["require"] or any(_named(name) for _, name in found[len(sites) :]):
        return
    for site in sites:
        if not site.partial and not _named(site.spec.get("priorityClassName")):
            yield Issue((*site.parts, "priorityClassName"), "pod names no priority class", ID)


def _named(name: Any) -> bool:
    return isinstance(name, str) and bool(name.strip())
