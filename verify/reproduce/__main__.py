"""``python -m verify.reproduce [ID ...] [options]``: ``sfltheory reproduce`` on its own."""

import sys

from .cli import main

if __name__ == "__main__":  # spawned pool workers import this module too: only the parent runs the experiments
    sys.exit(main())
