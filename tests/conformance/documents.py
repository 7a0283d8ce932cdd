"""The documents of the differential test: upstream examples and mutations, one :class:`Case` each.

* **Examples**: every YAML document of every file under ``../shared/examples`` (see its
  SOURCES.md). A file is split at its YAML document boundaries (PyYAML events, so document
  indexes are the ones ``trainops validate`` reports) and each document's own text is sent as it
  is. A document that is empty, not a mapping, or has neither apiVersion nor kind is recorded with
  the reason and not sent (no API server can be asked about it). A file that stops parsing keeps its
  broken rest as one document, routed by its ``apiVersion:``/``kind:`` lines when it has them.
* **Mutations**, each a document of its own, three sets:

  - ``matrix``: every case of ``tests/test_mutations.py`` (imported, applied to its example);
  - ``bench``: every candidate edit of every category of ``bench/mutate.py`` (imported) on one
    object per kind of ``bench/objects.py``, plus each unmutated object;
  - ``issue``: the API-server checks issue 14 lists as missed by trainops (invalid enums, env
    value with valueFrom, ``containers: []``, ...), each on an upstream example where one fits.

Case ids are stable: ``example:<path under examples>#<document index>`` and
``mutation:<set>/<name>``; ``known_disagreements.yaml`` lists disagreements by id.
"""

from __future__ import annotations

import copy
import csv
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from test_mutations import CASES as MATRIX
from test_mutations import FAMILIES as MATRIX_BASES
from test_mutations import delete, setv

from bench.emit import emit
from bench.mutate import CATEGORIES, FINDERS, apply
from bench.objects import CORE_KINDS, CRD_KINDS, new_ctx
from conftest import CRDS, EXAMPLES

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Source = Literal["example", "mutation"]
#: When a document is sent: ``pre`` before any CRD or namespace exists (Namespace and CRD documents,
#: which would otherwise collide with what the suite creates), ``main`` with every CRD installed
#: (the Training Operator's MPIJob v1), ``mpi-v2`` after swapping in mpi-operator's MPIJob v2beta1.
Phase = Literal["pre", "main", "mpi-v2"]
PHASES: tuple[Phase, ...] = ("pre", "main", "mpi-v2")


@dataclass(frozen=True)
class Case:
    """One document, sent to the server and checked by trainops.

    Args:
        id: stable id (see the module docstring).
        source: ``example`` or ``mutation``.
        family: kind family for the table: ``core`` (built-in API groups), a ``../shared/crds``
            folder (``training-operator``, ``kueue``, ...) or ``other`` (kinds with no CRD there).
        text: the document's YAML text, as sent to the server.
        file: the example file trainops validates (``None``: ``text`` is validated on its own).
        index: the document's index in ``file`` (0 for mutations).
        api_version: the document's apiVersion (``None`` when absent).
        kind: its kind.
        namespace: ``metadata.namespace`` when set.
        skip: why the document is not sent (``None``: it is).
    """

    id: str
    source: Source
    family: str
    text: str
    file: Path | None
    index: int
    api_version: str | None
    kind: str | None
    namespace: str | None
    skip: str | None = None

    @property
    def phase(self) -> Phase:
        """The phase the document is sent in (see :data:`Phase`)."""
        if (self.api_version, self.kind) in (("v1", "Namespace"),) or self.kind == "CustomResourceDefinition":
            return "pre"
        if (self.api_version, self.kind) == ("kubeflow.org/v2beta1", "MPIJob"):
            return "mpi-v2"
        return "main"


