"""The platform catalog (core/platform.yaml) against the upstream CRDs in ../shared/crds, and what
platform_apps makes of a cluster: order, values from cluster facts, one clear error per bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CRDS, SAMPLE
from trainops.core.cluster import Cluster, PlatformSettings, Taint
from trainops.core.errors import UsageError
from trainops.core.platform import (
    CLIENT_SIDE_APPLY_LIMIT,
    PlatformApp,
    check_destinations,
    kueue_integrations,
    load_platform_catalog,
    platform_apps,
    platform_catalog,
)
from trainops.project import load_project
from trainops.schemas.catalog import default_catalog_path, load_catalog

CATALOG = platform_catalog()
CRD_ENTRIES = load_catalog(default_catalog_path())
#: (operator, tag) pairs of the CRD catalog that the platform catalog also has.
MIRRORED = sorted(
    {
        (e.operator, e.tag)
        for e in CRD_ENTRIES
        if e.operator in CATALOG and e.tag in CATALOG[e.operator].releases
    }
)


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """SafeLoader that reads the ``=`` value tag some CRD descriptions carry as a string."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def _crds(operator: str, tag: str) -> list[dict[str, Any]]:
    out = []
    for entry in CRD_ENTRIES:
        if entry.operator == operator and entry.tag == tag:
            text = (CRDS / entry.mirror_path).read_text(encoding="utf-8")
            out += [d for d in yaml.load_all(text, Loader=_Loader) if isinstance(d, dict)]
    return out


def _cluster(**operators: str) -> Cluster:
    return Cluster(name="c1", kubernetes_version="1.34", operators=operators)


def _component(cluster: Cluster, name: str) -> PlatformApp:
    (app,) = (a for a in platform_apps(cluster) if a.component == name)
    return app


@pytest.mark.parametrize(("operator", "tag"), sorted({(e.operator, e.tag) for e in CRD_ENTRIES}))
def test_every_crd_catalog_release_has_an_installer(operator: str, tag: str) -> None:
    # one source of truth: a tag the validator has schemas for is a tag trainops can install
    if operator == "podgroup":
        pytest.skip(
            "podgroup is served by the gang scheduler (volcano or scheduler-plugins), not installed yet"
        )
    assert tag in CATALOG[operator].releases


@pytest.mark.parametrize(("operator", "tag"), MIRRORED)
def test_catalogued_apis_and_sizes_match_the_upstream_crds(operator: str, tag: str) -> None:
    release = CATALOG[operator].releases[tag]
    crds = _crds(operator, tag)
    served = {
        f"{crd['spec']['group']}/{v['name']}"
        for crd in crds
        for v in crd["spec"]["versions"]
        if v.get("served")
    }
    deprecated = {
        f"{crd['spec']['group']}/{v['name']} {crd['spec']['names']['kind']}"
        for crd in crds
        for v in crd["spec"]["versions"]
        if v.get("served") and v.get("deprecated")
    }
    kinds = {crd["spec"]["names"]["kind"] for crd in crds}
    assert served <= set(release.apis)
    assert deprecated == {d for d in release.deprecated if d.split(" ")[1] in kinds}
    largest = max(len(json.dumps(crd, separators=(",", ":"))) for crd in crds)
    # the recorded size is the release's largest CRD; the mirror holds a subset of them
    assert release.crd_bytes is not None and release.crd_bytes >= largest
    assert release.server_side_apply is (release.crd_bytes > CLIENT_SIDE_APPLY_LIMIT)


def test_the_sample_clusters_get_every_declared_component() -> None:
    project = load_project(SAMPLE)
    for cluster in project.clusters:
        apps = platform_apps(cluster)
        installed = {(a.component, a.version) for a in apps}
        declared = {(k, v) for k, v in cluster.operators.items() if k != "argo-cd"}
        assert installed == declared, cluster.name


