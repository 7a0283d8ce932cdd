"""``trainops synth``: run every app for every cluster and write ``generated/`` atomically.

Output layout: ``generated/<cluster>/<app>/<kind>_<name>.yaml`` (one object per file, kind
lower-cased) plus ``generated/<cluster>/lock.json`` (object identity → file, sha256, spec hash).

- :mod:`~trainops.synth.render`: one cdk8s App per (cluster, app), synthesised in memory;
- :mod:`~trainops.synth.normalise`: labels, spec hash, canonical quantities, key order;
- :mod:`~trainops.synth.lockfile`: ``lock.json``;
- :mod:`~trainops.synth.tree`: the tree as path → text, read or written atomically.
"""

from __future__ import annotations

from trainops.synth.delivery import render_project
from trainops.synth.lockfile import lock_file
from trainops.synth.normalise import (
    MANAGED_BY,
    RUN_OF_LABEL,
    SPEC_HASH_ANNOTATION,
    TEAM_LABEL,
    file_name,
    normalise,
)
from trainops.synth.render import AppResult, render_app, render_objects
from trainops.synth.tree import read_tree, tree_for, write_tree

__all__ = [
    "MANAGED_BY",
    "RUN_OF_LABEL",
    "SPEC_HASH_ANNOTATION",
    "TEAM_LABEL",
    "AppResult",
    "file_name",
    "lock_file",
    "normalise",
    "read_tree",
    "render_app",
    "render_objects",
    "render_project",
    "tree_for",
    "write_tree",
]
