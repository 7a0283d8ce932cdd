"""``data-size``: ConfigMap and Secret data fit in the API server's 1 MiB limit.

The API server rejects a ConfigMap whose ``data`` plus ``binaryData`` values, or a Secret whose
``data`` values (with ``stringData`` merged in), add up to more than ``MaxSecretSize`` bytes.

PASS: a ConfigMap with 200 KiB of configuration.
FAIL: a ConfigMap embedding a 50 MB model file (``data: 52428800 bytes, more than 1048576``).

Remediation: keep large files in a volume or object storage and mount or download them.

Source: kubernetes ``pkg/apis/core/validation/validation.go``: ``ValidateConfigMap`` and
``ValidateSecret`` (``totalSize > core.MaxSecretSize``); ``pkg/apis/core/types.go``:
``MaxSecretSize = 1 * 1024 * 1024``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from trainops.findings import Issue
from trainops.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

#: ``core.MaxSecretSize``: total bytes of a ConfigMap's or Secret's values.
MAX_SECRET_SIZE = 1 * 1024 * 1024

RULE = register(
    RuleInfo(
        id="data-size",
        level="error",
        summary="ConfigMap data plus binaryData, and Secret data plus stringData, total at most 1 MiB.",
        rationale="The API server rejects larger ConfigMaps and Secrets (Too long: may not be more than "
        "1048576 bytes), so the sync fails.",
        remediation="Keep large files in a volume or object storage and mount or download them.",
        source="kubernetes pkg/apis/core/validation/validation.go: ValidateConfigMap, ValidateSecret",
    )
)


def check(context: DocumentContext) -> Iterator[Issue]:
    """One issue when the data of a core/v1 ConfigMap or Secret exceeds :data:`MAX_SECRET_SIZE`."""
    if context.api_version != "v1" or context.kind not in ("ConfigMap", "Secret"):
        return
    data = context.data
    if context.kind == "ConfigMap":
        total = _sum(data.get("data"), _utf8) + _sum(data.get("binaryData"), _base64)
        field = "data"
    else:
        merged = {**_strings(data.get("data"), _base64), **_strings(data.get("stringData"), _utf8)}
        total = sum(merged.values())
        field = "data"
    if total > MAX_SECRET_SIZE:
        yield Issue(
            (field,) if field in data else (),
            f"{context.kind} data is {total} bytes, more than the API server's limit of {MAX_SECRET_SIZE} bytes (1 MiB)",
            RULE.id,
            "maxSecretSize",
        )


def _utf8(value: Any) -> int:
    return len(value.encode("utf-8")) if isinstance(value, str) else 0


def _base64(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return len(value) * 3 // 4  # malformed base64 is the schema's to report; estimate its size


def _sum(values: Any, size: Any) -> int:
    return sum(size(v) for v in values.values()) if isinstance(values, dict) else 0


def _strings(values: Any, size: Any) -> dict[str, int]:
    return {str(k): size(v) for k, v in values.items()} if isinstance(values, dict) else {}


CHECK = Check(RULE, check)
