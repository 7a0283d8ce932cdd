"""list-map's C pre-test (``_listmap.all_distinct``) answers exactly what the Python walk with
``_distinct`` at every map list answers, on real and generated documents."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_listmap import EXAMPLES, _core, _crd, needs_shared

from trainops.validate.checks import list_map
from trainops.validate.checks._listmap import all_distinct
from trainops.yaml.load import load_file

MANY = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _python(node: Any, value: Any) -> bool:
    """The pre-test in Python: ``list_map._walk``'s traversal, ``list_map._distinct`` at each map list."""
    if isinstance(value, dict):
        for name, children in node.props.items():
            child = value.get(name)
            if child is not None and not all(_python(sub, child) for sub in children):
                return False
        for name, child in value.items():
            if name in node.props or child is None:
                continue
            if not all(_python(sub, child) for sub in node.additional):
                return False
    elif isinstance(value, list):
        if node.map_keys is not None and len(value) > 1 and not list_map._distinct(node.map_keys, value):
            return False
        return all(_python(sub, item) for item in value for sub in node.items)
    return True


def _agree(checker: list_map.ListMapChecker, value: Any) -> bool:
    root, plan = checker._root, checker._plan
    assert root is not None and plan is not None
    answer = all_distinct(plan, value)
    assert answer == _python(root, value)
    if answer:
        saved = list_map._ALL_DISTINCT
        list_map._ALL_DISTINCT = None
        try:
            assert checker.issues(value) == []
        finally:
            list_map._ALL_DISTINCT = saved
    return answer


DEPLOYMENT = "deployment-apps-v1.json"
KEYS = st.sampled_from(["a", "b", "TCP", "UDP", "main"])
KEY_VALUES = KEYS | st.integers(0, 3) | st.none() | st.booleans() | st.floats(0, 1) | st.just({"x": 1})
ENTRY = st.dictionaries(
    st.sampled_from(["name", "containerPort", "protocol", "value", "hostPort"]), KEY_VALUES, max_size=4
)
ENTRIES = st.lists(ENTRY | KEY_VALUES, max_size=4)
CONTAINER = st.fixed_dictionaries(
    {"name": KEY_VALUES},
    optional={"ports": ENTRIES | st.none() | KEYS, "env": ENTRIES | st.none()},
)


@MANY
@given(
    containers=st.lists(CONTAINER | KEY_VALUES, max_size=4),
    init=st.lists(CONTAINER, max_size=2) | st.none(),
)
def test_all_distinct_agrees_on_generated_deployments(containers: list[Any], init: list[Any] | None) -> None:
    spec: dict[str, Any] = {"containers": containers}
    if init is not None:
        spec["initContainers"] = init
    _agree(_core(DEPLOYMENT), {"spec": {"template": {"spec": spec}}})


@MANY
@given(
    flavors=st.lists(st.fixed_dictionaries({"name": KEY_VALUES}, optional={"resources": ENTRIES}), max_size=4)
)
def test_all_distinct_agrees_on_generated_cluster_queues(flavors: list[Any]) -> None:
    checker = _crd("kueue/kueue.x-k8s.io_clusterqueues.yaml", "v1beta2")
    _agree(checker, {"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": flavors}]}})


@needs_shared
def test_all_distinct_agrees_on_upstream_deployments() -> None:
    documents = [
        d.data
        for path in sorted(EXAMPLES.rglob("*.yaml"))
        for d in load_file(str(path)).documents
        if isinstance(d.data, dict) and d.data.get("kind") == "Deployment"
    ]
    answers = [_agree(_core(DEPLOYMENT), d) for d in documents]
    assert len(answers) > 10
    assert sum(answers) > len(answers) // 2  # the pre-test answers most real documents itself


def test_duplicates_go_to_the_python_walk() -> None:
    doc = {"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}}}
    assert not _agree(_core(DEPLOYMENT), doc)
    assert len(_core(DEPLOYMENT).issues(doc)) == 1


def test_all_distinct_rejects_a_bad_plan() -> None:
    with pytest.raises(TypeError):
        all_distinct((), {})
    with pytest.raises(ValueError, match="out of range"):
        all_distinct((({"a": (5,)}, (), (), None, None),), {"a": {}})
