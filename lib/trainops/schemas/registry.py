"""Schema registry keyed by (apiVersion, kind) for one target Kubernetes minor.

Core kinds come from the per-minor strict schemas shipped by the ``kubernetes-validate`` package
(``kubernetes-json-schema/v1.N.0-local-strict``, generated from the Kubernetes OpenAPI); CRD kinds
from the cache written by ``trainops schemas sync``, or fetched into it on first use when the shipped
catalog has them (:mod:`trainops.schemas.fetch`). Each kind's schema is bundled with only the
definitions it reaches and compiled once per process with jsonschema-rs (draft 2020-12).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from trainops.core.errors import SchemaError, UsageError
from trainops.schemas.catalog import PACKAGED_CATALOG, CatalogEntry, load_catalog
from trainops.schemas.convert import DRAFT, INT32, INT64, OBJECT_META_DEF
from trainops.schemas.fetch import FirstUse, SchemaSource, current_source

_REF = r'"\$ref":\s*"(?:[^"#]*)#/\$defs/([^"]+)"'
_VERSION_DIR = re.compile(r"^v1\.(\d+)\.0-local-strict$")
QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
#: Bump when bundling or patching changes, so stale on-disk bundles are not reused.
BUNDLE_FORMAT = "trainops-bundle-1"
#: Files of values derived from a minor's definitions, kept beside its bundles (names no kind can
#: take: bundle files start with an apiVersion, never with ``_``).
_GVK_INDEX_FILE = "_gvk-index.json"
_OBJECT_META_FILE = "_object-meta.json"
#: apimachinery resource.Quantity grammar (quantity.go), as a regular expression.
QUANTITY_PATTERN = (
    r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$"
)


@dataclass
class KindSchema:
    """The compiled schema of one (apiVersion, kind).

    Args:
        api_version: e.g. ``apps/v1``.
        kind: e.g. ``Deployment``.
        source: where it comes from, e.g. ``kubernetes 1.34`` or ``kubeflow/trainer@v1.9.4``.
        schema: the bundled JSON Schema.
        deprecated: the CRD marks this version deprecated.
        deprecation_warning: the CRD's ``deprecationWarning`` text, if any.
        openapi: the raw CRD ``openAPIV3Schema`` (CRDs only; used for CEL rules).
        namespaced: whether objects of this kind live in a namespace.
        cel_rules_to_evaluate: whether ``openapi`` holds CEL rules validation evaluates (or reports as
            failing to compile), from the census ``trainops schemas sync`` recorded; ``None``: unknown.
            ``False`` spares compiling them (and importing the CEL runtime) only to find transition
            rules, which are skipped offline.
    """

    api_version: str
    kind: str
    source: str
    schema: dict[str, Any]
    deprecated: bool = False
    deprecation_warning: str | None = None
    openapi: dict[str, Any] | None = None
    namespaced: bool = True
    cel_rules_to_evaluate: bool | None = None
    #: Per-consumer compiled artefacts (e.g. the validator's CEL programs), cached with the schema so
    #: they are built once per process; the registry itself never reads it.
    extras: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@lru_cache(maxsize=1)
def core_versions() -> dict[int, Path]:
    """Kubernetes minors shipped by kubernetes-validate → their strict schema directory.

    The package is located, not imported (importing it pulls in jsonschema, slow to import).
    """
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or spec.origin is None:  # pragma: no cover - a pinned dependency
        raise SchemaError("the kubernetes-validate package is not installed (run `make install`)")
    base = Path(spec.origin).parent / "kubernetes-json-schema"
    out: dict[int, Path] = {}
    for child in base.iterdir():
        match = _VERSION_DIR.match(child.name)
        if match:
            out[int(match.group(1))] = child
    return dict(sorted(out.items()))


#: Names that can be a built-in kind or apiVersion (anything else is not looked up on disk).
_SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_SAFE_API_VERSION = re.compile(r"(?:[a-z0-9][a-z0-9.-]{0,62}/)?v[0-9][a-z0-9]{0,15}")


def newest_kubernetes_version() -> str:
    """The newest Kubernetes minor with shipped schemas, as ``"1.N"``."""
    return f"1.{max(core_versions())}"


def core_schemas(kubernetes_version: str, cache_dir: Path | None = None) -> CoreSchemas:
    """The (process-wide, shared) :class:`CoreSchemas` of ``kubernetes_version`` (``"1.N"``).

    ``cache_dir`` (the schema cache root) keeps bundled per-kind schemas on disk between runs.

    Raises:
        UsageError: the package ships no schemas for that minor.
    """
    match = re.match(r"^v?1\.(\d+)(?:\.\d+)?$", kubernetes_version)
    versions = core_versions()
    if not match or int(match.group(1)) not in versions:
        shipped = ", ".join(f"1.{m}" for m in versions)
        raise UsageError(
            f"--kubernetes-version {kubernetes_version!r}: no schemas for it (shipped: {shipped})"
        )
    return _core_for_minor(int(match.group(1)), cache_dir)


@lru_cache(maxsize=8)
def _core_for_minor(minor: int, cache_dir: Path | None) -> CoreSchemas:
    return CoreSchemas(minor, core_versions()[minor], cache_dir)


class CoreSchemas:
    """Strict schemas of the built-in kinds for one Kubernetes minor (see :func:`core_schemas`).

    Args:
        minor: the Kubernetes minor, e.g. 34.
        directory: kubernetes-validate's ``v1.N.0-local-strict`` directory.
        cache_dir: schema cache root; bundles are kept under ``compiled/core-1.<minor>-<format>-<digest>/``
            (:data:`BUNDLE_FORMAT`, :attr:`digest`). ``None``: no disk cache.
    """

    def __init__(self, minor: int, directory: Path, cache_dir: Path | None = None) -> None:
        self.minor = minor
        self.directory = directory
        self.cache_dir = cache_dir
        self._bundles: dict[tuple[str, str], KindSchema | None] = {}

    @cached_property
    def digest(self) -> str:
        """The disk-cache key of this minor's bundles: the size and modification time (ns) of its
        ``_definitions.json``, in hexadecimal, as Python keys its bytecode cache by its sources'
        (``importlib._bootstrap_external.SourceLoader``); the bundle format is part of the
        directory name (:meth:`_compiled_dir`). A reinstalled or edited file gets new bundles.
        Reading and hashing the file instead was a noticeable part of a one-file ``trainops validate``.

        Raises:
            OSError: the file cannot be read (kubernetes-validate's data was removed).
        """
        stat = (self.directory / "_definitions.json").stat()
        return f"{stat.st_size:x}-{stat.st_mtime_ns:x}"

    def _bundle_path(self, api_version: str, kind: str) -> Path | None:
        # apiVersion and kind come from the document: only names that can be built-in kinds make a
        # file name (no '/', '..', NUL or over-long names from untrusted input reach the file system).
        if (
            self.cache_dir is None
            or not _SAFE_NAME.fullmatch(kind)
            or not _SAFE_API_VERSION.fullmatch(api_version)
        ):
            return None
        return self._compiled_dir() / f"{api_version.replace('/', '_')}_{kind}.json"

    @cached_property
    def definitions(self) -> dict[str, Any]:
        """All definitions of this minor (``$defs`` of ``_definitions.json``), patched for strictness."""
        data = json.loads((self.directory / "_definitions.json").read_text(encoding="utf-8"))
        defs: dict[str, Any] = data["$defs"]
        defs[QUANTITY_DEF] = {
            "oneOf": [{"type": "string", "pattern": QUANTITY_PATTERN}, {"type": "number"}, {"type": "null"}]
        }
        for definition in defs.values():
            _int_ranges(definition)
        return defs

    @cached_property
    def gvk_index(self) -> dict[tuple[str, str], str]:
        """(apiVersion, kind) → definition name, from ``x-kubernetes-group-version-kind``.

        Kept in the disk cache beside the bundles (``_gvk-index.json``): a custom resource asks it
        whether its kind is built-in, and reading all definitions to answer it in every process is slow."""
        cached = self._read_derived(_GVK_INDEX_FILE)
        if isinstance(cached, list) and all(isinstance(row, list) and len(row) == 3 for row in cached):
            return {(row[0], row[1]): row[2] for row in cached}
        index = self._gvk_index_of_definitions()
        self._write_derived(_GVK_INDEX_FILE, [[*key, name] for key, name in sorted(index.items())])
        return index

    @cached_property
    def object_meta_defs(self) -> dict[str, Any]:
        """:meth:`closure` of ObjectMeta: the ``$defs`` every CRD schema gets (``metadata`` is checked
        as the API server's ObjectMeta). Kept in the disk cache beside the bundles, like
        :attr:`gvk_index`."""
        cached = self._read_derived(_OBJECT_META_FILE)
        if isinstance(cached, dict) and OBJECT_META_DEF in cached:
            return cached
        defs = self.closure([OBJECT_META_DEF])
        self._write_derived(_OBJECT_META_FILE, defs)
        return defs

    def _read_derived(self, name: str) -> Any:
        """A value kept in the disk cache by :meth:`_write_derived`, or ``None`` (none, or damaged)."""
        if self.cache_dir is None:
            return None
        try:
            return json.loads((self._compiled_dir() / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _write_derived(self, name: str, value: Any) -> None:
        if self.cache_dir is not None:
            _write_atomic(
                self._compiled_dir() / name, json.dumps(value, separators=(",", ":"), sort_keys=True)
            )

    def _compiled_dir(self) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / "compiled" / f"core-1.{self.minor}-{BUNDLE_FORMAT}-{self.digest}"

    def _gvk_index_of_definitions(self) -> dict[tuple[str, str], str]:
        index: dict[tuple[str, str], str] = {}
        for name, definition in self.definitions.items():
            for gvk in definition.get("x-kubernetes-group-version-kind", []):
                group, version, kind = gvk.get("group", ""), gvk["version"], gvk["kind"]
                api_version = f"{group}/{version}" if group else version
                # Kinds such as DeleteOptions are listed under every group; keep the owning one.
                if (api_version, kind) not in index or name.endswith(f".{version}.{kind}"):
                    index[(api_version, kind)] = name
        return index

    def closure(self, roots: list[str]) -> dict[str, Any]:
        """The definitions reachable from ``roots`` (names), for a self-contained bundle."""
        defs = self.definitions
        seen: dict[str, Any] = {}
        stack = list(roots)
        while stack:
            name = stack.pop()
            if name in seen or name not in defs:
                continue
            seen[name] = defs[name]
            stack.extend(re.findall(_REF, json.dumps(defs[name])))
        return dict(sorted(seen.items()))

    def kind_schema(self, api_version: str, kind: str) -> KindSchema | None:
        """The compiled-on-demand schema of a built-in kind, shared by every registry of this minor."""
        key = (api_version, kind)
        if key not in self._bundles:
            schema = self._cached_bundle(api_version, kind)
            self._bundles[key] = (
                None
                if schema is None
                else KindSchema(api_version, kind, f"kubernetes 1.{self.minor}", schema)
            )
        return self._bundles[key]

    def _cached_bundle(self, api_version: str, kind: str) -> dict[str, Any] | None:
        # A bundle on disk is one read: only built-in kinds have one (written below), so the
        # gvk index is read only when there is none (a custom resource, or a first use).
        path = self._bundle_path(api_version, kind)
        if path is not None and path.is_file():
            try:
                cached: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
                return cached
            except (OSError, ValueError):
                pass  # a damaged cache entry is rebuilt below
        if (api_version, kind) not in self.gvk_index:
            return None  # a custom resource (or nothing): no bundle to build
        schema = self.schema_for(api_version, kind)
        if schema is not None and path is not None:
            _write_atomic(path, json.dumps(schema, separators=(",", ":"), sort_keys=True))
        return schema

    def schema_for(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The bundled schema of a built-in kind, or ``None`` when the minor has no such kind."""
        name = self.gvk_index.get((api_version, kind))
        if name is None:
            return None
        bundle = {"$schema": DRAFT, "$ref": f"#/$defs/{name}", "$defs": self.closure([name])}
        return _relocal(bundle)


class CrdIndexEntry(NamedTuple):
    """One row of the schema cache index."""

    api_version: str
    kind: str
    operator: str
    source: str
    file: str
    deprecated: bool
    deprecation_warning: str | None
    namespaced: bool
    cel_rules_to_evaluate: bool | None = None


def _cel_rules_to_evaluate(row: dict[str, Any]) -> bool | None:
    """From an index row's CEL census (``trainops schemas sync``): whether validation has rules to
    evaluate or report (evaluated rules, or rules that failed to compile); ``None`` when the row has no
    census (then the rules are compiled to find out)."""
    census = row.get("cel")
    if not isinstance(census, dict):
        return None
    rules, evaluated, errors = (census.get(key) for key in ("rules", "evaluated", "errors"))
    if type(rules) is not int or type(evaluated) is not int or type(errors) is not int:
        return None
    return rules > 0 and (evaluated > 0 or errors > 0)


class SchemaRegistry:
    """Find and compile schemas by (apiVersion, kind) for a target.

    Args:
        kubernetes_version: target minor, ``"1.N"``.
        cache_dir: the schema cache root (holding ``schemas/index.json``); ``None`` means built-in
            kinds only.
        operators: installed operators (``Cluster.operators``); when given, a CRD kind offered by
            several operators (e.g. MPIJob from Training Operator and mpi-operator) resolves to the
            installed one. Default: all catalogued operators.
        source: where a catalogued CRD missing from the cache is fetched from on first use
            (:class:`~trainops.schemas.fetch.SchemaSource`). Default:
            :func:`~trainops.schemas.fetch.current_source`.

    The cache's index is read on first need (a built-in kind needs none: start-up of a one-file
    ``trainops validate``). While the cache does not hold every entry of the shipped catalog, the
    catalog is read (once) to answer for kinds the cache lacks. A cache written from another
    revision of the shipped catalog (trainops upgraded) keeps only the rows whose CRD checksum the
    shipped catalog still names; the others are fetched again on first use. A cache synced from another catalog (``schemas sync
    --catalog``) is used as it is.

    Raises:
        UsageError: unknown Kubernetes minor.
    """

    def __init__(
        self,
        kubernetes_version: str,
        cache_dir: Path | None,
        operators: Mapping[str, str] | None = None,
        source: SchemaSource | None = None,
    ) -> None:
        self.core = core_schemas(kubernetes_version, cache_dir)
        self.kubernetes_version = f"1.{self.core.minor}"
        self.cache_dir = cache_dir
        self.operators = dict(operators) if operators is not None else None
        self._source = source
        self._crds: dict[tuple[str, str], list[CrdIndexEntry]] = {}
        self._compiled: dict[tuple[str, str], KindSchema | None] = {}
        self._complete = cache_dir is None  # no cache: nothing to fetch into
        self._first_use: FirstUse | None = None
        self._crd_count = 0
        self._index_read = cache_dir is None

    @property
    def crd_count(self) -> int:
        """Number of cached (apiVersion, kind, operator) rows, fetched ones included."""
        self._read_index()
        return self._crd_count

    def _read_index(self) -> None:
        """Read the cache's index into the registry, once (every method using ``_crds`` or
        ``_complete`` calls this first)."""
        if not self._index_read:
            self._index_read = True
            assert self.cache_dir is not None
            self._load_index(self.cache_dir)

    def _load_index(self, cache: Path) -> None:
        from trainops.schemas.index import read_index

        index = read_index(cache)
        if index is None:
            return
        rows = index["schemas"]
        if index.get("catalogFile") != _packaged_catalog_digest():
            if not index.get("custom"):  # written from an older shipped catalog: drop changed CRDs
                shipped = {entry.name: entry.sha256 for entry in self._catalog()}
                cached = index["entries"]
                rows = [
                    row for row in rows if shipped.get(row.get("catalog")) == cached.get(row.get("catalog"))
                ]
                self._complete = cached == shipped  # only the file's other text changed
        else:
            self._complete = bool(index.get("complete"))
        for row in rows:
            self._add_row(row)

    def _add_row(self, row: dict[str, Any]) -> None:
        entry = CrdIndexEntry(
            api_version=row["apiVersion"],
            kind=row["kind"],
            operator=row["operator"],
            source=row["source"],
            file=row["file"],
            deprecated=row.get("deprecated", False),
            deprecation_warning=row.get("deprecationWarning"),
            namespaced=row.get("scope", "Namespaced") == "Namespaced",
            cel_rules_to_evaluate=_cel_rules_to_evaluate(row),
        )
        known = self._crds.setdefault((entry.api_version, entry.kind), [])
        if all(old.operator != entry.operator for old in known):
            known.append(entry)
            self._crd_count += 1

    def _catalog(self) -> list[CatalogEntry]:
        """The shipped catalog (read once per process)."""
        return _packaged_catalog()

    def _uncached(self, api_version: str, kind: str) -> list[CatalogEntry]:
        """Entries of the shipped catalog serving (apiVersion, kind) whose rows are not cached (none
        when the cache is complete), installed operators' first."""
        self._read_index()
        if self._complete:
            return []
        group, _, version = api_version.rpartition("/")
        cached = {c.operator for c in self._crds.get((api_version, kind), [])}
        found = [
            e
            for e in self._catalog()
            if e.group == group and e.kind == kind and version in e.versions and e.operator not in cached
        ]
        return sorted(found, key=lambda e: self.operators is not None and e.operator not in self.operators)

    def _fetch(self, entry: CatalogEntry, api_version: str, kind: str) -> None:
        """Cache ``entry`` on first use (:class:`~trainops.schemas.fetch.FirstUse`) and index its rows."""
        assert self.cache_dir is not None
        if self._first_use is None:
            self._first_use = FirstUse(self.cache_dir, self._source or current_source(), self._catalog())
        for row in self._first_use.fetch(entry, f"{api_version} {kind}"):
            self._add_row(dict(row))

    @property
    def has_crds(self) -> bool:
        """Whether any CRD schema is available: cached, or fetched on first use."""
        self._read_index()
        return bool(self._crds) or not self._complete

    def crd_entry(self, api_version: str, kind: str, *, fetch: bool = True) -> CrdIndexEntry | None:
        """The cache entry serving (apiVersion, kind) on this target, if any; with ``fetch`` (the
        default), a catalogued CRD not cached yet is fetched first (schemas on first use).

        With declared operators only an installed operator's CRD serves it: MPIJob
        ``kubeflow.org/v1`` exists on a Training Operator cluster, not on an mpi-operator one.

        Raises:
            SchemaError: the CRD must be fetched and cannot be (``--offline``, a download or
                checksum failure, an unwritable cache).
        """
        self._read_index()
        candidates = self._installed(self._crds.get((api_version, kind), []))
        if not candidates and fetch:
            missing = [e for e in self._uncached(api_version, kind) if self._serves(e.operator)]
            if missing:
                self._fetch(missing[0], api_version, kind)
                candidates = self._installed(self._crds.get((api_version, kind), []))
        return candidates[0] if candidates else None

    def _serves(self, operator: str) -> bool:
        return self.operators is None or operator in self.operators

    def _installed(self, candidates: list[CrdIndexEntry]) -> list[CrdIndexEntry]:
        return [c for c in candidates if self._serves(c.operator)]

    def not_installed(self, api_version: str, kind: str) -> list[str]:
        """Catalogued operators that would serve (apiVersion, kind) but are not installed on the target."""
        if self.operators is None:
            return []
        self._read_index()
        offered = {c.operator for c in self._crds.get((api_version, kind), [])}
        offered |= {e.operator for e in self._uncached(api_version, kind)}
        return sorted(operator for operator in offered if operator not in self.operators)

    def served_versions(self, kind: str, group: str) -> list[str]:
        """apiVersions of ``kind`` in ``group`` that the target serves (installed operators only)."""
        self._read_index()
        out = set()
        for (api_version, entry_kind), entries in self._crds.items():
            installed = any(self._serves(e.operator) for e in entries)
            if entry_kind == kind and api_version.split("/")[0] == group and installed:
                out.add(api_version)
        if not self._complete:
            for e in self._catalog():
                if e.kind == kind and e.group == group and self._serves(e.operator):
                    out.update(f"{group}/{version}" for version in e.versions)
        return sorted(out)

    def get(self, api_version: str, kind: str) -> KindSchema | None:
        """The schema of (apiVersion, kind), or ``None`` when neither core nor a CRD defines it."""
        key = (api_version, kind)
        if key in self._compiled:
            return self._compiled[key]
        result: KindSchema | None = self.core.kind_schema(api_version, kind) or self._local(api_version, kind)
        if result is None:
            entry = self.crd_entry(api_version, kind)
            if entry is not None and self.cache_dir is not None:
                result = self._load_crd(entry)
        self._compiled[key] = result
        return result

    def _local(self, api_version: str, kind: str) -> KindSchema | None:
        """A schema of the project's own (``schemas/local/``) for a kind whose CRD checks nothing."""
        from trainops.schemas.local import load_local_schema

        schema = load_local_schema(api_version, kind)
        if schema is None:
            return None
        schema["$defs"] = self.core.object_meta_defs
        entry = self.crd_entry(api_version, kind, fetch=False)
        source = f"trainops schemas/local (for {entry.source})" if entry else "trainops schemas/local"
        return KindSchema(api_version, kind, source, _relocal(schema))

    @cached_property
    def _crd_defs(self) -> dict[str, Any]:
        """The ``$defs`` of every CRD schema: ObjectMeta's closure with local references. A converted
        CRD schema refers to nothing else (:mod:`trainops.schemas.convert`: a structural schema has no
        ``$ref`` of its own; ``metadata`` is ``#/$defs/<ObjectMeta>``), so only these need
        :func:`_relocal`. Shared by the CRD schemas of the registry, which read it only."""
        defs: dict[str, Any] = _relocal({"$defs": self.core.object_meta_defs})["$defs"]
        return defs

    def _load_crd(self, entry: CrdIndexEntry) -> KindSchema:
        assert self.cache_dir is not None
        path = self.cache_dir / "schemas" / entry.file
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SchemaError(
                f"{path}: unreadable cached schema ({exc}); run `trainops schemas sync`"
            ) from None
        schema = document["schema"]
        schema["$defs"] = self._crd_defs
        return KindSchema(
            entry.api_version,
            entry.kind,
            entry.source,
            schema,
            deprecated=entry.deprecated,
            deprecation_warning=entry.deprecation_warning,
            openapi=document.get("openAPIV3Schema"),
            namespaced=entry.namespaced,
            cel_rules_to_evaluate=entry.cel_rules_to_evaluate,
        )


@lru_cache(maxsize=1)
def _packaged_catalog_digest() -> str:
    """sha256 of the shipped catalog's bytes (:func:`~trainops.schemas.index.catalog_file_digest`)."""
    from trainops.schemas.index import catalog_file_digest

    return catalog_file_digest(PACKAGED_CATALOG)


@lru_cache(maxsize=1)
def _packaged_catalog() -> list[CatalogEntry]:
    return load_catalog(PACKAGED_CATALOG)


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary sibling and rename; failures only skip caching."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only when a schema is written (start-up)

        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def _relocal(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite ``/api/_definitions.json#/$defs/X`` references to local ``#/$defs/X``."""
    text = json.dumps(schema)
    text = re.sub(r'"\$ref":\s*"[^"#]*#/\$defs/', '"$ref": "#/$defs/', text)
    result: dict[str, Any] = json.loads(text)
    result.pop("$id", None)
    for definition in result.get("$defs", {}).values():
        if isinstance(definition, dict):
            definition.pop("$id", None)
            definition.pop("$schema", None)
    return result


def _int_ranges(node: Any) -> None:
    """Add int32/int64 range checks where ``format`` says so (the API server rejects overflow)."""
    if isinstance(node, dict):
        fmt = node.get("format")
        if fmt in ("int32", "int64"):
            low, high = INT32 if fmt == "int32" else INT64
            node.setdefault("minimum", low)
            node.setdefault("maximum", high)
        for value in node.values():
            _int_ranges(value)
    elif isinstance(node, list):
        for value in node:
            _int_ranges(value)
