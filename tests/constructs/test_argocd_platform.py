"""PlatformApplication: golden manifests per source kind, safety options, prop errors, CRD validation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.constructs.argocd_platform import PlatformApplication
from trainops.core.cluster import Cluster
from trainops.core.platform import platform_apps
from trainops.pipeline import Target, Text, check

SERVER = "https://gpu-next.k8s.example.com:6443"
CLUSTER = Cluster(
    name="gpu-next",
    kubernetes_version="1.34",
    operators={
        "kueue": "v0.19.2",
        "trainer": "v2.3.0",
        "kserve": "v0.20.0",
        "cert-manager": "v1.17.0",
        "katib": "v0.19.0",
        "argo-rollouts": "v1.9.1",
        "argo-cd": "v3.5.1",
    },
    argocd_server=SERVER,
)
APPS = {app.name: app for app in platform_apps(CLUSTER)}


def _render(chart: Any, synth: Any, name: str, wave: int = -9) -> dict[str, Any]:
    PlatformApplication(
        chart, "App", app=APPS[name], project="platform-gpu-next", destination_server=SERVER, wave=wave
    )
    text = synth(chart)[f"Application/{name}"]
    return {"text": text, "obj": yaml.safe_load(text)}


def _validate(schema_cache: Path, text: str) -> list[str]:
    result = check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), [Text("application.yaml", text)])
    return [f.message for f in result.findings]


@pytest.mark.parametrize(
    ("name", "golden_file"),
    [
        ("gpu-next-kueue", "oci_chart_with_values.yaml"),
        ("gpu-next-cert-manager", "helm_chart.yaml"),
        ("gpu-next-katib", "git_kustomization.yaml"),
        ("gpu-next-argo-rollouts", "git_kustomization_images.yaml"),
        ("gpu-next-kserve-crds", "crds_layer.yaml"),
    ],
)
def test_golden_per_source_kind(
    chart: Any, synth: Any, golden: Any, schema_cache: Path, name: str, golden_file: str
) -> None:
    rendered = _render(chart, synth, name)
    golden(f"argocd_platform/{golden_file}", rendered["text"])
    assert _validate(schema_cache, rendered["text"]) == []


def test_defaults_never_prune_or_cascade(chart: Any, synth: Any) -> None:
    app = _render(chart, synth, "gpu-next-kueue")["obj"]
    # deleting a CRD deletes every object of its kind: no prune, no resources finalizer (waived)
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": False, "selfHeal": True}
    assert "finalizers" not in app["metadata"]
    assert "trainops.dev/waive-app-finalizer" in app["metadata"]["annotations"]
    assert app["metadata"]["labels"]["trainops.dev/platform-component"] == "kueue"
    assert app["metadata"]["labels"]["trainops.dev/platform-version"] == "v0.19.2"


@pytest.mark.parametrize(
    ("name", "server_side"),
    [("gpu-next-kueue", True), ("gpu-next-katib", False), ("gpu-next-cert-manager", True)],
)
def test_server_side_apply_follows_the_catalogued_crd_size(
    chart: Any, synth: Any, name: str, server_side: bool
) -> None:
    # Kueue v0.19.2's Workload CRD is 673252 bytes as JSON; Katib's are under 1 KiB; cert-manager's
    # size is not recorded, so it is treated as too large
    options = _render(chart, synth, name)["obj"]["spec"]["syncPolicy"]["syncOptions"]
    assert ("ServerSideApply=true" in options) is server_side
    assert options[0] == "CreateNamespace=true"


def test_rewritten_fields_are_ignored(chart: Any, synth: Any) -> None:
    spec = _render(chart, synth, "gpu-next-kserve")["obj"]["spec"]
    ignored = {(e["group"], e["kind"]) for e in spec["ignoreDifferences"]}
    assert ignored == {
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
    }
    assert "RespectIgnoreDifferences=true" in spec["syncPolicy"]["syncOptions"]


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"wave": "-9"}, "wave='-9': must be an integer"),
        ({"destination_server": "http://x"}, "destination_server='http://x': must be an https:// URL"),
        ({"project": "Platform"}, "project='Platform'"),
    ],
)
def test_errors(chart: Any, props: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {
        "app": APPS["gpu-next-kueue"],
        "project": "platform-gpu-next",
        "destination_server": SERVER,
        "wave": -9,
    }
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        PlatformApplication(chart, "App", **{**base, **props})


def test_a_long_application_name_is_refused(chart: Any) -> None:
    app = replace(APPS["gpu-next-kueue"], name="x" * 64)
    with pytest.raises(ValueError, match="name="):
        PlatformApplication(chart, "App", app=app, project="platform", destination_server=SERVER, wave=-9)
