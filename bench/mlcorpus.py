"""The ML custom resources of ``../shared/examples`` as a measurable corpus (issue 28's second floor:
``trainops validate`` at least 2x kubeconform on them).

:func:`read_examples` reads every document of ``../shared/examples`` whose API group is one of
:data:`ML_GROUPS`; :func:`select` keeps those whose (apiVersion, kind) both trainops and kubeconform
accept (each given as a predicate by the caller: trainops's schema registry, the file kubeconform
would read from :mod:`bench.peer_schemas`'s CRD conversion), and :func:`build` writes them into a
corpus of about :data:`DOCUMENTS` documents::

    out/<Kind>.<group>/part-NNNN.yaml   about PER_FILE documents each, one folder per kind
    out/corpus.json                     kinds, counts, the upstream documents taken and left out

Each upstream document is repeated ``copies`` times (the same for all, so the kinds keep their
upstream shares), the copies of one document one after the other, each with a distinct
``metadata.name`` (``<name>-<n>``, ``n`` counting the documents of its kind) and nothing else changed:
the copy is the upstream text of the document (comments, quoting, line endings, non-ASCII
characters kept) with only the name's scalar replaced (:class:`Upstream`). A document without
``metadata.name`` (``generateName``: the API server names each copy) is repeated unchanged. Same
input → byte-identical files; the files are rewritten only when their content changes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: ``../shared/examples`` beside the repository.
EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "examples"
#: API groups of the ML kinds trainops validates: the Kubeflow training jobs (training-operator v1,
#: mpi-operator) and Katib (``kubeflow.org``), Kubeflow Trainer v2, KServe, Kueue, JobSet, Ray,
#: Seldon and KServe's former group. Which of their kinds are measured is decided by :func:`select`.
ML_GROUPS = frozenset(
    {
        "kubeflow.org",
        "trainer.kubeflow.org",
        "serving.kserve.io",
        "serving.kubeflow.org",
        "kueue.x-k8s.io",
        "jobset.x-k8s.io",
        "ray.io",
        "machinelearning.seldon.io",
    }
)
#: Documents of the corpus (about: every upstream document gets the same number of copies).
DOCUMENTS = 5000
#: Issue 36's corpus of ML custom resources: about 20,000 documents copied from the upstream examples
#: of these seven kinds, one document in :data:`SEVEN_BROKEN_EVERY` broken once (:meth:`Upstream.broken`).
SEVEN_KINDS = frozenset(
    {"InferenceService", "Experiment", "TrainJob", "MPIJob", "PyTorchJob", "TFJob", "ServiceMonitor"}
)
#: Their API groups (ServiceMonitor's is Prometheus Operator's, not an ML one).
SEVEN_GROUPS = ML_GROUPS | {"monitoring.coreos.com"}
SEVEN_DOCUMENTS = 20_000
SEVEN_BROKEN_EVERY = 10
#: The unknown field a broken copy gets in its ``spec`` (or at its root, without a ``spec`` mapping).
BROKEN_FIELD = "unknownField"
#: Documents per file (about: a kind's last file holds the rest).
PER_FILE = 200
#: Bump when the written files change for the same input.
GENERATOR_VERSION = 1
#: A name written as a plain scalar (a DNS subdomain needs no quoting).
_PLAIN_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")

#: ``accepts(apiVersion, kind)``: whether a tool validates that kind (has its schema).
Accepts = Callable[[str, str], bool]


def group_of(api_version: str) -> str:
    """``serving.kserve.io/v1beta1`` → ``serving.kserve.io``; ``v1`` → ``""``."""
    group, slash, _ = api_version.rpartition("/")
    return group if slash else ""


@dataclass(frozen=True)
class Upstream:
    """One document of ``../shared/examples``, as a template of its copies.

    Args:
        file: path relative to the examples folder (POSIX).
        document: 0-based index of the document in its file.
        api_version: its apiVersion.
        kind: its kind.
        name: its ``metadata.name``, or None when it has none (``generateName``).
        head: the document's text up to the name's scalar (the whole text when ``name`` is None).
        tail: the text after the name's scalar (ends with a line break).
        quote: the quote character of the name's scalar (``'`` or ``"``), or ``""`` (plain).
        data: the document as PyYAML reads it.
    """

    file: str
    document: int
    api_version: str
    kind: str
    name: str | None
    head: str
    tail: str
    quote: str
    data: dict[str, Any] = field(compare=False, repr=False)

    @property
    def folder(self) -> str:
        """The corpus folder of its kind: ``<Kind>.<group>``."""
        return f"{self.kind}.{group_of(self.api_version)}"

    def text(self, name: str) -> str:
        """The document's text with ``metadata.name`` set to ``name`` (unchanged without a name)."""
        if self.name is None:
            return self.head
        # a name that is not a DNS subdomain as a JSON string: a YAML double-quoted scalar
        scalar = f"{self.quote}{name}{self.quote}" if _PLAIN_NAME.fullmatch(name) else json.dumps(name)
        return f"{self.head}{scalar}{self.tail}"

    def broken(self, name: str) -> str:
        """A copy broken once: :meth:`expected` with the unknown field :data:`BROKEN_FIELD` added to
        its ``spec`` mapping (at its root when it has none), written as block YAML (PyYAML,
        keys in their upstream order); both tools reject it (a field no schema declares)."""
        data = self.expected(name)
        spec = data.get("spec")
        if isinstance(spec, dict):
            data = {**data, "spec": {**spec, BROKEN_FIELD: True}}
        else:
            data = {**data, BROKEN_FIELD: True}
        text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1_000_000)
        return text

    def expected(self, name: str) -> dict[str, Any]:
        """What :meth:`text` with ``name`` reads as: :attr:`data` with ``metadata.name`` replaced."""
        if self.name is None:
            return self.data
        return {**self.data, "metadata": {**self.data["metadata"], "name": name}}


