"""``python -m sfltheory.seedtables [--out DIR] [--list] [ID ...]``: the same as ``sfltheory tables``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..cliargs import EXIT_USAGE, Parser
from ..errors import ParameterError, SflTheoryError
from .write import DEFAULT_OUT, listing, write_tables


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the seed tables (or list them); bad input is one line on stderr and exit status 2."""
    p = Parser(prog="python -m sfltheory.seedtables", description="Regenerate the seeds' theory tables.")
    p.add_argument("ids", nargs="*", metavar="ID", help="tables to write (default: all; see --list)")
    p.add_argument("--out", help=f"output directory (default: {DEFAULT_OUT})")
    p.add_argument("--list", action="store_true", help="list the tables and where each is printed")
    a = p.parse_args(argv)
    try:
        if a.list:
            if a.out is not None:
                raise ParameterError("--out", "--list writes nothing; drop --out or drop --list")
            print("\n".join(listing(a.ids or None)))
            return 0
        for path in write_tables(a.ids or None, DEFAULT_OUT if a.out is None else a.out):
            print(f"wrote {path}")
    except ParameterError as e:
        name = "ID" if e.name == "ids" else e.name
        print(f"{p.prog}: error: parameter '{name}': {e.rule}", file=sys.stderr)
        return EXIT_USAGE
    except SflTheoryError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())
