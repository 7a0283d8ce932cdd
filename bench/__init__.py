"""Benchmarks of trainops against a peer measured in the same run (``make bench``).

* :mod:`bench.corpus` — deterministic corpus of realistic ML-platform manifests with expected
  verdicts (:mod:`bench.objects` builds the objects, :mod:`bench.mutate` breaks a known share,
  :mod:`bench.emit` writes the YAML);
* :mod:`bench.measure` — wall time, CPU and memory of a subprocess tree;
* :mod:`bench.verdicts` — per-document verdicts from each tool's output, compared with the expected;
* :mod:`bench.run` — the runner and its tables (``python -m bench``).
"""
