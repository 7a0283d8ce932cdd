"""``lws-webhook`` mirrors kubernetes-sigs/lws v0.10.0 ``pkg/webhooks``: the upstream LeaderWorkerSet and
DisaggregatedSet examples pass it, and each change the webhooks reject is reported at its field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, documents_in, needs_shared
from trainops.validate.checks.lws_webhook import webhook_issues

LWS_EXAMPLES = EXAMPLES / "lws"


def _objects(kind: str) -> list[tuple[str, Any]]:
    if not LWS_EXAMPLES.is_dir():
        return []
    paths = sorted(LWS_EXAMPLES.rglob("*.yaml"))
    return [
        (str(Path(d.file).relative_to(LWS_EXAMPLES)), d.data)
        for d in documents_in(paths)
        if isinstance(d.data, dict) and d.data.get("kind") == kind
    ]


def _vllm() -> dict[str, Any]:
    """The upstream vLLM LeaderWorkerSet (docs/examples/vllm/GPU/lws.yaml)."""
    found = dict(_objects("LeaderWorkerSet"))
    return copy.deepcopy(found["docs/examples/vllm/GPU/lws.yaml"])


def _disaggregated() -> dict[str, Any]:
    (_, data), *_ = _objects("DisaggregatedSet")
    return copy.deepcopy(data)


@needs_shared
@pytest.mark.parametrize(
    ("path", "data"), _objects("LeaderWorkerSet") + _objects("DisaggregatedSet"), ids=lambda v: str(v)[:60]
)
def test_upstream_examples_pass(path: str, data: dict[str, Any]) -> None:
    assert webhook_issues(data) == []


def _set(*keys: str | int, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        node = data
        for key in keys[:-1]:
            node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
        node[keys[-1]] = value  # type: ignore[index]

    return mutate


def _rolling(**values: Any) -> Callable[[dict[str, Any]], None]:
    return _set(
        "spec", "rolloutStrategy", value={"type": "RollingUpdate", "rollingUpdateConfiguration": values}
    )


LWS_CASES = [
    pytest.param(
        _set("metadata", "name", value="1-vllm"), ("metadata", "name"), "dns1035-label", id="name-digit"
    ),
    pytest.param(
        _set("metadata", "name", value="vllm.a"), ("metadata", "name"), "dns1035-label", id="name-dot"
    ),
    pytest.param(
        _set("spec", "leaderWorkerTemplate", "size", value=0),
        ("spec", "leaderWorkerTemplate", "size"),
        "size",
        id="size-zero",
    ),
    pytest.param(
        _set("spec", "leaderWorkerTemplate", "size", value=2**31 - 1),
        ("spec", "replicas"),
        "size",
        id="replicas-times-size",
    ),
    pytest.param(
        _rolling(maxUnavailable=0),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxUnavailable"),
        "rolling-update",
        id="both-zero-by-default-surge",
    ),
    pytest.param(
        _rolling(maxUnavailable="40%"),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxUnavailable"),
        "rolling-update",
        id="percent-rounds-down-to-zero",
    ),
    pytest.param(
        _rolling(maxSurge="150%"),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxSurge"),
        "rolling-update",
        id="surge-over-100-percent",
    ),
    pytest.param(
        _rolling(maxUnavailable="5"),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxUnavailable"),
        "rolling-update",
        id="string-not-percent",
    ),
    pytest.param(
        _rolling(maxUnavailable=-1),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxUnavailable"),
        "rolling-update",
        id="negative",
    ),
    pytest.param(
        _rolling(partition=-1),
        ("spec", "rolloutStrategy", "rollingUpdateConfiguration", "partition"),
        "rolling-update",
        id="negative-partition",
    ),
    pytest.param(
        _set("spec", "leaderWorkerTemplate", "subGroupPolicy", value={"subGroupSize": 3}),
        ("spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"),
        "subgroup",
        id="subgroup-larger-than-size",
    ),
    pytest.param(
        _set("spec", "leaderWorkerTemplate", "subGroupPolicy", value={"subGroupSize": 0}),
        ("spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"),
        "subgroup",
        id="subgroup-zero",
    ),
    pytest.param(
        _set("spec", "leaderWorkerTemplate", "subGroupPolicy", value={"subGroupPolicyType": "LeaderWorker"}),
        ("spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"),
        "subgroup",
        id="subgroup-size-missing",
    ),
    pytest.param(
        _set(
            "metadata", "annotations", value={"leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology": "x"}
        ),
        ("metadata", "annotations", "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"),
        "subgroup",
        id="subgroup-annotation-without-policy",
    ),
]


@needs_shared
@pytest.mark.parametrize(("mutate", "parts", "keyword"), LWS_CASES)
def test_leader_worker_set_rejections(
    mutate: Callable[[dict[str, Any]], None], parts: tuple[str | int, ...], keyword: str
) -> None:
    data = _vllm()
    mutate(data)
    issues = webhook_issues(data)
    assert [(i.parts, i.keyword, i.rule) for i in issues][:1] == [(parts, keyword, "lws-webhook")]
    assert all("\n" not in i.message for i in issues)


@needs_shared
@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(_rolling(maxUnavailable=0, maxSurge=1), id="surge-only"),
        pytest.param(_rolling(maxUnavailable="50%"), id="half-of-two"),
        pytest.param(
            _set("spec", "leaderWorkerTemplate", "subGroupPolicy", value={"subGroupSize": 2}),
            id="subgroup-divides",
        ),
        pytest.param(
            _set(
                "spec",
                "leaderWorkerTemplate",
                "subGroupPolicy",
                value={"subGroupSize": 1, "subGroupPolicyType": "LeaderExcluded"},
            ),
            id="leader-excluded",
        ),
        pytest.param(_set("spec", "replicas", value=0), id="zero-replicas"),
    ],
)
def test_leader_worker_set_accepted(mutate: Callable[[dict[str, Any]], None]) -> None:
    data = _vllm()
    mutate(data)
    assert webhook_issues(data) == []


def test_zero_replicas_skip_the_both_zero_rule_only() -> None:
    data = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "x"},
        "spec": {
            "replicas": 0,
            "leaderWorkerTemplate": {"workerTemplate": {}},
            "rolloutStrategy": {"type": "RollingUpdate", "rollingUpdateConfiguration": {"maxUnavailable": 0}},
        },
    }
    assert webhook_issues(data) == []
    data["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxSurge"] = "101%"
    assert [i.keyword for i in webhook_issues(data)] == ["rolling-update"]


DISAGG_CASES = [
    pytest.param(
        _set(
            "spec", "roles", 0, "spec", "rolloutStrategy", "rollingUpdateConfiguration", "partition", value=1
        ),
        ("spec", "roles", 0, "spec", "rolloutStrategy", "rollingUpdateConfiguration", "partition"),
        "rolling-update",
        id="partition",
    ),
    pytest.param(
        _set(
            "spec", "roles", 1, "spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxSurge", value=0
        ),
        ("spec", "roles", 1, "spec", "rolloutStrategy", "rollingUpdateConfiguration", "maxUnavailable"),
        "rolling-update",
        id="both-zero",
    ),
    pytest.param(
        _set("spec", "placementPolicy", value={"type": "ExclusiveTopology"}),
        ("spec", "placementPolicy", "topology"),
        "placement",
        id="topology-missing",
    ),
    pytest.param(
        lambda d: (
            _set("spec", "placementPolicy", value={"type": "ExclusiveSlice", "topology": "rack"})(d),
            _set(
                "spec",
                "roles",
                2,
                "metadata",
                "annotations",
                value={"leaderworkerset.sigs.k8s.io/exclusive-topology": "rack"},
            )(d),
        ),
        ("spec", "roles", 2),
        "placement",
        id="exclusive-annotation-with-placement",
    ),
    pytest.param(
        lambda d: (
            _set("spec", "slices", value=2)(d),
            _set("spec", "roles", 0, "scaling", value={"mode": "External"})(d),
        ),
        ("spec", "slices"),
        "scaling",
        id="external-with-slices",
    ),
]


@needs_shared
@pytest.mark.parametrize(("mutate", "parts", "keyword"), DISAGG_CASES)
def test_disaggregated_set_rejections(
    mutate: Callable[[dict[str, Any]], None], parts: tuple[str | int, ...], keyword: str
) -> None:
    data = _disaggregated()
    mutate(data)
    assert [(i.parts, i.keyword) for i in webhook_issues(data)] == [(parts, keyword)]


@pytest.mark.parametrize(
    "data",
    [None, [], {"kind": "LeaderWorkerSet"}, {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}],
)
def test_other_documents_give_nothing(data: Any) -> None:
    assert webhook_issues(data) == []


BAD_LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
  namespace: llm
spec:
  replicas: 2
  rolloutStrategy:
    type: RollingUpdate
    rollingUpdateConfiguration:
      maxUnavailable: 0
  leaderWorkerTemplate:
    size: 0
    workerTemplate:
      spec:
        containers:
        - name: main
          image: vllm/vllm-openai:v0.8.5
"""


@needs_shared
def test_validate_reports_what_the_webhook_rejects(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "lws.yaml"
    path.write_text(BAD_LWS, encoding="utf-8")
    run = cli("validate", "--cluster", "gpu-next", "--format", "text", str(path))
    assert run.code == 1
    assert run.out.splitlines()[:2] == [
        f"{path}:11: LeaderWorkerSet/vllm $.spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable: "
        "maxUnavailable 0 and maxSurge 0 are both 0 for 2 replicas: maxUnavailable must not be 0 when "
        "`maxSurge` is 0 [lws-webhook]",
        f"{path}:13: LeaderWorkerSet/vllm $.spec.leaderWorkerTemplate.size: size 0 must be equal or greater "
        "than 1 [lws-webhook]",
    ]
