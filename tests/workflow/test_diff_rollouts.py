"""``trainops diff`` on Rollouts: a new model version of a Rollout is a *rollout* (with its strategy),
a Deployment that becomes a Rollout is one change, flagged; on the ModelServer's golden Rollout."""

from __future__ import annotations

from pathlib import Path

import yaml

from trainops.diff.compare import compare, parse_tree
from trainops.diff.present import headline, render_text

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ROLLOUT = (GOLDEN / "rollout_strategy" / "blue_green.yaml").read_text(encoding="utf-8")
DEPLOYMENT = (GOLDEN / "model_server" / "defaults.yaml").read_text(encoding="utf-8")
PATH = "generated/gpu-prod/serving/{kind}_resnet.yaml"


def _tree(kind: str, text: str) -> dict[str, str]:
    return {PATH.format(kind=kind): text}


def test_new_image_of_a_rollout_is_a_rollout() -> None:
    new = ROLLOUT.replace("tensorflow/serving:2.14.1", "tensorflow/serving:2.15.0")
    old_tree = parse_tree(_tree("rollout", ROLLOUT), "generated")
    new_tree = parse_tree(_tree("rollout", new), "generated")
    diff = compare(old_tree, new_tree, base="HEAD", head="working tree")
    (change,) = diff.changes
    assert change.change == "rollout"
    assert headline(change) == "rollout of resnet: Rollout ml-test/resnet"
    assert change.attention == (
        (
            "rollout",
            "new version of Rollout resnet (image tensorflow/serving:2.14.1 → tensorflow/serving:2.15.0) rolls "
            "out blue-green (preview resnet-preview, pre-promotion analysis, manual promotion)",
        ),
    )
    assert "1 rollout, 1 to review" in render_text(diff)


def test_strategy_change_alone_is_a_plain_change() -> None:
    doc = yaml.safe_load(ROLLOUT)
    doc["spec"]["strategy"]["blueGreen"]["scaleDownDelaySeconds"] = 60
    old_tree = parse_tree(_tree("rollout", ROLLOUT), "generated")
    new_tree = parse_tree(_tree("rollout", yaml.safe_dump(doc)), "generated")
    (change,) = compare(old_tree, new_tree, base="a", head="b").changes
    assert change.change == "changed" and change.attention == ()


def test_deployment_that_becomes_a_rollout_is_one_flagged_change() -> None:
    old_tree = parse_tree(_tree("deployment", DEPLOYMENT), "generated")
    new_tree = parse_tree(_tree("rollout", ROLLOUT), "generated")
    diff = compare(old_tree, new_tree, base="a", head="b")
    (change,) = diff.changes
    assert change.change == "rollout"
    assert headline(change) == "rollout of resnet: Deployment ml-test/resnet becomes Rollout"
    assert change.attention[0][0] == "rollout"
    assert change.attention[0][1].startswith("Deployment resnet becomes a Rollout: Argo CD prunes")
