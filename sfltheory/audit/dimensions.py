"""Physical dimensions of the canonical symbols, as data (easy to move into the vocabulary later).

Base dimensions: ``loss`` (a value of f), ``param`` (a length in parameter space), ``time`` (seconds).
Counts, fractions and ratios are dimensionless (``1``). Losses are means, so a gradient has dimension
loss/param, its squared norm loss^2/param^2, the smoothness constant L loss/param^2 and a step size
param^2/loss (x - eta grad f is a point). A symbol missing here is reported as undimensioned, never guessed.
"""

from __future__ import annotations

GRAD2 = "loss**2/param**2"
STEP = "param**2/loss"

DIMENSIONS: dict[str, str] = {
    # problem constants
    "L": "loss/param**2",
    "F": "loss",
    "sigma2": GRAD2,
    "sigma_c2": GRAD2,
    "sigma_s2": GRAD2,
    "eps2": GRAD2,
    "B2": "1",
    "G2": GRAD2,
    "G_c2": GRAD2,
    "G_s2": GRAD2,
    "kappa": "1",
    "gradnorm2_f": GRAD2,
    "gradnorm2_Fk": GRAD2,
    "gc2_round": GRAD2,
    "gs2_round": GRAD2,
    "gradnorm2_xs": GRAD2,
    "gradnorm2_lam_xs": GRAD2,
    "drift_xs": "param**2",
    "dev2_local": "param**2",
    "descent_round": "loss",
    "gap_round": "loss",
    "gap_next": "loss",
    "sum_alpha2": "1",
    "eps_target": GRAD2,
    # counts and sizes
    "T": "1",
    "M": "1",
    "n": "1",
    "tau": "1",
    "K": "1",
    "l": "1",
    "P": "1",
    "batch": "1",
    "d": "1",
    "d_c": "1",
    "d_s": "1",
    "d_aux": "1",
    "E_epochs": "1",
    "D_k": "1",
    "n_data": "1",
    "q_smash": "1",
    "n_p": "1",
    "flops_c": "1",
    "flops_a": "1",
    "T0": "1",
    # zeroth order: the smoothing radius is a length in parameter space
    "lam": "param",
    # step sizes (eta_g scales an aggregated update: dimensionless)
    "eta": STEP,
    "eta_c": STEP,
    "eta_s": STEP,
    "eta_l": STEP,
    "eta_tilde": STEP,
    "eta_g": "1",
    # time
    "t_straggler": "time",
    "t_server": "time",
}

# The left-hand side of a result is words; its dimension is read from them (first match wins).
LHS_DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("grad", GRAD2),
    ("||x", "param**2"),
    ("- x^r", "param**2"),
    ("time", "time"),
    ("bytes", "1"),
    ("communication", "1"),
    ("flops", "1"),
    ("memory", "1"),
    ("rounds", "1"),
)
