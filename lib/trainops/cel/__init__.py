"""All CEL code of trainops, the one package that imports ``cel_expr_python``.

Modules: :mod:`~trainops.cel.k8s` (the Kubernetes CEL libraries), :mod:`~trainops.cel.env`
(environments, checked compilation, readable errors), :mod:`~trainops.cel.values` (YAML data as CEL
values), :mod:`~trainops.cel.crd_rules` (CRD ``x-kubernetes-validations``),
:mod:`~trainops.cel.admission` (ValidatingAdmissionPolicy evaluation) and
:mod:`~trainops.cel.celrule` (policy rules written in CEL, their pod-spec variables). The validator
(:mod:`trainops.validate.checks.cel`) and the policy engine (:mod:`trainops.policy.rule`,
:mod:`trainops.policy.uservap`, :mod:`trainops.policy.vap`) call them.
"""

from __future__ import annotations
