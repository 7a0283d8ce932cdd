"""Deterministic benchmark corpus: realistic ML-platform manifests with known verdicts.

``write_corpus(CorpusSpec(documents=100_000), out)`` writes::

    out/core/part-0000.yaml ...   core kinds, ~1,000 documents per multi-document file
    out/crd/part-0000.yaml ...    CRD kinds (PyTorchJob, ServiceMonitor), a smaller share
    out/expected.jsonl            one line per document (see :class:`Expected`)
    out/corpus.json               the spec, generator version and counts (a rebuild marker)

A known share of each group (``invalid_share``, exactly rounded) is broken in one category each
(see :mod:`bench.mutate`). Same spec → byte-identical files: the only randomness is a
``random.Random`` seeded from the spec, and the YAML is written by :mod:`bench.emit`.

Command line: ``python -m bench.corpus --documents 10000 --out bench/out/corpus-10k``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from bench.emit import Pairs, Parts, emit
from bench.mutate import Category, break_document
from bench.objects import CORE_KINDS, CRD_KINDS, Builder, new_ctx
from trainops.core.findings import json_path

#: Bump when the generator's output changes, so existing corpora are rebuilt.
GENERATOR_VERSION = 3
Group = Literal["core", "crd"]
GROUPS: tuple[Group, ...] = ("core", "crd")


@dataclass(frozen=True)
class CorpusSpec:
    """What to generate.

    Args:
        documents: total documents (core + CRD).
        seed: RNG seed. Default: 2024.
        invalid_share: share of each group broken on purpose. Default: 0.10.
        crd_share: share of CRD documents. Default: 0.05.
        docs_per_file: documents per multi-document file. Default: 1,000.
    """

    documents: int
    seed: int = 2024
    invalid_share: float = 0.10
    crd_share: float = 0.05
    docs_per_file: int = 1000

    def group_sizes(self) -> dict[Group, int]:
        """Documents per group."""
        crd = round(self.documents * self.crd_share)
        return {"core": self.documents - crd, "crd": crd}


@dataclass(frozen=True)
class Expected:
    """The expected verdict of one document.

    Args:
        file: path relative to the corpus directory, e.g. ``core/part-0003.yaml``.
        document: 0-based index of the document in its file.
        line: 1-based line where the document starts.
        group: ``core`` or ``crd``.
        api_version: the document's apiVersion.
        kind: the document's kind.
        name: ``metadata.name`` as written (the last one when the key is duplicated).
        verdict: ``valid`` or ``invalid``.
        category: what is wrong (``None`` when valid); see :mod:`bench.mutate`.
        path: JSON path a validator should report (trainops convention), or ``None``.
        error_line: 1-based line of ``path`` in the file, or ``None``.
    """

    file: str
    document: int
    line: int
    group: Group
    api_version: str
    kind: str
    name: str
    verdict: Literal["valid", "invalid"]
    category: Category | None = None
    path: str | None = None
    error_line: int | None = None


@dataclass(frozen=True)
class Generated:
    """One generated document before it is placed in a file."""

    group: Group
    text: str
    api_version: str
    kind: str
    name: str
    category: Category | None
    path: Parts | None
    target_line: int | None


def generate(spec: CorpusSpec, group: Group) -> Iterator[Generated]:
    """The documents of one group, in order."""
    count = spec.group_sizes()[group]
    rng = random.Random(spec.seed * 10 + GROUPS.index(group))
    invalid = frozenset(rng.sample(range(count), round(count * spec.invalid_share)))
    kinds: dict[str, tuple[Builder, int]] = CORE_KINDS if group == "core" else CRD_KINDS
    names = list(kinds)
    weights = [weight for _, weight in kinds.values()]
    for index in range(count):
        kind = rng.choices(names, weights)[0]
        doc = kinds[kind][0](new_ctx(rng))
        category: Category | None = None
        path: Parts | None = None
        if index in invalid:
            category, path = break_document(doc, rng)
        name = _name(doc["metadata"])
        text, line = emit(doc, path)
        if path is not None and line is None:
            raise AssertionError(f"{kind} {name}: {json_path(path)} was not written")
        yield Generated(group, text, str(doc["apiVersion"]), kind, name, category, path, line)


def _name(metadata: dict[str, Any] | Pairs) -> str:
    """``metadata.name`` as a YAML reader sees it (the last one when it is written twice)."""
    if isinstance(metadata, Pairs):
        return str([value for key, value in metadata if key == "name"][-1])
    return str(metadata["name"])


def _chunks(items: Iterator[Generated], size: int) -> Iterator[list[Generated]]:
    chunk: list[Generated] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_corpus(spec: CorpusSpec, out: Path) -> dict[str, Any]:
    """Write the corpus under ``out`` (replacing an earlier one); return the ``corpus.json`` data."""
    _clear(out)
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    with (out / "expected.jsonl").open("w", encoding="utf-8", newline="\n") as expected:
        for group in GROUPS:
            (out / group).mkdir(exist_ok=True)
            for number, chunk in enumerate(_chunks(generate(spec, group), spec.docs_per_file)):
                rel = f"{group}/part-{number:04d}.yaml"
                line = 1
                texts: list[str] = []
                for index, item in enumerate(chunk):
                    record = Expected(
                        file=rel,
                        document=index,
                        line=line,
                        group=group,
                        api_version=item.api_version,
                        kind=item.kind,
                        name=item.name,
                        verdict="valid" if item.category is None else "invalid",
                        category=item.category,
                        path=None if item.path is None else json_path(item.path),
                        error_line=None if item.target_line is None else line + item.target_line - 1,
                    )
                    expected.write(json.dumps(asdict(record), sort_keys=True) + "\n")
                    counts[f"{group}/{record.verdict}"] += 1
                    if item.category:
                        counts[f"{group}/{item.category}"] += 1
                    texts.append(item.text)
                    line += item.text.count("\n") + 1  # the document and the following "---"
                (out / rel).write_text("---\n".join(texts), encoding="utf-8", newline="\n")
    info = {"generator": GENERATOR_VERSION, "spec": asdict(spec), "counts": dict(sorted(counts.items()))}
    (out / "corpus.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return info


def _clear(out: Path) -> None:
    """Remove what :func:`write_corpus` writes (and nothing else)."""
    for group in GROUPS:
        if (out / group).is_dir():
            shutil.rmtree(out / group)
    for name in ("expected.jsonl", "corpus.json"):
        (out / name).unlink(missing_ok=True)


def ensure_corpus(spec: CorpusSpec, out: Path) -> bool:
    """Write the corpus unless ``out`` already holds this spec from this generator; True if written."""
    marker = out / "corpus.json"
    if marker.is_file():
        info = json.loads(marker.read_text(encoding="utf-8"))
        if info.get("generator") == GENERATOR_VERSION and info.get("spec") == asdict(spec):
            return False
    write_corpus(spec, out)
    return True


def read_expected(out: Path) -> list[Expected]:
    """The records of ``out/expected.jsonl``, in corpus order."""
    records = []
    with (out / "expected.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            records.append(Expected(**json.loads(line)))
    return records


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench.corpus``: write one corpus and print its counts."""
    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=__doc__.split("\n")[0])
    parser.add_argument("--documents", "-n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=CorpusSpec.seed)
    parser.add_argument("--invalid-share", type=float, default=CorpusSpec.invalid_share)
    parser.add_argument("--crd-share", type=float, default=CorpusSpec.crd_share)
    parser.add_argument("--docs-per-file", type=int, default=CorpusSpec.docs_per_file)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    spec = CorpusSpec(args.documents, args.seed, args.invalid_share, args.crd_share, args.docs_per_file)
    info = write_corpus(spec, args.out)
    print(json.dumps(info["counts"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
