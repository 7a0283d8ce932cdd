"""synth validates and runs policies on the rendered objects themselves (``workflow.rendered_inputs``)
instead of reading their YAML text back: the document is the one the loader reads from the text,
and the findings are the same."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.pipeline import Target, Text, check, policy_check, policy_run
from trainops.project import Project, load_project
from trainops.synth import render_project
from trainops.synth.render import AppResult
from trainops.workflow import check_rendered, policy_hook, rendered_inputs
from trainops.yaml.dump import dump_document as dump
from trainops.yaml.load import Document, stream_text

REPO = Path(__file__).resolve().parents[2]
OUT = Path("generated")


@pytest.fixture(scope="module")
def project() -> Project:
    return load_project(SAMPLE)


@pytest.fixture(scope="module")
def results(project: Project) -> list[AppResult]:
    return render_project(project)


def test_each_document_is_what_the_loader_reads(results: list[AppResult]) -> None:
    checked = 0
    for app in results:
        for text in rendered_inputs(app, OUT):
            if text.document is None:  # e.g. a dashboard's JSON: over the loader's cheap depth bound
                continue
            read = list(stream_text(text.text, text.path))
            assert len(read) == 1 and isinstance(read[0], Document)
            loaded = read[0]
            assert (loaded.data, loaded.problems, loaded.index, loaded.line_offset, loaded.rejected) == (
                text.document.data,
                [],
                0,
                0,
                None,
            )
            assert repr(loaded.data) == repr(text.document.data)
            checked += 1
    assert checked >= 100


def test_kept_files_are_read_from_their_text(results: list[AppResult], tmp_path: Path) -> None:
    app = results[0]
    kept = AppResult(app.cluster, app.app, app.files, app.objects, 0.0, kept=tmp_path)
    assert all(text.document is None for text in rendered_inputs(kept, OUT))


def test_synth_checks_leave_the_objects_unchanged(
    project: Project, results: list[AppResult], schema_cache: Path
) -> None:
    before = copy.deepcopy([app.objects for app in results])
    check_rendered(project, results, out=OUT, cache_dir=schema_cache, policy=policy_hook(SAMPLE))
    assert [app.objects for app in results] == before


BROKEN: dict[str, dict[str, Any]] = {
    "unknown-field": {"spec": {"replicas": 1, "replicaz": 2}},
    "wrong-type": {"spec": {"replicas": "two"}},
    "privileged": {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": True}}]}
            }
        }
    },
    "template-text": {"metadata": {"annotations": {"note": "{{ .Values.x }}"}}},
}


def _deployment(patch: dict[str, Any]) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ml"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "registry.example.com/web:1"}]},
            },
        },
    }
    for key, value in patch.items():
        if key == "spec" and "template" in value:
            obj["spec"]["template"]["spec"] = value["template"]["spec"]
        else:
            obj[key] = {**obj[key], **value}
    return obj


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_same_findings_as_reading_the_text(case: str, schema_cache: Path) -> None:
    obj = _deployment(BROKEN[case])
    path = "generated/lab/web/deployment_web.yaml"
    text = dump(obj)
    target = Target("1.34", None, schema_cache)
    read = Text(path, text)
    given = Text(path, text, Document(path, 0, obj, None, [], 0, text))
    run = policy_run()
    expected, expected_policy = check(target, [read]), policy_check([read], run)
    assert expected.findings or expected_policy.findings, "the case must produce findings"
    assert check(target, [given]).findings == expected.findings
    assert policy_check([given], run).findings == expected_policy.findings


def test_workers_give_the_same_result(
    project: Project, results: list[AppResult], schema_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check_rendered(workers=2)`` validates the apps in forked processes: the same findings, in the
    same order, and the same per-app results as in this process."""
    broken = []
    for number, app in enumerate(results):
        case = sorted(BROKEN)[number % len(BROKEN)]
        obj = _deployment(BROKEN[case]) | {"metadata": {"name": f"web-{number}", "namespace": "ml"}}
        name = f"deployment_web-{number}.yaml"
        broken.append(
            AppResult(app.cluster, app.app, {**app.files, name: dump(obj)}, {**app.objects, name: obj}, 0.0)
        )
    hook = policy_hook(SAMPLE)
    serial, serial_apps = check_rendered(project, broken, out=OUT, cache_dir=schema_cache, policy=hook)
    assert len({f.rule for f in serial.findings}) >= 3
    monkeypatch.setattr("trainops.workflow.PARALLEL_DOCUMENTS", 1)
    parallel, parallel_apps = check_rendered(
        project, broken, out=OUT, cache_dir=schema_cache, policy=hook, workers=2
    )
    assert (parallel.findings, parallel.files, parallel.documents) == (
        serial.findings,
        serial.files,
        serial.documents,
    )
    assert [(c.app, c.result.findings) for c in parallel_apps] == [
        (c.app, c.result.findings) for c in serial_apps
    ]
