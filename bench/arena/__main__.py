"""``python -m bench.arena ...``: the same as ``python -m bot arena ...``."""

from __future__ import annotations

import sys

from bench.arena import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
