"""The cdk8s App for ``cdk8s synth`` (cdk8s.yaml: ``app: python -m apps``, output ``dist/``).

It writes the objects ``trainops synth`` writes (normalised: labels, spec hash, canonical
quantities), one ``<cluster>-<app>.k8s.yaml`` per app and cluster, into ``CDK8S_OUTDIR``
(default ``dist/``); see :mod:`trainops.synth.cdk8s_out` for what differs from ``generated/``.
"""

from __future__ import annotations

import os
from pathlib import Path

from trainops.project import load_project
from trainops.synth.cdk8s_out import write_outdir


def main() -> None:
    """Synthesise every app for every cluster it targets into ``CDK8S_OUTDIR``."""
    root = Path(__file__).resolve().parent.parent
    write_outdir(load_project(root), Path(os.environ.get("CDK8S_OUTDIR", "dist")))


if __name__ == "__main__":
    main()
