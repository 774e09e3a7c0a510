"""MU-SplitFed's cut sweep: the measured left-hand side against d_c (one quadratic cut at different points) next to
Theorem 4.3's dependence on d_c; and its figure."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.errors import ParameterError
from sfltheory.plotting import footnote
from verify.problems import QuadraticProblem

from .plots import sweep_panel
from .record import SEED_MU, TrendCheck
from .runs import Measure, Progress, exact_params, measure_runs, quadratic_config, say
from .series import fmt_grid, monte_carlo, padded, rank_correlation
from .verdicts import SWEEP_RULE, best_verdict, tied_with_best

NAME = "cut_sweep"
RESULT = "mu_splitfed/thm4.3"
CLAIM = (
    f"MU-SplitFed (seed {SEED_MU}): Sec. 5 ('Interaction Between Cut Layer and Server Iterations'): 'when fixing "
    "tau and tuning the cut layer, convergence consistently improves as L_c decreases, indicating a deeper "
    "server-side model is beneficial for model performance'; Corollary 4.4 (Sec. 4.2, eq. (11)) cuts at "
    "d_c = sqrt(d/tau). Tested: Theorem 4.3's dependence on d_c at the run's constants predicts where the measured "
    "left-hand side is lowest."
)


@dataclass(frozen=True, kw_only=True)
class _Setting:
    """The check's keyword arguments, less the grid and the callbacks."""

    d: int
    tau: int
    eta: float
    T: int
    seeds: int
    batch: int
    M: int
    P: int
    lam: float


@dataclass(frozen=True, kw_only=True)
class _Prediction:
    """Theorem 4.3 at each cut: the bound, its terms, the largest admissible step and the hypotheses that fail."""

    bound: np.ndarray
    admissible: np.ndarray
    terms: list[dict[str, float]]
    failing: set[str]


def check(
    *,
    d: int = 16,
    d_cs: Sequence[int] = (1, 2, 4, 8, 12, 15),
    tau: int = 4,
    eta: float = 0.02,
    T: int = 40,
    seeds: int = 6,
    batch: int = 4,
    M: int = 4,
    P: int = 1,
    lam: float = 1e-3,
    progress: Progress = None,
    measure: Measure = None,
) -> TrendCheck:
    """MU-SplitFed's cut sweep: one quadratic (the same H, shifts and x^0), cut after ``d_c`` of its ``d``
    coordinates, for each d_c in ``d_cs``; one step for every cut (eta_s = eta, eta_c = tau eta).

    Predicted: Theorem 4.3's bound at eta with the exact constants of each cut (sigma_c2 = sigma2 d_c/d and
    sigma_s2 = sigma2 d_s/d under Rademacher noise). Measured: the average ||grad f(x^t)||^2 over t < T, Monte Carlo
    over ``seeds``. At Theorem 4.3's admissible steps (1e-4 to 1e-3 here) 40 rounds cannot tell the cuts apart, so
    the step is a practical one and the theorem's step-size hypotheses fail there: the bound is compared as a function
    of d_c.

    Verdict: agrees when the bound's best d_c is within one grid step of the measured best d_c, or within 2 combined
    standard errors of it; inconclusive when every d_c is within 2 standard errors of the best; else disagrees.
    """
    t0 = time.perf_counter()
    grid = np.unique(np.asarray(d_cs, dtype=int))
    if grid[0] < 1 or grid[-1] >= d:
        raise ParameterError("d_c", f"each d_c must be in 1..{d - 1} (got {fmt_grid(grid)})")
    s = _Setting(d=d, tau=tau, eta=eta, T=T, seeds=seeds, batch=batch, M=M, P=P, lam=lam)
    p = _predict(s, grid)
    m, se = _measure(s, grid, progress, measure)
    return _record(s, grid, p, m, se, seconds=time.perf_counter() - t0)


