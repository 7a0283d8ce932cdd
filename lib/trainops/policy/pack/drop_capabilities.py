"""Containers drop ALL capabilities and add back only allowed ones (IPC_LOCK only with an RDMA device).

Why: the default capability set (NET_RAW, CHOWN, SETUID, ...) is more than a training or serving
process needs; NET_RAW alone allows ARP spoofing on the pod network. RDMA needs IPC_LOCK to pin
memory, so it is allowed for containers that request an RDMA resource of the cluster.

Options: ``allowed``: capabilities any container may add. ``rdma-allowed``: capabilities allowed
only in containers requesting an RDMA resource (the cluster's ``rdma_resource``).

Default: enabled, level error, ``allowed: [NET_BIND_SERVICE]``, ``rdma-allowed: [IPC_LOCK]``. A
finding's keyword names the Pod Security check it fails: ``capabilities_baseline`` (a capability
outside the runtime's default set) or ``capabilities_restricted``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        securityContext:
          capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: serve}
    spec:
      containers:
      - name: serve
        image: registry.example.com/serve:1.0
        securityContext:
          capabilities: {add: [SYS_ADMIN]}

Remediation: Set securityContext.capabilities.drop to [ALL] and add only capabilities on the allow-list.

Source: k8s.io/pod-security-admission policy/check_capabilities_baseline.go and check_capabilities_restricted.go; https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers, resource
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "drop-capabilities"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {
    "allowed": {"type": "array", "items": {"type": "string"}},
    "rdma-allowed": {"type": "array", "items": {"type": "string"}},
}
DEFAULT: dict[str, Any] = {"allowed": ["NET_BIND_SERVICE"], "rdma-allowed": ["IPC_LOCK"]}
RULE = register(describe(ID, LEVEL, __doc__))


#: Capabilities Pod Security "baseline" lets a container add (``capabilities_allowed_1_0``): adding
#: another fails baseline, adding one of these (but NET_BIND_SERVICE) fails restricted only.
BASELINE_DEFAULT: Final = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def _name(value: Any) -> str:
    text = str(value).upper()
    return text[4:] if text.startswith("CAP_") else text


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per container: ALL in drop; every added capability allowed (RDMA ones with an RDMA resource)."""
    for container in all_containers(obj, ephemeral=False):
        drop = container.get("securityContext", "capabilities", "drop")
        if container.site.partial and drop is None:
            pass  # a patch: the pod spec it completes drops them
        elif not isinstance(drop, list) or "ALL" not in [_name(d) for d in drop]:
            yield Issue(
                container.at("securityContext", "capabilities", "drop"),
                f'container "{container.name}" does not drop ALL capabilities',
                ID,
                "capabilities_restricted",
            )
        rdma = any(
            resource(container, section, name)
            for name in ctx.facts.rdma_resources
            for section in ("limits", "requests")
        )
        allowed = {_name(c) for c in conf["allowed"]} | (
            {_name(c) for c in conf["rdma-allowed"]} if rdma else set()
        )
        add = container.get("securityContext", "capabilities", "add")
        for index, capability in enumerate(add if isinstance(add, list) else []):
            if _name(capability) not in allowed:
                hint = (
                    " without an RDMA resource"
                    if _name(capability) in {_name(c) for c in conf["rdma-allowed"]}
                    else ""
                )
                yield Issue(
                    container.at("securityContext", "capabilities", "add", index),
                    f'container "{container.name}" adds capability {capability}{hint} '
                    f"(allowed: {', '.join(sorted(allowed)) or 'none'})",
                    ID,
                    "capabilities_restricted"
                    if str(capability) in BASELINE_DEFAULT
                    else "capabilities_baseline",
                )
