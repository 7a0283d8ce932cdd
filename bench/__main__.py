"""``python -m bench`` (``make bench``): see :mod:`bench.run`."""

from __future__ import annotations

from bench.run import main

if __name__ == "__main__":
    raise SystemExit(main())
