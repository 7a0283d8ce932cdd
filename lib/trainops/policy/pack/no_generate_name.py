"""GitOps-managed objects have a fixed ``metadata.name``, never ``generateName``.

Why: Argo CD (and ``kubectl apply``) cannot track an object whose name the API server invents: every
sync creates another one, and none is ever pruned.

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
    metadata: {generateName: eval-}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: eval, image: registry.example.com/eval:1.0}]

Remediation: Replace generateName with a fixed name (trainops adds a content-hash suffix to run-once objects).

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/resource_hooks/#generate-name
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "no-generate-name"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """metadata.generateName set."""
    generate = metadata_of(obj).get("generateName")
    if generate:
        yield Issue(("metadata", "generateName"), f'object uses generateName "{generate}"', ID)
