"""``secret-literal``: no literal credential in a manifest; reference a Secret instead.

Every string value of every document is scanned with detect-secrets' pattern detectors (private
keys, cloud access keys, API tokens, JWTs, passwords in URLs; see :mod:`trainops.credentials`), and
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

from trainops.credentials import (
    credential_in,
    json_may_hold_credential,
    json_may_name_secret,
    literal_problem,
    secret_like,
    walk_strings,
)
from trainops.findings import Issue
from trainops.kinds import CONTAINER_FIELDS, PodSite, pod_templates
from trainops.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

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

    Fast-path documents other than Secrets are first screened on their JSON text: the detectors run
    only when :func:`~trainops.credentials.json_may_hold_credential` says they may find something, and
    a document is walked string by string only when they run or a name may be a credential's
    (:func:`_may_name_secret`).
    """
    data = context.data
    detect = True
    if context.json is not None and context.kind != "Secret":
        detect = json_may_hold_credential(context.json)
        if not detect and not _may_name_secret(context, context.json):
            return
    for parts, value in walk_strings(data):
        problem = _problem(context.kind, parts, value, data, detect)
        if problem is not None:
            yield Issue(parts, f"{problem}; reference a Secret instead", RULE.id)


def _may_name_secret(context: DocumentContext, text: str) -> bool:
    """Whether an env entry or a ConfigMap key of the document (JSON text ``text``) may be named like a
    credential (the test by name of :func:`_problem`); ``False`` is exact."""
    if (
        '"env"' in text
        and json_may_name_secret(text)
        and _literal_env_named_secret(context.data, text, context.pod_sites())
    ):
        return True
    if context.kind == "ConfigMap":
        entries = context.data.get("data")
        return isinstance(entries, dict) and any(isinstance(key, str) and secret_like(key) for key in entries)
    return False


def _literal_env_named_secret(data: Any, text: str | None = None, sites: list[PodSite] | None = None) -> bool:
    """Whether some ``env`` list below ``data`` has an entry whose string ``value`` and ``name`` pass
    :func:`~trainops.credentials.secret_like` (a walk over collections only, without paths).

    With ``text``, rapidyaml's JSON of ``data``, the containers' ``env`` lists of the pod templates are
    looked at first: when they are as many as the ``"env": [`` in ``text`` (rapidyaml writes every
    ``env`` member holding a list so; a string or a repeated key can only add to the count), they are
    all the ``env`` lists of ``data`` and the walk over the whole document is not needed."""
    if text is not None:
        lists = _container_env_lists(data, sites)
        if len(lists) == text.count('"env": ['):
            return any(_named_secret(env) for env in lists)
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            env = node.get("env")
            if isinstance(env, list) and _named_secret(env):
                return True
            for child in node.values():
                if isinstance(child, dict | list):
                    stack.append(child)
        elif isinstance(node, list):
            for child in node:
                if isinstance(child, dict | list):
                    stack.append(child)
    return False


def _named_secret(env: list[Any]) -> bool:
    """Whether an entry of the ``env`` list has a string ``value`` and a ``name`` that pass
    :func:`~trainops.credentials.secret_like`."""
    for entry in env:
        if isinstance(entry, dict):
            name, value = entry.get("name"), entry.get("value")
            if isinstance(name, str) and isinstance(value, str) and secret_like(name, value):
                return True
    return False


def _container_env_lists(data: Any, sites: list[PodSite] | None = None) -> list[list[Any]]:
    """The ``env`` lists of the containers, init and ephemeral containers of every pod template of
    ``data`` (``sites``, or :func:`~trainops.kinds.pod_templates` of ``data``), each once."""
    found: dict[int, list[Any]] = {}
    for site in pod_templates(data) if sites is None else sites:
        for field in CONTAINER_FIELDS:
            containers = site.spec.get(field)
            if isinstance(containers, list):
                for container in containers:
                    env = container.get("env") if isinstance(container, dict) else None
                    if isinstance(env, list):
                        found[id(env)] = env
    return list(found.values())


def _problem(kind: str, parts: tuple[str | int, ...], value: str, data: object, detect: bool) -> str | None:
    """Why the string ``value`` at ``parts`` is a literal credential, or ``None``; ``detect=False`` skips
    the detectors (they find nothing in this document)."""
    if len(parts) >= 3 and parts[-1] == "value" and isinstance(parts[-2], int) and parts[-3] == "env":
        entry = _at(data, parts[:-1])
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str):
            return literal_problem(f"env {name}", value, detect=detect)
    if kind == "ConfigMap" and len(parts) == 2 and parts[0] == "data" and isinstance(parts[1], str):
        return literal_problem(f"ConfigMap key {parts[1]}", value, detect=detect)
    if (
        kind == "Secret"
        and len(parts) == 2
        and parts[0] in ("data", "stringData")
        and isinstance(parts[1], str)
    ):
        text = _decoded(value) if parts[0] == "data" else value
        return literal_problem(f"Secret key {parts[1]}", text) if text is not None else None
    found = credential_in(value) if detect else None
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
