"""Run-once objects (Jobs, Kubeflow jobs, TrainJobs, JobSets, Katib Experiments) carry a
content-hash name suffix.

Why: their specs are immutable once created; with a fixed name a changed spec is a sync error
(or an in-place patch the operator ignores), while a hash suffix makes every change a new run and
keeps the old one for its logs (DESIGN.md decision 4).

Options: ``pattern``: regular expression the name's suffix must match.

Default: enabled, level error, ``pattern: "-[0-9a-f]{6,16}$"``.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: bert-ft-3f2a1b}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: bert-ft}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

Remediation: Name run-once objects with a content-hash suffix (trainops constructs do this).

Source: https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-template-immutable
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import RUN_ONCE
from trainops.policy.pods import metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "run-once-names"
LEVEL: Level = "error"
KINDS = RUN_ONCE
CONF: dict[str, dict[str, Any]] = {"pattern": {"type": "string"}}
DEFAULT: dict[str, Any] = {"pattern": "-[0-9a-f]{6,16}$"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The name against the suffix pattern (generateName is no-generate-name's)."""
    name = metadata_of(obj).get("name")
    if isinstance(name, str) and not re.search(conf["pattern"], name):
        yield Issue(
            ("metadata", "name"), f'run-once {obj.get("kind")} "{name}" has no content-hash suffix', ID
        )
