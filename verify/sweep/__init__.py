"""Sweeps: many ``train`` or ``verify`` configurations declared once (a TOML/YAML/Python file), run serially, in a
local process pool or as Ray tasks, each result stored atomically under a hash of its configuration (a killed sweep
resumes; a changed configuration is recomputed), loaded into one table (CSV, or a pandas DataFrame).

``run_sweep(sweep, executor="process")`` runs one; ``load_table(folder)`` reads its table; ``verify.sweep.trends``
runs the tau and cut trend checks of ``sfltheory verify`` as sweeps. Importing this package imports no torch.
"""

from __future__ import annotations

from .executors import EXECUTORS
from .runner import Summary, run_configs, run_sweep
from .spec import Config, Sweep, config_key, load, make_config
from .store import Store, Table, load_table

__all__ = [
    "EXECUTORS",
    "Config",
    "Store",
    "Summary",
    "Sweep",
    "Table",
    "config_key",
    "load",
    "load_table",
    "make_config",
    "run_configs",
    "run_sweep",
]
