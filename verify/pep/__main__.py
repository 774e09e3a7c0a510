"""``python -m verify.pep FILE``: replay a refutation that ``sfltheory verify ID --tightest --out DIR`` wrote (one
``refutation_*.json`` per bound shown false) with the trainer, and print what it shows. Exit 0 when the bound is
refuted again, 1 when not, 2 for a file that is not such a record."""

from __future__ import annotations

import sys

from sfltheory.errors import SflTheoryError

from .replay import replay_file


def main(argv: list[str] | None = None) -> int:
    """Replay each file named; the one-line verdict of each."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m verify.pep FILE   (a refutation_*.json of verify --tightest --out)", file=sys.stderr)
        return 2
    try:
        measured, bound, line = replay_file(args[0])
    except SflTheoryError as e:
        print(f"verify.pep: {e}", file=sys.stderr)
        return 2
    print(line)
    return 0 if measured > bound else 1


if __name__ == "__main__":
    sys.exit(main())
