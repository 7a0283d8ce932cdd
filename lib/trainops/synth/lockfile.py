"""``generated/<cluster>/lock.json``: object identity → file, sha256 and spec hash."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from trainops import __version__
from trainops.synth.normalise import SPEC_HASH_ANNOTATION
from trainops.synth.render import AppResult


def lock_file(cluster: str, results: Iterable[AppResult]) -> str:
    """Build ``lock.json`` for one cluster: object identity → file, sha256 and spec hash."""
    objects = []
    for result in results:
        if result.cluster != cluster:
            continue
        for name, text in result.files.items():
            meta = result.objects[name]["metadata"]
            obj = result.objects[name]
            objects.append(
                {
                    "apiVersion": obj["apiVersion"],
                    "kind": obj["kind"],
                    "namespace": meta.get("namespace", ""),
                    "name": meta["name"],
                    "file": f"{result.app}/{name}",
                    "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "specHash": meta.get("annotations", {}).get(SPEC_HASH_ANNOTATION, ""),
                }
            )
    objects.sort(key=lambda o: o["file"])
    lock = {"cluster": cluster, "generator": f"trainops {__version__}", "objects": objects}
    return json.dumps(lock, indent=2, sort_keys=True) + "\n"
