"""Rollouts on protected clusters run an analysis before a new version takes all traffic, and every
analysis a Rollout names exists and gets its arguments.

Why: on a protected cluster a new model version should be checked on its own metrics (error rate,
latency, a smoke request) before promotion, not after users see it: a blue-green Rollout needs
``prePromotionAnalysis``, a canary an analysis step or a background analysis. Independently of the
cluster, a Rollout that names an AnalysisTemplate that does not exist, or does not pass an argument
the template leaves without a value, is marked ``InvalidSpec`` by the controller
(``ValidateAnalysisTemplatesWithType``: ``args.X was not resolved``), and a template metric without a
``count`` that measures on an ``interval`` runs forever, so the rollout never finishes.

Options: none.

Default: enabled, level error; the analysis requirement applies only when the cluster facts say
``protected``.

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
        blueGreen:
          activeService: resnet
          previewService: resnet-preview
          autoPromotionEnabled: false
          prePromotionAnalysis:
            templates: [{templateName: resnet-analysis}]
            args: [{name: pod-hash, valueFrom: {podTemplateHashValue: Latest}}]
    ---
    apiVersion: argoproj.io/v1alpha1
    kind: AnalysisTemplate
    metadata: {name: resnet-analysis, namespace: serving}
    spec:
      args: [{name: pod-hash}]
      metrics:
      - name: errors
        interval: 1m
        count: 5
        successCondition: result[0] < 0.01
        provider:
          prometheus:
            address: http://prometheus-operated.monitoring.svc:9090
            query: sum(rate(http_requests_total{rollouts_pod_template_hash="{{args.pod-hash}}", code=~"5.."}[2m]))

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
        blueGreen: {activeService: resnet, previewService: resnet-preview}

Remediation: Add a prePromotionAnalysis (blue-green) or an analysis step (canary) naming an AnalysisTemplate of the Rollout's namespace, and pass every argument the template leaves without a value.

Source: https://argo-rollouts.readthedocs.io/en/stable/features/analysis/; https://github.com/argoproj/argo-rollouts/blob/v1.9.1/pkg/apis/rollouts/validation/validation_references.go (ValidateAnalysisTemplatesWithType, ValidateAnalysisTemplateWithType); https://github.com/argoproj/argo-rollouts/blob/v1.9.1/utils/analysis/helpers.go (MergeArgs, ResolveArgs)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex, where
from trainops.policy.pods import as_dict, as_list, dig, metadata_of
from trainops.policy.rule import Context, describe

ID = "rollout-analysis"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

ROLLOUT = ("argoproj.io", "Rollout")
Parts = tuple[str | int, ...]


def analyses(rollout: dict[str, Any]) -> list[tuple[Parts, dict[str, Any], bool]]:
    """Every analysis a Rollout runs: (path, ``RolloutAnalysis``, background?)."""
    found: list[tuple[Parts, dict[str, Any], bool]] = []
    blue_green = as_dict(dig(rollout, "spec", "strategy", "blueGreen"))
    for field in ("prePromotionAnalysis", "postPromotionAnalysis"):
        if isinstance(blue_green.get(field), dict):
            found.append((("spec", "strategy", "blueGreen", field), blue_green[field], False))
    canary = as_dict(dig(rollout, "spec", "strategy", "canary"))
    if isinstance(canary.get("analysis"), dict):
        found.append((("spec", "strategy", "canary", "analysis"), canary["analysis"], True))
    for number, step in enumerate(as_list(canary.get("steps"))):
        if isinstance(step, dict) and isinstance(step.get("analysis"), dict):
            found.append(
                (("spec", "strategy", "canary", "steps", number, "analysis"), step["analysis"], False)
            )
    return found


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per Rollout: an analysis before promotion (protected clusters), then each named template."""
    index_ = ObjectIndex(objects, ctx.facts)
    for index, rollout in enumerate(objects):
        if group_kind(rollout) != ROLLOUT:
            continue
        runs = analyses(rollout)
        strategy = as_dict(dig(rollout, "spec", "strategy"))
        if ctx.facts.protected and not _before_promotion(runs):
            which = "blueGreen" if "blueGreen" in strategy else "canary"
            wanted = (
                "prePromotionAnalysis" if which == "blueGreen" else "an analysis step or background analysis"
            )
            yield (
                index,
                Issue(
                    ("spec", "strategy", which),
                    f"no analysis before promotion on a protected cluster: add {wanted}",
                    ID,
                ),
            )
        namespace = metadata_of(rollout).get("namespace")
        for parts, analysis, background in runs:
            yield from (
                (index, issue) for issue in _templates(index_, parts, analysis, background, namespace)
            )


def _before_promotion(runs: list[tuple[Parts, dict[str, Any], bool]]) -> bool:
    return any(parts[-1] != "postPromotionAnalysis" and as_list(a.get("templates")) for parts, a, _ in runs)


def _templates(
    index_: ObjectIndex, parts: Parts, analysis: dict[str, Any], background: bool, namespace: Any
) -> Iterator[Issue]:
    """Each named template exists; its arguments without a value are passed; its metrics end."""
    passed = {a.get("name") for a in as_list(analysis.get("args")) if isinstance(a, dict)}
    for number, ref in enumerate(as_list(analysis.get("templates"))):
        if not isinstance(ref, dict) or not isinstance(ref.get("templateName"), str):
            continue
        name, cluster_scope = ref["templateName"], ref.get("clusterScope") is True
        kind = "ClusterAnalysisTemplate" if cluster_scope else "AnalysisTemplate"
        at = (*parts, "templates", number)
        if not index_.exists(kind, name, None if cluster_scope else namespace):
            scope = "the cluster" if cluster_scope else where(namespace)
            yield Issue(at, f'{kind} "{name}" does not exist in {scope}', ID)
            continue
        template = index_.first(kind, name, None if cluster_scope else namespace)
        if template is None:
            continue  # external: its spec is not known here
        for arg in as_list(dig(template, "spec", "args")):
            if (
                isinstance(arg, dict)
                and arg.get("value") is None
                and arg.get("valueFrom") is None
                and arg.get("name") not in passed
            ):
                yield Issue(
                    at,
                    f'{kind} "{name}" argument "{arg.get("name")}" is not passed (args.{arg.get("name")} was not resolved)',
                    ID,
                )
        if background:
            continue
        for metric in as_list(dig(template, "spec", "metrics")):
            count = metric.get("count") if isinstance(metric, dict) else None
            if isinstance(metric, dict) and count in (None, 0, "0") and metric.get("interval"):
                yield Issue(
                    at,
                    f'{kind} "{name}" metric "{metric.get("name")}" has an interval and no count: it runs indefinitely',
                    ID,
                )