def test_order_puts_needs_and_crds_first() -> None:
    cluster = _cluster(kserve="v0.20.0", **{"cert-manager": "v1.17.0", "argo-cd": "v3.5.1"})
    order = [(a.name, a.depth) for a in platform_apps(cluster)]
    # cert-manager (no needs) -> KServe's CRD chart -> KServe's controller; Argo CD is bootstrapped
    assert order == [("c1-cert-manager", 0), ("c1-kserve-crds", 1), ("c1-kserve", 2)]


def test_kueue_config_follows_the_cluster() -> None:
    cluster = replace(
        _cluster(kueue="v0.19.2", trainer="v2.3.0", **{"mpi-operator": "v0.8.0"}),
        kueue_namespace_labels={"kueue.x-k8s.io/managed": "true"},
        platform=PlatformSettings(kueue_wait_for_pods_ready="5m", kueue_topology_aware=True),
    )
    app = _component(cluster, "kueue")
    config = yaml.safe_load(app.values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["integrations"]["frameworks"] == [
        "batch/job",
        "kubeflow.org/mpijob",
        "trainer.kubeflow.org/trainjob",
    ]
    assert config["waitForPodsReady"] == {"timeout": "5m", "blockAdmission": True}
    assert config["managedJobsNamespaceSelector"] == {"matchLabels": {"kueue.x-k8s.io/managed": "true"}}
    assert app.values["controllerManager"]["featureGates"] == [
        {"name": "TopologyAwareScheduling", "enabled": True}
    ]


def test_kueue_v1beta1_configuration_enables_wait_for_pods_ready_explicitly() -> None:
    app = _component(_cluster(kueue="v0.14.8", **{"training-operator": "v1.9.4"}), "kueue")
    config = yaml.safe_load(app.values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta1"
    assert config["waitForPodsReady"]["enable"] is True
    assert "kubeflow.org/pytorchjob" in config["integrations"]["frameworks"]


def test_kueue_integrations_ignore_components_without_jobs() -> None:
    assert kueue_integrations(_cluster(kueue="v0.19.2", katib="v0.19.0")) == ["batch/job"]


@pytest.mark.parametrize(
    ("gpu_resource", "strategy"), [("nvidia.com/gpu", "single"), ("nvidia.com/mig-1g.10gb", "mixed")]
)
def test_gpu_operator_values_follow_the_gpu_facts(gpu_resource: str, strategy: str) -> None:
    cluster = replace(
        _cluster(**{"gpu-operator": "v26.3.3"}),
        gpu_resource=gpu_resource,
        gpu_taints=(Taint("nvidia.com/gpu"), Taint("dedicated", value="ml")),
    )
    (app,) = platform_apps(cluster)
    assert app.values["mig"] == {"strategy": strategy}
    assert app.values["daemonsets"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
    ]


def test_trainer_installs_jobset_only_when_the_cluster_does_not() -> None:
    (alone,) = platform_apps(_cluster(trainer="v2.3.0"))
    with_jobset = {a.component: a for a in platform_apps(_cluster(trainer="v2.3.0", jobset="v0.12.0"))}
    assert alone.values == {"jobset": {"install": True}}
    assert with_jobset["trainer"].values == {"jobset": {"install": False}}


def test_unmanaged_and_undelivered_components_get_no_application() -> None:
    cluster = replace(
        _cluster(kueue="v0.19.2", **{"my-operator": "v1"}),
        platform=PlatformSettings(unmanaged=("my-operator",)),
    )
    assert [a.component for a in platform_apps(cluster)] == ["kueue"]
    assert platform_apps(replace(cluster, platform=PlatformSettings(deliver=False))) == []


@pytest.mark.parametrize(
    ("operators", "message"),
    [
        (
            {"kueue": "v0.20.0"},
            "kueue 'v0.20.0' is not in trainops' platform catalog (known releases: v0.14.8, v0.19.2)",
        ),
        ({"my-operator": "v1"}, "'my-operator' is not in trainops' platform catalog"),
        ({"kserve": "v0.20.0"}, "kserve needs cert-manager"),
        ({"gpu-operator": "v26.3.3", "nvidia-device-plugin": "v0.18.2"}, "both install the GPU stack"),
    ],
)
def test_bad_declarations_are_one_clear_error(operators: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as raised:
        platform_apps(_cluster(**operators))
    assert message in str(raised.value)
    assert str(raised.value).startswith("apps/clusters.py: cluster 'c1' operators: ")


def test_a_gpu_resource_the_nvidia_stack_does_not_advertise_is_refused() -> None:
    cluster = replace(_cluster(**{"nvidia-device-plugin": "v0.18.2"}), gpu_resource="amd.com/gpu")
    with pytest.raises(UsageError, match=r"gpu_resource='amd\.com/gpu'"):
        platform_apps(cluster)


def test_two_clusters_on_one_destination_must_agree() -> None:
    a = replace(_cluster(kueue="v0.19.2"), argocd_server="https://k8s.example.com")
    b = replace(a, name="c2", operators={"kueue": "v0.14.8"})
    with pytest.raises(
        UsageError, match=r"clusters 'c1' and 'c2' share the destination .* kueue v0.19.2 and v0.14.8"
    ):
        check_destinations([a, b])
    check_destinations([a, replace(b, operators={"kueue": "v0.19.2"})])


@pytest.mark.parametrize("timeout", ["ten minutes", "10", "-5m", "1d"])
def test_settings_are_checked(timeout: str) -> None:
    with pytest.raises(ValueError, match=f"kueue_wait_for_pods_ready='{timeout}'"):
        PlatformSettings(kueue_wait_for_pods_ready=timeout)


@pytest.mark.parametrize("timeout", ["10m", "1h30m", "90s", "0s"])
def test_settings_take_go_durations(timeout: str) -> None:
    assert PlatformSettings(kueue_wait_for_pods_ready=timeout).kueue_wait_for_pods_ready == timeout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("components: []\n", "expected a mapping with a 'components' mapping"),
        (
            "components: {x: {releases: {v1: {sources: [{kind: svn}]}}}}\n",
            "x.releases.v1.sources[0].kind: 'svn'",
        ),
        ("components: {x: {colour: red}}\n", "components.x: unknown field 'colour'"),
        ("components: {x: {needs: [y], releases: {v1: {sources: []}}}}\n", "unknown component 'y'"),
        (
            "components: {x: {releases: {v1: {sources: [{kind: oci, repo: https://a, version: '1'}]}}}}\n",
            "an oci source's repo starts with oci://",
        ),
    ],
)
def test_a_malformed_catalog_names_the_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "platform.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_platform_catalog(path)


def test_a_cluster_with_a_topology_enables_topology_aware_scheduling() -> None:
    from trainops.core.cluster import ClusterTopology

    plain = _cluster(kueue="v0.19.2")
    placed = replace(
        plain, topology=ClusterTopology({"rack": "example.com/rack", "host": "kubernetes.io/hostname"})
    )
    assert "controllerManager" not in _component(plain, "kueue").values
    assert _component(placed, "kueue").values["controllerManager"]["featureGates"] == [
        {"name": "TopologyAwareScheduling", "enabled": True}
    ]


def test_device_classes_need_a_dra_driver() -> None:
    from trainops.core.cluster import DeviceClass

    cluster = replace(_cluster(), device_classes=(DeviceClass("gpu.nvidia.com", "gpu.nvidia.com"),))
    with pytest.raises(
        UsageError,
        match="device_classes need a DRA driver to allocate them: add one of nvidia-dra-driver-gpu",
    ):
        platform_apps(cluster)
    with_driver = replace(cluster, operators={"nvidia-dra-driver-gpu": "v25.12.0"})
    assert [a.component for a in platform_apps(with_driver)] == ["nvidia-dra-driver-gpu"]
    installed_by_hand = replace(
        cluster,
        operators={"nvidia-dra-driver-gpu": "v25.12.0"},
        platform=PlatformSettings(unmanaged=("nvidia-dra-driver-gpu",)),
    )
    assert platform_apps(installed_by_hand) == []
