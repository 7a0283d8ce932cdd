"""Katib Experiments pass what the Katib validating webhook enforces: trial counts, objective,
algorithm and feasible parameter spaces.

Why: Katib's CRD validates almost nothing; its webhook rejects the Experiment at sync time, so a
typo in a search space fails in Argo CD instead of in review (and without the webhook installed,
the Experiment is accepted and then never produces a trial).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1beta1
    kind: Experiment
    metadata: {name: tune}
    spec:
      maxTrialCount: 12
      parallelTrialCount: 3
      objective: {type: maximize, objectiveMetricName: accuracy}
      algorithm: {algorithmName: random}
      parameters:
      - {name: lr, parameterType: double, feasibleSpace: {min: "0.001", max: "0.1"}}

FAIL:

    apiVersion: kubeflow.org/v1beta1
    kind: Experiment
    metadata: {name: tune}
    spec:
      maxTrialCount: 2
      parallelTrialCount: 3
      objective: {type: maximize, objectiveMetricName: accuracy}
      algorithm: {algorithmName: random}
      parameters:
      - {name: lr, parameterType: double, feasibleSpace: {list: ["0.1"]}}

Remediation: Fix the Experiment as the message says (counts, objective, algorithm, parameter feasible spaces).

Source: https://github.com/kubeflow/katib/blob/master/pkg/webhook/v1beta1/experiment/validator/validator.go (ValidateExperiment, validateObjective, validateAlgorithm, validateParameters)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "katib-experiment"
LEVEL: Level = "error"
KINDS = frozenset({("kubeflow.org", "Experiment")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_TYPES = ("int", "double", "categorical", "discrete", "")
_DISTRIBUTIONS = ("uniform", "logUniform", "normal", "logNormal", "")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """ValidateExperiment's checks that need no cluster (suggestion and collector configs excepted)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    yield from _counts(spec)
    yield from _objective(spec)
    algorithm = spec.get("algorithm")
    if not isinstance(algorithm, dict) or not algorithm.get("algorithmName"):
        yield Issue(("spec", "algorithm"), "spec.algorithm.algorithmName must be specified", ID)
    parameters = spec.get("parameters")
    has_parameters = isinstance(parameters, list) and bool(parameters)
    if not has_parameters and spec.get("nasConfig") is None:
        yield Issue(("spec",), "spec.parameters or spec.nasConfig must be specified", ID)
    if has_parameters and spec.get("nasConfig") is not None:
        yield Issue(
            ("spec", "nasConfig"), "only one of spec.parameters and spec.nasConfig can be specified", ID
        )
    for index, parameter in enumerate(parameters if isinstance(parameters, list) else []):
        if isinstance(parameter, dict):
            yield from _parameter(index, parameter)


def _counts(spec: dict[str, Any]) -> Iterator[Issue]:
    max_trials = _int(spec.get("maxTrialCount"))
    parallel = _int(spec.get("parallelTrialCount"))
    failed = _int(spec.get("maxFailedTrialCount"))
    if failed is not None and failed < 0:
        yield Issue(
            ("spec", "maxFailedTrialCount"), f"maxFailedTrialCount {failed} should not be less than 0", ID
        )
    if max_trials is not None and max_trials <= 0:
        yield Issue(("spec", "maxTrialCount"), f"maxTrialCount {max_trials} must be greater than 0", ID)
    if parallel is not None and parallel <= 0:
        yield Issue(
            ("spec", "parallelTrialCount"), f"parallelTrialCount {parallel} must be greater than 0", ID
        )
    if failed is not None and max_trials is not None and failed > max_trials:
        yield Issue(
            ("spec", "maxFailedTrialCount"),
            f"maxFailedTrialCount {failed} exceeds maxTrialCount {max_trials}",
            ID,
        )
    if parallel is not None and max_trials is not None and parallel > max_trials:
        yield Issue(
            ("spec", "parallelTrialCount"),
            f"parallelTrialCount {parallel} exceeds maxTrialCount {max_trials}",
            ID,
        )


def _objective(spec: dict[str, Any]) -> Iterator[Issue]:
    objective = spec.get("objective")
    if not isinstance(objective, dict):
        yield Issue(("spec", "objective"), "spec.objective must be specified", ID)
        return
    if objective.get("type") not in ("minimize", "maximize"):
        yield Issue(
            ("spec", "objective", "type"),
            f"objective.type {objective.get('type')!r} must be minimize or maximize",
            ID,
        )
    name = objective.get("objectiveMetricName")
    if not name:
        yield Issue(
            ("spec", "objective", "objectiveMetricName"),
            "objective.objectiveMetricName must be specified",
            ID,
        )
    additional = objective.get("additionalMetricNames")
    if name and isinstance(additional, list) and name in additional:
        yield Issue(
            ("spec", "objective", "additionalMetricNames"),
            f'additionalMetricNames should not contain the objective metric "{name}"',
            ID,
        )


def _parameter(index: int, parameter: dict[str, Any]) -> Iterator[Issue]:
    base = ("spec", "parameters", index)
    name = parameter.get("name", index)
    kind = parameter.get("parameterType", "")
    if kind not in _TYPES:
        yield Issue(
            (*base, "parameterType"), f'parameter "{name}": parameterType {kind!r} is not supported', ID
        )
    space = parameter.get("feasibleSpace")
    if not isinstance(space, dict) or not space:
        yield Issue((*base, "feasibleSpace"), f'parameter "{name}": feasibleSpace must be specified', ID)
        return
    if space.get("distribution", "") not in _DISTRIBUTIONS:
        yield Issue(
            (*base, "feasibleSpace", "distribution"),
            f'parameter "{name}": distribution {space.get("distribution")!r} is not supported',
            ID,
        )
    if kind in ("int", "double"):
        if space.get("list"):
            yield Issue(
                (*base, "feasibleSpace", "list"),
                f'parameter "{name}": feasibleSpace.list is not supported for parameterType {kind}',
                ID,
            )
        low, high = _number(space.get("min")), _number(space.get("max"))
        if space.get("min") in (None, "") or space.get("max") in (None, ""):
            yield Issue(
                (*base, "feasibleSpace", "max"),
                f'parameter "{name}": feasibleSpace.min and max must be specified for parameterType {kind}',
                ID,
            )
        elif low is not None and high is not None and low > high:
            yield Issue(
                (*base, "feasibleSpace", "min"),
                f'parameter "{name}": feasibleSpace.min {space.get("min")} exceeds max {space.get("max")}',
                ID,
            )
    elif kind in ("categorical", "discrete"):
        if any(space.get(k) not in (None, "") for k in ("min", "max", "step")):
            yield Issue(
                (*base, "feasibleSpace"),
                f'parameter "{name}": feasibleSpace max, min and step are not supported for parameterType {kind}',
                ID,
            )
        if not isinstance(space.get("list"), list) or not space.get("list"):
            yield Issue(
                (*base, "feasibleSpace", "list"),
                f'parameter "{name}": feasibleSpace.list must list the values for parameterType {kind}',
                ID,
            )
