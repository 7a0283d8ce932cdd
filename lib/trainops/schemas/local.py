"""The project's own schemas for kinds whose upstream CRD validates nothing (``local/`` beside this
module, shipped as package data).

Katib's Experiment CRD, for example, is ``type: object`` with ``x-kubernetes-preserve-unknown-fields``
at the root, so a typo anywhere in an Experiment reaches the cluster. For such kinds trainops keeps a
hand-written strict JSON Schema (draft 2020-12) derived from the upstream Go API types; each file
names its sources in ``description``.

A local schema refers to ObjectMeta as ``#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta``
and keeps its own definitions under ``definitions``: the caller sets ``$defs`` to the Kubernetes
ObjectMeta bundle, as the registry does for CRD schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trainops.core.errors import SchemaError

#: (apiVersion, kind) → file name under ``local/``.
LOCAL_SCHEMAS: dict[tuple[str, str], str] = {
    ("kubeflow.org/v1beta1", "Experiment"): "katib-experiment-v1beta1.json",
}


def local_schema_dir() -> Path:
    """``local/`` beside this module: the project's own schemas, shipped as package data."""
    return Path(__file__).with_name("local")


def load_local_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The local JSON Schema of (apiVersion, kind), or ``None`` when :data:`LOCAL_SCHEMAS` has none.

    The result is a fresh dict on every call (callers may add ``$defs``).

    Raises:
        SchemaError: the listed file is missing or not a JSON object.
    """
    name = LOCAL_SCHEMAS.get((api_version, kind))
    if name is None:
        return None
    path = local_schema_dir() / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SchemaError(f"{path}: unreadable local schema for {api_version} {kind} ({exc})") from None
    if not isinstance(data, dict):
        raise SchemaError(f"{path}: local schema for {api_version} {kind} is not a JSON object")
    return data
