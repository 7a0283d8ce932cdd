"""The repository's policy rule pack: one module per rule (yamllint shape), listed explicitly.

``trainops policy list`` shows them; ``policies/README.md`` is generated from their docstrings.
"""

from __future__ import annotations

from types import ModuleType

from policies import (
    allowed_registries,
    drop_capabilities,
    exposed_service,
    image_pinned,
    memory_limits,
    no_host_namespaces,
    no_host_path,
    no_privilege_escalation,
    no_privileged,
    no_secret_literals,
    pvc_storage,
    read_only_root_fs,
    resource_caps,
    resource_requests,
    run_as_non_root,
    seccomp_profile,
    service_account,
    valid_quantities,
)

#: Every rule module of the pack, explicitly (no import-time scanning).
RULES: tuple[ModuleType, ...] = (
    no_privileged,
    no_host_namespaces,
    no_host_path,
    no_privilege_escalation,
    run_as_non_root,
    drop_capabilities,
    seccomp_profile,
    allowed_registries,
    image_pinned,
    no_secret_literals,
    service_account,
    read_only_root_fs,
    exposed_service,
    resource_requests,
    memory_limits,
    valid_quantities,
    resource_caps,
    pvc_storage,
)
