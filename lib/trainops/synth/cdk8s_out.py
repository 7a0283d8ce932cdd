"""The output of ``cdk8s synth``: the same normalised objects ``trainops synth`` writes, one
multi-document ``<cluster>-<app>.k8s.yaml`` per app and cluster (the cdk8s CLI's layout: one file
per chart) in the directory the CLI passes as ``CDK8S_OUTDIR``.

What differs from ``generated/``, on purpose: the layout (one file per chart instead of one per
object) and no ``lock.json`` (``cdk8s synth`` empties its output directory first, so nothing there
is committed or compared). The objects are byte-identical documents.
"""

from __future__ import annotations

from pathlib import Path

from trainops.project import Project
from trainops.synth.render import render_project


def write_outdir(project: Project, outdir: Path) -> list[Path]:
    """Render every app of ``project`` for every cluster it targets and write
    ``<outdir>/<cluster>-<app>.k8s.yaml`` (documents in file-name order, ``---`` between them).

    Returns:
        The files written, in order.

    Raises:
        AppError: an app's code raised. UsageError: two objects map to one file.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    results = render_project(project)
    for result in results:
        path = outdir / f"{result.cluster}-{result.app}.k8s.yaml"
        path.write_text("---\n".join(result.files.values()), encoding="utf-8")
        written.append(path)
    return written
