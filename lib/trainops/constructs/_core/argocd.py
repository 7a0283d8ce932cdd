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
