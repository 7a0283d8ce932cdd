"""The jsii round trips (Python → Node messages) constructs make: a construct emits its object in
four (its construct, the ``ApiObject``, one ``JsonPatch`` per top-level field, ``addJsonPatch``),
asks Node nothing Python knows (the Chart's namespace), and a ``remove`` patch operation is created
once per path; the Chart's namespace, when Python does not know it, is cdk8s's answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import jsii
import pytest
from cdk8s import App, Chart
from constructs import Construct

from trainops.app import AppDef, build_chart
from trainops.constructs import ServiceAccount, TeamNamespace
from trainops.constructs._core.base import chart_namespace
from trainops.core.cluster import Cluster

#: The jsii kernel provider's requests (jsii ``_kernel/providers/base.py``, ``BaseProvider``): one
#: message to Node each (``sync_complete`` answers a callback from Node).
_REQUESTS = ("create", "get", "set", "sget", "sset", "invoke", "sinvoke", "sync_complete")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the jsii requests made from here on, by request."""
    counts: Counter[str] = Counter()
    provider = jsii.kernel.provider
    for request in _REQUESTS:
        original = getattr(provider, request)  # AttributeError: jsii renamed its requests

        def counted(*args: Any, _request: str = request, _original: Any = original, **kwargs: Any) -> Any:
            counts[_request] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(provider, request, counted)
    return counts


def _built(build: Callable[[Chart, Cluster], None], cluster: Cluster) -> Chart:
    app_def = AppDef(name="calls", build=build, namespace="ml-calls", team="ml-platform")
    return build_chart(app_def, cluster)[1]


def test_chart_namespace_in_a_built_chart_asks_node_nothing(
    test_cluster: Cluster, calls: Counter[str]
) -> None:
    made: list[Construct] = []
    chart = _built(
        lambda chart, _: made.append(ServiceAccount(chart, "Account", name="trainer")), test_cluster
    )
    calls.clear()
    assert chart_namespace(made[0]) == "ml-calls"
    assert chart_namespace(chart) == "ml-calls"
    assert sum(calls.values()) == 0


def test_a_construct_emits_its_object_in_four_calls(test_cluster: Cluster, calls: Counter[str]) -> None:
    chart = _built(lambda chart, _: None, test_cluster)
    calls.clear()
    ServiceAccount(chart, "Account", name="trainer")
    # Construct + ApiObject; JsonPatch.add of automountServiceAccountToken; addJsonPatch.
    assert calls == Counter({"create": 2, "sinvoke": 1, "invoke": 1})


def test_a_remove_patch_is_created_once_per_path(test_cluster: Cluster, calls: Counter[str]) -> None:
    TeamNamespace(_built(lambda chart, _: None, test_cluster), "Namespace", cluster=test_cluster)
    chart = _built(lambda chart, _: None, test_cluster)
    calls.clear()
    TeamNamespace(chart, "Namespace", cluster=test_cluster)
    # Construct + ApiObject; addJsonPatch of the shared remove /metadata/namespace.
    assert calls == Counter({"create": 2, "invoke": 1})
    [namespace] = [o for o in chart.to_json() if o["kind"] == "Namespace"]
    assert namespace["metadata"]["name"] == "ml-calls"
    assert "namespace" not in namespace["metadata"]  # the shared patch removed it


def _user_chart(namespace: str | None) -> Construct:
    return Chart(App(), "user", namespace=namespace, disable_resource_name_hashes=True)


def _nested_chart(cluster: Cluster) -> Construct:
    return Chart(_built(lambda chart, _: None, cluster), "nested", namespace="ml-nested")


def _group_in_built_chart(cluster: Cluster) -> Construct:
    return Construct(_built(lambda chart, _: None, cluster), "group")


@pytest.mark.parametrize(
    ("scope", "namespace"),
    [
        (lambda cluster: _user_chart("ml-user"), "ml-user"),
        (lambda cluster: _user_chart(None), None),
        (_nested_chart, "ml-nested"),
        (_group_in_built_chart, "ml-calls"),
    ],
    ids=["user-chart", "user-chart-without-namespace", "chart-in-a-built-chart", "plain-construct-scope"],
)
def test_chart_namespace_elsewhere_is_cdk8s_answer(
    test_cluster: Cluster, scope: Callable[[Cluster], Construct], namespace: str | None, calls: Counter[str]
) -> None:
    account = ServiceAccount(scope(test_cluster), "Account", name="trainer")
    assert chart_namespace(account) == namespace == Chart.of(account).namespace
    calls.clear()
    assert chart_namespace(account) == namespace  # remembered: no second question to Node
    assert sum(calls.values()) == 0
    rendered = Chart.of(account).to_json()
    assert [o["metadata"].get("namespace") for o in rendered if o["kind"] == "ServiceAccount"] == [namespace]
