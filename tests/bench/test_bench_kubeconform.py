"""The kubeconform peer of ``make bench``: its command line and how its json output maps to documents."""

from __future__ import annotations

import json
from pathlib import Path

from bench import kubeconform
from bench.corpus import Expected
from bench.verdicts import compare


def _record(document: int, name: str, verdict: str) -> Expected:
    return Expected(
        file="core/part-0000.yaml",
        document=document,
        line=1 + 10 * document,
        group="core",
        api_version="v1",
        kind="ConfigMap",
        name=name,
        verdict="valid" if verdict == "valid" else "invalid",
        category=None if verdict == "valid" else "wrong-type",
        path=None if verdict == "valid" else "$.data.k",
        error_line=None if verdict == "valid" else 5 + 10 * document,
    )


def _resource(path: Path, name: str, status: str) -> dict[str, str]:
    return {"filename": str(path), "kind": "ConfigMap", "name": name, "version": "v1", "status": status}


def test_resources_match_documents_by_file_kind_and_name(tmp_path: Path) -> None:
    records = [
        _record(0, "a", "valid"),
        _record(1, "b", "invalid"),
        _record(2, "same", "valid"),
        _record(3, "same", "invalid"),
        _record(4, "c", "invalid"),
        _record(5, "d", "valid"),
    ]
    path = tmp_path / "core" / "part-0000.yaml"
    resources = [  # kubeconform's workers report in any order
        _resource(path, "c", "statusError"),
        _resource(path, "same", "statusValid"),
        _resource(path, "a", "statusInvalid"),
        _resource(path, "same", "statusInvalid"),
        _resource(path, "b", "statusValid"),
        _resource(path, "d", "statusSkipped"),
        _resource(path, "unknown", "statusValid"),
    ]
    output = kubeconform.parse_kubeconform(json.dumps({"resources": resources}), tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == [
        "invalid",
        "valid",
        "valid",
        "invalid",
        "invalid",
        "unchecked",
    ]
    assert (output.unattributed, output.findings) == (1, 3)
    agreement = compare(records, output)
    assert (agreement.flagged_invalid, agreement.expected_invalid, agreement.false_positives) == (2, 3, 1)


def test_schema_locations_are_go_templates() -> None:
    argv = kubeconform.argv(["dir"], Path("/s"), "1.34", 2)
    locations = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-schema-location"]
    assert locations == [
        "/s/kschemas/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json",
        "/s/crdschemas/{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}.json",
    ]
    assert argv[argv.index("-kubernetes-version") + 1] == "1.34.0" and argv[-1] == "dir"
