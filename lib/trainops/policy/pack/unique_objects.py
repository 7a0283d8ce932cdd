"""No two objects share (API group, kind, namespace, name).

Why: two apps rendering the same object fight over it in Argo CD (each sync overwrites the other,
"shared resource" warnings); in one file set the later one silently wins.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml-serving}

FAIL:

    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: ml}

Remediation: Rename one of the objects, or render it in one app only.

Source: https://argo-cd.readthedocs.io/en/stable/user-guide/resource_tracking/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import CLUSTER_SCOPED, group_kind
from trainops.policy.pods import as_str, metadata_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "unique-objects"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Every object after the first with the same identity."""
    first: dict[tuple[Any, ...], int] = {}
    for index, obj in enumerate(objects):
        key = group_kind(obj)
        name = as_str(metadata_of(obj).get("name"))
        if key is None or not name:
            continue
        namespace = None if key in CLUSTER_SCOPED else as_str(metadata_of(obj).get("namespace"))
        identity = (*key, namespace, name)
        if identity in first:
            where = f"{namespace}/{name}" if namespace else name
            yield index, Issue(("metadata", "name"), f"{key[1]} {where} is defined more than once", ID)
        else:
            first[identity] = index
