"""Run-once objects of an Argo CD application: which is current, which superseded, which finished.

trainops names each run-once object (:data:`trainops.kinds.RUN_ONCE`: batch Job, Kubeflow jobs,
JobSet, TrainJob, Katib Experiment) ``<base>-<6 hex>`` (a content hash of its spec,
``trainops.hashing.content_hash``) and marks it ``argocd.argoproj.io/sync-options: Prune=false``. A
changed spec is a new name, so the old run leaves git but stays in the cluster, where Argo CD lists
it in ``status.resources`` with ``requiresPruning: true`` (swagger
``applicationv1alpha1ResourceStatus``): that run is *superseded*; a run still in git is *current*.

Its phase comes from the health Argo CD computed (resource tree nodes): Progressing -> Running,
Healthy -> Succeeded, Degraded -> Failed (batch/Job by Argo CD's Go check, the others by the Lua
checks in :mod:`trainops.argocd.health`; a kind with neither, such as JobSet, stays ``Unknown``). An
object being deleted (``metadata.deletionTimestamp``) is reported by Argo CD, before any health
check runs, as Progressing with the message "Pending deletion" (gitops-engine ``pkg/health``,
``GetResourceHealth``): that run is *Deleting*, not Running. Only superseded runs that have finished
(Succeeded or Failed) may be pruned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from trainops.argocd.models import Application, ApplicationTree, HealthStatus
from trainops.kinds import RUN_ONCE

RUN_NAME = re.compile(r"^(?P<base>[a-z0-9]([-a-z0-9]*[a-z0-9])?)-(?P<hash>[0-9a-f]{6})$")
"""``<base>-<6 hex>``: a run-once name as trainops gives it."""

RunPhase = Literal["Running", "Deleting", "Succeeded", "Failed", "Suspended", "Missing", "Unknown"]
RunState = Literal["current", "superseded"]

PENDING_DELETION = "Pending deletion"
"""Argo CD's health message for any object with a deletionTimestamp (status Progressing)."""

_PHASES: dict[str, RunPhase] = {
    "Progressing": "Running",
    "Healthy": "Succeeded",
    "Degraded": "Failed",
    "Suspended": "Suspended",
    "Missing": "Missing",
}


@dataclass(frozen=True)
class Run:
    """One run-once object of an application.

    Args:
        base: the name without its hash suffix (the ``trainops.dev/run-of`` value). group, version,
        kind, namespace, name: the object. state: ``current`` (in git) or ``superseded``
        (``requiresPruning``). phase: from its health. health: Argo CD's health of the object
        (``HealthStatus()`` when Argo CD has none).
    """

    base: str
    group: str
    version: str
    kind: str
    namespace: str
    name: str
    state: RunState
    phase: RunPhase
    health: HealthStatus

    @property
    def finished(self) -> bool:
        """True when the run Succeeded or Failed: it will not change any more."""
        return self.phase in ("Succeeded", "Failed")

    @property
    def prunable(self) -> bool:
        """True only for a superseded run that has finished; never for a current or running run."""
        return self.state == "superseded" and self.finished


def phase_of(health: HealthStatus) -> RunPhase:
    """Map Argo CD health to a run phase: Progressing -> Running, Healthy -> Succeeded, Degraded -> Failed.

    Suspended and Missing keep their names; anything else (no health, Unknown) is ``Unknown``.
    Progressing with Argo CD's message for an object with a deletionTimestamp is ``Deleting``.
    """
    if health.status == "Progressing" and health.message == PENDING_DELETION:
        return "Deleting"
    return _PHASES.get(health.status, "Unknown")


def list_runs(app: Application, tree: ApplicationTree) -> tuple[Run, ...]:
    """The run-once objects among ``app.status.resources``, sorted by (base, kind, namespace, name).

    Health is taken from the resource tree node of the same group/kind/namespace/name (where Argo
    CD v3 keeps it), else from the resource status (older Argo CD with inline health).
    """
    tree_health = {
        (n.group, n.kind, n.namespace, n.name): n.health for n in tree.nodes if n.health is not None
    }
    runs: list[Run] = []
    for res in app.resources:
        if (res.group, res.kind) not in RUN_ONCE:
            continue
        match = RUN_NAME.match(res.name)
        if match is None:
            continue
        health = (
            tree_health.get((res.group, res.kind, res.namespace, res.name)) or res.health or HealthStatus()
        )
        runs.append(
            Run(
                base=match["base"],
                group=res.group,
                version=res.version,
                kind=res.kind,
                namespace=res.namespace,
                name=res.name,
                state="superseded" if res.requires_pruning else "current",
                phase=phase_of(health),
                health=health,
            )
        )
    return tuple(sorted(runs, key=lambda r: (r.base, r.kind, r.namespace, r.name)))
