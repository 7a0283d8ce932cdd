"""Kubernetes name and label syntax, shared by constructs (own-prop errors) and the validator.

Sources: k8s.io/apimachinery ``pkg/util/validation/validation.go`` (``IsDNS1123Label``,
``IsDNS1123Subdomain``, ``IsDNS1035Label``, ``IsQualifiedName``, ``IsValidLabelValue``) and
``pkg/api/validation/path`` (path segment names).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, NamedTuple

# --- syntax (k8s.io/apimachinery/pkg/util/validation/validation.go) --------------------------------

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
PORT_NAME_MAX = 15
#: ``TotalAnnotationSizeLimitB`` (apimachinery ``pkg/api/validation/objectmeta.go``): 256 KiB.
ANNOTATIONS_MAX_BYTES = 256 * 1024
#: ``ValidateCronJobCreate``: 63 minus the 11-character ``-<timestamp>`` suffix of its Jobs.
CRONJOB_NAME_MAX = 52

_SUBDOMAIN_TEXT = "lower-case alphanumerics, '-' and '.', at most 253 characters"
_LABEL_TEXT = (
    "lower-case alphanumerics and '-', starting and ending with an alphanumeric, at most 63 characters"
)
_DNS1035_TEXT = (
    "lower-case alphanumerics and '-', starting with a letter and ending with an alphanumeric, "
    "at most 63 characters"
)
_QUALIFIED_TEXT = (
    "alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric, at most 63 characters"
)
_LABEL_VALUE_TEXT = "at most 63 characters: alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric, or empty"


class NameSyntax(NamedTuple):
    """One of the API server's name syntaxes.

    Args:
        keyword: the check name used as ``Issue.keyword``.
        title: e.g. ``DNS-1123 subdomain``.
        pattern: the full-match pattern, or ``None`` for path segments.
        max_len: the byte limit, or ``None``.
        rules: the rule in words, for messages.
    """

    keyword: str
    title: str
    pattern: re.Pattern[str] | None
    max_len: int | None
    rules: str

    def problem(self, value: str, *, prefix: bool = False) -> str | None:
        """Why ``value`` is not of this syntax (``None`` when it is).

        ``prefix`` checks a ``generateName``: a trailing ``-`` is allowed (``maskTrailingDash``).
        """
        if self.pattern is None:  # path.IsValidPathSegmentName / IsValidPathSegmentPrefix
            if not prefix and value in (".", ".."):
                return "may not be '.' or '..'"
            if "/" in value or "%" in value:
                return "may not contain '/' or '%'"
            return None
        if prefix and len(value) > 1 and value.endswith("-"):
            value = value[:-1] + "a"
        size = byte_len(value)
        if self.max_len is not None and size > self.max_len:
            return f"({size} characters) is not a {self.title} ({self.rules})"
        if self.pattern.fullmatch(value) is None:
            return f"is not a {self.title} ({self.rules})"
        return None


DNS1123_SUBDOMAIN: Final = NameSyntax(
    "dns1123-subdomain", "DNS-1123 subdomain", _DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MAX, _SUBDOMAIN_TEXT
)
DNS1123_LABEL: Final = NameSyntax(
    "dns1123-label", "DNS-1123 label", _DNS1123_LABEL, DNS1123_LABEL_MAX, _LABEL_TEXT
)
DNS1035_LABEL: Final = NameSyntax(
    "dns1035-label", "DNS-1035 label", _DNS1035_LABEL, DNS1123_LABEL_MAX, _DNS1035_TEXT
)
PATH_SEGMENT: Final = NameSyntax("path-segment-name", "path segment", None, None, "no '/' or '%'")


@lru_cache(maxsize=8192)
def qualified_name_problem(value: str) -> str | None:
    """Why ``value`` is not a qualified name (``IsQualifiedName``), or ``None``.

    A qualified name is an optional DNS-1123 subdomain prefix (≤ 253) and ``/``, then a name of at
    most 63 alphanumerics, ``-``, ``_`` and ``.``, starting and ending with an alphanumeric.
    """
    prefix, slash, name = value.partition("/")
    if slash:
        if "/" in name:
            return "has more than one '/' (a qualified name is [<DNS-1123 subdomain>/]<name>)"
        if not prefix:
            return "has an empty prefix before '/'"
        problem = DNS1123_SUBDOMAIN.problem(prefix)
        if problem:
            return f"has a prefix {quoted(prefix)} that {problem}"
    else:
        name = prefix
    if not name:
        return "has an empty name part"
    size = byte_len(name)
    if size > QUALIFIED_NAME_MAX:
        return f"has a name part of {size} characters, more than {QUALIFIED_NAME_MAX}"
    if _QUALIFIED_NAME.fullmatch(name) is None:
        return f"has an invalid name part {quoted(name)} ({_QUALIFIED_TEXT})"
    return None


@lru_cache(maxsize=8192)
def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a label value (``IsValidLabelValue``), or ``None``."""
    if not value:
        return None
    size = byte_len(value)
    if size > LABEL_VALUE_MAX or _QUALIFIED_NAME.fullmatch(value) is None:
        shown = f"({size} characters) " if size > LABEL_VALUE_MAX else ""
        return f"{shown}is not a valid label value ({_LABEL_VALUE_TEXT})"
    return None


