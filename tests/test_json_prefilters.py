"""Text prefilters on the JSON text of fast-path documents never change a finding.

* The fast path's YAML 1.1 screens (:data:`trainops.yaml.fast._AMBIGUOUS_JSON`, ``_RESERVED_JSON``) were
  rewritten for speed; they must accept exactly the texts the original patterns (below) accept.
* :func:`trainops.credentials.json_may_hold_credential` and ``json_may_name_secret`` may only answer
  ``False`` when detect-secrets (``credential_in``) and ``secret_named`` flag no string of the value.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops import credentials
from trainops.credentials import _detectors, json_may_hold_credential, json_may_name_secret, secret_like
from trainops.yaml import fast, limits

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)

#: The screens as first written (slow: the reserved one has no literal prefix, so it is tried at
#: every position).
ORIGINAL_AMBIGUOUS = re.compile(
    r'"(?=[yYnNoOtTfF~.+\-0-9])(?:y|Y|n|N|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|~|'
    r"True|TRUE|False|FALSE|Null|NULL|"
    r"[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)|"
    r"[-+]?0[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|"
    r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|"
    r"\+[0-9][0-9._]*|"
    r'[-+]?[0-9]+_[0-9_]*(?:\.[0-9_]*)?)"'
)
ORIGINAL_RESERVED = re.compile(r'(?:^|(?<=[\[{,:\s]))"[\]}%?:&*@`]|(?<=[{,\s])"":')

SCREEN_ALPHABET = '"[]{},: \n\t%?&*@`ab\x85\u3000yYnNoOtTfF~.+-0189_xesSlLuUrRiIAE'


@EXAMPLES
@given(st.text(alphabet=SCREEN_ALPHABET, max_size=12))
def test_reserved_screen_matches_the_original(text: str) -> None:
    assert (fast._pattern(fast._RESERVED_JSON).search(text) is None) == (
        ORIGINAL_RESERVED.search(text) is None
    )


@EXAMPLES
@given(st.text(alphabet=SCREEN_ALPHABET, max_size=12))
def test_ambiguous_screen_matches_the_original(text: str) -> None:
    assert (fast._pattern(fast._AMBIGUOUS_JSON).search(text) is None) == (
        ORIGINAL_AMBIGUOUS.search(text) is None
    )


@pytest.mark.parametrize(
    "word",
    [
        "y",
        "Y",
        "n",
        "N",
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "~",
        "True",
        "TRUE",
        "False",
        "FALSE",
        "Null",
        "NULL",
        ".inf",
        "-.Inf",
        "+.NAN",
        "0755",
        "-0755",
        "0x1F",
        "0b101",
        "1:20",
        "-1:20:30.5",
        "+12",
        "+1.5",
        "1_000",
        "1_0.5",
        "true",
        "null",
        "nO",
        "oN",
        "yES",
        "12",
        "1.5",
        "e",
        "y_",
    ],
)
def test_ambiguous_screen_on_scalars(word: str) -> None:
    text = f'{{"k": "{word}"}}'
    assert (fast._pattern(fast._AMBIGUOUS_JSON).search(text) is None) == (
        ORIGINAL_AMBIGUOUS.search(text) is None
    )


#: Credentials of every detector (detect-secrets' own test values and the forms it documents), and
#: names of env variables that ``secret_named`` flags.
CREDENTIALS = [
    "AKIAIOSFODNN7EXAMPLE",
    "A3TXIOSFODNN7EXAMPLE",
    "aws_secret_access_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
    'AwS token: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----",
    "PuTTY-User-Key-File-2: ssh-rsa",
    "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + "a" * 86 + "==",
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "glpat-" + "x" * 20,
    "GR1348941" + "y" * 20,
    "glcbt-1a_" + "z" * 20,
    "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
    "XOXP-1-abc",
    "https://HOOKS.\u017flack.com/services/T000/B000/XXXX",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20,
    "pypi-AgEIcHlwaS5vcmc" + "c" * 70,
    "//registry.npmjs.org/:_authToken=npm_abc",
    "SG." + "d" * 22 + "." + "e" * 43,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "postgres://admin:s3cr3t-pw@db.internal:5432/app",
    'mysql://us"er:p\\w@db',
]


def _detected(value: str) -> bool:
    """Whether a detect-secrets detector matches a line of ``value`` (what ``credential_in`` runs,
    without its marker test)."""
    lines = value.splitlines() or [value]
    return any(any(True for _ in d.analyze_string(line)) for line in lines for d in _detectors())


@pytest.mark.parametrize("value", CREDENTIALS)
def test_every_detector_passes_the_prefilter(value: str) -> None:
    assert _detected(value)
    document = {"spec": {"args": ["--x", value], "note": f"a\n{value}\tb"}}
    assert json_may_hold_credential(json.dumps(document, ensure_ascii=False))


@pytest.mark.parametrize("value", ["gs://bucket/models/bert", "https://github.com/kubeflow/trainer", "plain"])
def test_prefilter_passes_manifests_without_credentials(value: str) -> None:
    assert not json_may_hold_credential(json.dumps({"spec": {"image": value}}))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (key, *_strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


#: Text around credential fragments: JSON-escaped characters, case variants, Unicode case equivalents.
FRAGMENTS = st.sampled_from(
    ["AKIA", "ghp_", "xox", "XoX", "://", ":", "@", "aws", "AWS", "'", '"', "\\", "\n", "\t", "k", "\u212a",
     "\u017f", "hooks.slack.com", "eyJ", "a", "0", "/", "+", "PRIVATE KEY", "SG.", "=", " "]
)  # fmt: skip
VALUES = st.lists(FRAGMENTS, max_size=12).map("".join)


@EXAMPLES
@given(st.lists(VALUES, max_size=4))
def test_prefilter_is_a_superset_of_the_detectors(values: list[str]) -> None:
    document = {"data": dict(enumerate(values)), "list": values}
    text = json.dumps({str(k): v for k, v in document.items()}, ensure_ascii=False, default=str)
    if not json_may_hold_credential(text):
        assert not any(_detected(s) for s in _strings(json.loads(text)))


NAMES = st.lists(
    st.sampled_from(["DB_", "PASS", "pa\u017f\u017f", "Token", "x", '"', "\\", "-", "api", "_KEY"]),
    max_size=6,
)


@EXAMPLES
@given(st.lists(NAMES.map("".join), max_size=3))
def test_name_prefilter_is_a_superset(names: list[str]) -> None:
    text = json.dumps({"env": [{"name": name, "value": "v"} for name in names]}, ensure_ascii=False)
    if not json_may_name_secret(text):
        assert not any(secret_like(name) for name in names)


LINES = st.lists(
    st.sampled_from(
        [
            "---",
            "--- a",
            "---\t",
            "---x",
            "...",
            "... ",
            "%YAML 1.1",
            "a: 1",
            "  - b",
            "\t- c",
            "? d",
            "",
            "-",
        ]
    ),
    max_size=8,
)
ORIGINAL_DOC_START = re.compile(r"^---(?:[ \t]|$)", re.MULTILINE)
ORIGINAL_STREAM_SYNTAX = re.compile(r"^(?:%|\.\.\.(?:[ \t]|$))", re.MULTILINE)
CONTENT = re.compile(r"^[ \t]*[^\s#]", re.MULTILINE)


def original_split(text: str) -> list[fast.Chunk] | None:
    """``split_documents`` as first written (line-anchored patterns, tried at every position)."""
    if ORIGINAL_STREAM_SYNTAX.search(text):
        return None
    bounds = [0, *(m.start() for m in ORIGINAL_DOC_START.finditer(text)), len(text)]
    chunks, line = [], 0
    for index in range(len(bounds) - 1):
        piece = text[bounds[index] : bounds[index + 1]]
        if index > 0 or (piece and CONTENT.search(piece)):
            chunks.append(fast.Chunk(piece, line))
        line += piece.count("\n")
    return chunks


@EXAMPLES
@given(LINES, st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_split_documents_matches_the_original(lines: list[str], newline: str, final: bool) -> None:
    text = newline.join(lines) + (newline if final else "")
    assert fast.split_documents(text) == original_split(text)


@EXAMPLES
@given(st.lists(st.text(alphabet=" \t?-[{a", max_size=70), max_size=6), st.integers(1, 128))
def test_over_depth_bound_is_depth_bound_over_the_limit(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    assert limits.over_depth_bound(text, limit) == (limits.depth_bound(text) > limit)


@pytest.mark.parametrize(
    "letter", sorted(set("passwordpwdsecrettokenapikeyaccessauthprivateclientcredentialxohlmw"))
)
def test_any_case_classes_are_those_of_re_ignorecase(letter: str) -> None:
    cls = credentials._any_case(letter)
    assert {chr(c) for c in range(0x10000) if re.fullmatch(letter, chr(c), re.IGNORECASE)} == set(cls[1:-1])


SEARCH_TEXT = st.lists(
    st.sampled_from(
        ["AKIA", "ASIA", "A3T", "PRIVATE KEY", "ghp_", "glpat-", "gl", "SG.", "SGx", "eyJ", "_authToken",
         "xOx", "hooks.\u017flack.com", "hooks-slack.com", "HOOKS.SLACK.\u212aOM", "aw\u017f", "AWS", '"name": "',
         '"name":\n"', "db_pa", "\u017f\u017fword", "Token", "\u0130", "api_", "KEY", '\\"', "\\\\", "x", " "]
    ),
    max_size=10,
).map("".join)  # fmt: skip


@EXAMPLES
@given(SEARCH_TEXT)
def test_rust_searches_agree_with_re(text: str) -> None:
    """The jsonschema-rs searches answer as their ``re`` fallbacks (same pattern, two regex dialects)."""
    starts_in, aws_in, name_in = credentials._screens()
    assert starts_in(text) == credentials._starts_in(text)
    assert aws_in(text) == ("aws" in text.casefold())
    assert name_in(text) == (re.search(credentials._SECRET_NAME_IN_JSON, text) is not None)
