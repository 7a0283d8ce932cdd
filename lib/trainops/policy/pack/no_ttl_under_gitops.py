"""Run-once objects that Argo CD owns set no object-deleting TTL (``ttlSecondsAfterFinished``).

Why: the TTL controller deletes the finished job; Argo CD sees the object missing from the cluster
and (with auto-sync) creates it again: the training run starts over, forever.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata: {name: eval-3f2a1b}
    spec:
      ttlSecondsAfterFinished: 3600
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

Remediation: Remove ttlSecondsAfterFinished; remove finished runs with `trainops argocd prune-finished` instead.

Source: https://kubernetes.io/docs/concepts/workloads/controllers/job/#ttl-mechanism-for-finished-jobs
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import RUN_ONCE
from trainops.policy.pods import dig
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "no-ttl-under-gitops"
LEVEL: Level = "error"
KINDS = RUN_ONCE
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_TTL_PATHS = (("spec", "ttlSecondsAfterFinished"), ("spec", "runPolicy", "ttlSecondsAfterFinished"))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """A TTL at the Job/JobSet place or in a Kubeflow runPolicy."""
    for path in _TTL_PATHS:
        value = dig(obj, *path)
        if value is not None:
            yield Issue(
                path, f"ttlSecondsAfterFinished {value} deletes the finished run; Argo CD re-creates it", ID
            )
