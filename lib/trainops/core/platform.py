"""The platform catalog and what it installs on a cluster (issue 35: "the cluster's own platform,
delivered like its apps").

A cluster declares its components and their release tags in ``Cluster.operators`` (the same
mapping the validator selects CRD schemas by, so one version bump in ``apps/clusters.py`` moves
both). ``platform.yaml`` beside this module (package data) records, per component and release,
where the upstream release lives and how it installs: a Helm chart (``repoURL`` + ``chart`` +
``targetRevision``), an OCI Helm chart, or a kustomization at a git tag. :func:`platform_apps`
turns a cluster into the Argo CD Applications that install its components, with Helm values from
the cluster's facts (:data:`VALUE_BUILDERS`), their sync-wave depth (``needs`` and ``crds`` layers
first) and whether their CRDs need server-side apply. Nothing is downloaded.

Adding a component is one ``platform.yaml`` entry (plus a value builder only when its values
depend on the cluster).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError

SourceKind = Literal["helm", "oci", "git"]
Layer = Literal["crds", "operator"]
_KINDS: tuple[SourceKind, ...] = ("helm", "oci", "git")
_LAYERS: tuple[Layer, ...] = ("crds", "operator")

#: The catalog shipped with the package.
PLATFORM_CATALOG = Path(__file__).with_name("platform.yaml")
#: Annotations are limited to 256 KiB in total (apimachinery ``ValidateAnnotationsSize``,
#: ``TotalAnnotationSizeLimitB``): a CRD larger than this as JSON cannot be client-side applied,
#: whose ``last-applied-configuration`` annotation holds the whole object.
CLIENT_SIDE_APPLY_LIMIT = 262144
#: Label on a platform Application naming the component it installs.
COMPONENT_LABEL = "trainops.dev/platform-component"
#: Label on a platform Application with the component's declared release tag.
VERSION_LABEL = "trainops.dev/platform-version"
#: Label on every Application naming the trainops cluster it delivers to.
CLUSTER_LABEL = "trainops.dev/cluster"
#: Kueue's integration for plain Jobs, enabled on every cluster running Kueue.
BATCH_JOB_INTEGRATION = "batch/job"

_COMPONENT_FIELDS = frozenset(
    {
        "title",
        "namespace",
        "namespace_fact",
        "deployment",
        "needs",
        "conflicts",
        "kueue_integrations",
        "values",
        "bootstrap",
        "releases",
    }
)
_RELEASE_FIELDS = frozenset({"reference", "crd_bytes", "apis", "deprecated", "config_api", "sources"})
_SOURCE_FIELDS = frozenset(
    {"kind", "repo", "chart", "path", "version", "layer", "suffix", "release", "images"}
)


@dataclass(frozen=True)
class Source:
    """Where one part of a release lives: one Argo CD Application's ``spec.source``.

    Args:
        kind: ``helm`` (a Helm repository: ``repo`` + ``chart``), ``oci`` (an OCI Helm chart:
            ``repo`` is ``oci://registry/path/chart``, Argo CD v3 reads it with ``path: .``) or
            ``git`` (a kustomization at ``path`` in ``repo``).
        repo: the repository URL. version: chart version or git tag (``targetRevision``).
        chart: the chart name (``helm`` only). path: the directory (``git`` only).
        layer: ``crds`` (synced one wave before the ``operator`` sources) or ``operator``.
        suffix: appended to the Application name (``<cluster>-<component>-<suffix>``).
        release: the Helm release name. images: kustomize image overrides (``name:tag``).
    """

    kind: SourceKind
    repo: str
    version: str
    chart: str | None = None
    path: str | None = None
    layer: Layer = "operator"
    suffix: str = ""
    release: str | None = None
    images: tuple[str, ...] = ()


@dataclass(frozen=True)
class Release:
    """One release of a component (see ``platform.yaml`` for the fields)."""

    version: str
    reference: str
    sources: tuple[Source, ...]
    crd_bytes: int | None
    apis: tuple[str, ...] = ()
    deprecated: tuple[str, ...] = ()
    config_api: str | None = None

    @property
    def server_side_apply(self) -> bool:
        """Whether a CRD of the release is too large for client-side apply (or not measured)."""
        return self.crd_bytes is None or self.crd_bytes > CLIENT_SIDE_APPLY_LIMIT


@dataclass(frozen=True)
class Component:
    """One catalogued component (see ``platform.yaml`` for the fields)."""

    name: str
    title: str
    namespace: str
    releases: Mapping[str, Release]
    namespace_fact: str | None = None
    deployment: str | None = None
    needs: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    kueue_integrations: tuple[str, ...] = ()
    values: str | None = None
    bootstrap: bool = False


@dataclass(frozen=True)
class PlatformApp:
    """One Application that installs one source of a component on one cluster.

    Args:
        cluster: the cluster name. component: the ``Cluster.operators`` key. version: its
            declared release tag. source: what the Application syncs. name: the Application name,
            ``<cluster>-<component>[-<suffix>]``. namespace: its destination namespace.
        depth: its place in the install order (0 first): one more than the deepest component it
            ``needs``, and one more for an ``operator`` source after its own ``crds`` source.
        values: Helm values (empty for ``git`` sources and for ``crds`` sources).
        server_side_apply: its CRDs exceed the client-side apply limit.
        deployment: the controller Deployment that gates what comes after it.
        title: the component's display name.
    """

    cluster: str
    component: str
    version: str
    source: Source
    name: str
    namespace: str
    depth: int
    values: Mapping[str, Any] = field(default_factory=dict)
    server_side_apply: bool = True
    deployment: str | None = None
    title: str = ""


def _where(path: Path, *parts: object) -> str:
    return f"{path}: " + ".".join(str(p) for p in parts)


def _strings(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def _check_fields(raw: object, allowed: frozenset[str], where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: expected a mapping")
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise UsageError(f"{where}: unknown field {unknown[0]!r}")
    return raw


def _source(raw: object, where: str) -> Source:
    data = _check_fields(raw, _SOURCE_FIELDS, where)
    kind, layer = data.get("kind"), data.get("layer", "operator")
    if kind not in _KINDS:
        raise UsageError(f"{where}.kind: {kind!r} is not one of {', '.join(_KINDS)}")
    if layer not in _LAYERS:
        raise UsageError(f"{where}.layer: {layer!r} is not one of {', '.join(_LAYERS)}")
    for key in ("repo", "version"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise UsageError(f"{where}.{key}: missing")
    needed = {"helm": "chart", "git": "path"}.get(str(kind))
    if needed is not None and not isinstance(data.get(needed), str):
        raise UsageError(f"{where}.{needed}: a {kind} source needs it")
    if kind == "oci" and not str(data["repo"]).startswith("oci://"):
        raise UsageError(f"{where}.repo: an oci source's repo starts with oci://")
    return Source(
        kind=kind,
        repo=str(data["repo"]),
        version=str(data["version"]),
        chart=data.get("chart"),
        path=data.get("path"),
        layer=layer,
        suffix=str(data.get("suffix", "")),
        release=data.get("release"),
        images=_strings(data.get("images"), f"{where}.images"),
    )


def _release(version: str, raw: object, where: str) -> Release:
    data = _check_fields(raw, _RELEASE_FIELDS, where)
    crd_bytes = data.get("crd_bytes")
    if crd_bytes is not None and (isinstance(crd_bytes, bool) or not isinstance(crd_bytes, int)):
        raise UsageError(f"{where}.crd_bytes: expected an integer or null, got {crd_bytes!r}")
    sources = data.get("sources")
    if not isinstance(sources, list):
        raise UsageError(f"{where}.sources: expected a list")
    return Release(
        version=version,
        reference=str(data.get("reference", "")),
        sources=tuple(_source(s, f"{where}.sources[{i}]") for i, s in enumerate(sources)),
        crd_bytes=crd_bytes,
        apis=_strings(data.get("apis"), f"{where}.apis"),
        deprecated=_strings(data.get("deprecated"), f"{where}.deprecated"),
        config_api=data.get("config_api"),
    )


def load_platform_catalog(path: Path = PLATFORM_CATALOG) -> dict[str, Component]:
    """Read and check a platform catalog.

    Raises:
        UsageError: the file is missing or malformed (the message names the entry and field), or
            a ``needs``/``conflicts`` entry or ``values`` builder that does not exist.
    """
    import yaml  # here: validation never reads the platform catalog

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("components"), dict):
        raise UsageError(f"{path}: expected a mapping with a 'components' mapping")
    out: dict[str, Component] = {}
    for name, raw in data["components"].items():
        where = _where(path, "components", name)
        entry = _check_fields(raw, _COMPONENT_FIELDS, where)
        releases = entry.get("releases")
        if not isinstance(releases, dict) or not releases:
            raise UsageError(f"{where}.releases: expected a mapping of release tags")
        values = entry.get("values")
        if values is not None and values not in VALUE_BUILDERS:
            raise UsageError(f"{where}.values: no value builder {values!r}")
        out[str(name)] = Component(
            name=str(name),
            title=str(entry.get("title", name)),
            namespace=str(entry.get("namespace", name)),
            releases={
                str(tag): _release(str(tag), rel, f"{where}.releases.{tag}") for tag, rel in releases.items()
            },
            namespace_fact=entry.get("namespace_fact"),
            deployment=entry.get("deployment"),
            needs=_strings(entry.get("needs"), f"{where}.needs"),
            conflicts=_strings(entry.get("conflicts"), f"{where}.conflicts"),
            kueue_integrations=_strings(entry.get("kueue_integrations"), f"{where}.kueue_integrations"),
            values=values,
            bootstrap=bool(entry.get("bootstrap", False)),
        )
    for component in out.values():
        for other in (*component.needs, *component.conflicts):
            if other not in out:
                raise UsageError(f"{_where(path, 'components', component.name)}: unknown component {other!r}")
    return out


@functools.cache
def platform_catalog() -> dict[str, Component]:
    """The shipped catalog (read once per process)."""
    return load_platform_catalog()


def release_of(component: str, version: str, *, where: str = "") -> Release:
    """The catalogued release ``version`` of ``component``.

    Raises:
        UsageError: the component or the release is not catalogued (naming the known ones).
    """
    catalog = platform_catalog()
    prefix = f"{where}: " if where else ""
    if component not in catalog:
        raise UsageError(
            f"{prefix}{component!r} is not in trainops' platform catalog (known: {', '.join(sorted(catalog))}); "
            "list it in PlatformSettings(unmanaged=...) if you install it yourself"
        )
    releases = catalog[component].releases
    if version not in releases:
        raise UsageError(
            f"{prefix}{component} {version!r} is not in trainops' platform catalog "
            f"(known releases: {', '.join(releases)})"
        )
    return releases[version]


#: The catalog's Dynamic Resource Allocation drivers: a cluster that declares ``device_classes`` runs
#: one of them (its kubelet plugin publishes the ResourceSlices the DeviceClasses select from).
DRA_DRIVERS: tuple[str, ...] = ("nvidia-dra-driver-gpu",)


def managed(cluster: Cluster) -> dict[str, str]:
    """The components trainops installs on ``cluster``: its operators minus ``unmanaged`` and
    bootstrap components (Argo CD), name → release tag, sorted by name."""
    catalog = platform_catalog()
    return {
        name: version
        for name, version in sorted(cluster.operators.items())
        if name not in cluster.platform.unmanaged and not (name in catalog and catalog[name].bootstrap)
    }


def platform_apps(cluster: Cluster) -> list[PlatformApp]:
    """The Applications that install ``cluster``'s components, in install order (depth, name).

    Empty when ``cluster.platform.deliver`` is off.

    Raises:
        UsageError: a component or release the catalog does not know, a component whose ``needs``
            the cluster does not declare, two conflicting components, a cycle of ``needs``, or a
            cluster fact a value builder cannot use (one line naming cluster, component and field).
    """
    if not cluster.platform.deliver:
        return []
    catalog = platform_catalog()
    wanted = managed(cluster)
    where = f"apps/clusters.py: cluster {cluster.name!r} operators"
    releases = {name: release_of(name, version, where=where) for name, version in wanted.items()}
    declared = set(cluster.operators)
    for name in wanted:
        component = catalog[name]
        for need in component.needs:
            if need not in declared:
                raise UsageError(
                    f"{where}: {name} needs {need} (add it to operators, or to PlatformSettings(unmanaged=...) "
                    "if it is installed another way)"
                )
        for other in component.conflicts:
            if other in declared:
                raise UsageError(f"{where}: {name} and {other} both install the GPU stack; keep one")
    if cluster.uses_dra and not any(d in declared for d in DRA_DRIVERS):
        raise UsageError(
            f"{where}: device_classes need a DRA driver to allocate them: add one of {', '.join(DRA_DRIVERS)} "
            "to operators (or to PlatformSettings(unmanaged=...) if it is installed another way)"
        )
    depth = _depths(cluster, wanted)
    apps: list[PlatformApp] = []
    for name, version in wanted.items():
        component, release = catalog[name], releases[name]
        namespace = component.namespace
        if component.namespace_fact is not None:
            namespace = str(getattr(cluster, component.namespace_fact))
        has_crds_layer = any(s.layer == "crds" for s in release.sources)
        for source in release.sources:
            values: dict[str, Any] = {}
            if source.kind != "git" and source.layer == "operator" and component.values is not None:
                values = VALUE_BUILDERS[component.values](cluster, release)
            extra = 1 if has_crds_layer and source.layer == "operator" else 0
            apps.append(
                PlatformApp(
                    cluster=cluster.name,
                    component=name,
                    version=version,
                    source=source,
                    name="-".join(p for p in (cluster.name, name, source.suffix) if p),
                    namespace=namespace,
                    depth=depth[name] + extra,
                    values=values,
                    server_side_apply=release.server_side_apply,
                    deployment=component.deployment if source.layer == "operator" else None,
                    title=component.title,
                )
            )
    return sorted(apps, key=lambda a: (a.depth, a.name))


def _depths(cluster: Cluster, wanted: Mapping[str, str]) -> dict[str, int]:
    """Install depth per component: 0 without ``needs``, else one more than its deepest need (plus
    one when that need has a ``crds`` layer). ``needs`` outside ``wanted`` (unmanaged) count as 0."""
    catalog = platform_catalog()
    depth: dict[str, int] = {}

    def visit(name: str, path: tuple[str, ...]) -> int:
        if name in path:
            raise UsageError(f"platform catalog: components {' -> '.join((*path, name))} need each other")
        if name in depth:
            return depth[name]
        deepest = -1
        for need in catalog[name].needs:
            if need in wanted:
                release = catalog[need].releases[wanted[need]]
                layers = 1 if any(s.layer == "crds" for s in release.sources) else 0
                deepest = max(deepest, visit(need, (*path, name)) + layers)
        depth[name] = deepest + 1
        return depth[name]

    for name in wanted:
        visit(name, ())
    return depth


def kueue_integrations(cluster: Cluster) -> list[str]:
    """The Kueue ``integrations.frameworks`` the cluster's job kinds need: ``batch/job`` and the
    integrations of every declared component (``kueue_integrations`` in the catalog), sorted."""
    catalog = platform_catalog()
    found = {BATCH_JOB_INTEGRATION}
    for name in cluster.operators:
        if name in catalog:
            found.update(catalog[name].kueue_integrations)
    return sorted(found)


def check_destinations(clusters: Sequence[Cluster]) -> None:
    """Clusters sharing an Argo CD destination (``argocd_server``) are one cluster: they must not
    declare different releases of one delivered component.

    Raises:
        UsageError: naming both clusters, the destination and both releases.
    """
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for cluster in clusters:
        if not cluster.platform.deliver:
            continue
        for name, version in managed(cluster).items():
            key = (cluster.argocd_server, name)
            other = seen.setdefault(key, (cluster.name, version))
            if other[1] != version:
                raise UsageError(
                    f"apps/clusters.py: clusters {other[0]!r} and {cluster.name!r} share the destination "
                    f"{cluster.argocd_server} but declare {name} {other[1]} and {version}: one cluster "
                    "runs one release of a component"
                )


@dataclass(frozen=True)
class UpgradeImpact:
    """What moving ``component`` from ``old`` to ``new`` does to the API versions objects use.

    Args:
        removed: ``apiVersion Kind`` pairs in use that ``old`` serves and ``new`` does not.
        deprecated: pairs in use that ``new`` serves as deprecated and ``old`` did not.
        known: both releases are catalogued (otherwise nothing can be said).
    """

    removed: tuple[str, ...] = ()
    deprecated: tuple[str, ...] = ()
    known: bool = True


def upgrade_impact(component: str, old: str, new: str, used: Iterable[tuple[str, str]]) -> UpgradeImpact:
    """The API versions in ``used`` (``(apiVersion, kind)`` of the cluster's objects) that the new
    release of ``component`` removes or newly deprecates, from the catalog's ``apis`` and
    ``deprecated`` (the served and deprecated versions of the releases' CRDs)."""
    releases = platform_catalog().get(component)
    if releases is None or old not in releases.releases or new not in releases.releases:
        return UpgradeImpact(known=False)
    before, after = releases.releases[old], releases.releases[new]
    pairs = sorted(set(used))
    removed = tuple(f"{api} {kind}" for api, kind in pairs if api in before.apis and api not in after.apis)
    deprecated = tuple(
        f"{api} {kind}"
        for api, kind in pairs
        if f"{api} {kind}" in after.deprecated and f"{api} {kind}" not in before.deprecated
    )
    return UpgradeImpact(removed, deprecated)


# --- Helm values from cluster facts ------------------------------------------------------------


def _kueue_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """Kueue's chart values: its whole ``controller_manager_config.yaml`` (the chart's defaults
    from kubernetes-sigs/kueue ``charts/kueue/values.yaml`` ``managerConfig.controllerManagerConfigYaml``
    at the release tag, plus the integrations the cluster's job kinds need, ``waitForPodsReady`` and
    ``managedJobsNamespaceSelector`` from the cluster facts), and the TopologyAwareScheduling feature
    gate when asked for. ``waitForPodsReady`` is ``{enable: true, ...}`` in the v1beta1 configuration
    and present-means-enabled in v1beta2 (kueue ``apis/config/v1beta2/configuration_types.go``
    ``WaitForPodsReady``)."""
    import yaml

    api = release.config_api or "config.kueue.x-k8s.io/v1beta2"
    config: dict[str, Any] = {
        "apiVersion": api,
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "controller": {
            "groupKindConcurrency": {
                "Job.batch": 5,
                "Pod": 5,
                "Workload.kueue.x-k8s.io": 10,
                "LocalQueue.kueue.x-k8s.io": 5,
                "ClusterQueue.kueue.x-k8s.io": 5,
                "ResourceFlavor.kueue.x-k8s.io": 1,
            }
        },
        "clientConnection": {"qps": 300, "burst": 500},
        "integrations": {"frameworks": kueue_integrations(cluster)},
    }
    timeout = cluster.platform.kueue_wait_for_pods_ready
    if timeout is not None:
        ready: dict[str, Any] = {"timeout": timeout, "blockAdmission": True}
        if api.endswith("/v1beta1"):
            ready = {"enable": True, **ready}
        config["waitForPodsReady"] = ready
    if cluster.kueue_namespace_labels:
        config["managedJobsNamespaceSelector"] = {"matchLabels": dict(cluster.kueue_namespace_labels)}
    values: dict[str, Any] = {
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(config, sort_keys=True)}
    }
    if cluster.platform.kueue_topology_aware or cluster.topology is not None:
        values["controllerManager"] = {"featureGates": [{"name": "TopologyAwareScheduling", "enabled": True}]}
    return values


def _prometheus_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """kube-prometheus-stack values: Prometheus selects monitors and rules by the cluster's
    ``prometheus_labels`` (the labels the monitor constructs put on what they emit), or every one
    when none are declared (``*SelectorNilUsesHelmValues: false``; prometheus-community/helm-charts
    ``charts/kube-prometheus-stack/values.yaml`` ``prometheus.prometheusSpec``)."""
    spec: dict[str, Any] = {}
    for kind in ("serviceMonitor", "podMonitor", "rule"):
        spec[f"{kind}SelectorNilUsesHelmValues"] = False
        spec[f"{kind}Selector"] = (
            {"matchLabels": dict(cluster.prometheus_labels)} if cluster.prometheus_labels else {}
        )
    return {"prometheus": {"prometheusSpec": spec}}


def _nvidia_resource(cluster: Cluster) -> str:
    """``single`` or ``mixed``: the MIG strategy that advertises ``cluster.gpu_resource``
    (``nvidia.com/gpu`` whole GPUs or single-strategy MIG slices, ``nvidia.com/mig-<profile>`` the
    mixed strategy; NVIDIA/k8s-device-plugin README "MIG support").

    Raises:
        UsageError: a GPU resource the NVIDIA stack does not advertise.
    """
    resource = cluster.gpu_resource
    if resource == "nvidia.com/gpu":
        return "single"
    if resource.startswith("nvidia.com/mig-"):
        return "mixed"
    raise UsageError(
        f"apps/clusters.py: cluster {cluster.name!r} gpu_resource={resource!r}: the NVIDIA GPU stack "
        "advertises nvidia.com/gpu or nvidia.com/mig-<profile>"
    )


def _tolerations(cluster: Cluster) -> list[dict[str, str]]:
    return [taint.toleration() for taint in cluster.gpu_taints]


def _gpu_operator_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """GPU Operator values: its operands tolerate the GPU nodes' taints (``daemonsets.tolerations``)
    and advertise the cluster's GPU resource (``mig.strategy``; NVIDIA/gpu-operator
    ``deployments/gpu-operator/values.yaml``)."""
    return {
        "daemonsets": {"tolerations": _tolerations(cluster)},
        "mig": {"strategy": _nvidia_resource(cluster)},
    }


def _device_plugin_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """Device plugin values: it runs on the GPU nodes (``nodeSelector``, ``tolerations``) and
    advertises the cluster's GPU resource (``migStrategy``; NVIDIA/k8s-device-plugin
    ``deployments/helm/nvidia-device-plugin/values.yaml``)."""
    values: dict[str, Any] = {"migStrategy": _nvidia_resource(cluster), "tolerations": _tolerations(cluster)}
    if cluster.gpu_node_selector:
        values["nodeSelector"] = dict(cluster.gpu_node_selector)
    return values


def _trainer_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """Trainer values: the chart installs JobSet itself unless the cluster declares it
    (``jobset.install``, kubeflow/trainer ``charts/kubeflow-trainer/values.yaml``)."""
    return {"jobset": {"install": "jobset" not in cluster.operators}}


def _kserve_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """KServe values: raw Deployments by default (no Knative is installed;
    ``kserve.controller.deploymentMode``, kserve/kserve ``charts/kserve-resources/values.yaml``)."""
    return {"kserve": {"controller": {"deploymentMode": "RawDeployment"}}}


def _cert_manager_values(cluster: Cluster, release: Release) -> dict[str, Any]:
    """cert-manager values: the chart installs its CRDs (``crds.enabled``, as KServe's
    ``manage.cert-manager-helm.sh`` does)."""
    return {"crds": {"enabled": True}}


#: Helm value builders by the catalog's ``values`` name: ``(cluster, release) -> values``.
VALUE_BUILDERS: dict[str, Callable[[Cluster, Release], dict[str, Any]]] = {
    "kueue": _kueue_values,
    "prometheus": _prometheus_values,
    "gpu-operator": _gpu_operator_values,
    "device-plugin": _device_plugin_values,
    "trainer": _trainer_values,
    "kserve": _kserve_values,
    "cert-manager": _cert_manager_values,
}
