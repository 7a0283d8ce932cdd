"""YAML output in the form the Kubernetes API server reads unambiguously.

Output uses PyYAML's C emitter when present, block style, no line folding, literal blocks for
multi-line strings, and quotes every plain string that a YAML 1.1 reader (go-yaml v2, used by
``sigs.k8s.io/yaml`` and so by kubectl and Argo CD) would resolve to something else: booleans
including ``y``/``n``/``on``/``off``, numbers, nulls and timestamps.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class KubeDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """SafeDumper that never emits a plain scalar a YAML 1.1 reader would misread."""


# go-yaml v2 reads y/Y/n/N as booleans; PyYAML's 1.1 resolver does not, so quote them too.
KubeDumper.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
# YAML 1.2 readers (ruamel.yaml, go-yaml v3) read 0o17 as an int and 1e3 as a float.
KubeDumper.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^0o[0-7]+$"), ["0"])
KubeDumper.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$"),
    list("-+.0123456789"),
)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    if value == ".":
        # a plain string to every reader, but the block reader (trainops._accel) leaves plain
        # scalars starting with a dot (.inf, .nan) to the plain loader: quoted, it stays fast
        # (an OCI Helm source's `path: .`, Argo CD docs/user-guide/oci.md)
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


KubeDumper.add_representer(str, _represent_str)


def dump_document(obj: Any) -> str:
    """Serialise one object as a YAML document (no ``---``), keys in the order given."""
    text: str = yaml.dump(
        obj,
        Dumper=KubeDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=2**31 - 1,
        indent=2,
    )
    return text
