"""``python -m verify.sweep FILE [options]``: ``sfltheory sweep`` on its own (e.g. on a Ray head node)."""

import sys

from .cli import main

if __name__ == "__main__":  # spawned pool workers import this module too: only the parent runs the sweep
    sys.exit(main())