# --- kind families ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def crd_folders() -> dict[tuple[str, str], str]:
    """(group, kind) → its ``../shared/crds`` folder, from ``catalog.tsv`` (MPIJob: see :func:`family`)."""
    with (CRDS / "catalog.tsv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return {(row["group"], row["kind"]): row["path"].split("/", 1)[0] for row in rows}


def family(api_version: str | None, kind: str | None) -> str:
    """Kind family of a document (see :class:`Case`)."""
    if not api_version or not kind:
        return "other"
    group, _, version = api_version.rpartition("/")
    if (group, kind) == ("kubeflow.org", "MPIJob"):
        return "mpi-operator" if version == "v2beta1" else "training-operator"
    folder = crd_folders().get((group, kind))
    if folder is not None:
        return folder
    if group == "" or "." not in group or (group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")):
        return "core"
    return "other"


# --- examples -----------------------------------------------------------------------------------------

_ROUTE = re.compile(r"^(apiVersion|kind):[ \t]*[\"']?([^\"'#\s]+)", re.MULTILINE)


def split_documents(text: str) -> list[str]:
    """The text of each YAML document of ``text``, in order (as PyYAML counts them).

    A document that does not parse is returned with the rest of the file (no later boundary can be
    trusted).
    """
    out: list[str] = []
    start: int | None = None
    end = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.DocumentStartEvent):
                start = event.start_mark.index
            elif isinstance(event, yaml.DocumentEndEvent):
                assert start is not None
                end = event.end_mark.index
                out.append(text[start:end])
                start = None
    except yaml.YAMLError:
        out.append(text[start if start is not None else end :])
    return out


def _example_case(rel: str, index: int, text: str) -> Case:
    case_id = f"example:{rel}#{index}"
    file = EXAMPLES / rel
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        route: dict[str, str] = {}
        for key, value in _ROUTE.findall(text):
            route.setdefault(key, value)  # the broken document's own, not a later one's
        api_version, kind = route.get("apiVersion"), route.get("kind")
        skip = None if api_version and kind else f"YAML does not parse and names no apiVersion/kind: {exc}"
        return Case(
            case_id, "example", family(api_version, kind), text, file, index, api_version, kind, None, skip
        )
    if data is None:
        return Case(case_id, "example", "other", text, file, index, None, None, None, "empty YAML document")
    if not isinstance(data, dict):
        skip = f"not a Kubernetes object: a YAML {type(data).__name__}, not a mapping"
        return Case(case_id, "example", "other", text, file, index, None, None, None, skip)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        keys = ", ".join(sorted(map(str, data))[:4])
        skip = f"not a Kubernetes object: no apiVersion/kind to route it by (keys: {keys})"
        return Case(case_id, "example", "other", text, file, index, None, None, None, skip)
    return Case(
        case_id, "example", family(api_version, kind), text, file, index, api_version, kind, _namespace(data)
    )


def _namespace(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return namespace if isinstance(namespace, str) and namespace else None


def example_cases() -> list[Case]:
    """One case per YAML document of every ``*.yaml``/``*.yml`` file under ``../shared/examples``."""
    if not EXAMPLES.is_dir():
        return []
    cases = []
    for path in sorted(EXAMPLES.rglob("*")):
        if path.is_file() and path.suffix in (".yaml", ".yml"):
            rel = path.relative_to(EXAMPLES).as_posix()
            for index, text in enumerate(split_documents(path.read_text(encoding="utf-8"))):
                cases.append(_example_case(rel, index, text))
    return cases


# --- mutations ----------------------------------------------------------------------------------------


def _mutation(name: str, doc: dict[str, Any], text: str | None = None) -> Case:
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    text = text if text is not None else yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    return Case(
        f"mutation:{name}",
        "mutation",
        family(api_version, kind),
        text,
        None,
        0,
        api_version,
        kind,
        _namespace(doc),
    )


def _example_doc(rel: str, index: int) -> dict[str, Any]:
    doc = list(yaml.load_all((EXAMPLES / rel).read_text(encoding="utf-8"), Loader=_Loader))[index]
    assert isinstance(doc, dict), rel
    return doc


def matrix_cases() -> list[Case]:
    """Every case of ``tests/test_mutations.py`` (the mutation matrix), applied to its example."""
    cases = []
    for family_name, mutation, mutate, *_ in MATRIX:
        doc = _example_doc(*MATRIX_BASES[family_name])
        mutate(doc)
        cases.append(_mutation(f"matrix/{family_name}-{mutation}", doc))
    return cases


def _path_label(parts: tuple[Any, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _bench_object(kind: str) -> dict[str, Any]:
    """One large-tier object of ``kind`` from ``bench/objects.py``, seeded by the kind's name."""
    builder = {**CORE_KINDS, **CRD_KINDS}[kind][0]
    ctx = replace(new_ctx(random.Random(f"conformance/{kind}")), size=2)
    return builder(ctx)


def bench_cases() -> list[Case]:
    """Each bench object unmutated, and with each candidate edit of each ``bench/mutate.py`` category."""
    cases = []
    for kind in (*CORE_KINDS, *CRD_KINDS):
        doc = _bench_object(kind)
        cases.append(_mutation(f"bench/{kind}/valid", doc, emit(doc)[0]))
        for category in CATEGORIES:
            edits = FINDERS[category](copy.deepcopy(doc), random.Random(f"conformance/{kind}/{category}"))
            seen: set[str] = set()
            for number, edit in enumerate(edits):
                label = f"{edit.op}:{_path_label(edit.path)}"
                label = label if label not in seen else f"{label}#{number}"
                seen.add(label)
                mutated = copy.deepcopy(doc)
                apply(mutated, edit, random.Random(f"conformance/{kind}/{category}/{number}"))
                cases.append(_mutation(f"bench/{kind}/{category}/{label}", doc, emit(mutated)[0]))
    return cases


Mutate = Callable[[dict[str, Any]], None]

POD = ("k8s-website/content/en/examples/pods/resource/cpu-request-limit.yaml", 0)
DEPLOYMENT = ("k8s-website/content/en/examples/application/deployment.yaml", 0)
SERVICE = ("k8s-website/content/en/examples/service/nginx-service.yaml", 0)
PVC = ("k8s-website/content/en/examples/pods/storage/expandable-pvc.yaml", 0)
CRONJOB = ("kueue/site/static/examples/jobs/sample-cronjob.yaml", 0)
PDB = ("k8s-website/content/en/examples/policy/zookeeper-pod-disruption-budget-maxunavailable.yaml", 0)
CONFIGMAP = ("argo-cd/docs/operator-manual/argocd-cmd-params-cm.yaml", 0)
TFJOB = ("training-operator/examples/tensorflow/dist-mnist/tf_job_mnist.yaml", 0)
#: No upstream example of a current autoscaling/v2 HPA: the bench object.
HPA = "HorizontalPodAutoscaler"

C0 = ["spec", "containers", 0]
DC0 = ["spec", "template", "spec", "containers", 0]


def _add(path: list[str | int], value: Any) -> Mutate:
    """Set ``path`` to ``value``, creating missing mappings on the way."""

    def mutate(doc: dict[str, Any]) -> None:
        target: Any = doc
        for part in path[:-1]:
            target = target.setdefault(part, {}) if isinstance(part, str) else target[part]
        target[path[-1]] = value

    return mutate


def _both(*mutations: Mutate) -> Mutate:
    def mutate(doc: dict[str, Any]) -> None:
        for one in mutations:
            one(doc)

    return mutate


#: name → (base: an example (path, index) or a bench kind, mutation). Issue 14's list of API-server
#: checks trainops misses; the server's message for each is in the agreement report.
ISSUE_CASES: dict[str, tuple[tuple[str, int] | str, Mutate]] = {
    "cr-unknown-null-field": (
        TFJOB,
        _add(["spec", "tfReplicaSpecs", "Worker", "template", "metadata", "creationTimestamp"], None),
    ),
    "no-metadata": (CONFIGMAP, delete(["metadata"])),
    "enum-port-protocol": (DEPLOYMENT, setv([*DC0, "ports", 0, "protocol"], "HTTP")),
    "enum-image-pull-policy": (POD, setv([*C0, "imagePullPolicy"], "Sometimes")),
    "enum-pod-restart-policy": (POD, setv(["spec", "restartPolicy"], "Sometimes")),
    "enum-service-type": (SERVICE, setv(["spec", "type"], "Internal")),
    "enum-pvc-access-mode": (PVC, setv(["spec", "accessModes"], ["ReadWrite"])),
    "env-value-and-value-from": (
        POD,
        setv(
            [*C0, "env"],
            [{"name": "POD_NAME", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        ),
    ),
    "empty-containers": (POD, setv(["spec", "containers"], [])),
    "negative-run-as-user": (POD, setv([*C0, "securityContext"], {"runAsUser": -1})),
    "volume-two-sources": (
        POD,
        setv(["spec", "volumes"], [{"name": "data", "emptyDir": {}, "configMap": {"name": "settings"}}]),
    ),
    "probe-without-handler": (POD, setv([*C0, "livenessProbe"], {"periodSeconds": 10})),
    "pod-container-without-image": (POD, delete([*C0, "image"])),
    "malformed-cluster-ip": (SERVICE, setv(["spec", "clusterIP"], "10.0.0.300")),
    "negative-replicas": (DEPLOYMENT, setv(["spec", "replicas"], -1)),
    "recreate-with-rolling-update": (
        DEPLOYMENT,
        setv(["spec", "strategy"], {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
    ),
    "invalid-cronjob-schedule": (CRONJOB, setv(["spec", "schedule"], "every five minutes")),
    "pvc-without-access-modes": (PVC, delete(["spec", "accessModes"])),
    "pdb-min-available-and-max-unavailable": (PDB, setv(["spec", "minAvailable"], 1)),
    "hpa-min-above-max": (HPA, _both(setv(["spec", "minReplicas"], 5), setv(["spec", "maxReplicas"], 2))),
    "invalid-configmap-key": (CONFIGMAP, _add(["data", "bad key!"], "x")),
    "toleration-exists-with-value": (
        POD,
        setv(["spec", "tolerations"], [{"key": "nvidia.com/gpu", "operator": "Exists", "value": "true"}]),
    ),
    "configmap-over-1mib": (CONFIGMAP, _add(["data", "blob"], "x" * (1 << 20))),
}


def issue_cases() -> list[Case]:
    """The cases of :data:`ISSUE_CASES`."""
    cases = []
    for name, (base, mutate) in ISSUE_CASES.items():
        doc = _bench_object(base) if isinstance(base, str) else _example_doc(*base)
        mutate(doc)
        cases.append(_mutation(f"issue/{name}", doc))
    return cases


def all_cases() -> list[Case]:
    """Examples, then the matrix, bench and issue mutations (ids are unique)."""
    cases = [*example_cases(), *matrix_cases(), *bench_cases(), *issue_cases()]
    ids = [c.id for c in cases]
    assert len(set(ids)) == len(ids), "case ids must be unique"
    return cases


def iter_sent(cases: list[Case], phase: Phase) -> Iterator[Case]:
    """The cases sent in ``phase``."""
    return (c for c in cases if c.skip is None and c.phase == phase)
