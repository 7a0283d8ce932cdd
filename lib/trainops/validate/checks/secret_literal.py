"""``secret-literal``: no literal credential in a manifest; reference a Secret instead.

Every string value of every document is scanned with detect-secrets' pattern detectors (private
keys, cloud access keys, API tokens, JWTs, passwords in URLs; see :mod:`trainops.core.credentials`), and
container ``env`` entries and ConfigMap ``data`` keys named like a password, secret, token or key
must not hold a literal value. A ``Secret`` itself may carry data only as ``stringData``/``data``
written by hand outside git; in a committed manifest its values are literals too, so they are
scanned like any other string (base64 ``data`` after decoding).

PASS::

    env:
    - name: DB_PASSWORD
      valueFrom: {secretKeyRef: {name: db, key: password}}

FAIL::

    env:
    - name: DB_PASSWORD
      value: hunter2-prod        # env DB_PASSWORD holds a literal credential

Remediation: move the value into a Secret created outside git (or an ExternalSecret/SealedSecret)
and reference it with ``valueFrom.secretKeyRef`` or ``envFrom.secretRef``.

Source: https://github.com/Yelp/detect-secrets; Kubernetes "Good practices for Kubernetes Secrets"
(https://kubernetes.io/docs/concepts/security/secrets-good-practices/).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from trainops.core.credentials import (
    credential_in,
    literal_problem,
    secret_like,
    strings_marked,
    walk_strings,
)
from trainops.core.findings import Issue
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext
from trainops.validate.scan import Scan

RULE = register(
    RuleInfo(
        id="secret-literal",
        level="error",
        summary="No literal credential (private key, cloud key, token, password) in a manifest value.",
        rationale="Manifests are committed and synced by Argo CD: a credential in one is in git history "
        "for good, readable by everyone with repository access.",
        remediation="Move the value into a Secret created outside git and reference it with "
        "valueFrom.secretKeyRef or envFrom.secretRef.",
        source="https://github.com/Yelp/detect-secrets",
    )
)


def check(context: DocumentContext) -> Iterator[Issue]:
    """Issues for literal credentials in ``context.data`` (messages never quote the value).

    Documents other than Secrets are screened first (:func:`_screen`): strings are scanned with the
    detectors only when one of them holds a marker the detectors need; without such a string, a
    ConfigMap is judged by its ``data`` keys, and other documents are walked only when an ``env``
    entry is named like a credential.
    """
    data, kind = context.data, context.kind
    scan, named = (True, True) if kind == "Secret" else _screen(context.scan)
    if not scan and not named:
        if kind == "ConfigMap":  # only its data keys can be flagged, by their names
            yield from _config_map_keys(data)
        return
    for parts, value in walk_strings(data):
        problem = _problem(kind, parts, value, data, scan)
        if problem is not None:
            yield Issue(parts, f"{problem}; reference a Secret instead", RULE.id)


def _screen(scanned: Scan) -> tuple[bool, bool]:
    """``(scan, named)`` from the document's one walk (:func:`trainops.validate.scan.scan`).
    ``scan``: some string holds a marker the detectors need (:func:`~trainops.core.credentials.marked`,
    tested once on all strings joined by line breaks, which no marker contains). ``named``: some
    ``env`` entry has a string ``value`` and a ``name`` that pass
    :func:`~trainops.core.credentials.secret_like`, the first test of the check by name. ``False`` is
    exact for each."""
    named = any(
        isinstance(env, list) and any(_named_like_secret(entry) for entry in env) for env in scanned.envs
    )
    return strings_marked(scanned.strings), named


def _config_map_keys(data: dict[str, Any]) -> Iterator[Issue]:
    """A ConfigMap's ``data`` values that are literal credentials by their key's name alone."""
    values = data.get("data")
    if not isinstance(values, dict):
        return
    for key, value in values.items():
        # secret_like is the first test of literal_problem's by name (the prefix adds no match)
        if isinstance(key, str) and isinstance(value, str) and secret_like(key, value):
            problem = literal_problem(f"ConfigMap key {key}", value, scan=False)
            if problem is not None:
                yield Issue(("data", key), f"{problem}; reference a Secret instead", RULE.id)


def _named_like_secret(entry: Any) -> bool:
    """An ``env`` entry with a string ``value`` whose ``name`` passes :func:`secret_like`."""
    if not isinstance(entry, dict):
        return False
    name, value = entry.get("name"), entry.get("value")
    return isinstance(name, str) and isinstance(value, str) and secret_like(name, value)


def _problem(kind: str, parts: tuple[str | int, ...], value: str, data: object, scan: bool) -> str | None:
    """Why the string ``value`` at ``parts`` is a literal credential, or ``None``; with ``scan``
    ``False``, only by its name (no string of the document holds what a detector needs)."""
    if len(parts) >= 3 and parts[-1] == "value" and isinstance(parts[-2], int) and parts[-3] == "env":
        entry = _at(data, parts[:-1])
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str):
            return literal_problem(f"env {name}", value, scan=scan)
    if kind == "ConfigMap" and len(parts) == 2 and parts[0] == "data" and isinstance(parts[1], str):
        return literal_problem(f"ConfigMap key {parts[1]}", value, scan=scan)
    if (
        kind == "Secret"
        and len(parts) == 2
        and parts[0] in ("data", "stringData")
        and isinstance(parts[1], str)
    ):
        text = _decoded(value) if parts[0] == "data" else value
        return literal_problem(f"Secret key {parts[1]}", text) if text is not None else None
    found = credential_in(value) if scan else None
    return f"a literal {found}" if found is not None else None


def _decoded(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _at(data: object, parts: tuple[str | int, ...]) -> object:
    node = data
    for part in parts:
        if isinstance(node, dict) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


CHECK = Check(RULE, check)
