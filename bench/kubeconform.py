"""kubeconform, the Go validator people use today, measured in the same ``make bench`` run.

The binary is not shipped: it is built from upstream source (v0.7.0) outside the repository
(bench/README.md, "kubeconform") and found by :func:`locate`: ``$KUBECONFORM``, else ``kubeconform``
on ``PATH``; without it the bench skips the peer with a note (:func:`missing_note`). Its schemas are
made by :mod:`bench.peer_schemas` once into ``bench/out/kubeconform/`` (:func:`prepare`), and
:func:`argv` validates with both schema locations, strict, with as many workers as CPUs.

Verdicts (:func:`parse_kubeconform`): ``-output json -verbose`` lists every resource with its status
but no document index, and its workers take the resources of one file in any order. Resources are
therefore matched to documents by (file, kind, name); where the corpus repeats a (file, kind, name),
an invalid resource goes to the document its errors point at (the JSON path the corpus broke, or
its parent; the line of a YAML error), else to an expected-invalid document, and a valid one to an
expected-valid document (the most favourable matching for kubeconform). ``statusInvalid`` and
``statusError`` (e.g. a duplicate key) are invalid; ``statusSkipped`` (no schema) is unchecked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from bench import peer_schemas
from bench.corpus import Expected
from bench.verdicts import ToolOutput, Verdict

#: The CRDs whose schemas kubeconform is given (trainops's are synced from the same folder).
CRDS = Path(__file__).resolve().parents[2] / "shared" / "crds"
#: The environment variable naming the kubeconform binary.
ENV = "KUBECONFORM"
#: The version the bench's figures are of (``kubeconform -v``).
VERSION = "v0.7.0"
#: Where the converted schemas go (under the bench output directory).
SCHEMAS = "kubeconform"

_STATUS: dict[str, Verdict] = {
    "statusValid": "valid",
    "statusInvalid": "invalid",
    "statusError": "invalid",
    "statusSkipped": "unchecked",
    "statusEmpty": "unchecked",
}


def locate(environ: dict[str, str] | None = None) -> Path | None:
    """The kubeconform binary: ``$KUBECONFORM`` when set (even when it is not an executable file:
    :func:`missing_note` then says so), else ``kubeconform`` on ``PATH``, else None."""
    env = os.environ if environ is None else environ
    if env.get(ENV):
        return Path(env[ENV])
    found = shutil.which("kubeconform", path=env.get("PATH"))
    return Path(found) if found else None


def missing_note(binary: Path | None, crds: Path = CRDS) -> str | None:
    """None when kubeconform can be measured, else the one-line note saying why not and how to
    provide it."""
    how = f"build kubeconform {VERSION} from source (bench/README.md) and set {ENV}=/path/to/kubeconform"
    if binary is None:
        return f"kubeconform not measured: {ENV} is not set and kubeconform is not on PATH; {how}."
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        return f"kubeconform not measured: {ENV}={binary} is not an executable file; {how}."
    if not crds.is_dir():
        return f"kubeconform not measured: {crds} (the CRDs it is given) is not beside the repository."
    return None


def version(binary: Path) -> str:
    """What ``kubeconform -v`` prints (e.g. ``v0.7.0``); ``unknown`` when it fails."""
    try:
        done = subprocess.run([str(binary), "-v"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() or "unknown"


def prepare(out: Path, kubernetes_version: str, crds: Path = CRDS) -> Path:
    """The schemas kubeconform reads, under ``out/kubeconform`` (made once: :func:`bench.peer_schemas.prepare`).

    ``<root>/kschemas``: kubernetes-validate's strict schemas of ``kubernetes_version`` made
    standalone; ``<root>/crdschemas``: every CRD of ``crds`` converted as kubeconform's own
    ``openapi2jsonschema.py`` does (root additional properties denied, as strict).

    Raises:
        FileNotFoundError: kubernetes-validate has no schemas of ``kubernetes_version``.
        OSError, yaml.YAMLError: a CRD file cannot be read or parsed.
    """
    return peer_schemas.prepare(out / SCHEMAS, kubernetes_version, crds)


def argv(
    binary: Path, paths: Sequence[str], schemas: Path, kubernetes_version: str, workers: int
) -> list[str]:
    """The kubeconform command line: strict, ``workers`` workers, json output listing every resource,
    the core and the CRD schema locations of :func:`prepare` (Go templates kubeconform fills in)."""
    return [
        str(binary),
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


def has_crd_schema(schemas: Path, api_version: str, kind: str) -> bool:
    """Whether kubeconform finds a schema for a custom resource of ``api_version`` (``group/version``)
    and ``kind`` among the converted CRDs of :func:`prepare` (``schemas``): the file its
    ``{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}`` location names, lower case as
    openapi2jsonschema.py writes it. A core-group apiVersion (``v1``) is not a custom resource: False."""
    group, slash, version = api_version.rpartition("/")
    if not slash:
        return False
    return (schemas / "crdschemas" / f"{kind}-{group}-{version}.json".lower()).is_file()


_JSON_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def json_pointer(json_path: str) -> str:
    """A corpus JSON path as kubeconform writes an error's place (``validationErrors[].path``: the keys
    joined by ``/``, unescaped): ``$.spec.containers[0].name`` → ``/spec/containers/0/name``,
    ``$.metadata.labels['a/b']`` → ``/metadata/labels/a/b``."""
    parts = [
        (key if key is not None else index if index is not None else quoted.replace("\\'", "'"))
        for key, index, quoted in (m.groups() for m in _JSON_PATH_PART.finditer(json_path))
    ]
    return "".join("/" + part for part in parts)


def _places(error: dict[str, str]) -> list[str]:
    """Where one of kubeconform's ``validationErrors`` points: its ``path``, or for unknown fields
    (``additional properties 'a', 'b' not allowed``, reported at their parent) each field's path."""
    path, message = str(error.get("path", "")), str(error.get("msg", ""))
    if message.startswith("additional properties"):
        return [f"{path}/{name}" for name in re.findall(r"'([^']*)'", message)] or [path]
    return [path]


