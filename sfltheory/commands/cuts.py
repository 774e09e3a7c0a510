"""A model's cuts on the command line: the ``--model`` options of ``bound``, ``check-lr``, ``plan`` and ``cuts``
(:func:`model_args`), the cut table they name (:func:`load_cuts`), and the ``cuts`` command.

A model is a JSON/CSV block list (read here), or a torch model (a registered name or ``package.module:factory``),
whose cuts only the torch half can enumerate: the ``sfltheory`` command (``verify.app``) passes a
:data:`ModelCuts` that reads them, and without one such a model is refused with what to run instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..cliargs import parse_shape
from ..errors import ParameterError, renamed
from ..plan import render
from ..plan.cuts import CutTable, load_blocks
from ..plotting import check_path
from .output import emit

# (model spec, per-sample input shape or None, submodules to split inside) -> its cut table
ModelCuts = Callable[[str, tuple[int, ...] | None, tuple[str, ...]], CutTable]


def load_cuts(
    spec: str, input_shape: str | None = None, expand: str | None = None, model_cuts: ModelCuts | None = None
) -> CutTable:
    """A model's cuts from a JSON/CSV block list, or through ``model_cuts`` from a registered model name or
    ``package.module:factory``."""
    if ":" not in spec and (Path(spec).suffix or "/" in spec):  # a file, not a registered model name
        if input_shape or expand:
            raise ParameterError("--input-shape", "a model given as a block list has no input shape or modules")
        with renamed({"path": "--model"}):
            return load_blocks(spec)
    if model_cuts is None:  # the theory commands alone (python -m sfltheory.cli): no torch half to ask
        raise ParameterError(
            "--model", f"'{spec}' is a torch model: run the `sfltheory` command, which reads torch models "
            "(pip install -e .[verify])"
        )  # fmt: skip
    return model_cuts(spec, parse_shape(input_shape), tuple(filter(None, (expand or "").split(","))))


def cuts_of(a: argparse.Namespace) -> CutTable:
    """The cut table a command's ``--model``, ``--input-shape`` and ``--expand`` name."""
    return load_cuts(a.model, a.input_shape, a.expand, a.model_cuts)


def model_args(s: argparse.ArgumentParser, *, required: bool, model_cuts: ModelCuts | None) -> None:
    """Add ``--model``, ``--input-shape`` and ``--expand``; ``model_cuts`` reads a torch model's cuts."""
    s.add_argument(
        "--model",
        required=required,
        help="a model name (see `sfltheory cuts --help`), package.module:factory, or a .json/.csv block list",
    )
    s.add_argument("--input-shape", help="per-sample input shape, e.g. 3,32,32 (default: the model's own)")
    s.add_argument("--expand", help="comma list of submodules to split inside (e.g. a transformer's encoder)")
    s.set_defaults(model_cuts=model_cuts)


def _cmd_cuts(a: argparse.Namespace) -> int:
    if a.plot:
        check_path(a.plot, name="--plot")  # before the model is read
    emit(a, cuts_of(a), render.cuts_dict, render.cuts_text, "plot_cuts")
    return 0


def register(sub: Any, model_cuts: ModelCuts | None) -> None:
    """Add ``cuts`` to a subparsers object."""
    s = sub.add_parser("cuts", help="the candidate cut points of a model: d_c, d_s and activation size per cut")
    model_args(s, required=True, model_cuts=model_cuts)
    s.add_argument("--json", action="store_true")
    s.add_argument("--plot", metavar="FILE", help="draw d_c and activation size per cut into FILE")
    s.set_defaults(func=_cmd_cuts)