def byte_len(value: str) -> int:
    """Length in bytes as the API server counts it (UTF-8)."""
    return len(value) if value.isascii() else len(value.encode("utf-8"))


#: Characters of a document's value that messages quote.
QUOTE_LIMIT = 80
#: Characters of a mapping key in a finding's JSON path, and of its object's kind, name and
#: namespace: the longest key the API server accepts where it checks keys (a qualified name, ``<DNS
#: subdomain of 253>/<name of 63>``, ``IsQualifiedName`` in apimachinery ``util/validation``), so no
#: valid key or name is ever cut.
KEY_LIMIT = DNS1123_SUBDOMAIN_MAX + 1 + QUALIFIED_NAME_MAX


def shortened(value: str, limit: int = QUOTE_LIMIT) -> str:
    """``value`` cut to ``limit`` characters, the last one ``…`` when it was cut: how findings quote a
    document's values (:data:`QUOTE_LIMIT`) and keys and names (:data:`KEY_LIMIT`) whatever their size,
    so a 2 MB key does not make a 2 MB report."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def quoted(value: str, limit: int = QUOTE_LIMIT) -> str:
    """``value`` in double quotes, :func:`shortened` to ``limit`` characters, for messages."""
    text = shortened(value, limit)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def require(
    syntax: NameSyntax, owner: str, prop: str, value: object, *, max_length: int | None = None
) -> str:
    """Check a name prop and return it: the one own-prop name check of constructs, apps and clusters.

    Args:
        syntax: e.g. :data:`DNS1123_LABEL` or :data:`DNS1035_LABEL`.
        owner: who has the prop, for the message, e.g. ``"PyTorchJob"`` or ``"AppDef"``.
        prop: the prop name, e.g. ``"name"``.
        value: the proposed name.
        max_length: a tighter limit in characters than the syntax's own (e.g. 45 for a Kubeflow
            job base name that gets a hash suffix). Default: the syntax's limit.

    Raises:
        ValueError: ``<owner> <prop>='<value>': must be a <syntax> (<rules>)``.
    """
    limit = max_length if max_length is not None else syntax.max_len
    if isinstance(value, str) and not syntax.problem(value) and (limit is None or len(value) <= limit):
        return value
    rules = syntax.rules
    if limit is not None and syntax.max_len is not None and limit != syntax.max_len:
        rules = rules.replace(f"at most {syntax.max_len} characters", f"at most {limit} characters")
    raise ValueError(f"{owner} {prop}={value!r}: must be a {syntax.title} ({rules})")
