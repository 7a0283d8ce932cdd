"""No credential of a document reaches a report (issue 27): CEL evaluation errors quote no object
data, and every message is redacted with the document's literal credentials after escaping and
before it is cut short, in every output format of ``validate`` and ``policy check``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trainops.cel.env import clean_error
from trainops.core.credentials import document_secrets, redact

CORPUS = Path(__file__).parents[1] / "bad_inputs"
SECRETS_FILE = CORPUS / "secrets_in_messages.yaml"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
#: Pieces of each secret of the corpus file that no output may hold.
LEAKS = (SLACK[:12], "AbCdEfGhIj", JWT[:12], "SflKxwRJSMeKKF2QJf36POk6yJV", "12345678901234")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
@pytest.mark.parametrize("command", [("validate", "--policy"), ("policy", "check")])
def test_no_secret_in_any_format(cli: Any, command: tuple[str, ...], fmt: str) -> None:
    run = cli(*command, "--format", fmt, str(SECRETS_FILE))
    assert run.code == 1, run.err
    assert "Traceback" not in run.out + run.err
    for leak in LEAKS:
        assert leak not in run.out + run.err, (leak, fmt)
    assert "int64 range at object.spec.template.spec.terminationGracePeriodSeconds" in run.out


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_secret_number_echoed_by_a_type_error_is_redacted(cli: Any, fmt: str) -> None:
    run = cli("validate", "--policy", "--format", fmt, str(CORPUS / "secret_number_type_error.yaml"))
    assert run.code == 1, run.err
    assert "12345678901234" not in run.out + run.err
    assert "got integer ***" in run.out


def test_cel_conversion_error_names_the_field_not_the_data() -> None:
    raw = (
        "INVALID_ARGUMENT: Integer value '1000000000000000000000000000000' out of range for "
        "'object['spec'] -> {'x': [{'y': 10, 's': 'SECRET'}]}['x'] -> [{'y': 10, 's': 'SECRET'}][0]['y'] -> 10'."
    )
    assert clean_error(raw) == "an integer beyond the int64 range at object.spec.x[0].y"
    other = "variable 'v' failed: Non-CEL value type for 'object['a'] -> {'a': <object at 0x1>}['a'] -> <object>': object."
    assert clean_error(other) == "variable 'v' failed: a value of a type CEL cannot hold at object.a.a"


def test_document_secrets_and_redaction() -> None:
    doc = {
        "kind": "ConfigMap",
        "data": {"DB_PASSWORD": "s3cr3t-value-1", "mode": "fast"},
        "spec": {
            "env": [{"name": "API_TOKEN", "value": 12345678901234}, {"name": "LEVEL", "value": "debug"}]
        },
        "args": [f"--slack={SLACK}"],
    }
    secrets = document_secrets(doc)
    assert "s3cr3t-value-1" in secrets and "12345678901234" in secrets and SLACK in secrets
    assert "debug" not in secrets and "fast" not in secrets
    # whole, quoted, escaped, and cut short by a message
    assert redact(f"got 12345678901234 and '{SLACK}'", secrets) == "got *** and '***'"
    assert redact(f'"{SLACK[:30]}…" is too long', secrets) == '"***…" is too long'
    assert redact("s3cr3t-v is here", secrets) == "s3cr3t-v is here"  # a prefix not cut short stays


def test_secret_data_values_are_secrets() -> None:
    assert document_secrets({"kind": "Secret", "data": {"x": "aGVsbG8td29ybGQ="}}) == ("aGVsbG8td29ybGQ=",)
