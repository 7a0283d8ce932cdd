"""``secret-literal``'s look at the containers' ``env`` lists answers as the walk over the whole document:
rapidyaml writes every ``env`` member holding a list as ``"env": [``, in every YAML style."""

from __future__ import annotations

import os

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from trainops.validate.checks import secret_literal
from trainops.yaml import fast as fast_path
from trainops.yaml.fast import fast_document_json

EXAMPLES = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)

ENTRIES = st.lists(
    st.sampled_from(
        [
            "{name: DB_PASSWORD, value: hunter2-prod}",
            "{name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}",
            "{name: MODE, value: fast}",
            "{name: API_TOKEN, value: $(TOKEN)}",
            '{name: "env", value: "\\"env\\": [x"}',
        ]
    ),
    max_size=3,
)
#: Where an env list may sit: a container (found by the pod-template look), or elsewhere (walk only).
PLACES = st.sampled_from(["containers", "initContainers", "sidecar", "root"])


def _document(envs: list[tuple[str, list[str], bool]]) -> str:
    containers: dict[str, list[str]] = {"containers": [], "initContainers": []}
    extra, root = [], []
    for place, entries, flow in envs:
        env = (
            "[" + ", ".join(entries) + "]"
            if flow
            else ("\n" + "".join(f"      - {e}\n" for e in entries)).rstrip("\n") or "[]"
        )
        if place in containers:
            containers[place].append(env)
        elif place == "sidecar":
            extra.append(env)
        else:
            root.append(env)
    lines = [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: x}",
        "spec:",
        "  template:",
        "    spec:",
    ]
    for field, envs_of in containers.items():
        if envs_of:
            lines.append(f"      {field}:")
            lines.extend(
                f"      - name: c{i}\n        env: {env}".replace("\n      - {", "\n        - {")
                for i, env in enumerate(envs_of)
            )
    for index, env in enumerate(extra):
        lines.append(f"    sidecar{index}: {{env: {env if env.startswith('[') else '[]'}}}")
    for env in root[:1]:
        lines.append(f"env: {env if env.startswith('[') else '[]'}")
    return "\n".join(lines) + "\n"


@EXAMPLES
@given(st.lists(st.tuples(PLACES, ENTRIES, st.booleans()), max_size=4))
def test_the_container_look_answers_as_the_walk(envs: list[tuple[str, list[str], bool]]) -> None:
    fast, data, _, text = fast_document_json(_document(envs))
    assume(fast and text is not None)
    assert text is not None
    assert secret_literal._literal_env_named_secret(data, text) == secret_literal._literal_env_named_secret(
        data
    )


@pytest.mark.parametrize(
    "yaml_text",
    [
        "env: []\n",
        "env: [{name: a, value: b}]\n",
        "env:\n- name: a\n  value: b\n",
        "x: {env: [1, {env: []}]}\n",
        "l:\n- env:\n  - env: [a]\n",
    ],
)
@pytest.mark.parametrize("block_reader", [True, False])
def test_rapidyaml_writes_every_env_list_so(
    yaml_text: str, block_reader: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both JSON writers of the loader (the C block reader and rapidyaml) write ``"env": [``."""
    monkeypatch.setattr(fast_path, "BLOCK_READER", block_reader)
    fast, data, _, text = fast_document_json(yaml_text)
    assert fast and text is not None
    stack, lists = [data], 0
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            lists += isinstance(node.get("env"), list)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    assert text.count('"env": [') == lists
