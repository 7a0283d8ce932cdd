"""Objects carry the standard labels: ``app.kubernetes.io/name``, ``part-of``, ``managed-by`` and
the owning team's label.

Why: Argo CD, cost reports, dashboards and on-call routing group objects by these labels; an object
without them has no owner when it breaks or costs money.

Options: ``required``: label keys every object must carry.

Default: enabled, level error, ``required: [app.kubernetes.io/name, app.kubernetes.io/part-of, app.kubernetes.io/managed-by, trainops.dev/team]``.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: settings
      labels:
        app.kubernetes.io/name: settings
        app.kubernetes.io/part-of: bert
        app.kubernetes.io/managed-by: trainops
        trainops.dev/team: ml-platform

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: settings
      labels: {app.kubernetes.io/name: settings}

Remediation: Add the missing labels (trainops constructs set them from the AppDef).

Source: https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import labels_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "standard-labels"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"required": {"type": "array", "items": {"type": "string"}}}
DEFAULT: dict[str, Any] = {
    "required": [
        "app.kubernetes.io/name",
        "app.kubernetes.io/part-of",
        "app.kubernetes.io/managed-by",
        "trainops.dev/team",
    ]
}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The required labels the object lacks (one finding listing them)."""
    labels = labels_of(obj)
    missing = [key for key in conf["required"] if not labels.get(key)]
    if missing:
        yield Issue(("metadata", "labels"), f"missing labels: {', '.join(missing)}", ID)
