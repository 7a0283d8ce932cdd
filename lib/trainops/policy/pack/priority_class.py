"""Pods and training jobs use a priority class from an allow-list (an option; empty allows any).

Why: a priority class decides who is preempted when GPUs run out; a job that names a production
serving class can evict the model servers, one that names a class that does not exist is rejected.

Options: ``allowed``: PriorityClass names pods and jobs may use (Pod ``priorityClassName``,
Kubeflow ``runPolicy.schedulingPolicy.priorityClass``, Kueue ``kueue.x-k8s.io/priority-class`` label).
Empty: not checked.

Default: enabled, level warning, ``allowed: []``.

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

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.pods import POD_KINDS, dig, labels_of, pod_templates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "priority-class"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"allowed": {"type": "array", "items": {"type": "string"}}}
DEFAULT: dict[str, Any] = {"allowed": []}
RULE = register(describe(ID, LEVEL, __doc__))

KUEUE_PRIORITY = "kueue.x-k8s.io/priority-class"


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each priority class name (pod specs, runPolicy, Kueue label) outside the allow-list."""
    allowed = list(conf["allowed"])
    if not allowed:
        return
    found: list[tuple[tuple[str | int, ...], Any]] = []
    if group_kind(obj) in POD_KINDS:
        found += [
            ((*s.parts, "priorityClassName"), s.spec.get("priorityClassName")) for s in pod_templates(obj)
        ]
    found.append(
        (
            ("spec", "runPolicy", "schedulingPolicy", "priorityClass"),
            dig(obj, "spec", "runPolicy", "schedulingPolicy", "priorityClass"),
        )
    )
    found.append((("metadata", "labels", KUEUE_PRIORITY), labels_of(obj).get(KUEUE_PRIORITY)))
    for parts, name in found:
        if isinstance(name, str) and name and "${" not in name and name not in allowed:
            yield Issue(parts, f'priority class "{name}" is not allowed ({", ".join(allowed)})', ID)
