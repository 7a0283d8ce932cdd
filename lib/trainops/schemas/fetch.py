"""Schemas on first use: where the registry gets a catalogued CRD's schema that is not cached yet.

A kind of the shipped catalog (``catalog.yaml``) whose schema is not in the cache is fetched when a
document first needs it, checked against the catalog's sha256 and cached
(:func:`trainops.schemas.sync.add_entry`), with one progress line on stderr per run; ``trainops
schemas sync`` still fetches the whole catalog ahead (a CI cache, an offline machine). Built-in
kinds come from kubernetes-validate and need nothing.

Where CRD files come from is a :class:`SchemaSource`: the catalog URLs, or a mirror directory
(``TRAINOPS_CRD_MIRROR``, ``--crd-mirror DIR``: ``<mirror>/<mirror_path>`` as ``schemas sync
--from`` reads it); ``--offline`` fetches nothing and names the command that fills the cache. The
commands set the run's source with :func:`using`; a registry takes :func:`current_source` when it
is built.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from trainops.core.errors import SchemaError
from trainops.schemas.catalog import MIRROR_ENV, CatalogEntry, default_cache_dir

if TYPE_CHECKING:
    from trainops.schemas.sync import CelCensus


def announce(line: str) -> None:
    """The default progress sink: ``line`` on stderr."""
    print(line, file=sys.stderr, flush=True)


class SchemaSource(NamedTuple):
    """Where schemas missing from the cache come from.

    Args:
        mirror: read CRD files from ``<mirror>/<mirror_path>`` instead of their URLs. Default:
            ``None`` (the URLs).
        offline: never fetch: a missing schema is a :class:`~trainops.core.errors.SchemaError` naming
            the ``trainops schemas sync`` command to run. Default: ``False``.
        census: counts a CRD version's CEL rules for the index (the validator's
            :func:`~trainops.validate.checks.cel.census`); ``None`` leaves it to validation.
        progress: receives the one progress line of a run. Default: :func:`announce` (stderr).
    """

    mirror: Path | None = None
    offline: bool = False
    census: CelCensus | None = None
    progress: Callable[[str], None] = announce

    @classmethod
    def from_environment(cls) -> SchemaSource:
        """URLs, or the mirror named by ``TRAINOPS_CRD_MIRROR`` when it is set and not empty."""
        mirror = os.environ.get(MIRROR_ENV)
        return cls(mirror=Path(mirror) if mirror else None)

    def describe(self) -> str:
        """Where files come from, for messages: ``mirror DIR`` or ``the catalog URLs``."""
        return f"mirror {self.mirror}" if self.mirror is not None else "the catalog URLs"

    def sync_command(self, cache: Path) -> str:
        """The exact command that fills ``cache`` from this source, e.g. ``trainops schemas sync``
        or ``trainops schemas sync --from /srv/crds --cache-dir /tmp/cache``."""
        words = ["trainops", "schemas", "sync"]
        if self.mirror is not None and os.environ.get(MIRROR_ENV) != str(self.mirror):
            words += ["--from", str(self.mirror)]
        if cache != default_cache_dir():
            words += ["--cache-dir", str(cache)]
        return " ".join(words)


#: The run's source (:func:`using`), seen by every thread; ``None``: from the environment.
_SOURCE: list[SchemaSource | None] = [None]


def current_source() -> SchemaSource:
    """The source set by :func:`using`, else :meth:`SchemaSource.from_environment`."""
    return _SOURCE[0] or SchemaSource.from_environment()


@contextmanager
def using(source: SchemaSource) -> Iterator[SchemaSource]:
    """Make ``source`` the :func:`current_source` inside the block (a command's run; the previous
    one is restored after it)."""
    previous, _SOURCE[0] = _SOURCE[0], source
    try:
        yield source
    finally:
        _SOURCE[0] = previous


class FirstUse:
    """Fetches catalogued CRDs into one cache as documents need them (one per registry).

    Args:
        cache: the cache root.
        source: where files come from, and whether fetching is allowed.
        catalog: every entry of the shipped catalog.

    The first fetch of a run prints one line (``source.progress``); later ones are silent.
    """

    def __init__(self, cache: Path, source: SchemaSource, catalog: list[CatalogEntry]) -> None:
        self.cache = cache
        self.source = source
        self.catalog = catalog
        self.announced = False

    def fetch(self, entry: CatalogEntry, wanted: str) -> list[dict[str, object]]:
        """Cache ``entry`` (``wanted``: the ``apiVersion kind`` that asked) and return its index rows.

        Raises:
            SchemaError: ``source.offline``; the file cannot be fetched, fails its checksum or
                conversion; the cache cannot be written.
        """
        from trainops.schemas.sync import add_entry

        if self.source.offline:
            raise SchemaError(
                f"{wanted}: its CRD schema ({entry.name}) is not in the schema cache {self.cache} and "
                f"--offline fetches nothing; run `{self.source.sync_command(self.cache)}` first"
            )

        def progress(_: CatalogEntry) -> None:
            if not self.announced:
                self.announced = True
                self.source.progress(
                    f"trainops: caching CRD schemas on first use in {self.cache / 'schemas'} "
                    f"(from {self.source.describe()}), starting with {wanted} ({entry.name}); "
                    "`trainops schemas sync` caches them all ahead"
                )

        return add_entry(
            entry,
            self.catalog,
            self.cache,
            mirror=self.source.mirror,
            census=self.source.census,
            progress=progress,
        )
