"""The cdk8s App for ``cdk8s synth`` (cdk8s.yaml: ``app: python -m apps``, output ``dist/``).

``trainops synth`` does not use this module: it builds one App per (cluster, app) and owns
``generated/``. This entry point writes every chart to ``dist/`` for users of the cdk8s CLI.
"""

from __future__ import annotations

import os

from trainops.nodeenv import configure_node

configure_node()

from cdk8s import App, Chart  # noqa: E402

from apps import APPS, CLUSTERS  # noqa: E402


def main() -> None:
    """Synthesise every app for every cluster it targets into ``dist/`` (one chart each)."""
    app = App(outdir=os.environ.get("CDK8S_OUTDIR", "dist"))
    for cluster in CLUSTERS:
        for app_def in APPS:
            if app_def.targets(cluster):
                chart = Chart(
                    app,
                    f"{cluster.name}-{app_def.name}",
                    namespace=app_def.namespace,
                    disable_resource_name_hashes=True,
                )
                app_def.build(chart, cluster)
    app.synth()


if __name__ == "__main__":
    main()
