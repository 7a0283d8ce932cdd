"""The validator's check families, registered as rules and run in this order on every document that
has a schema (after the YAML, shape, apiVersion-deprecation and schema-lookup steps of the engine).

Adding a family (README "Extending trainops"): write ``checks/<family>.py`` with
``RULE = register(RuleInfo(...))``, a ``check(context) -> Iterable[Issue]`` and
``CHECK = Check(RULE, check)``; add it to :data:`CHECKS` below; add its test. A module of further
API-server checks instead declares ``FAMILY = family(check, KINDS)``
(:func:`~trainops.validate.checks.go_helpers.family`) and joins :data:`API_SERVER_FAMILIES`.
"""

from __future__ import annotations

from trainops.validate.checks import (
    api_server,
    autoscaling_policy,
    cel,
    deprecated_api,
    dra,
    jobset,
    list_map,
    networking_rbac,
    pod_fields,
    rollouts,
    schema,
    security_context,
    services_storage,
    workloads,
)
from trainops.validate.checks.kueue_webhook import CHECK as KUEUE_WEBHOOK
from trainops.validate.checks.lws_webhook import CHECK as LWS_WEBHOOK
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

#: Check families in run order: later families may skip what earlier ones reported
#: (``api-server`` skips paths ``schema`` rejected; ``list-map`` skips what ``api-server`` covers).
CHECKS: tuple[Check, ...] = (
    schema.CHECK,
    api_server.check_with(API_SERVER_FAMILIES),
    list_map.CHECK,
    cel.CHECK,
    deprecated_api.CHECK,
)
CHECKS += (SECRET_LITERAL, LWS_WEBHOOK, jobset.CHECK, KUEUE_WEBHOOK, rollouts.CHECK)