@dataclass(frozen=True)
class LeftOut:
    """An ML document of the examples not measured, and why."""

    file: str
    document: int
    api_version: str
    kind: str
    reason: str


def _scalar(node: yaml.Node, key: str) -> yaml.Node | None:
    """The value node of ``key`` in a mapping node (the first, as written), else None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v  # type: ignore[no-any-return]
    return None


def _template(text: str, node: yaml.Node, data: dict[str, Any], file: str, index: int) -> Upstream | LeftOut:
    """The :class:`Upstream` of the document whose root node is ``node`` in ``text``, or why not."""
    api_version, kind = str(data["apiVersion"]), str(data["kind"])
    start, end = node.start_mark.index, node.end_mark.index
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip(" \t"):
        start = line_start  # keep the root's indentation
    body = text[start:end].rstrip() + "\n"
    meta = data.get("metadata")
    meta_node = _scalar(node, "metadata")
    name_node = _scalar(meta_node, "name") if meta_node is not None else None
    name = meta.get("name") if isinstance(meta, dict) else None
    if name_node is None or not isinstance(name, str):
        if isinstance(meta, dict) and "name" in meta:
            return LeftOut(file, index, api_version, kind, "metadata.name is not a string")
        doc = Upstream(file, index, api_version, kind, None, body, "", "", data)
    else:
        if not isinstance(name_node, yaml.ScalarNode) or name_node.style not in (None, "", "'", '"'):
            return LeftOut(file, index, api_version, kind, "metadata.name is a block scalar")
        a, b = name_node.start_mark.index - start, name_node.end_mark.index - start
        quote = name_node.style if name_node.style in ("'", '"') else ""
        doc = Upstream(file, index, api_version, kind, name, body[:a], body[b:], quote, data)
    probe = "probe-0"
    if yaml.load(doc.text(probe), Loader=_LOADER) != doc.expected(probe):
        return LeftOut(file, index, api_version, kind, "its text does not read back alone")
    return doc


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_examples(
    examples: Path = EXAMPLES, groups: frozenset[str] = ML_GROUPS
) -> tuple[list[Upstream], list[LeftOut]]:
    """Every document of ``examples`` (``*.yaml``, ``*.yml``, sorted by path) whose apiVersion's group
    is in ``groups`` (default :data:`ML_GROUPS`), in file order; files that are not UTF-8 YAML are
    skipped whole.

    Returns:
        the documents, and those left out (name not a string, text that does not read back alone).
    """
    docs: list[Upstream] = []
    left: list[LeftOut] = []
    files = sorted(p for p in examples.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    for path in files:
        try:
            text = path.read_bytes().decode("utf-8")  # not read_text: it would turn CR LF into LF
        except (OSError, UnicodeDecodeError):
            continue
        if not any(group in text for group in groups):
            continue
        try:  # the pure-Python loader: its marks index the text (LibYAML's count bytes)
            nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
            values = list(yaml.load_all(text, Loader=_LOADER))
        except yaml.YAMLError:
            continue
        rel = path.relative_to(examples).as_posix()
        for index, (node, data) in enumerate(zip(nodes, values, strict=True)):
            if not isinstance(data, dict):
                continue
            api_version, kind = data.get("apiVersion"), data.get("kind")
            if not isinstance(api_version, str) or not isinstance(kind, str):
                continue
            if group_of(api_version) not in groups:
                continue
            found = _template(text, node, data, rel, index)
            (docs if isinstance(found, Upstream) else left).append(found)  # type: ignore[arg-type]
    return docs, left


def select(
    documents: Iterable[Upstream], trainops: Accepts, kubeconform: Accepts
) -> tuple[list[Upstream], list[LeftOut]]:
    """The documents whose (apiVersion, kind) both tools accept, and the others with the reason."""
    kept: list[Upstream] = []
    left: list[LeftOut] = []
    for doc in documents:
        missing = [
            tool
            for tool, accepts in (("trainops", trainops), ("kubeconform", kubeconform))
            if not accepts(doc.api_version, doc.kind)
        ]
        if missing:
            reason = f"no schema for {' or '.join(missing)}"
            left.append(LeftOut(doc.file, doc.document, doc.api_version, doc.kind, reason))
        else:
            kept.append(doc)
    return kept, left


@dataclass(frozen=True)
class KindCorpus:
    """The documents of one kind in the corpus.

    Args:
        folder: its folder under the corpus (``<Kind>.<group>``).
        kind: the kind.
        group: its API group.
        versions: the apiVersions of its documents, sorted.
        upstream: upstream documents of it.
        documents: documents written (``upstream`` × copies).
        files: its files, relative to the corpus.
        broken: documents of them broken once (:meth:`Upstream.broken`).
    """

    folder: str
    kind: str
    group: str
    versions: tuple[str, ...]
    upstream: int
    documents: int
    files: tuple[str, ...]
    broken: int = 0


@dataclass(frozen=True)
class MlCorpus:
    """A written corpus: its folder, the copies per upstream document and its kinds."""

    root: Path
    copies: int
    kinds: tuple[KindCorpus, ...]
    documents: int


def copies_for(upstream: int, documents: int = DOCUMENTS) -> int:
    """Copies of each upstream document for about ``documents`` in all (at least one)."""
    return max(1, round(documents / upstream)) if upstream else 0


def render(
    selected: Sequence[Upstream], documents: int = DOCUMENTS, per_file: int = PER_FILE, broken_every: int = 0
) -> tuple[dict[str, str], list[KindCorpus], int]:
    """The corpus's files (relative path → text), its kinds (sorted by folder) and the copies per
    document. A kind's documents keep the order of ``selected``; with ``broken_every`` N > 0, the
    N-th, 2N-th ... document of each kind is broken once (:meth:`Upstream.broken`)."""
    copies = copies_for(len(selected), documents)
    by_folder: dict[str, list[Upstream]] = {}
    for doc in selected:
        by_folder.setdefault(doc.folder, []).append(doc)
    files: dict[str, str] = {}
    kinds: list[KindCorpus] = []
    for folder in sorted(by_folder):
        docs = by_folder[folder]
        texts = [
            doc.broken(f"{doc.name or doc.kind.lower()}-{n}")
            if broken_every and n % broken_every == broken_every - 1
            else doc.text(f"{doc.name}-{n}")
            for i, doc in enumerate(docs)
            for c in range(copies)
            for n in (i * copies + c,)
        ]
        names = []
        for part, first in enumerate(range(0, len(texts), per_file)):
            name = f"{folder}/part-{part:04d}.yaml"
            files[name] = "".join("---\n" + t for t in texts[first : first + per_file])
            names.append(name)
        kinds.append(
            KindCorpus(
                folder,
                docs[0].kind,
                group_of(docs[0].api_version),
                tuple(sorted({d.api_version for d in docs})),
                len(docs),
                len(texts),
                tuple(names),
                len(texts) // broken_every if broken_every else 0,
            )
        )
    return files, kinds, copies


def build(
    selected: Sequence[Upstream],
    left_out: Sequence[LeftOut],
    out: Path,
    documents: int = DOCUMENTS,
    per_file: int = PER_FILE,
    broken_every: int = 0,
) -> tuple[MlCorpus, bool]:
    """Write the corpus of ``selected`` into ``out`` (replaced) unless ``out/corpus.json`` says it
    holds these files already; return it and whether it was written.

    Raises:
        ValueError: nothing selected.
        OSError: ``out`` cannot be written.
    """
    if not selected:
        raise ValueError("no ML custom resource of the examples is accepted by both tools")
    files, kinds, copies = render(selected, documents, per_file, broken_every)
    digest = hashlib.sha256(f"{GENERATOR_VERSION}\n".encode())
    for name, text in files.items():
        digest.update(f"{name}\n{len(text)}\n".encode())
        digest.update(text.encode("utf-8"))
    manifest = {
        "generator": GENERATOR_VERSION,
        "key": digest.hexdigest(),
        "copies": copies,
        "documents": sum(k.documents for k in kinds),
        "per_file": per_file,
        "broken_every": broken_every,
        "broken": sum(k.broken for k in kinds),
        "kinds": [
            {
                "folder": k.folder,
                "kind": k.kind,
                "group": k.group,
                "versions": list(k.versions),
                "upstream": k.upstream,
                "documents": k.documents,
                "broken": k.broken,
                "files": list(k.files),
            }
            for k in kinds
        ],
        "sources": [
            {"file": d.file, "document": d.document, "apiVersion": d.api_version, "kind": d.kind}
            for d in selected
        ],
        "left_out": [
            {
                "file": d.file,
                "document": d.document,
                "apiVersion": d.api_version,
                "kind": d.kind,
                "reason": d.reason,
            }
            for d in left_out
        ],
    }
    corpus = MlCorpus(out, copies, tuple(kinds), sum(k.documents for k in kinds))
    stamp = out / "corpus.json"
    text = json.dumps(manifest, indent=2) + "\n"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == text:
        return corpus, False
    if out.exists():
        shutil.rmtree(out)
    for name, body in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body.encode("utf-8"))  # not write_text: CR LF stays as upstream wrote it
    stamp.write_text(text, encoding="utf-8")
    return corpus, True
