"""The one place that asks trainops for verdicts (edit only this when trainops's modules move).

trainops is called in-process through its command line, ``trainops validate --format json``, once
for all files, with the cluster-independent target: Kubernetes :data:`KUBERNETES_MINOR` (the
server's minor; kubernetes-validate 1.37.0 ships 1.36) and every catalogued operator (no
``--cluster``; run from ``cache_dir``, outside any repository), schemas from ``cache_dir`` only
(``--offline``). A document is rejected iff it has at least one ``error`` finding (issue 14:
warnings aside).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from pathlib import Path

#: The oracle is kube-apiserver v1.36.2; kubernetes-validate ships schemas for 1.36.
KUBERNETES_MINOR = "1.36"


def trainops_errors(files: Sequence[Path], cache_dir: Path) -> dict[tuple[str, int], list[str]]:
    """Error findings of ``trainops validate`` per (file as given, document index).

    A finding that names no document is filed under index -1 (it applies to the whole file).
    Each entry is ``"<json path>: <message> [<rule>]"``.

    Raises:
        RuntimeError: trainops exited with neither 0 nor 1 (its stderr is in the message).
    """
    from trainops.cli import main

    out, err = io.StringIO(), io.StringIO()
    # --offline: every schema comes from ``cache_dir`` (a synced cache); nothing is downloaded
    args = ["validate", "--format", "json", "--offline", "--kubernetes-version", KUBERNETES_MINOR]
    given = {str(Path(f).resolve()): str(f) for f in files}
    # From outside the repository: the all-operators target (inside it, the first cluster's).
    with contextlib.chdir(cache_dir), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--cache-dir", str(cache_dir), "--workers", "1", *given])
    if code not in (0, 1):
        raise RuntimeError(f"trainops validate exited {code}: {err.getvalue().strip()}")
    verdicts: dict[tuple[str, int], list[str]] = {}
    for finding in json.loads(out.getvalue())["findings"]:
        if finding["level"] == "error":
            document = finding.get("document")
            key = (given.get(finding["file"], finding["file"]), document if isinstance(document, int) else -1)
            verdicts.setdefault(key, []).append(
                f"{finding['path']}: {finding['message']} [{finding['rule']}]"
            )
    return verdicts
