"""Objects too large for client-side apply carry ``ServerSideApply=true``.

Why: client-side apply stores the whole object in the ``kubectl.kubernetes.io/last-applied-configuration``
annotation, and annotations are limited to 256 KiB in total: a large object (a big ConfigMap, a CRD,
a JobSet with many replicated jobs) fails to sync with "metadata.annotations: Too long".

Options: ``max-bytes``: the JSON size above which server-side apply is required.

Default: enabled, level error, ``max-bytes: 262144``.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: small}
    data: {a: "1"}

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: small}
    data: {a: "this example is checked with max-bytes 100, so it is too large"}

Remediation: Add argocd.argoproj.io/sync-options: ServerSideApply=true to the object.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#server-side-apply
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.argocd import sync_options
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "server-side-apply"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"max-bytes": {"type": "integer", "minimum": 1}}
DEFAULT: dict[str, Any] = {"max-bytes": 262144}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The object's compact JSON size against max-bytes, unless it syncs server-side."""
    if sync_options(obj).get("ServerSideApply") == "true":
        return
    size = len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    if size > conf["max-bytes"]:
        yield Issue(
            (), f"object is {size} bytes (> {conf['max-bytes']}): client-side apply cannot store it", ID
        )
