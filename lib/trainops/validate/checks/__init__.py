"""The validator's check families, registered as rules and run in this order on every document that
has a schema (after the YAML, shape, apiVersion-deprecation and schema-lookup steps of the engine).

Adding a family (README "Extending trainops"): write ``checks/<family>.py`` with
``RULE = register(RuleInfo(...))``, a ``check(context) -> Iterable[Issue]`` and
``CHECK = Check(RULE, check)``; add it to :data:`CHECKS` below; add its test.
"""

from __future__ import annotations

from trainops.validate.checks import (
    api_server,
    autoscaling_policy,
    cel,
    deprecated_api,
    list_map,
    networking_rbac,
    pod_fields,
    schema,
    services_storage,
    workloads,
)
from trainops.validate.checks.secret_literal import CHECK as SECRET_LITERAL
from trainops.validate.context import Check

#: Check families in run order: later families may skip what earlier ones reported
#: (``api-server`` skips paths ``schema`` rejected; ``list-map`` skips what ``api-server`` covers).
CHECKS: tuple[Check, ...] = (
    schema.CHECK,
    api_server.CHECK,
    pod_fields.CHECK,
    workloads.CHECK,
    services_storage.CHECK,
    autoscaling_policy.CHECK,
    networking_rbac.CHECK,
    list_map.CHECK,
    cel.CHECK,
    deprecated_api.CHECK,
)
CHECKS += (SECRET_LITERAL,)
