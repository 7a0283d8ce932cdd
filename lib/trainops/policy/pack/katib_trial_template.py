"""Katib trial templates are consistent: ``primaryContainerName`` names a container of the trial,
success and failure conditions are set (Katib defaults them for Job, Kubeflow jobs and TrainJob),
every trialParameter has a unique name and reference (an Experiment parameter or a
``${trialSpec.X}`` meta key) and is used, and every ``${trialParameters.X}`` placeholder is defined.

Why: the Katib webhook rejects inconsistent templates at sync time; without it, a placeholder that
is never substituted reaches the trial pod as a literal string and every trial fails the same way.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1beta1
    kind: Experiment
    metadata: {name: tune}
    spec:
      parameters:
      - {name: lr, parameterType: double, feasibleSpace: {min: "0.001", max: "0.1"}}
      trialTemplate:
        primaryContainerName: train
        successCondition: status.conditions.#(type=="Complete")#|#(status=="True")#
        failureCondition: status.conditions.#(type=="Failed")#|#(status=="True")#
        trialParameters:
        - {name: learningRate, reference: lr}
        trialSpec:
          apiVersion: batch/v1
          kind: Job
          spec:
            template:
              spec:
                restartPolicy: Never
                containers:
                - name: train
                  image: registry.example.com/train:1.0
                  args: ["--lr=${trialParameters.learningRate}"]

FAIL:

    apiVersion: kubeflow.org/v1beta1
    kind: Experiment
    metadata: {name: tune}
    spec:
      parameters:
      - {name: lr, parameterType: double, feasibleSpace: {min: "0.001", max: "0.1"}}
      trialTemplate:
        primaryContainerName: training
        successCondition: status.conditions.#(type=="Complete")#|#(status=="True")#
        failureCondition: status.conditions.#(type=="Failed")#|#(status=="True")#
        trialParameters:
        - {name: learningRate, reference: lr}
        trialSpec:
          apiVersion: batch/v1
          kind: Job
          spec:
            template:
              spec:
                restartPolicy: Never
                containers:
                - name: train
                  image: registry.example.com/train:1.0
                  args: ["--lr=${trialParameters.lr}"]

Remediation: Define each ${trialParameters.X} in trialParameters with a reference to an Experiment parameter, use each one, and name the primary container as in the trial spec.

Source: https://github.com/kubeflow/katib/blob/master/pkg/webhook/v1beta1/experiment/validator/validator.go (validateTrialTemplate, isMetaKey)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import KIND_TABLE
from trainops.core.rules import register
from trainops.policy.pods import as_list, as_str, containers, dig, pod_templates
from trainops.policy.rule import Context, describe

ID = "katib-trial-template"
LEVEL: Level = "error"
KINDS = frozenset({("kubeflow.org", "Experiment")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_PLACEHOLDER = re.compile(r"\$\{trialParameters\.([^}]+)\}")
_META = re.compile(r"^\$\{trialSpec\.(.+)\}$")
_META_KEYS = ("Name", "Namespace", "Kind", "APIVersion", "Labels", "Annotations")
_BASE = ("spec", "trialTemplate")
#: Trial kinds whose success and failure conditions Katib's defaulting webhook fills in, by name as
#: Katib matches them (:attr:`trainops.core.kinds.KindInfo.trial_conditions`).
DEFAULTED_CONDITIONS = frozenset(info.kind for info in KIND_TABLE.values() if info.trial_conditions)


def _is_meta(reference: str) -> bool:
    match = _META.match(reference)
    return match is not None and re.sub(r"\[.*\]$", "", match.group(1)) in _META_KEYS


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """validateTrialTemplate's checks on an inline trialSpec (ConfigMap templates are not read)."""
    template = dig(obj, *_BASE)
    if not isinstance(template, dict):
        yield Issue(_BASE, "spec.trialTemplate must be specified", ID)
        return
    if not template.get("primaryContainerName"):
        yield Issue(
            (*_BASE, "primaryContainerName"), "trialTemplate.primaryContainerName must be specified", ID
        )
    trial_spec = template.get("trialSpec")
    trial_kind = as_str(trial_spec.get("kind")) if isinstance(trial_spec, dict) else None
    conditions = template.get("successCondition") and template.get("failureCondition")
    if not conditions and trial_kind not in DEFAULTED_CONDITIONS:
        yield Issue(
            _BASE,
            f"trialTemplate.successCondition and failureCondition must be specified for a {trial_kind} trial",
            ID,
        )
    if not isinstance(trial_spec, dict):
        return
    text = json.dumps(trial_spec)
    names = {as_str(p.get("name")) for p in as_list(dig(obj, "spec", "parameters")) if isinstance(p, dict)}
    seen_names: set[str] = set()
    seen_refs: set[str] = set()
    parameters = template.get("trialParameters")
    for index, parameter in enumerate(parameters if isinstance(parameters, list) else []):
        where = (*_BASE, "trialParameters", index)
        name = parameter.get("name") if isinstance(parameter, dict) else None
        reference = parameter.get("reference") if isinstance(parameter, dict) else None
        if (
            not isinstance(name, str)
            or not isinstance(reference, str)
            or not name
            or not reference
            or "{" in name
            or "}" in name
        ):
            yield Issue(where, "trialParameter needs a name (without { or }) and a reference", ID)
            continue
        if name in seen_names:
            yield Issue((*where, "name"), f'trialParameter name "{name}" is duplicated', ID)
            continue
        if reference in seen_refs:
            yield Issue((*where, "reference"), f'trialParameter reference "{reference}" is duplicated', ID)
            continue
        seen_names.add(name)
        seen_refs.add(reference)
        if names and not _is_meta(reference) and reference not in names:
            yield Issue(
                (*where, "reference"),
                f'trialParameter "{name}" references "{reference}", which is not in spec.parameters',
                ID,
            )
        if f"${{trialParameters.{name}}}" not in text:
            yield Issue((*where, "name"), f'trialParameter "{name}" is not used in trialSpec', ID)
    for placeholder in sorted(set(_PLACEHOLDER.findall(text)) - seen_names):
        yield Issue(
            (*_BASE, "trialSpec"),
            f"${{trialParameters.{placeholder}}} in trialSpec is not defined in trialParameters",
            ID,
        )
    metadata = trial_spec.get("metadata")
    if isinstance(metadata, dict) and (metadata.get("name") or metadata.get("namespace")):
        yield Issue(
            (*_BASE, "trialSpec", "metadata"),
            "trialSpec metadata.name and metadata.namespace must be omitted",
            ID,
        )
    primary = template.get("primaryContainerName")
    sites = pod_templates(obj)
    if (
        isinstance(primary, str) and primary and sites and not any(site.partial for site in sites)
    ):  # a patch's names are the runtime's
        found = {c.name for site in sites for c in containers(site, ephemeral=False)}
        if primary not in found:
            yield Issue(
                (*_BASE, "primaryContainerName"),
                f'primaryContainerName "{primary}" is not a container of the trial ({", ".join(sorted(found))})',
                ID,
            )
