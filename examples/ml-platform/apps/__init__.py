"""The bundled example apps: the seed scenarios written as trainops constructs.

``APPS`` and ``CLUSTERS`` are the explicit registries ``trainops synth`` reads.
"""

from __future__ import annotations

from apps import (
    bert_finetune,
    data_prep,
    katib_hpo,
    kserve_canary,
    llm_pretrain,
    llm_serving,
    ml_platform,
    model_rollout,
    mpi_dra,
    mpi_horovod,
    pytorch_ddp_multi_node,
    pytorch_ddp_single_node,
    seldon_legacy,
    team_queues,
    team_vision,
    tf_ps_worker,
    tf_serving,
    training_data,
    training_monitoring,
    vision_serving,
    xgboost_paddle,
)
from apps.clusters import CLUSTERS
from trainops.app import AppDef

APPS: tuple[AppDef, ...] = (
    training_data.APP,
    pytorch_ddp_single_node.APP,
    pytorch_ddp_multi_node.APP,
    tf_serving.APP,
    model_rollout.APP,
    data_prep.APP,
    tf_ps_worker.APP,
    mpi_horovod.APP,
    mpi_dra.APP,
    xgboost_paddle.APP,
    katib_hpo.APP,
    team_queues.APP,
    bert_finetune.APP,
    llm_pretrain.APP,
    team_vision.APP,
    vision_serving.APP,
    kserve_canary.APP,
    llm_serving.APP,
    seldon_legacy.APP,
    training_monitoring.APP,
    ml_platform.APP,
)

__all__ = ["APPS", "CLUSTERS"]
