"""Non-IID SplitFed with auxiliary networks (seed 004): Theorem 1 (client-side model) and Theorem 3 (server-side
model), full participation, against the number of rounds T, term by term, at each T's bound-minimising step
within every condition (statement, proof and implicit ones).

At the statement's own largest client step Theorem 1 is void (Gamma lambda_2 >= 1, see the errata), and just inside
the validity condition it is astronomically large, hence the bound-minimising step.

The paper has no experiments, so every constant is assumed (stated in the caption).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plan import solve
from sfltheory.plotting import footnote, terms_grid

ASSUMED = {"L": 1.0, "F": 2.3, "sigma2": 1.0, "eps2": 0.5, "K": 5.0, "l": 1.0, "M": 10.0}


def curves(rid: str, T: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, str]:
    r = st.get(rid)
    p = {k: v for k, v in ASSUMED.items() if k in r.parameters()}
    g = solve(rid, {**p, "T": T}, step="joint", require="all")
    sc = st.max_step(rid, p)
    ev = g.evaluation
    total = np.asarray(ev.value, dtype=float)
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T.shape) for k, v in ev.terms.items()}
    # at l = 1 the gradient-growth term is exactly 0: what evaluates is rounding noise (~1e-19 of the bound)
    terms = {k: v for k, v in terms.items() if np.any(np.abs(v) > 1e-12 * total)}
    stated = f"{sc.max_step:.3g} ({sc.binding}; all conditions: {sc.max_step_all:.3g}, {sc.binding_all})"
    return terms, np.asarray(ev.value, dtype=float), np.asarray(g.step, dtype=float), stated


def draw(plt: Any, small: bool = False) -> Any:
    T = np.unique(np.round(np.logspace(0, 8, 60 if small else 300)))
    t1, tot1, e1, b1 = curves("sfl_aux/thm1", T)
    t3, tot3, e3, b3 = curves("sfl_aux/thm3", T)
    fig = plt.figure(figsize=(11, 5.6))
    axes = terms_grid(
        fig,
        T,
        [
            (f"sfl_aux/thm1: client-side model, mu_L from {e1.min():.2g} to {e1.max():.2g}", t1, tot1),
            (f"sfl_aux/thm3: server-side model, mu from {e3.min():.2g} to {e3.max():.2g}", t3, tot3),
        ],
        "rounds T",
        "bound on min_t E||grad F(x^t)||^2",
    )
    footnote(
        fig,
        f"Steps: at each T the one minimising the bound within every condition. Largest stated steps: client {b1}; "
        f"server {b3}. At the client's stated largest step Theorem 1 is void (Gamma lambda_2 >= 1). "
        "Assumed (the paper has no experiments): m = 10 clients, K = 5 local steps, server update every l = 1 "
        "rounds (so Theorem 1's gradient-growth term is 0), L = 1, F = 2.3, sigma^2 = 1, eps^2 = 0.5. "
        "At a given step the server-side variance and heterogeneity terms grow linearly in m: more clients do not "
        "speed up the server, as the paper says.",
        below=axes[1, 0],
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
