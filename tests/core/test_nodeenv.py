"""``own_kernel``: a forked process renders on a Node.js of its own while the parent's keeps its
objects; ``kernel_cache`` functions are emptied for it; ``stop_kernel`` ends that Node.js."""

from __future__ import annotations

import importlib
import os
from typing import Any

from trainops.constructs._core.emission import remove_patch
from trainops.core.forking import fork_map
from trainops.core.nodeenv import own_kernel, stop_kernel


def _node() -> Any:
    """This process's jsii Node.js process (a ``subprocess.Popen``)."""
    return importlib.import_module("jsii._runtime").kernel.provider._process._process


def _render() -> dict[str, Any]:
    from cdk8s import ApiObject, App, Chart

    chart = Chart(App(), "demo", namespace="ml", disable_resource_name_hashes=True)
    api_object = ApiObject(chart, "settings", api_version="v1", kind="ConfigMap", metadata={"name": "s"})
    api_object.add_json_patch(remove_patch("/metadata/namespace"))
    (rendered,) = chart.to_json()
    return dict(rendered)


def _in_child(_: int) -> tuple[int, int, dict[str, Any], int | None]:
    parent_node = _node().pid
    own_kernel()
    mine = _node()
    rendered = _render()
    stop_kernel()
    return parent_node, mine.pid, rendered, mine.poll()


def test_a_forked_process_renders_on_its_own_node() -> None:
    before = _render()  # this process's Node.js holds objects, and the shared remove patch
    own_node = _node().pid
    ((_, (inherited, child_node, rendered, exit_code)),) = fork_map(_in_child, [0], 1)
    assert inherited == own_node != child_node and child_node != os.getpid()
    assert rendered == before == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s"}}
    assert exit_code == 0  # stopped, not left behind
    assert _render() == before and _node().pid == own_node and _node().poll() is None