def _predict(s: _Setting, grid: np.ndarray) -> _Prediction:
    """Theorem 4.3 at the step eta with each cut's exact constants."""

    r = st.get(RESULT)
    bound = np.empty(len(grid))
    admissible = np.empty(len(grid))
    terms: list[dict[str, float]] = []
    failing: set[str] = set()
    for i, dc in enumerate(grid):
        problem = QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=1.0, eps2=1.0, d=s.d, d_c=int(dc), M=s.M,
                                                F=1.0, noise="rademacher")  # fmt: skip
        params = exact_params(r.id, problem, s.batch, {"P": s.P, "lam": s.lam, "eta_g": 1.0, "tau": s.tau})
        ev = st.evaluate(r, {**params, "eta": s.eta, "T": float(s.T)})
        bound[i] = float(ev.value)
        terms.append({k: float(v) for k, v in ev.terms.items()})
        failing |= {h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds))}
        admissible[i] = float(np.asarray(st.max_step(r, {**params, "T": float(s.T)}).max_step))
    return _Prediction(bound=bound, admissible=admissible, terms=terms, failing=failing)


def _measure(s: _Setting, grid: np.ndarray, progress: Progress, measure: Measure) -> tuple[np.ndarray, np.ndarray]:
    """The average ||grad f||^2 over t < T at each cut: mean and standard error over the seeds."""
    lhs = np.full((s.seeds, len(grid)), np.nan)
    step = {"tau": s.tau, "P": s.P, "lam": s.lam, "eta_g": 1.0, "eta_s": s.eta, "eta_c": s.tau * s.eta}
    configs = [{**quadratic_config(s.d, int(dc), s.M), **step, "T": s.T, "batch": s.batch, "seed": k}
               for dc in grid for k in range(s.seeds)]  # fmt: skip
    say(progress, f"cut_sweep: {len(grid)} cuts x {s.seeds} seeds")
    runs = measure_runs(measure, configs, ("gradnorm2_avg",))
    for i in range(len(grid)):
        for k in range(s.seeds):
            lhs[k, i] = padded(runs[i * s.seeds + k]["gradnorm2_avg"], s.T)[s.T - 1]
    return monte_carlo(lhs)


def _record(
    s: _Setting, grid: np.ndarray, p: _Prediction, m: np.ndarray, se: np.ndarray, *, seconds: float
) -> TrendCheck:
    """The verdict, the summary and note, as a :class:`TrendCheck`."""
    jb = int(np.argmin(p.bound))
    verdict, why = best_verdict(m, se, jb)
    mb = int(np.nanargmin(m))
    rule_dc = math.sqrt(s.d / s.tau)
    rho_m = rank_correlation(grid, m)
    rho_b = rank_correlation(grid, p.bound)
    tied = grid[tied_with_best(m, se)]
    summary = (
        f"bound's best d_c {grid[jb]}, measured best {grid[mb]} (tied within 2 SE: {fmt_grid(tied)}); rank "
        f"correlation with d_c: measured {rho_m:+.2f}, bound {rho_b:+.2f}; Corollary 4.4's d_c = {rule_dc:.3g}"
    )
    return TrendCheck(
        name=NAME,
        title="MU-SplitFed: the cut d_c, bound vs measured",
        claim=CLAIM,
        rule=SWEEP_RULE,
        verdict=verdict,
        x_label=f"d_c (client coordinates of d = {s.d})",
        x=grid.astype(float),
        measured={"average ||grad f||^2 at T": m},
        measured_se={"average ||grad f||^2 at T": se},
        predicted={"Theorem 4.3 bound": p.bound},
        numbers={
            "bound_best_d_c": grid[jb],
            "measured_best_d_c": grid[mb],
            "why": why,
            "tied": tied,
            "rank_corr_measured": rho_m,
            "rank_corr_bound": rho_b,
            "corollary_4_4_d_c": rule_dc,
            "admissible_steps": p.admissible,
            "failing_hypotheses": sorted(p.failing),
        },
        summary=summary,
        note=_note(s, grid, p, m, se, rho_m=rho_m, rho_b=rho_b),
        setting={
            "problem": "quadratic(targets)",
            "d": s.d,
            "tau": s.tau,
            "eta": s.eta,
            "M": s.M,
            "T": s.T,
            "seeds": s.seeds,
            "batch": s.batch,
            "P": s.P,
            "lam": s.lam,
            "result": RESULT,
        },
        seconds=seconds,
        draw=figure,
    )


