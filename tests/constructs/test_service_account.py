"""ServiceAccount: golden manifests, no token mounted, Secrets by name only, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.constructs import ServiceAccount


def test_defaults(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    ServiceAccount(chart, "Account", name="trainer")
    docs = synth(chart)
    text = docs["ServiceAccount/trainer"]
    golden("service_account/defaults.yaml", text)
    account = yaml.safe_load(text)
    # No API token in pods unless asked for; no pull Secrets; synced with the Namespace.
    assert account["automountServiceAccountToken"] is False
    assert "imagePullSecrets" not in account and "secrets" not in account
    assert account["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-2"
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    ServiceAccount(
        chart,
        "Account",
        name="ci.pipeline",
        automount_token=True,
        image_pull_secrets=["registry-creds", "mirror-creds"],
        labels={"team": "vision"},
    )
    docs = synth(chart)
    text = docs["ServiceAccount/ci.pipeline"]
    golden("service_account/custom.yaml", text)
    account = yaml.safe_load(text)
    assert account["automountServiceAccountToken"] is True
    # Secrets are referenced by name; no Secret object (and no value) is generated.
    assert account["imagePullSecrets"] == [{"name": "registry-creds"}, {"name": "mirror-creds"}]
    assert not [key for key in docs if key.startswith("Secret/")]
    validate_docs(cli, tmp_path, docs)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"name": "Trainer"}, "ServiceAccount name='Trainer': must be a DNS-1123 subdomain"),
        ({"automount_token": "no"}, "ServiceAccount automount_token='no': must be True or False"),
        (
            {"image_pull_secrets": "creds"},
            "ServiceAccount image_pull_secrets='creds': must be a sequence of names",
        ),
        (
            {"image_pull_secrets": ["Creds"]},
            "ServiceAccount image_pull_secrets='Creds': must be a DNS-1123 subdomain",
        ),
        ({"image_pull_secrets": ["a", "a"]}, "ServiceAccount image_pull_secrets=['a', 'a']: names repeat"),
        ({"labels": {"a": "b c"}}, "ServiceAccount labels: label a='b c' is not a valid label value"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        ServiceAccount(chart, "Account", **{"name": "trainer", **props})
