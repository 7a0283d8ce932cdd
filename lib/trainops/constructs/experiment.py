"""``Experiment``: a Katib hyperparameter-tuning experiment (kubeflow.org/v1beta1) whose trials are
built from any trainops training construct."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from trainops.constructs._core.argocd import SKIP_DRY_RUN_OPTIONS, run_once_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name, run_once_name
from trainops.constructs._core.props import require_whole
from trainops.core.cluster import Cluster
from trainops.core.kinds import KIND_TABLE, REPLICA_SPECS_FIELD, group_kind, info_of, pod_templates
from trainops.core.naming import DNS1035_LABEL
from trainops.core.nodeenv import configure_node
from trainops.core.scopes import record_namespace

_KIND = "Experiment"
#: The operator a cluster must run (a key of ``Cluster.operators``).
OPERATOR = KIND_TABLE[("kubeflow.org", _KIND)].operators[0]
#: Longest base name: trials are named ``<experiment>-<8 random>`` and their pods add more.
MAX_BASE_NAME = 40
#: Suggestion algorithms of Katib v0.19's default ``katib-config`` (``manifests/v1beta1/installs``).
ALGORITHMS: Final = frozenset(
    {
        "random",
        "grid",
        "tpe",
        "multivariate-tpe",
        "bayesianoptimization",
        "cmaes",
        "sobol",
        "hyperband",
        "enas",
        "darts",
        "pbt",
    }
)
#: Early-stopping algorithms of the default ``katib-config``.
EARLY_STOPPING: Final = frozenset({"medianstop"})
#: ``${trialParameters.<name>}`` (``consts.TrialTemplateParamReplaceFormatRegex``).
_PLACEHOLDER = re.compile(r"\$\{trialParameters\.([^}]+)\}")

ParameterType = Literal["int", "double", "categorical", "discrete"]
Distribution = Literal["uniform", "logUniform", "normal", "logNormal"]
Collector = Literal["StdOut", "File", "TensorFlowEvent", "Prometheus", "Push"]
ResumePolicy = Literal["Never", "LongRunning", "FromVolume"]


@dataclass(frozen=True)
class Objective:
    """What the experiment optimises (``spec.objective``).

    Args:
        type: ``minimize`` | ``maximize``.
        metric: the objective metric's name as the trial prints it, e.g. ``loss``.
        goal: stop when a trial reaches it, or ``None``. Default: ``None``.
        additional_metrics: more metrics to collect (not the objective one). Default: none.
    """

    type: Literal["minimize", "maximize"]
    metric: str
    goal: float | None = None
    additional_metrics: tuple[str, ...] = ()


@dataclass(frozen=True)
class Algorithm:
    """A suggestion (or early-stopping) algorithm and its settings, e.g.
    ``Algorithm("bayesianoptimization", {"random_state": "10"})``."""

    name: str
    settings: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Parameter:
    """One hyperparameter and its feasible space (``spec.parameters[]``).

    Use the constructors :meth:`integer`, :meth:`double`, :meth:`categorical`, :meth:`discrete`.
    Bounds and values are strings, as Katib stores them.
    """

    name: str
    type: ParameterType
    min: str | None = None
    max: str | None = None
    step: str | None = None
    values: tuple[str, ...] = ()
    distribution: Distribution | None = None

    @classmethod
    def integer(cls, name: str, min: int, max: int, step: int | None = None) -> Parameter:
        """An integer in ``[min, max]`` (optionally on a ``step`` grid)."""
        return cls(name, "int", str(min), str(max), None if step is None else str(step))

    @classmethod
    def double(
        cls,
        name: str,
        min: float,
        max: float,
        step: float | None = None,
        distribution: Distribution | None = None,
    ) -> Parameter:
        """A float in ``[min, max]``, optionally on a ``step`` grid or with a distribution."""
        return cls(
            name,
            "double",
            repr(min),
            repr(max),
            None if step is None else repr(step),
            distribution=distribution,
        )

    @classmethod
    def categorical(cls, name: str, values: Sequence[str]) -> Parameter:
        """One of ``values`` (strings)."""
        return cls(name, "categorical", values=tuple(values))

    @classmethod
    def discrete(cls, name: str, values: Sequence[float | int]) -> Parameter:
        """One of the numbers ``values``."""
        return cls(name, "discrete", values=tuple(str(v) for v in values))

    def to_spec(self) -> dict[str, Any]:
        """The ``ParameterSpec`` object."""
        space: dict[str, Any] = {}
        for key, value in (("min", self.min), ("max", self.max), ("step", self.step)):
            if value is not None:
                space[key] = value
        if self.values:
            space["list"] = list(self.values)
        if self.distribution is not None:
            space["distribution"] = self.distribution
        return {"name": self.name, "parameterType": self.type, "feasibleSpace": space}


@dataclass(frozen=True)
class MetricsCollector:
    """How Katib collects the trial's metrics (``spec.metricsCollectorSpec``).

    Args:
        kind: ``StdOut`` (default: ``name=value`` lines on stdout), ``File``, ``TensorFlowEvent``,
            ``Prometheus`` or ``Push``.
        path: absolute file (``File``) or directory (``TensorFlowEvent``) path; Prometheus: URL path.
        format: ``TEXT`` | ``JSON`` for ``File``. Default: ``TEXT``.
        port: the metrics port for ``Prometheus``.
    """

    kind: Collector = "StdOut"
    path: str | None = None
    format: Literal["TEXT", "JSON"] = "TEXT"
    port: int | None = None


#: How Katib tells success, failure and the primary pods of a trial (success and failure condition
#: types per kind: :attr:`trainops.core.kinds.KindInfo.trial_conditions`;
#: ``pkg/apis/controller/experiments/v1beta1/experiment_defaults.go``: DefaultKubeflowJobPrimaryPodLabels).
_CONDITION = 'status.conditions.#(type=="{0}")#|#(status=="True")#'
_MASTER_ROLE = {"training.kubeflow.org/job-role": "master"}


class Experiment(ObjectConstruct):
    """A Katib Experiment: ``parallel_trials`` trials at a time, up to ``max_trials``, each running
    the trial built by ``trial`` with the suggested hyperparameters.

    ``trial(scope)`` builds one training construct (``PyTorchJob``, ``TFJob``, ``TrainJob``,
    ``DataPrepJob``-like batch Jobs, ...) in a throwaway scope; its object, without metadata, becomes
    ``trialTemplate.trialSpec``. Write ``${trialParameters.<name>}`` where a value should be
    substituted (e.g. ``--lr=${trialParameters.lr}``). Each parameter gets a trial parameter of the
    same name unless ``trial_parameters`` maps trial-parameter names to parameters. Success and
    failure conditions and the primary pod labels are written explicitly for the trial's kind (the
    values Katib's defaulting webhook would add, so Argo CD sees no drift), and the primary container
    is the training container of the trial (e.g. ``pytorch``; ``node`` for a TrainJob).

    The construct refuses at once what Katib's validating webhook rejects
    (``pkg/webhook/v1beta1/experiment/validator/validator.go``, ``ValidateExperiment``): counts
    (``parallel_trials``/``max_failed_trials`` above ``max_trials``), objective metrics, unknown
    algorithms, feasible spaces that do not fit the parameter type, duplicated or undefined trial
    parameters, trial parameters the trial does not use, placeholders with no trial parameter, a
    primary container the trial lacks, and metrics-collector paths. Like every run-once object it is
    named ``<name>-<hash6>`` from its spec (Katib allows no spec edits but counts).

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target; must list ``katib`` in ``operators``.
        name: base name, a DNS-1035 label of at most 40 characters.
        objective: what to optimise.
        algorithm: the suggestion algorithm (one of :data:`ALGORITHMS`).
        parameters: the hyperparameters, at least one, names unique.
        trial: ``trial(scope)`` builds the trial construct.
        trial_parameters: trial-parameter name → parameter name. Default: each parameter by its name.
        primary_container: the container whose metrics are collected. Default: the trial's training container.
        parallel_trials: trials at a time. Default: 3.
        max_trials: trials in all. Default: 12.
        max_failed_trials: failed trials before the experiment fails. Default: 3.
        early_stopping: an early-stopping algorithm (``medianstop``), or ``None``. Default: ``None``.
        metrics_collector: how metrics are collected. Default: ``StdOut``.
        resume_policy: ``Never`` | ``LongRunning`` | ``FromVolume``. Default: ``Never`` (the
            suggestion service is removed when the experiment ends).

    Raises:
        ValueError: a bad prop, quoting prop and value (see above).

    Source: https://www.kubeflow.org/docs/components/katib/user-guides/hp-tuning/configure-experiment/,
    kubeflow/katib v0.19 ``pkg/apis/controller/experiments/v1beta1/experiment_types.go``
    """

    KIND = "Experiment"
    API_VERSION = "kubeflow.org/v1beta1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        objective: Objective,
        algorithm: Algorithm,
        parameters: Sequence[Parameter],
        trial: Callable[[Construct], object],
        trial_parameters: Mapping[str, str] | None = None,
        primary_container: str | None = None,
        parallel_trials: int = 3,
        max_trials: int = 12,
        max_failed_trials: int = 3,
        early_stopping: Algorithm | None = None,
        metrics_collector: MetricsCollector | None = None,
        resume_policy: ResumePolicy = "Never",
    ) -> None:
        super().__init__(scope, id)
        if not cluster.has_operator(OPERATOR):
            raise ValueError(
                f"{_KIND} cluster={cluster.name!r}: the cluster does not list {OPERATOR} in operators"
            )
        base = require_name(_KIND, "name", name, max_length=MAX_BASE_NAME, syntax=DNS1035_LABEL)
        counts = self._counts(parallel_trials, max_trials, max_failed_trials)
        spec: dict[str, Any] = {
            **counts,
            "objective": self._objective(objective),
            "algorithm": self._algorithm("algorithm", algorithm, ALGORITHMS),
            "parameters": self._parameters(parameters),
        }
        if early_stopping is not None:
            spec["earlyStopping"] = self._algorithm("early_stopping", early_stopping, EARLY_STOPPING)
        spec["metricsCollectorSpec"] = self._collector(metrics_collector or MetricsCollector())
        if resume_policy not in ("Never", "LongRunning", "FromVolume"):
            raise ValueError(
                f"{_KIND} resume_policy={resume_policy!r}: must be Never, LongRunning or FromVolume"
            )
        spec["resumePolicy"] = resume_policy
        trial_spec = build_trial_spec(trial)
        names = [p.name for p in parameters]
        mapping = dict(trial_parameters) if trial_parameters is not None else {n: n for n in names}
        spec["trialTemplate"] = self._trial_template(trial_spec, mapping, names, primary_container)
        self._trial_kind = str(trial_spec["kind"])
        self._name = run_once_name(base, spec)
        self.emit_object({"spec": spec}, annotations=run_once_annotations(options=[SKIP_DRY_RUN_OPTIONS]))

    @property
    def trial_kind(self) -> str:
        """The kind of the trials, e.g. ``PyTorchJob``."""
        return self._trial_kind

    # -- checks mirroring ValidateExperiment ------------------------------------------------------

    @staticmethod
    def _counts(parallel: int, maximum: int, failed: int) -> dict[str, int]:
        parallel = require_whole(_KIND, "parallel_trials", parallel, minimum=1)
        maximum = require_whole(_KIND, "max_trials", maximum, minimum=1)
        failed = require_whole(_KIND, "max_failed_trials", failed, minimum=0)
        for prop, value in (("parallel_trials", parallel), ("max_failed_trials", failed)):
            if value > maximum:
                raise ValueError(f"{_KIND} {prop}={value!r}: must not exceed max_trials={maximum!r}")
        return {"parallelTrialCount": parallel, "maxTrialCount": maximum, "maxFailedTrialCount": failed}

    @staticmethod
    def _objective(objective: Objective) -> dict[str, Any]:
        if objective.type not in ("minimize", "maximize"):
            raise ValueError(f"{_KIND} objective.type={objective.type!r}: must be minimize or maximize")
        if not objective.metric:
            raise ValueError(f"{_KIND} objective.metric={objective.metric!r}: must be specified")
        if objective.metric in objective.additional_metrics:
            raise ValueError(
                f"{_KIND} objective.additional_metrics={list(objective.additional_metrics)!r}: "
                f"must not contain the objective metric {objective.metric!r}"
            )
        spec: dict[str, Any] = {"type": objective.type, "objectiveMetricName": objective.metric}
        if objective.goal is not None:
            spec["goal"] = objective.goal
        if objective.additional_metrics:
            spec["additionalMetricNames"] = list(objective.additional_metrics)
        return spec

    @staticmethod
    def _algorithm(prop: str, algorithm: Algorithm, known: frozenset[str]) -> dict[str, Any]:
        if algorithm.name not in known:
            raise ValueError(f"{_KIND} {prop}={algorithm.name!r}: must be one of {', '.join(sorted(known))}")
        spec: dict[str, Any] = {"algorithmName": algorithm.name}
        if algorithm.settings:
            spec["algorithmSettings"] = [{"name": k, "value": str(v)} for k, v in algorithm.settings.items()]
        return spec

    @staticmethod
    def _parameters(parameters: Sequence[Parameter]) -> list[dict[str, Any]]:
        if not parameters:
            raise ValueError(f"{_KIND} parameters=[]: at least one parameter is required")
        seen: set[str] = set()
        for p in parameters:
            where = f"{_KIND} parameters[{p.name!r}]"
            if not p.name or p.name in seen:
                raise ValueError(f"{where}: names must be non-empty and unique")
            seen.add(p.name)
            if p.type in ("int", "double"):
                if p.values:
                    raise ValueError(f"{where}: a {p.type} parameter takes min/max, not a list of values")
                if p.min is None or p.max is None:
                    raise ValueError(f"{where}: a {p.type} parameter needs min and max")
                if float(p.min) > float(p.max):
                    raise ValueError(f"{where}: min={p.min} is above max={p.max}")
            elif p.type in ("categorical", "discrete"):
                if p.min is not None or p.max is not None or p.step is not None:
                    raise ValueError(
                        f"{where}: a {p.type} parameter takes a list of values, not min/max/step"
                    )
                if not p.values:
                    raise ValueError(f"{where}: a {p.type} parameter needs at least one value")
            else:
                raise ValueError(f"{where}: type {p.type!r} is not int, double, categorical or discrete")
        return [p.to_spec() for p in parameters]

    @staticmethod
    def _collector(collector: MetricsCollector) -> dict[str, Any]:
        kind = collector.kind
        spec: dict[str, Any] = {"collector": {"kind": kind}}
        if kind in ("StdOut", "Push"):
            return spec
        if kind in ("File", "TensorFlowEvent"):
            if not collector.path or not collector.path.startswith("/"):
                raise ValueError(
                    f"{_KIND} metrics_collector.path={collector.path!r}: {kind} needs an absolute path"
                )
            path: dict[str, Any] = {"path": collector.path, "kind": "File" if kind == "File" else "Directory"}
            if kind == "File":
                path["format"] = collector.format
            spec["source"] = {"fileSystemPath": path}
            return spec
        if kind == "Prometheus":
            if collector.port is None or isinstance(collector.port, bool) or not 0 < collector.port < 65536:
                raise ValueError(
                    f"{_KIND} metrics_collector.port={collector.port!r}: Prometheus needs a port 1-65535"
                )
            url = collector.path or "/metrics"
            if not url.startswith("/"):
                raise ValueError(f"{_KIND} metrics_collector.path={url!r}: must start with '/'")
            spec["source"] = {"httpGet": {"port": collector.port, "path": url}}
            return spec
        raise ValueError(
            f"{_KIND} metrics_collector.kind={kind!r}: must be StdOut, File, TensorFlowEvent, Prometheus or Push"
        )

    @staticmethod
    def _trial_template(
        trial_spec: dict[str, Any], mapping: Mapping[str, str], parameters: list[str], primary: str | None
    ) -> dict[str, Any]:
        text = json.dumps(trial_spec)
        used = set(_PLACEHOLDER.findall(text))
        references = list(mapping.values())
        for trial_name, reference in mapping.items():
            if not trial_name or "{" in trial_name or "}" in trial_name:
                raise ValueError(
                    f"{_KIND} trial_parameters: name {trial_name!r} must be non-empty, without '{{' or '}}'"
                )
            if reference not in parameters:
                raise ValueError(
                    f"{_KIND} trial_parameters[{trial_name!r}]={reference!r}: no such parameter (defined: {', '.join(parameters)})"
                )
            if references.count(reference) > 1:
                raise ValueError(f"{_KIND} trial_parameters: parameter {reference!r} is referenced twice")
            if trial_name not in used:
                raise ValueError(
                    f"{_KIND} trial_parameters[{trial_name!r}]: the trial never uses ${{trialParameters.{trial_name}}}"
                )
        undefined = sorted(used - set(mapping))
        if undefined:
            raise ValueError(
                f"{_KIND} trial: uses ${{trialParameters.{undefined[0]}}}, which no trial parameter defines"
            )
        key = group_kind(trial_spec)
        info = info_of(key)
        success, failure = (info and info.trial_conditions) or ("Succeeded", "Failed")
        sites = pod_templates(trial_spec)
        containers = [
            c.get("name") for s in sites for c in s.spec.get("containers", []) if isinstance(c, dict)
        ]
        if key == ("trainer.kubeflow.org", "TrainJob"):
            containers = ["node", *containers]
        chosen = primary if primary is not None else (containers[0] if containers else None)
        if chosen is None or chosen not in containers:
            raise ValueError(
                f"{_KIND} primary_container={chosen!r}: the trial has no such container (has: {', '.join(map(str, containers))})"
            )
        template: dict[str, Any] = {
            "primaryContainerName": chosen,
            "successCondition": _CONDITION.format(success),
            "failureCondition": _CONDITION.format(failure),
            "trialParameters": [{"name": n, "reference": r} for n, r in mapping.items()],
            "trialSpec": trial_spec,
        }
        replicas = (trial_spec.get("spec") or {}).get(_replica_field(key))
        if isinstance(replicas, dict) and ("Master" in replicas or "Chief" in replicas):
            template["primaryPodLabels"] = dict(_MASTER_ROLE)
        return template


def _replica_field(key: tuple[str, str] | None) -> str:
    return REPLICA_SPECS_FIELD.get(key[1], "") if key and key[0] == "kubeflow.org" else ""


def build_trial_spec(trial: Callable[[Construct], object]) -> dict[str, Any]:
    """Run ``trial(scope)`` in a throwaway cdk8s App and return its one object without metadata
    (``{apiVersion, kind, spec}``), as Katib wants ``trialTemplate.trialSpec``.

    Raises:
        ValueError: the trial built no object, or more than one.
    """
    configure_node()
    from cdk8s import App, Chart

    chart = Chart(App(), "trial", disable_resource_name_hashes=True)
    record_namespace(chart, None)
    trial(chart)
    objects = [json.loads(json.dumps(o)) for o in chart.to_json()]
    if len(objects) != 1:
        raise ValueError(f"{_KIND} trial: must build exactly one object, built {len(objects)}")
    obj = objects[0]
    return {key: obj[key] for key in ("apiVersion", "kind", "spec") if key in obj}
