"""``python -m sfltheory.audit [ID ...] [options]``: the same as ``sfltheory audit``."""

from __future__ import annotations

import sys

from ..cli import main

if __name__ == "__main__":
    sys.exit(main(["audit", *sys.argv[1:]]))
