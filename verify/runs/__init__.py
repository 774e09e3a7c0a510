"""Runs that already exist, read from disk: ``sfltheory train --out`` records, a user's CSV / JSON Lines log, or
TensorBoard scalars, each as one :class:`RunLog`; the constants and settings a theorem is checked with
(``sfltheory verify ID --run PATH``, :mod:`verify.pipeline.fromrun`)."""

from .constants import load_constants, quadratic_constants, run_constants
from .read import digest, read_run
from .record import RunLog
from .settings import RunTheory, run_theory, sort_run_names
from .tensorboard import MissingExtraError, parse_tags, require_tensorboard, write_tensorboard

__all__ = [
    "MissingExtraError",
    "RunLog",
    "RunTheory",
    "digest",
    "load_constants",
    "parse_tags",
    "quadratic_constants",
    "read_run",
    "require_tensorboard",
    "run_constants",
    "run_theory",
    "sort_run_names",
    "write_tensorboard",
]
