"""The kubeconform peer of ``make bench``: its command line and how its json output maps to documents."""

from __future__ import annotations

import json
from pathlib import Path

from bench import kubeconform
from bench.corpus import Expected
from bench.verdicts import compare


def _records(file: str, verdicts: list[str]) -> list[Expected]:
    return [
        Expected(
            file=file,
            document=i,
            line=1 + 10 * i,
            group="core",
            api_version="v1",
            kind="ConfigMap",
            name="same-name",
            verdict="valid" if v == "valid" else "invalid",
            category=None if v == "valid" else "wrong-type",
            path=None if v == "valid" else "$.data.k",
            error_line=None if v == "valid" else 5 + 10 * i,
        )
        for i, v in enumerate(verdicts)
    ]


def _resource(path: Path, status: str) -> dict[str, str]:
    return {
        "filename": str(path),
        "kind": "ConfigMap",
        "name": "same-name",
        "version": "v1",
        "status": status,
    }


def test_resources_map_to_documents_in_file_order(tmp_path: Path) -> None:
    records = _records("core/part-0000.yaml", ["valid", "invalid", "invalid", "valid", "invalid"])
    path = tmp_path / "core" / "part-0000.yaml"
    statuses = ["statusValid", "statusInvalid", "statusValid", "statusSkipped", "statusError", "statusValid"]
    text = json.dumps({"resources": [_resource(path, s) for s in statuses], "summary": {}})
    output = kubeconform.parse_kubeconform(text, tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == [
        "valid",
        "invalid",
        "valid",
        "unchecked",
        "invalid",
    ]
    assert (output.unattributed, output.findings) == (1, 2)
    agreement = compare(records, output)
    assert (agreement.flagged_invalid, agreement.expected_invalid, agreement.false_positives) == (2, 3, 0)


def test_schema_locations_are_go_templates() -> None:
    argv = kubeconform.argv(["dir"], Path("/s"), "1.34", 2)
    locations = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-schema-location"]
    assert locations == [
        "/s/kschemas/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json",
        "/s/crdschemas/{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}.json",
    ]
    assert argv[argv.index("-kubernetes-version") + 1] == "1.34.0" and argv[-1] == "dir"
