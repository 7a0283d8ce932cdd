"""A Rollout's two Services (blue-green active and preview, canary stable and canary) are
different, exist, and select the Rollout's pods.

Why: the Argo Rollouts controller marks a Rollout ``InvalidSpec`` and stops when its two Services
are one (``ValidateRolloutStrategyBlueGreen``: "This rollout uses the same service for the active and
preview services"), when a Service it names is missing, or when a Service's selector has a label
the pod template lacks (``ValidateService``: "Service has unmatch label in rollout"); none of it is
seen before the sync, since the controller has no admission webhook. A preview Service that
selects other pods also makes the pre-promotion analysis measure the wrong version.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: argoproj.io/v1alpha1
    kind: Rollout
    metadata: {name: resnet, namespace: serving}
    spec:
      selector: {matchLabels: {app: resnet}}
      template:
        metadata: {labels: {app: resnet}}
        spec:
          containers: [{name: server, image: registry.example.com/resnet:2.0}]
      strategy:
        blueGreen: {activeService: resnet, previewService: resnet-preview}
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: resnet, namespace: serving}
    spec: {selector: {app: resnet}, ports: [{name: http, port: 80}]}
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: resnet-preview, namespace: serving}
    spec: {selector: {app: resnet}, ports: [{name: http, port: 80}]}

FAIL:

    apiVersion: argoproj.io/v1alpha1
    kind: Rollout
    metadata: {name: resnet, namespace: serving}
    spec:
      selector: {matchLabels: {app: resnet}}
      template:
        metadata: {labels: {app: resnet}}
        spec:
          containers: [{name: server, image: registry.example.com/resnet:2.0}]
      strategy:
        blueGreen: {activeService: resnet, previewService: resnet}
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: resnet, namespace: serving}
    spec: {selector: {app: resnet-v1}, ports: [{name: http, port: 80}]}

Remediation: Give the Rollout two different Services whose selectors use only labels of its pod template.

Source: https://github.com/argoproj/argo-rollouts/blob/v1.9.1/pkg/apis/rollouts/validation/validation_references.go (ValidateService); https://github.com/argoproj/argo-rollouts/blob/v1.9.1/pkg/apis/rollouts/validation/validation.go (ValidateRolloutStrategyBlueGreen, ValidateRolloutStrategyCanary)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex, where
from trainops.policy.pods import as_dict, dig, metadata_of
from trainops.policy.rule import Context, describe

ID = "rollout-services"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

ROLLOUT = ("argoproj.io", "Rollout")
#: The label the controller adds to the selectors of the Services it manages
#: (``v1alpha1.DefaultRolloutUniqueLabelKey``; ``ValidateService`` skips it).
POD_HASH_LABEL = "rollouts-pod-template-hash"
#: The Service fields of each strategy, in pairs that must differ.
PAIRS = (("blueGreen", "activeService", "previewService"), ("canary", "stableService", "canaryService"))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each Rollout's Service pair: different, existing, selecting its template labels."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, rollout in enumerate(objects):
        if group_kind(rollout) != ROLLOUT:
            continue
        namespace = metadata_of(rollout).get("namespace")
        labels = as_dict(dig(rollout, "spec", "template", "metadata", "labels"))
        for strategy, first, second in PAIRS:
            spec = dig(rollout, "spec", "strategy", strategy)
            if not isinstance(spec, dict):
                continue
            names = {field: spec.get(field) for field in (first, second)}
            path = ("spec", "strategy", strategy)
            if isinstance(names[first], str) and names[first] and names[first] == names[second]:
                yield (
                    index,
                    Issue(
                        (*path, second),
                        f'{second} "{names[second]}" is the {first} too: the controller needs two Services',
                        ID,
                    ),
                )
                names.pop(second)
            for field, name in names.items():
                if not isinstance(name, str) or not name:
                    continue
                if not index_.exists("Service", name, namespace):
                    yield (
                        index,
                        Issue(
                            (*path, field),
                            f'{field} Service "{name}" does not exist in {where(namespace)}',
                            ID,
                        ),
                    )
                    continue
                service = index_.first("Service", name, namespace)
                selector = as_dict(dig(service, "spec", "selector")) if service is not None else {}
                wrong = sorted(k for k, v in selector.items() if k != POD_HASH_LABEL and labels.get(k) != v)
                if wrong:
                    yield (
                        index,
                        Issue(
                            (*path, field),
                            f'{field} Service "{name}" selects {wrong[0]}={selector[wrong[0]]}, '
                            "which the Rollout's pod template does not carry",
                            ID,
                        ),
                    )
