"""Content hashes over canonical JSON, shared by constructs (run-once names) and synth (spec hash)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def content_hash(value: Any, length: int = 6) -> str:
    """Return the first ``length`` hex digits of the sha256 of ``value`` as canonical JSON.

    Canonical JSON: sorted keys, no whitespace, UTF-8 (non-ASCII kept as is), so the same value
    always gives the same hash whatever its key order. Default length: 6 hex digits.
    """
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:length]
