"""Find literal credentials in manifest values, with Yelp's detect-secrets detectors.

Manifests in ``generated/`` are committed and synced by Argo CD: a credential written into one is
in git history for good (DESIGN.md decision 9: "secrets never appear in generated YAML"). Two tests:

* :func:`credential_in` runs detect-secrets' pattern detectors (private keys, AWS/Azure keys, GitHub,
  GitLab, Slack, Stripe, OpenAI, PyPI, npm and SendGrid tokens, JWTs, ``user:password@`` URLs) on a
  string value. Entropy detectors are left out: image digests and spec hashes are high-entropy.
* :func:`secret_named` is detect-secrets' ``KeywordDetector`` on ``NAME: "value"``: a literal value
  for a variable or key named like a password or secret (``DB_PASSWORD``, ``api_key``...), plus
  names with ``token``, which it does not cover.

detect-secrets imports ``requests`` and is slow to import, so it is imported only for strings that contain
what one of its detectors needs (:func:`marked`); most manifests never import it.

Source: https://github.com/Yelp/detect-secrets (``detect_secrets/plugins``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import Any

#: For each selected detector, substrings every match of its patterns contains (a superset: a hit
#: here only costs a scan with the detectors), as ``(gate, literals)``: the literals are searched
#: only where the gate, a part of each, is found. Plain substring tests are much cheaper than one
#: regular expression. ``tests/core/test_credentials.py`` generates matches of every detector
#: pattern and checks that :func:`marked` finds each.
_LITERALS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("PRIVATE KEY", ()),  # PrivateKeyDetector
    ("PuTTY-User-Key-File", ()),
    ("A", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA", "AccountKey=")),  # AWS and Azure keys
    ("gh", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),  # GitHubTokenDetector
    (
        "gl",
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-"),
    ),
    ("GR1348941", ()),  # GitLabTokenDetector, runner registration tokens
    ("k_live_", ()),  # StripeDetector
    ("T3BlbkFJ", ()),  # OpenAIDetector
    ("pypi-AgE", ()),  # PypiTokenDetector
    ("/:_authToken=", ()),  # NpmDetector
    ("SG.", ()),  # SendGridDetector
    ("eyJ", ()),  # JwtTokenDetector
)
#: ``scheme://user:password@`` as BasicAuthDetector needs it (its user and password classes exclude
#: white space, ``/`` and ``@``, among others).
_URL_PASSWORD = r"://[^\s/@]+:[^\s/@]+@"
#: The quoted 40-character secret that AWSKeyDetector's ``aws ... key = "..."`` pattern ends with
#: (case-insensitive as that pattern is: the class then also matches U+212A and U+017F).
_QUOTED_40 = r"""(?i)['"][0-9a-z/+]{40}['"]"""
#: Substrings of the detectors' case-insensitive patterns, searched in the case-folded text
#: (SlackDetector; AWSKeyDetector's ``aws ... key = "..."`` also needs :data:`_QUOTED_40`).
_CASELESS = ("xox", "hooks.slack.com")


def marked(text: str) -> bool:
    """Whether ``text`` holds what one of the detectors needs (:data:`_LITERALS`, :data:`_CASELESS`,
    :data:`_URL_PASSWORD`): ``False`` means :func:`credential_in` finds nothing
    in it, nor in any part of it."""
    for gate, literals in _LITERALS:
        if gate in text and (not literals or any(literal in text for literal in literals)):
            return True
    if "://" in text and "@" in text and re.search(_URL_PASSWORD, text):
        return True
    folded = text.casefold()
    if any(literal in folded for literal in _CASELESS):
        return True
    return "aws" in folded and re.search(_QUOTED_40, text) is not None


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


def literal_problem(name: str, value: str, *, scan: bool = True) -> str | None:
    """Why ``name=value`` must not be written into a manifest, or ``None``: a one-line reason that
    never quotes the value. ``scan=False`` skips :func:`credential_in` (the caller knows ``value``
    holds nothing a detector needs) and judges by the name alone."""
    found = credential_in(value) if scan else None
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


#: Kinds whose ``data``/``stringData`` values are secret whatever their keys are called.
_SECRET_KINDS = frozenset({"Secret"})
#: Shorter values are not redacted (they would blank common words; literal credentials are longer).
_MIN_SECRET = 4
#: A value cut short in a message keeps at least this many characters: such a prefix is redacted too.
_MIN_PREFIX = 6


def secret_like_anywhere(text: str) -> bool:
    """Whether any name in ``text`` (e.g. a document's JSON text) looks like a credential's
    (:data:`_SECRET_NAME`); ``False`` is exact for :func:`secret_like` of every key and name in it."""
    return _SECRET_NAME.search(text) is not None


def document_secrets(
    data: Any, *, strings: list[str] | None = None, text: str | None = None
) -> tuple[str, ...]:
    """The literal credentials of one document, as text a message may quote, longest first.

    Collected: string values in which :func:`credential_in` finds a credential (the whole value and
    each line holding one); the literal value (string or number) of an entry named like a secret
    (``{name: DB_PASSWORD, value: ...}`` as env and parameter lists have it, or a mapping key such as
    a ConfigMap's ``DB_PASSWORD``: :func:`secret_like`); every ``data``/``stringData`` value of a
    Secret. Values shorter than 4 characters are left out.

    Args:
        data: the document's value.
        strings: every string value of ``data`` (mapping keys left out, any order), when the caller
            has them already (the faster reader of :mod:`trainops._accel` collects them); only used
            with ``text``.
        text: the YAML text ``data`` was read from. When no key or ``name`` of ``data`` can look
            like a credential's by its text (:func:`_names_may_look_secret`), for a document other
            than a Secret only ``strings`` are screened, without walking ``data``. Same result as
            without them.
    """
    found: set[str] = set()
    add = partial(_add_secret, found)
    secret_kind = (
        isinstance(data, dict) and isinstance(data.get("kind"), str) and data["kind"] in _SECRET_KINDS
    )
    if strings is not None and text is not None and not secret_kind and not _names_may_look_secret(text):
        _credentials_of(strings, add)
        return tuple(sorted(found, key=lambda s: (-len(s), s)))
    if secret_kind:
        for field_name in ("data", "stringData"):
            values = data.get(field_name)
            if isinstance(values, dict):
                for value in values.values():
                    add(value)
    collected: list[str] = []
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, str) and "value" in item:
                value = item["value"]
                if isinstance(value, str | int | float) and secret_like(name, str(value)):
                    add(value)
            for key, child in item.items():
                kind = type(child)
                if kind is dict or kind is list:
                    stack.append(child)
                    continue
                if kind is str:
                    collected.append(child)
                elif kind is not int and kind is not float:
                    continue  # null, a bool, or another scalar
                # secret_like(key) first: it is cached by name, and most names do not look secret
                if (
                    key != "name"
                    and isinstance(key, str)
                    and secret_like(key)
                    and secret_like(key, str(child))
                ):
                    add(child)
        elif isinstance(item, list):
            for child in item:
                if isinstance(child, dict | list):
                    stack.append(child)
                elif isinstance(child, str):
                    collected.append(child)
    _credentials_of(collected, add)
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