def _depth_covered(error_paths: Sequence[str], record: Expected) -> int:
    """How deep the deepest of ``error_paths`` that is ``record``'s broken path or one of its parents
    goes (a missing field is reported at its parent); -1 when none is; 1,000 when one is ``line N``
    and ``record`` broke its N-th line."""
    if record.error_line is not None and f"line {record.error_line - record.line + 1}" in error_paths:
        return 1000
    if record.path is None:
        return -1
    pointer = json_pointer(record.path)
    covered = [p for p in error_paths if pointer == p or pointer.startswith(p.rstrip("/") + "/")]
    return max((p.count("/") for p in covered), default=-1)


def parse_kubeconform(text: str, corpus: Path, cwd: Path, documents: Sequence[Expected]) -> ToolOutput:
    """Verdicts from ``kubeconform -output json -verbose`` run on (part of) ``corpus`` from ``cwd``
    (matched by file, kind and name: see the module docstring). Within a repeated (file, kind, name),
    an invalid resource goes to the document whose broken path its ``validationErrors`` name (or a
    parent of it), else to an expected-invalid document; a valid one to an expected-valid document."""
    out = ToolOutput()
    groups: dict[tuple[str, str, str], list[Expected]] = {}
    for record in documents:
        out.verdicts[(record.file, record.document)] = "unchecked"
        groups.setdefault((record.file, record.kind, record.name), []).append(record)
    reported: dict[tuple[str, str, str], list[tuple[Verdict, list[str]]]] = {}
    for resource in json.loads(text).get("resources") or []:
        path = Path(resource["filename"])
        rel = (path if path.is_absolute() else cwd / path).resolve().relative_to(corpus.resolve()).as_posix()
        key = (rel, str(resource.get("kind", "")), str(resource.get("name", "")))
        verdict = _STATUS.get(resource["status"], "unchecked")
        if key not in groups:
            out.unattributed += 1
            continue
        errors = [place for e in resource.get("validationErrors") or [] for place in _places(e)]
        # a YAML error (e.g. a duplicate key) names its line within the document instead
        errors += [f"line {n}" for n in re.findall(r"\bline (\d+):", str(resource.get("msg", "")))]
        reported.setdefault(key, []).append((verdict, errors))
        out.findings += verdict == "invalid"
    for key, resources in reported.items():
        free = list(groups[key])
        for verdict, errors in sorted(
            resources, key=lambda v: ({"invalid": 0, "valid": 1}.get(v[0], 2), v[1])
        ):
            if not free:
                out.unattributed += 1
                continue
            if verdict == "invalid":
                record = min(
                    free, key=lambda r: (-_depth_covered(errors, r), r.verdict != "invalid", r.document)
                )
            else:
                record = min(free, key=lambda r: (r.verdict == "invalid", r.document))
            free.remove(record)
            out.verdicts[(record.file, record.document)] = verdict
    return out
