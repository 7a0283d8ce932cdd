"""Argo CD Lua health checks for the kinds Argo CD v3.5.1 does not know, and their argocd-cm patch.

Argo CD ships no health check for kubeflow.org, trainer.kubeflow.org or kueue.x-k8s.io (its
``resource_customizations/`` has no such folder), so such resources have no health and a failed
training run never shows in the application's health. The scripts under ``health/`` (package
data) fill that gap; each kind's :attr:`trainops.kinds.KindInfo.health` says which script serves it
(:data:`HEALTH_CHECKS`).

Argo CD looks a script up by ``<group>/<Kind>`` and first reads the argocd-cm key
``resource.customizations.health.<group>_<Kind>`` (``util/lua/lua.go`` ``getHealthScript``), so
:func:`argocd_cm_patch` and :func:`helm_values` emit one such key per kind. Scripts from argocd-cm
run without the Lua standard libraries unless ``resource.customizations.useOpenLibs.<group>_<Kind>``
is set; ours need none, so no such key is emitted. Kinds Argo CD already checks (batch/Job in Go,
serving.kserve.io/InferenceService in Lua) are left to Argo CD. The Application check restores what
Argo CD removed in v1.8, so that the root Application's sync waves (:mod:`trainops.synth.delivery`)
wait for the platform Applications that create the namespaces.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from trainops.argocd.errors import ConfigError
from trainops.kinds import KIND_TABLE

ARGOCD_NAMESPACE = "argocd"
"""Namespace of the ``argocd-cm`` ConfigMap in a default Argo CD install."""


#: Helpers shared by every script (condition lookup, messages), prepended to each: an argocd-cm
#: entry must be self-contained.
PRELUDE = "_prelude.lua"


@dataclass(frozen=True)
class HealthCheck:
    """One group/Kind and the Lua script (a path under ``trainops/argocd/health/``) that computes its health.

    Args:
        group: API group, e.g. ``kubeflow.org``. kind: e.g. ``PyTorchJob``. script: package-relative
        path of the Lua file, e.g. ``kubeflow.org/training-job.lua``. source: the upstream API the
        script follows (repository and file of the condition types).
    """

    group: str
    kind: str
    script: str
    source: str

    @property
    def key(self) -> str:
        """The Argo CD lookup key ``<group>/<Kind>`` (``util/lua/lua.go``)."""
        return f"{self.group}/{self.kind}"

    @property
    def cm_key(self) -> str:
        """The argocd-cm data key ``resource.customizations.health.<group>_<Kind>``."""
        return f"resource.customizations.health.{self.group}_{self.kind}"

    def lua(self) -> str:
        """The script text (UTF-8) from the package data: the shared prelude, then the kind's script."""
        folder = resources.files("trainops.argocd").joinpath("health")
        prelude = folder.joinpath(PRELUDE).read_text(encoding="utf-8")
        return prelude + folder.joinpath(self.script).read_text(encoding="utf-8")


class _HealthChecks(Mapping[str, HealthCheck]):
    """The :class:`HealthCheck` of every kind of :data:`trainops.kinds.KIND_TABLE` with a
    :attr:`~trainops.kinds.KindInfo.health` script, by ``<group>/<Kind>``, in table order; looked up
    in the table at each use."""

    def _checks(self) -> dict[str, HealthCheck]:
        checks = (
            HealthCheck(info.group, info.kind, info.health.script, info.health.source)
            for info in KIND_TABLE.values()
            if info.health is not None
        )
        return {check.key: check for check in checks}

    def __getitem__(self, key: str) -> HealthCheck:
        return self._checks()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._checks())

    def __len__(self) -> int:
        return len(self._checks())


HEALTH_CHECKS: Mapping[str, HealthCheck] = _HealthChecks()
"""Health checks by ``<group>/<Kind>``, in the order they are emitted (the kinds table's)."""


def health_check_for(api_version: str, kind: str) -> HealthCheck | None:
    """The trainops health check for an object's ``apiVersion`` and ``kind``, or ``None``.

    The group is the part of ``apiVersion`` before ``/`` (none for the core group), as Argo CD's
    ``util/lua/lua.go`` keys its scripts; the version does not matter.
    """
    info = KIND_TABLE.get((api_version.rpartition("/")[0], kind))
    if info is None or info.health is None:
        return None
    return HealthCheck(info.group, info.kind, info.health.script, info.health.source)


class _LiteralDumper(yaml.SafeDumper):
    """SafeDumper writing multi-line strings as literal blocks (``|``)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralDumper.add_representer(str, _represent_str)


def _dump(document: dict[str, Any]) -> str:
    text: str = yaml.dump(
        document, Dumper=_LiteralDumper, sort_keys=False, default_flow_style=False, width=2**31 - 1, indent=2
    )
    return text


def cm_data() -> dict[str, str]:
    """The argocd-cm data entries: ``resource.customizations.health.<group>_<Kind>`` -> Lua script.

    Raises:
        ConfigError: a script has trailing whitespace or tabs, which YAML literal blocks cannot carry.
    """
    data: dict[str, str] = {}
    for check in HEALTH_CHECKS.values():
        script = check.lua()
        if any(line != line.rstrip() or "\t" in line for line in script.splitlines()):
            raise ConfigError(f"health script {check.script} has trailing whitespace or tabs")
        data[check.cm_key] = script
    return data


def argocd_cm_patch(namespace: str = ARGOCD_NAMESPACE) -> str:
    """The health checks as a ConfigMap ``argocd-cm`` manifest (YAML text, byte-identical per release).

    Apply it with ``kubectl -n argocd patch configmap argocd-cm --patch-file`` or merge it with
    kustomize; Argo CD reads the keys without a restart.

    Args:
        namespace: namespace of Argo CD. Default: ``argocd``.
    """
    document = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "argocd-cm",
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"},
        },
        "data": cm_data(),
    }
    return _dump(document)


def helm_values() -> str:
    """The health checks as values for the ``argo-cd`` Helm chart (``configs.cm``), as YAML text.

    The chart renders ``configs.cm`` into argocd-cm (argo-helm ``charts/argo-cd/values.yaml``).
    """
    return _dump({"configs": {"cm": cm_data()}})