#: Lower-case substrings of every match of :data:`_SECRET_NAME` (``tests/core/test_credentials.py``
#: generates its matches and checks that each holds one): ``key`` stands for the names ending in it,
#: searched only where it is found (:data:`_KEY_MARKERS`).
_NAME_MARKERS = ("pass", "pwd", "secret", "token", "credential")
_KEY_MARKERS: tuple[str, ...] = (
    *("apikey", "api_key", "accesskey", "access_key", "authkey", "auth_key"),
    *("privkey", "priv_key", "privatekey", "private_key", "clientkey", "client_key"),
)


def _names_may_look_secret(text: str) -> bool:
    """``False`` when no key or name of a document read from ``text`` can look like a credential's
    (:func:`secret_like`): ``text`` is ASCII (its case folding is ``lower``), holds no backslash (no
    escape joins text into a name) and none of :data:`_NAME_MARKERS` and :data:`_KEY_MARKERS` (each
    key and name is a substring of it, or a number's or boolean's text, which holds none)."""
    if not text.isascii() or "\\" in text:
        return True
    folded = text.lower()
    if any(marker in folded for marker in _NAME_MARKERS):
        return True
    return "key" in folded and any(marker in folded for marker in _KEY_MARKERS)


def _add_secret(found: set[str], value: Any) -> None:
    """Add a string or number ``value`` of at least 4 characters to ``found`` as text."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return
    text = str(value)
    if len(text) >= _MIN_SECRET:
        found.add(text)


def _credentials_of(strings: list[str], add: Callable[[Any], None]) -> None:
    """``add`` each of ``strings`` holding a credential, its lines holding one and the detectors'
    matches; one test over all strings (joined by line breaks, which no detector needs) before one
    per string."""
    if strings_marked(strings):
        for value in strings:
            _add_credentials(value, add)


#: The list :func:`strings_marked` answered last and its answer (a document's strings are screened by
#: ``secret-literal`` and again when its findings are located).
_LAST_MARKED: list[Any] = [None, False]


def strings_marked(strings: list[str]) -> bool:
    """:func:`marked` of ``strings`` joined by line breaks (which no marker holds): whether some string
    holds what a detector needs. The answer for the same list object as the last call is reused
    (a document's list of strings is not changed once collected)."""
    if _LAST_MARKED[0] is not strings:
        _LAST_MARKED[:] = [strings, marked("\n".join(strings))]
    return bool(_LAST_MARKED[1])


def _add_credentials(value: str, add: Callable[[Any], None]) -> None:
    if credential_in(value) is None:
        return
    add(value)
    for line in value.splitlines() or [value]:
        if not marked(line):
            continue
        add(line.strip())
        for detector in _detectors():
            for match in detector.analyze_string(line):  # the secret itself, as detect-secrets matched it
                add(match)


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret of ``secrets`` replaced by ``***``: as it is, as JSON or Python
    quote it, with control characters escaped (as one-line messages show them), and any prefix of
    at least 6 characters (a value cut short before it reached the message).

    Args:
        text: a message, already escaped and not yet cut short.
        secrets: values to hide (:func:`document_secrets`), longest first.
    """
    if not secrets:
        return text
    for secret in secrets:
        forms = {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], _escaped(secret)}
        for form in sorted(forms, key=len, reverse=True):
            if len(form) >= _MIN_SECRET:
                text = text.replace(form, "***")
        text = _redact_prefixes(text, secret)
    return text


def _redact_prefixes(text: str, secret: str) -> str:
    """Replace each run of ``text`` that starts like ``secret`` for at least :data:`_MIN_PREFIX`
    characters and stops only where the text ends or reads ``…`` (a value cut short)."""
    if len(secret) <= _MIN_PREFIX:
        return text
    head = secret[:_MIN_PREFIX]
    start = text.find(head)
    while start >= 0:
        end, k = start, 0
        while end < len(text) and k < len(secret) and text[end] == secret[k]:
            end += 1
            k += 1
        if end == len(text) or text.startswith("…", end) or k == len(secret):
            text = text[:start] + "***" + text[end:]
            start = text.find(head, start + 3)
        else:
            start = text.find(head, start + 1)
    return text


def _escaped(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
