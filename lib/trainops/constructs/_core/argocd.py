"""Argo CD annotations the constructs put on their objects (sync waves and sync options).

Sources: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/ and
https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/ (DESIGN.md decision 4).
"""

from __future__ import annotations

#: Argo CD sync-wave annotation: lower waves sync first (PVCs -1, workloads 0, monitors/HPAs 1).
#: Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
#: Argo CD per-resource sync options annotation.
#: Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
#: Sync options that keep Argo CD from pruning or deleting an object (data-holding PVCs).
PROTECT_OPTIONS = "Prune=false,Delete=false"
#: Sync option on run-once objects (content-hash names): a sync never prunes a superseded run that
#: may still be running; ``trainops argocd prune-finished`` removes it once finished.
RUN_ONCE_OPTIONS = "Prune=false"
#: Argo CD per-resource compare options annotation.
#: Source: https://argo-cd.readthedocs.io/en/stable/user-guide/compare-options/
COMPARE_OPTIONS = "argocd.argoproj.io/compare-options"
#: Compare option on run-once objects: a superseded run (no longer in git, kept by ``Prune=false``)
#: is still listed with ``requiresPruning`` but does not turn the Application OutOfSync (argo-cd
#: ``controller/state.go`` CompareAppState: "we ignore the status if the obj needs pruning AND we
#: have the annotation"). Its health still counts towards the Application's.
IGNORE_EXTRANEOUS = "IgnoreExtraneous"
#: Sync option for custom resources whose CRD another app installs.
SKIP_DRY_RUN_OPTIONS = "SkipDryRunOnMissingResource=true"


def argocd_annotations(*, wave: int | None = None, options: list[str] | None = None) -> dict[str, str]:
    """Argo CD annotations: a sync wave and comma-joined sync options, each only when given."""
    out: dict[str, str] = {}
    if wave is not None:
        out[SYNC_WAVE] = str(wave)
    if options:
        out[SYNC_OPTIONS] = ",".join(options)
    return out


def run_once_annotations(*, options: list[str] | None = None) -> dict[str, str]:
    """Argo CD annotations of a run-once object (content-hash name, DESIGN.md decision 4):
    ``Prune=false`` (plus ``options``) and the compare option ``IgnoreExtraneous``, so that a spec
    change (a new run) neither deletes nor flags as drift the superseded run."""
    return {
        **argocd_annotations(options=[RUN_ONCE_OPTIONS, *(options or [])]),
        COMPARE_OPTIONS: IGNORE_EXTRANEOUS,
    }
