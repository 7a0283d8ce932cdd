"""The generated ignoreDifferences, run the way Argo CD runs them, hide exactly the controller-owned
fields: a live object that a controller changed normalises to the same document as git's.

Argo CD removes each ``jqPathExpressions`` entry with ``del(<expr>)`` (gojq) and each
``jsonPointers`` entry with a JSON-patch ``remove``, on both the live and the desired object, before
diffing (argo-cd ``util/argo/normalizers/diff_normalizer.go``); here libjq does the same.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jq
import pytest
import yaml

from conftest import SAMPLE
from trainops.constructs.argocd_application import IgnoreDifference
from trainops.core.kinds import REPLICA_SPECS_FIELD, group_kind
from trainops.project import load_project
from trainops.synth import render_project
from trainops.synth.delivery import DEFAULT_CONTAINER, controller_owned

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO.parent / "shared" / "examples" / "training-operator" / "examples"


def _pointer_path(pointer: str) -> str:
    """An RFC 6901 pointer as a jq path: ``/metadata/labels/a~1b`` → ``.["metadata"]["labels"]["a/b"]``."""
    keys = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
    return "." + "".join(f'["{key}"]' for key in keys)


def normalise(obj: dict[str, Any], entries: list[IgnoreDifference]) -> dict[str, Any]:
    """``obj`` with the fields of the entries that select it removed, as Argo CD's normaliser does."""
    gk = group_kind(obj)
    out = copy.deepcopy(obj)
    for entry in entries:
        if (entry.group, entry.kind) != gk or entry.name not in (None, obj["metadata"]["name"]):
            continue
        for expression in [*map(_pointer_path, entry.json_pointers), *entry.jq_path_expressions]:
            out = jq.compile(f"del({expression})").input_value(out).first()
    return out


def operator_defaults(job: dict[str, Any]) -> dict[str, Any]:
    """``job`` as the Training Operator stores it after ``SetDefaults_<Kind>`` (kubeflow/trainer v1.9
    ``pkg/apis/kubeflow.org/v1/*_defaults.go``): cleanPodPolicy None, replicas 1, a restart policy,
    the default port on the default container, and Kueue's ``runPolicy.suspend``."""
    live = copy.deepcopy(job)
    spec = live["spec"]
    spec.setdefault("runPolicy", {}).setdefault("cleanPodPolicy", "None")
    spec["runPolicy"]["suspend"] = True
    for replica in spec[REPLICA_SPECS_FIELD[live["kind"]]].values():
        replica.setdefault("replicas", 1)
        replica.setdefault("restartPolicy", "OnFailure")
        for container in replica["template"]["spec"]["containers"]:
            if container["name"] == DEFAULT_CONTAINER.get(live["kind"]):
                container.setdefault("ports", []).append({"name": "default-port", "containerPort": 23456})
    return live


# Upstream examples that declare ``runPolicy`` (a job without it would keep an empty ``runPolicy: {}``
# once ``cleanPodPolicy`` is removed; jobs trainops renders always carry a runPolicy).
@pytest.mark.parametrize("rel", ["tensorflow/mnist_with_summaries/tf_job_mnist.yaml"])
def test_operator_defaults_do_not_show_as_drift(rel: str) -> None:
    desired = next(d for d in yaml.safe_load_all((EXAMPLES / rel).read_text(encoding="utf-8")) if d)
    live = operator_defaults(desired)
    assert live != desired
    entries = controller_owned([desired])
    assert normalise(live, entries) == normalise(desired, entries)
    # What the user wrote (image, command) is still compared.
    field = REPLICA_SPECS_FIELD[desired["kind"]]
    kept = normalise(desired, entries)["spec"][field]
    assert [r["template"]["spec"]["containers"][0]["image"] for r in kept.values()] == [
        r["template"]["spec"]["containers"][0]["image"] for r in desired["spec"][field].values()
    ]


@pytest.fixture(scope="module")
def bundled() -> dict[tuple[str, str], Any]:
    return {(r.cluster, r.app): r for r in render_project(load_project(SAMPLE), cluster="gpu-prod")}


def test_hpa_scaled_replicas_do_not_show_as_drift(bundled: dict[tuple[str, str], Any]) -> None:
    objects = list(bundled[("gpu-prod", "tf-serving")].objects.values())
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    live = copy.deepcopy(deployment)
    live["spec"]["replicas"] = 7  # set by the HPA through the scale subresource
    entries = controller_owned(objects)
    assert normalise(live, entries) == normalise(deployment, entries)
    # A change the HPA does not own is still drift.
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "tensorflow/serving:2.15.0"
    assert normalise(live, entries) != normalise(deployment, entries)


def _kubeflow_jobs() -> list[tuple[str, str]]:
    """(app, file) of every Kubeflow v1 job the bundled apps render for gpu-prod (from lock.json)."""
    import json

    lock = json.loads((SAMPLE / "generated" / "gpu-prod" / "lock.json").read_text(encoding="utf-8"))
    return [
        tuple(o["file"].split("/", 1))  # type: ignore[misc]
        for o in lock["objects"]
        if o["apiVersion"] == "kubeflow.org/v1" and o["kind"] in REPLICA_SPECS_FIELD
    ]


@pytest.mark.parametrize(("app", "file"), _kubeflow_jobs())
def test_bundled_job_defaults_do_not_show_as_drift(
    bundled: dict[tuple[str, str], Any], app: str, file: str
) -> None:
    job = bundled[("gpu-prod", app)].objects[file]
    live = operator_defaults(job)
    assert live != job
    entries = controller_owned([job])
    assert normalise(live, entries) == normalise(job, entries)
