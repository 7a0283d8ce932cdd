"""LimitRange: golden manifests, request/limit/max consistency, prop errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from construct_helpers import validate_docs

from trainops.constructs import LimitRange


def test_defaults(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    LimitRange(chart, "Limits")
    docs = synth(chart)
    text = docs["LimitRange/container-defaults"]
    golden("limit_range/defaults.yaml", text)
    (item,) = yaml.safe_load(text)["spec"]["limits"]
    # One Container item; default requests equal default limits (Guaranteed QoS); no maximum.
    assert item["type"] == "Container"
    assert item["default"] == item["defaultRequest"] == {"cpu": "1", "memory": "2Gi"}
    assert "max" not in item
    validate_docs(cli, tmp_path, docs)


def test_custom(chart: Any, synth: Any, golden: Any, cli: Any, tmp_path: Any) -> None:
    LimitRange(
        chart,
        "Limits",
        name="vision-defaults",
        cpu="2",
        memory="4096Mi",
        request_cpu="500m",
        request_memory="1Gi",
        max_cpu="32",
        max_memory="256Gi",
        labels={"team": "vision"},
    )
    docs = synth(chart)
    text = docs["LimitRange/vision-defaults"]
    golden("limit_range/custom.yaml", text)
    (item,) = yaml.safe_load(text)["spec"]["limits"]
    assert item["default"] == {"cpu": "2", "memory": "4Gi"}
    assert item["defaultRequest"] == {"cpu": "500m", "memory": "1Gi"}
    assert item["max"] == {"cpu": "32", "memory": "256Gi"}
    validate_docs(cli, tmp_path, docs)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"cpu": "0"}, "LimitRange cpu='0': must be greater than zero"),
        ({"memory": "2.5"}, "LimitRange memory='2.5': must be a whole number of bytes"),
        ({"request_cpu": "2"}, "LimitRange request_cpu='2': must not exceed cpu='1'"),
        ({"request_memory": "3Gi"}, "LimitRange request_memory='3Gi': must not exceed memory='2Gi'"),
        ({"max_cpu": "500m"}, "LimitRange max_cpu='500m': must be at least cpu='1'"),
        ({"max_memory": "1Gi"}, "LimitRange max_memory='1Gi': must be at least memory='2Gi'"),
        ({"labels": {"a": "b c"}}, "LimitRange labels: label a='b c' is not a valid label value"),
        ({"name": "Defaults"}, "LimitRange name='Defaults': must be a DNS-1123 label"),
    ],
)
def test_bad_prop(chart: Any, props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        LimitRange(chart, "Limits", **props)
