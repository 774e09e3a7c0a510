"""One result's bound against the number of rounds T, term by term, at illustrative values: the figure of each
result's page on the documentation site (``docs/sitegen.py``).

The values (:data:`EXAMPLE`) are those the package's own terms figures assume where a paper gives none
(``paper_figs/terms_*.py``: L = 1, F = 2.3 -- ln 10, the cross-entropy of ten classes at a uniform start --,
σ² = 1, ε² = 0.5), on a model of d = 10⁶ parameters with d_c = 10⁴ on the client, M = 10 clients. The step a
result constrains is the largest its conditions allow at each T (:func:`sfltheory.stepsize.max_step`); the
others follow from the result's own defaults. A result that does not bound a quantity after T rounds -- a per-round
inequality, a cost model, a rate stated only up to constants -- has no such figure, and :func:`curves` says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SflTheoryError
from .evaluate import evaluate
from .plotting import footnote, save, style, terms_grid, tidy_log_axes
from .registry import get
from .stepsize import max_step

EXAMPLE: dict[str, float] = {
    "L": 1.0,
    "F": 2.3,
    "M": 10,
    "n": 5,
    "K": 5,
    "tau": 2,
    "l": 2,
    "P": 1,
    "batch": 32,
    "d": 1_000_000,
    "d_c": 10_000,
    "d_s": 990_000,
    "d_aux": 1_000,
    "sigma2": 1.0,
    "sigma_c2": 1.0,
    "sigma_s2": 1.0,
    "eps2": 0.5,
    "B2": 1.0,
    "G2": 0.5,
    "G_c2": 1.0,
    "G_s2": 1.0,
    "kappa": 10.0,
    "delta": 0.0,
    "Delta_drift": 0.0,
    "sum_alpha2": 0.1,
    "eta_g": 1.0,
    "lam": 1e-6,
}
T_GRID = np.unique(np.round(np.logspace(1, 8, 60)))


@dataclass(frozen=True, kw_only=True)
class TermCurves:
    """A result's terms and their sum on :data:`T_GRID`, with the values used and how the step was chosen."""

    result: str
    T: np.ndarray
    terms: dict[str, np.ndarray]
    total: np.ndarray
    values: dict[str, float]
    step: str


def curves(result_id: str) -> TermCurves | str:
    """The terms of ``result_id`` against T at :data:`EXAMPLE`, or the reason it has no such figure."""
    r = get(result_id)
    names = set(r.parameters())
    if not r.explicit or not r.terms:
        return "it is stated only up to constants" if not r.explicit else "it has no terms to draw"
    if "T" not in names:
        return "its bound does not depend on the number of rounds T"
    derived = {d.name for d in r.defaults} | ({r.step} if r.step else set())
    unknown = sorted(names - set(EXAMPLE) - {"T"} - derived)
    if unknown:
        return (
            f"it needs {', '.join(unknown)}, which the illustrative values do not give (a per-round quantity, a target)"
        )
    values = {k: v for k, v in EXAMPLE.items() if k in names or k == "d"}
    point: dict[str, Any] = {**values, "T": T_GRID}
    step = "the result's own choice (a corollary sets it)"
    try:
        try:
            ev = evaluate(r, point)  # a corollary derives its step from T; a theorem needs one
        except SflTheoryError:
            if not r.step:
                raise
            point[r.step] = max_step(r, point).max_step
            step = f"{r.step}, the largest its conditions allow at each T"
            ev = evaluate(r, point)
    except SflTheoryError as e:
        return f"it cannot be evaluated at the illustrative values ({e})"
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T_GRID.shape) for k, v in ev.terms.items()}
    total = np.broadcast_to(np.asarray(ev.value, dtype=float), T_GRID.shape)
    if not np.all(np.isfinite(total)):
        return "its bound is not finite at the illustrative values"
    return TermCurves(result=r.id, T=T_GRID, terms=terms, total=total, values=values, step=step)


def draw(c: TermCurves, path: str | Path) -> Path:
    """The figure: the terms and their sum against T (log-log) over each term's share; the values in a footnote."""
    with style() as plt:
        fig = plt.figure(figsize=(9, 5.6))
        axes = terms_grid(fig, c.T, [(c.result, c.terms, c.total)], "rounds T", "bound")
        tidy_log_axes(fig)
        shown = ", ".join(f"{k} = {v:g}" for k, v in sorted(c.values.items()))
        footnote(fig, f"Illustrative values (no paper gives them): {shown}. Step: {c.step}.", below=axes[1, 0])
        return save(fig, path)
