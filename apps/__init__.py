"""The bundled example apps: the seed scenarios written as trainops constructs.

``APPS`` and ``CLUSTERS`` are the explicit registries ``trainops synth`` reads.
"""

from __future__ import annotations

from apps import pytorch_ddp_multi_node, pytorch_ddp_single_node, tf_serving, training_data
from apps.clusters import CLUSTERS
from trainops.app import AppDef

APPS: tuple[AppDef, ...] = (
    training_data.APP,
    pytorch_ddp_single_node.APP,
    pytorch_ddp_multi_node.APP,
    tf_serving.APP,
)

__all__ = ["APPS", "CLUSTERS"]
