"""The validator's check families, registered as rules and run in this order on every document that
has a schema (after the YAML, shape, apiVersion-deprecation and schema-lookup steps of the engine).

Adding a family (README "Extending trainops"): write ``checks/<family>.py`` with
``RULE = register(RuleInfo(...))``, a ``check(context) -> Iterable[Issue]`` and
``CHECK = Check(RULE, check)``; add it to :data:`CHECKS` below, or to :data:`GROUP_FAMILIES` when only
documents of some API groups can fail it; add its test. A module of further API-server checks
instead declares ``FAMILY = family(check, KINDS)``
(:func:`~trainops.validate.checks.go_helpers.family`) and joins :data:`API_SERVER_FAMILIES`.

The families of :data:`GROUP_FAMILIES` (an operator's webhook or controller) are imported on the
first document of one of their API groups (:func:`checks_for`), so that a file of other kinds does
not load them (issue 36: a one-file validate imports only what the file's kinds need);
:func:`all_checks` imports them all, for what lists every rule (``trainops explain``).
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from trainops.validate.checks import (
    api_server,
    autoscaling_policy,
    cel,
    deprecated_api,
    dra,
    list_map,
    networking_rbac,
    pod_fields,
    schema,
    security_context,
    services_storage,
    workloads,
)
from trainops.validate.checks.secret_literal import CHECK as SECRET_LITERAL
from trainops.validate.context import Check, Family

#: The modules of API-server checks after :mod:`.api_server`'s own, in run order: one ``api-server``
#: check runs those whose kinds include the document's (:func:`.api_server.check_with`).
API_SERVER_FAMILIES: tuple[Family, ...] = (
    pod_fields.FAMILY,
    security_context.FAMILY,
    workloads.FAMILY,
    services_storage.FAMILY,
    autoscaling_policy.FAMILY,
    networking_rbac.FAMILY,
    dra.FAMILY,
    dra.POD_FAMILY,
)

#: Check families of every document, in run order: later families may skip what earlier ones reported
#: (``api-server`` skips paths ``schema`` rejected; ``list-map`` skips what ``api-server`` covers).
CHECKS: tuple[Check, ...] = (
    schema.CHECK,
    api_server.check_with(API_SERVER_FAMILIES),
    list_map.CHECK,
    cel.CHECK,
    deprecated_api.CHECK,
    SECRET_LITERAL,
)

#: Families that only documents of some API groups can fail, run after :data:`CHECKS` in this order:
#: (module of this package, the API groups of the documents it judges). Each module's ``check``
#: still looks at the kind itself; ``tests/validate/test_checks_by_group.py`` checks these groups
#: against the modules' own.
GROUP_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = (
    # LeaderWorkerSet and DisaggregatedSet webhooks (lws_webhook.LWS, lws_webhook.DISAGGREGATED)
    ("lws_webhook", frozenset({"leaderworkerset.x-k8s.io", "disaggregatedset.x-k8s.io"})),
    ("jobset", frozenset({"jobset.x-k8s.io"})),  # JobSet's webhook (jobset.GROUP)
    # Kueue's job webhooks: the kinds it always judges and the Kubeflow jobs it queues
    # (kueue_tas.ALWAYS_JUDGED, kinds.KUBEFLOW_JOBS)
    (
        "kueue_webhook",
        frozenset(
            {"batch", "jobset.x-k8s.io", "kubeflow.org", "trainer.kubeflow.org", "leaderworkerset.x-k8s.io"}
        ),
    ),
    ("rollouts", frozenset({"argoproj.io"})),  # the Argo Rollouts controller (rollouts.GROUP)
)


@lru_cache(maxsize=256)  # groups come from the documents: bounded
def checks_for(group: str) -> tuple[Check, ...]:
    """The check families of a document of API group ``group`` (``""`` for the core group), in run
    order: :data:`CHECKS`, then those of :data:`GROUP_FAMILIES` that judge ``group``, each module
    imported (and its rule registered) the first time a document needs it."""
    return CHECKS + tuple(_group_check(module) for module, groups in GROUP_FAMILIES if group in groups)


def all_checks() -> tuple[Check, ...]:
    """Every check family in run order (:data:`CHECKS`, then every one of :data:`GROUP_FAMILIES`),
    all imported: for what lists or documents every validation rule."""
    return CHECKS + tuple(_group_check(module) for module, _ in GROUP_FAMILIES)


def _group_check(module: str) -> Check:
    check: Check = importlib.import_module(f"{__name__}.{module}").CHECK
    return check
