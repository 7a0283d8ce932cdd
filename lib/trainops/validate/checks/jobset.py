"""``jobset-webhook``: what JobSet's validating webhook rejects when a JobSet is created, although the
API server (the JobSet CRD's schema and CEL rules) accepts it: a first replicated job with
``dependsOn``, a dependency on a later replicated job, a network subdomain that is no DNS-1035 label,
a ``managedBy`` that is no domain-prefixed path, a groupName that is no DNS-1035 label, Job or pod
names that the JobSet's and replicated jobs' names make longer than 63 characters, success- and
failure-policy targets that are no replicated job, bad failure-rule names (or two of one name) and
Job failure reasons, actions behind feature gates that are off by default, a coordinator outside the
JobSet, and volume claim templates no container mounts.

PASS::

    spec:
      replicatedJobs:
      - name: workers
        template: {spec: {parallelism: 2, completions: 2, template: {spec: {...}}}}
      failurePolicy:
        rules: [{name: deadline, action: FailJobSet, onJobFailureReasons: [DeadlineExceeded]}]

FAIL::

    spec:
      replicatedJobs:
      - name: workers
        dependsOn: [{name: driver, status: Ready}]   # the first replicated job cannot depend on another
        template: {spec: {template: {spec: {...}}}}

Remediation: change the JobSet as the message says so that JobSet's webhook accepts it.

Source: kubernetes-sigs/jobset v0.12.0 ``pkg/webhooks/jobset_webhook.go`` (``ValidateCreate``,
``validateFailurePolicy``, ``validateCoordinator``, ``validateCoordinatorLabelValue``,
``validateVolumeClaimPolicies``), through :func:`trainops.core.jobset.webhook_problems` (the rules the
``JobSet`` construct applies to its own props).
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.core.findings import Issue
from trainops.core.jobset import webhook_problems
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

#: The API group of JobSet (``jobset.x-k8s.io/v1alpha2`` is the version the webhook serves).
GROUP = "jobset.x-k8s.io"

RULE = register(
    RuleInfo(
        id="jobset-webhook",
        level="error",
        summary="A JobSet passes JobSet's validating webhook on create (names, dependencies, policies).",
        rationale="JobSet's webhook rejects these JobSets although their schema is valid: Argo CD's sync "
        "fails, or, where the webhook is not installed, the controller creates Jobs it cannot name.",
        remediation="Change the JobSet as the message says so that JobSet's webhook accepts it.",
        source="https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/webhooks/jobset_webhook.go",
    )
)


def check(context: DocumentContext) -> Iterator[Issue]:
    """Issues for a ``jobset.x-k8s.io`` JobSet that JobSet's webhook rejects (other documents: none)."""
    if context.kind != "JobSet" or context.api_version.split("/")[0] != GROUP:
        return
    for parts, message in webhook_problems(context.data):
        yield Issue(parts, message, RULE.id)


CHECK = Check(RULE, check)
