"""``python -m bench COMMAND [...]``: the same as ``python -m bot bench COMMAND [...]``."""

from __future__ import annotations

import sys

from bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
