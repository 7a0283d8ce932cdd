"""YAML data as CEL values: what the API server's CEL sees of a loaded document."""

from __future__ import annotations

import base64
import datetime
from collections.abc import Mapping
from typing import Any


def plain(raw: Any) -> Any:
    """YAML data → the JSON-like value the API server would see (string keys, RFC 3339 strings)."""
    if raw is None or isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, Mapping):
        return {str(k): plain(v) for k, v in raw.items()}
    if isinstance(raw, list | tuple):
        return [plain(v) for v in raw]
    if isinstance(raw, datetime.datetime):
        stamp = raw if raw.tzinfo is not None else raw.replace(tzinfo=datetime.UTC)
        return stamp.isoformat().replace("+00:00", "Z")
    if isinstance(raw, datetime.date):
        return raw.isoformat()
    if isinstance(raw, bytes):
        return base64.b64encode(raw).decode()
    return str(raw)
