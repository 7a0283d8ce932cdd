"""kubeconform, the Go validator people use today, measured in the same ``make bench`` run.

``../shared/peers`` (when it is beside the repository) holds kubeconform v0.7.0 and the two scripts
that give it the schemas trainops uses (``../shared/peers/README.md``): :func:`prepare` runs them
once into ``bench/out/kubeconform/`` (kept while the scripts and CRDs are unchanged), and
:func:`argv` validates with both schema locations, strict, with as many workers as CPUs.

Verdicts (:func:`parse_kubeconform`): ``-output json -verbose`` lists every resource with its status
but no document index, and its workers take the resources of one file in any order. Resources are
therefore matched to documents by (file, kind, name); where the corpus repeats a (file, kind, name),
the group's invalid verdicts go to its expected-invalid documents first (the most favourable
matching for kubeconform). ``statusInvalid`` and ``statusError`` (e.g. a duplicate key) are
invalid; ``statusSkipped`` (no schema) is unchecked.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.corpus import Expected
from bench.verdicts import ToolOutput, Verdict

PEERS = Path(__file__).resolve().parents[2] / "shared" / "peers"
CRDS = PEERS.parent / "crds"
BINARY = PEERS / "kubeconform"
#: Where the converted schemas go (under the bench output directory).
SCHEMAS = "kubeconform"

_STATUS: dict[str, Verdict] = {
    "statusValid": "valid",
    "statusInvalid": "invalid",
    "statusError": "invalid",
    "statusSkipped": "unchecked",
    "statusEmpty": "unchecked",
}


def available() -> bool:
    """Whether the peer and its scripts are there (``../shared/peers``)."""
    return BINARY.is_file() and os.access(BINARY, os.X_OK) and CRDS.is_dir()


def _digest(kubernetes_version: str) -> str:
    """Key of the prepared schemas: the scripts, the CRD files and the Kubernetes version."""
    digest = hashlib.sha256(kubernetes_version.encode())
    for path in [
        PEERS / "bundle_schemas.py",
        PEERS / "openapi2jsonschema.py",
        *sorted(CRDS.glob("*/*.yaml")),
    ]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def prepare(out: Path, kubernetes_version: str) -> Path:
    """Convert the schemas kubeconform reads (once; ~40 CPU-s for the CRDs) and return their root.

    ``<root>/kschemas``: kubernetes-validate's strict schemas of ``kubernetes_version`` made standalone
    (``bundle_schemas.py``); ``<root>/crdschemas``: every CRD of ``../shared/crds`` converted by
    kubeconform's own ``openapi2jsonschema.py`` (root additional properties denied, as strict).

    Raises:
        subprocess.CalledProcessError: a script failed.
    """
    root = out / SCHEMAS
    stamp = root / "stamp"
    key = _digest(kubernetes_version)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        return root
    crd_dir = root / "crdschemas"
    crd_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            str(PEERS / "bundle_schemas.py"),
            "--version",
            f"{kubernetes_version}.0",
            "--out",
            str(root / "kschemas"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "FILENAME_FORMAT": "{kind}-{fullgroup}-{version}",
        "DENY_ROOT_ADDITIONAL_PROPERTIES": "1",
    }
    subprocess.run(
        [
            sys.executable,
            str(PEERS / "openapi2jsonschema.py"),
            *(str(p) for p in sorted(CRDS.glob("*/*.yaml"))),
        ],
        check=True,
        cwd=crd_dir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stamp.write_text(key, encoding="utf-8")
    return root


def argv(paths: Sequence[str], schemas: Path, kubernetes_version: str, workers: int) -> list[str]:
    """The kubeconform command line (../shared/peers/README.md "Typical use", plus json output)."""
    return [
        str(BINARY),
        "-n",
        str(workers),
        "-strict",
        "-summary",
        "-output",
        "json",
        "-verbose",
        "-kubernetes-version",
        f"{kubernetes_version}.0",
        "-schema-location",
        f"{schemas}/kschemas/{{{{.NormalizedKubernetesVersion}}}}-standalone{{{{.StrictSuffix}}}}/"
        "{{.ResourceKind}}{{.KindSuffix}}.json",
        "-schema-location",
        f"{schemas}/crdschemas/{{{{.ResourceKind}}}}-{{{{.Group}}}}-{{{{.ResourceAPIVersion}}}}.json",
        *paths,
    ]


def parse_kubeconform(text: str, corpus: Path, cwd: Path, documents: Sequence[Expected]) -> ToolOutput:
    """Verdicts from ``kubeconform -output json -verbose`` run on (part of) ``corpus`` from ``cwd``
    (matched by file, kind and name: see the module docstring)."""
    out = ToolOutput()
    groups: dict[tuple[str, str, str], list[Expected]] = {}
    for record in documents:
        out.verdicts[(record.file, record.document)] = "unchecked"
        groups.setdefault((record.file, record.kind, record.name), []).append(record)
    reported: dict[tuple[str, str, str], list[Verdict]] = {}
    for resource in json.loads(text).get("resources") or []:
        path = Path(resource["filename"])
        rel = (path if path.is_absolute() else cwd / path).resolve().relative_to(corpus.resolve()).as_posix()
        key = (rel, str(resource.get("kind", "")), str(resource.get("name", "")))
        verdict = _STATUS.get(resource["status"], "unchecked")
        if key not in groups:
            out.unattributed += 1
            continue
        reported.setdefault(key, []).append(verdict)
        out.findings += verdict == "invalid"
    for key, verdicts in reported.items():
        records = sorted(groups[key], key=lambda r: (r.verdict != "invalid", r.document))
        ordered = sorted(verdicts, key=lambda v: {"invalid": 0, "valid": 1}.get(v, 2))
        for record, verdict in zip(records, ordered, strict=False):
            out.verdicts[(record.file, record.document)] = verdict
        out.unattributed += max(0, len(verdicts) - len(records))
    return out
