"""Constructs never accept a literal credential as a prop value: only references (secretKeyRef)."""

from __future__ import annotations

from typing import Any

import pytest

from trainops.constructs import PyTorchJob
from trainops.core.cluster import Cluster


@pytest.mark.parametrize(
    ("env", "reason"),
    [
        ({"DB_PASSWORD": "hunter2-prod"}, "DB_PASSWORD holds a literal credential"),
        ({"AWS_ID": "AKIAIOSFODNN7EXAMPLE"}, "AWS_ID holds a literal AWS Access Key"),
        ({"HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz"}, "HF_TOKEN holds a literal credential"),
        (
            {"DATABASE_URL": "postgres://app:s3cret-pw@db:5432/x"},
            "DATABASE_URL holds a literal Basic Auth Credentials",
        ),
    ],
)
def test_literal_credentials_are_refused(
    chart: Any, test_cluster: Cluster, env: dict[str, str], reason: str
) -> None:
    with pytest.raises(ValueError, match="reference a Secret") as raised:
        PyTorchJob(
            chart, "Job", cluster=test_cluster, name="train", image="registry.example.com/t:1", env=env
        )
    assert reason in str(raised.value)
    assert all(value not in str(raised.value) for value in env.values())


def test_references_and_plain_settings_are_accepted(chart: Any, test_cluster: Cluster) -> None:
    env = {"DB_PASSWORD_FILE": "$(SECRET_DIR)/password", "TOKENIZERS_PARALLELISM": "false", "MODEL": "bert"}
    job = PyTorchJob(
        chart, "Job", cluster=test_cluster, name="train", image="registry.example.com/t:1", env=env
    )
    assert job.name.startswith("train-")  # run-once: a content-hash suffix
