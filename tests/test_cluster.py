"""``trainops.cluster`` is the public home of the types users declare in ``apps/clusters.py``
(the scaffold and the sample repository import them from there): the very objects of
``trainops.core.cluster``, not a copy."""

from __future__ import annotations

import pytest

import trainops.cluster
import trainops.core.cluster


@pytest.mark.parametrize("name", trainops.cluster.__all__)
def test_public_names_are_the_core_objects(name: str) -> None:
    assert getattr(trainops.cluster, name) is getattr(trainops.core.cluster, name)


def test_every_public_type_of_core_cluster_is_exported() -> None:
    public = {
        name
        for name, value in vars(trainops.core.cluster).items()
        if isinstance(value, type)
        and value.__module__ == "trainops.core.cluster"
        and not name.startswith("_")
    }
    assert public <= set(trainops.cluster.__all__)
