"""PersistentVolumeClaims name their storageClassName (one the cluster has) and a size within
[min-size, max-size].

Why: without a class the claim gets whatever the cluster's default is (often RWO block storage
where a shared dataset needs RWX file storage), and a claim in another cluster's class stays
Pending forever; a 50Ti typo costs real money.

Options: ``min-size``, ``max-size``: bounds of ``spec.resources.requests.storage`` (quantities).

Default: enabled, level warning, ``min-size: 1Gi``, ``max-size: 100Ti``.

PASS:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: nfs
      resources: {requests: {storage: 500Gi}}

FAIL:

    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec:
      accessModes: [ReadWriteMany]
      resources: {requests: {storage: 500Gi}}

Remediation: Set spec.storageClassName to a class the target cluster has and a storage request within the bounds.

Source: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#class-1
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import dig, quantity
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "pvc-storage"
LEVEL: Level = "warning"
KINDS = frozenset({("", "PersistentVolumeClaim")})
CONF: dict[str, dict[str, Any]] = {"min-size": {"type": "string"}, "max-size": {"type": "string"}}
DEFAULT: dict[str, Any] = {"min-size": "1Gi", "max-size": "100Ti"}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The claim's class (set, and known when the facts list classes) and its size bounds."""
    raw_spec = obj.get("spec")
    spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
    storage_class = spec.get("storageClassName")
    known = ctx.facts.storage_classes
    if not storage_class:
        yield Issue(
            ("spec", "storageClassName"), "PVC sets no storageClassName (gets the cluster default)", ID
        )
    elif known and storage_class not in known:
        yield Issue(
            ("spec", "storageClassName"),
            f'storageClassName "{storage_class}" is not a class of the cluster ({", ".join(known)})',
            ID,
        )
    raw = dig(spec, "resources", "requests", "storage")
    size = quantity(raw)
    low, high = quantity(conf["min-size"]), quantity(conf["max-size"])
    where = ("spec", "resources", "requests", "storage")
    if size is None:
        if not spec.get("volumeName") and not spec.get("dataSource"):
            yield Issue(where, "PVC requests no storage size", ID)
    elif low is not None and size < low:
        yield Issue(where, f"storage {raw} is below min-size {conf['min-size']}", ID)
    elif high is not None and size > high:
        yield Issue(where, f"storage {raw} exceeds max-size {conf['max-size']}", ID)
