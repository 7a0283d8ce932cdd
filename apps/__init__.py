"""The bundled example apps: the seed scenarios written as trainops constructs.

``APPS`` and ``CLUSTERS`` are the explicit registries ``trainops synth`` reads.
"""

from __future__ import annotations

from apps.clusters import CLUSTERS
from trainops.app import AppDef

APPS: tuple[AppDef, ...] = ()

__all__ = ["APPS", "CLUSTERS"]
