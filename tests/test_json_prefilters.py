"""Text prefilters on the JSON text of fast-path documents never change a finding.

* The fast path's YAML 1.1 screens (:data:`trainops.yaml.fast._AMBIGUOUS_JSON`, ``_RESERVED_JSON``) were
  rewritten for speed; they must accept exactly the texts the original patterns (below) accept.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.yaml import fast

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
    assert (fast._RESERVED_JSON.search(text) is None) == (ORIGINAL_RESERVED.search(text) is None)


@EXAMPLES
@given(st.text(alphabet=SCREEN_ALPHABET, max_size=12))
def test_ambiguous_screen_matches_the_original(text: str) -> None:
    assert (fast._AMBIGUOUS_JSON.search(text) is None) == (ORIGINAL_AMBIGUOUS.search(text) is None)


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
    assert (fast._AMBIGUOUS_JSON.search(text) is None) == (ORIGINAL_AMBIGUOUS.search(text) is None)
