"""The CRD catalog (``catalog.yaml`` beside this module, shipped as package data) and where the
converted schemas are cached (the user cache directory, see :func:`default_cache_dir`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from trainops.core.errors import SchemaError

_SHA256 = r"^[0-9a-f]{64}$"
_FIELDS = (
    "name",
    "operator",
    "group",
    "kind",
    "versions",
    "repo",
    "tag",
    "url",
    "mirror_path",
    "sha256",
    "license",
)

CACHE_ENV = "TRAINOPS_CACHE_DIR"
MIRROR_ENV = "TRAINOPS_CRD_MIRROR"


class CatalogEntry(NamedTuple):
    """One upstream CRD file at a release tag.

    Args:
        name: unique ``<operator>/<file stem>``.
        operator: the component that installs the CRD (a ``Cluster.operators`` key).
        group: API group.
        kind: the CRD's kind.
        versions: served versions, in the CRD's order.
        repo: upstream ``owner/name``.
        tag: release tag.
        url: raw URL of the file at ``tag``.
        mirror_path: path of the same file below a mirror directory.
        sha256: expected sha256 of the file's bytes (hex).
        license: SPDX licence of the file.
    """

    name: str
    operator: str
    group: str
    kind: str
    versions: tuple[str, ...]
    repo: str
    tag: str
    url: str
    mirror_path: str
    sha256: str
    license: str


#: The CRD catalog shipped inside the package (package data), used wherever trainops runs.
PACKAGED_CATALOG = Path(__file__).with_name("catalog.yaml")


def default_catalog_path() -> Path:
    """The catalog shipped with the package: ``trainops/schemas/catalog.yaml``.

    It is package data, so ``trainops schemas sync`` works from any directory, inside a
    repository or not (``--catalog`` picks another file).
    """
    return PACKAGED_CATALOG


def default_cache_dir() -> Path:
    """Schema cache: ``$TRAINOPS_CACHE_DIR`` when set (and not empty), else the user cache directory
    of ``trainops`` (``platformdirs.user_cache_dir``: ``$XDG_CACHE_HOME/trainops`` or
    ``~/.cache/trainops`` on Linux, ``~/Library/Caches/trainops`` on macOS), whatever the working
    directory; ``--cache-dir`` overrides both in the commands."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("trainops", appauthor=False))


def load_catalog(path: Path) -> list[CatalogEntry]:
    """Read and check a catalog file.

    Raises:
        SchemaError: the file is missing or malformed; the message names the entry and field.
    """
    import yaml  # here: `trainops validate` reads no catalog and need not import PyYAML

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(f"{path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SchemaError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("crds"), list):
        raise SchemaError(f"{path}: expected a mapping with a 'crds' list")
    entries: list[CatalogEntry] = []
    seen: set[str] = set()
    for index, raw in enumerate(data["crds"]):
        where = f"{path}: crds[{index}]"
        if not isinstance(raw, dict):
            raise SchemaError(f"{where}: expected a mapping")
        unknown = sorted(set(raw) - set(_FIELDS))
        if unknown:
            raise SchemaError(f"{where}: unknown field {unknown[0]!r}")
        missing = [f for f in _FIELDS if f not in raw]
        if missing:
            raise SchemaError(f"{where}: missing field {missing[0]!r}")
        if not re.match(_SHA256, str(raw["sha256"])):
            raise SchemaError(f"{where}.sha256: {raw['sha256']!r} is not a hex sha256")
        if raw["name"] in seen:
            raise SchemaError(f"{where}.name: duplicate {raw['name']!r}")
        seen.add(raw["name"])
        entries.append(
            CatalogEntry(
                name=str(raw["name"]),
                operator=str(raw["operator"]),
                group=str(raw["group"]),
                kind=str(raw["kind"]),
                versions=tuple(str(v) for v in raw["versions"]),
                repo=str(raw["repo"]),
                tag=str(raw["tag"]),
                url=str(raw["url"]),
                mirror_path=str(raw["mirror_path"]),
                sha256=str(raw["sha256"]),
                license=str(raw["license"]),
            )
        )
    return entries
