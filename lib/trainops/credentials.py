"""Find literal credentials in manifest values, with Yelp's detect-secrets detectors.

Manifests in ``generated/`` are committed and synced by Argo CD: a credential written into one is
in git history for good (DESIGN.md decision 9: "secrets never appear in generated YAML"). Two tests:

* :func:`credential_in` runs detect-secrets' pattern detectors (private keys, AWS/Azure keys, GitHub,
  GitLab, Slack, Stripe, OpenAI, PyPI, npm and SendGrid tokens, JWTs, ``user:password@`` URLs) on a
  string value. Entropy detectors are left out: image digests and spec hashes are high-entropy.
* :func:`secret_named` is detect-secrets' ``KeywordDetector`` on ``NAME: "value"``: a literal value
  for a variable or key named like a password or secret (``DB_PASSWORD``, ``api_key``...), plus
  names with ``token``, which it does not cover.

detect-secrets imports ``requests`` (about 1.5 s), so it is imported only for strings that contain
a marker one of its detectors needs (:data:`_MARKERS`); most manifests never import it.

Source: https://github.com/Yelp/detect-secrets (``detect_secrets/plugins``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

#: Substrings one of the selected detectors needs to match (a superset: a hit here only costs a scan),
#: searched as one alternation of literals (:data:`_MARKED`).
_MARKERS = (
    "PRIVATE KEY",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "gh",
    "gl",
    "xox",
    "hooks.slack.com",
    "k_live_",
    "sk-",
    "pypi-",
    "npm_",
    "_authToken",
    "SG.",
    "eyJ",
    "AccountKey=",
    "://",
)


_MARKED = re.compile("|".join(re.escape(marker) for marker in _MARKERS))


def marked(text: str) -> bool:
    """Whether ``text`` holds a substring one of the detectors needs (:data:`_MARKERS`): ``False``
    means :func:`credential_in` finds nothing in it, nor in any part of it."""
    return _MARKED.search(text) is not None


#: Names whose literal values are credentials (detect-secrets' KeywordDetector denylist, plus token).
_SECRET_NAME = re.compile(
    r"pass(word|wd)?|pwd|secret|token|api_?key|access_?key|auth_?key|priv(ate)?_?key|client_?key|credential",
    re.IGNORECASE,
)
#: Values that are not literal credentials: variable references, templates, switches and flags.
_REFERENCE = re.compile(
    r"^\s*(\$\(|\$\{|\{\{|<)|^\s*$|^.{1,2}$|^(true|false|yes|no|on|off|null|none|enabled?|disabled?)$",
    re.IGNORECASE,
)


@cache
def _detectors() -> tuple[Any, ...]:
    """The detect-secrets pattern detectors, imported on first use."""
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.stripe import StripeDetector

    classes = (
        PrivateKeyDetector,
        AWSKeyDetector,
        AzureStorageKeyDetector,
        GitHubTokenDetector,
        GitLabTokenDetector,
        SlackDetector,
        StripeDetector,
        OpenAIDetector,
        PypiTokenDetector,
        NpmDetector,
        SendGridDetector,
        JwtTokenDetector,
        BasicAuthDetector,
    )
    return tuple(cls() for cls in classes)


@cache
def _keyword() -> Any:
    from detect_secrets.plugins.keyword import KeywordDetector

    return KeywordDetector()


def secret_like(name: str, value: str | None = None) -> bool:
    """Whether ``name`` looks like the name of a credential and ``value`` (when given) is not a reference,
    template, switch or flag: the first test of :func:`secret_named` (``False`` means it is ``False``)."""
    looks = _NAME_LOOKS_SECRET.get(name)
    if looks is None:  # names repeat across documents (NCCL_DEBUG, MASTER_ADDR ...): searched once each
        if len(_NAME_LOOKS_SECRET) >= _NAME_CACHE_MAX:
            _NAME_LOOKS_SECRET.clear()
        looks = _NAME_LOOKS_SECRET[name] = _SECRET_NAME.search(name) is not None
    return looks and (value is None or not _REFERENCE.match(value))


#: :data:`_SECRET_NAME` found in a name or not, by name (cleared when it holds :data:`_NAME_CACHE_MAX`).
_NAME_LOOKS_SECRET: dict[str, bool] = {}
_NAME_CACHE_MAX = 1 << 14


def credential_in(value: str) -> str | None:
    """The kind of credential detect-secrets finds in ``value`` (e.g. ``"AWS Access Key"``), else ``None``.

    Multi-line values (ConfigMap files, scripts) are scanned line by line. Never returns the secret.
    """
    if not marked(value):
        return None
    for line in value.splitlines() or [value]:
        if not marked(line):
            continue
        for detector in _detectors():
            if any(True for _ in detector.analyze_string(line)):
                return str(detector.secret_type)
    return None


def secret_named(name: str, value: str) -> bool:
    """Whether ``value`` is a literal credential given its ``name`` (an env variable or data key).

    References (``$(VAR)``, ``${VAR}``, ``{{ template }}``) and empty values are not literals.
    """
    if not _SECRET_NAME.search(name) or _REFERENCE.match(value):
        return False
    if "token" in name.lower():
        return True
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    return any(True for _ in _keyword().analyze_string(f'{name}: "{quoted}"'))


def literal_problem(name: str, value: str) -> str | None:
    """Why ``name=value`` must not be written into a manifest, or ``None``: a one-line reason that
    never quotes the value."""
    found = credential_in(value)
    if found is not None:
        return f"{name} holds a literal {found}"
    if secret_named(name, value):
        return f"{name} holds a literal credential (a password, token or key by its name)"
    return None


def walk_strings(
    value: Any, parts: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string value below ``value`` with its path (iterative: depth is not a concern)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(parts, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            yield path, item
        elif isinstance(item, dict):
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, index), child) for index, child in reversed(list(enumerate(item))))
