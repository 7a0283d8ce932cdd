"""Objects carry the standard labels: ``app.kubernetes.io/name``, ``part-of``, ``managed-by`` and
the owning team's label.

Why: Argo CD, cost reports, dashboards and on-call routing group objects by these labels; an object
without them has no owner when it breaks or costs money.

Which labels: the object's own ``metadata.labels`` (what kube-linter's ``required-label-*`` checks).
On an object with pod templates (a Deployment, a Job, a PyTorchJob...), a label found on every
one of its pod templates (``spec.template.metadata.labels`` and the like) counts as well: that is
where Kyverno's ``require-labels`` looks (its rule matches Pods, and autogen applies it to the pod
templates of controllers), and where cost and monitoring tools read the labels of running pods.
A pod template's own labels are not required: trainops constructs set both.

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

from trainops.core.findings import Issue, Level
from trainops.core.rules import register
from trainops.policy.pods import labels_of, pod_templates
from trainops.policy.rule import Context, describe

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
    """The required labels the object lacks (one finding listing them), on its own labels and on
    every one of its pod templates (a label on either counts)."""
    labels = labels_of(obj)
    missing = [key for key in conf["required"] if not labels.get(key)]
    if missing:
        sites = [site for site in pod_templates(obj) if not site.partial]
        if sites:
            missing = [key for key in missing if not all(site.labels.get(key) for site in sites)]
    if missing:
        yield Issue(("metadata", "labels"), f"missing labels: {', '.join(missing)}", ID)