def _note(
    s: _Setting, grid: np.ndarray, p: _Prediction, m: np.ndarray, se: np.ndarray, *, rho_m: float, rho_b: float
) -> str:
    """Which way the bound and the measurement move with d_c, and why the bound is read as a function of d_c only
    (the step is a practical one, past Theorem 4.3's hypotheses)."""
    terms = p.terms
    changes = {k: terms[-1][k] - terms[0][k] for k in terms[0]}
    big = max(changes, key=lambda k: abs(changes[k]))
    direction = "falls" if rho_b < 0 else "rises"
    mdir = "rises" if rho_m > 0 else "falls"
    return (
        f"The bound {direction} with d_c (largest change across the cuts: '{big}', {terms[0][big]:.3g} at d_c = "
        f"{grid[0]} to {terms[-1][big]:.3g} at d_c = {grid[-1]}); the measured value {mdir} with d_c "
        f"({m[0]:.3g} +- {se[0]:.2g} to {m[-1]:.3g} +- {se[-1]:.2g}), in the direction of the paper's empirical claim "
        f"(smaller d_c better) {'and' if rho_m > 0 else 'but'} "
        f"{'against' if rho_m * rho_b < 0 else 'with'} the bound. Step eta = {s.eta:g} (eta_c = {s.tau * s.eta:g}) "
        f"for every cut; Theorem 4.3 admits at most {p.admissible.min():.2g}-{p.admissible.max():.2g} here, so its "
        f"statement hypotheses fail ({'; '.join(sorted(p.failing)) or 'none'}): the bound is read as a function of "
        f"d_c, not as a guarantee. The quadratic is the same at every cut (eigenvalues 0.1..1 in coordinate order, "
        f"so a larger client takes more of the flat directions); d = {s.d}, tau = {s.tau}, M = {s.M}, eps2 = 1, "
        f"sigma2 = 1, T = {s.T}, batch {s.batch}, {s.seeds} seeds."
    )


def figure(c: TrendCheck) -> Any:
    """Measured against the bound along d_c, with Corollary 4.4's cut."""
    import matplotlib.pyplot as plt

    s, n = c.setting, c.numbers
    jb = int(np.argmin(c.predicted["Theorem 4.3 bound"]))
    fig, ax = plt.subplots(figsize=(6.8, 3.9))
    h = sweep_panel(ax, c, "average ||grad f||^2 at T", "Theorem 4.3 bound", jb,
                    ylabel="measured: (1/T) sum_{t<T} ||grad f(x^t)||^2", blabel="Theorem 4.3 bound",
                    title=f"tau = {s['tau']}, eta = {s['eta']:g}, T = {s['T']}")  # fmt: skip
    rule = n["corollary_4_4_d_c"]
    h.append(ax.axvline(rule, color="#777777", ls=":", lw=1.4, label=f"Corollary 4.4: d_c = sqrt(d/tau) = {rule:.3g}"))
    fig.legend(handles=h, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=7)
    fig.suptitle(f"{c.title}: {c.verdict}", x=0.01, ha="left", fontsize=10)
    fig.tight_layout()
    footnote(
        fig,
        f"{c.summary}.\nOne quadratic (d = {s['d']}, M = {s['M']}, Rademacher noise) cut after d_c coordinates, "
        f"{s['seeds']} seeds; eta_s = {s['eta']:g}, eta_c = {s['tau'] * s['eta']:g} at every cut, where Theorem 4.3's "
        f"step-size hypotheses fail (it admits at most {np.min(n['admissible_steps']):.2g}-"
        f"{np.max(n['admissible_steps']):.2g}): the bound is read as a function of d_c.",
        width=125,
        drop=86,
    )
    return fig


__all__ = ["CLAIM", "NAME", "check", "figure"]
