"""Planning over every cut of ResNet-50 and tau = 1..1000: the vectorised planner against a Python loop.

Target (issue 4): well under a second after the model is built, the search vectorised, not a loop over
SymPy. The baseline is the natural loop a user would write with the scalar API: for each (cut, tau),
``max_step`` then ``evaluate`` at that step. The loop is timed on a slice of the grid (all cuts, a few
tau values) and scaled per point; both use the same compiled (lambdified) expressions, so the ratio
is the vectorisation, not SymPy.

Run: python benchmarks/bench_plan.py [--taus N] [--loop-taus N] [--model resnet50]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import sfltheory as st
from sfltheory.plan import plan

RID = "mu_splitfed/thm4.3"
PARAMS = {"L": 10.0, "F": 2.3, "T": 500.0, "M": 10.0, "eta_g": 1.0, "sigma_c2": 1.0, "sigma_s2": 1.0, "eps2": 0.5}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--taus", type=int, default=1000)
    ap.add_argument("--loop-taus", type=int, default=20)
    a = ap.parse_args()

    from verify.models import model_cuts

    t0 = time.perf_counter()
    cuts = model_cuts(a.model)
    t_model = time.perf_counter() - t0
    params = {**PARAMS, "lam": 1e-9}
    grid = np.arange(1, a.taus + 1, dtype=float)
    plan(RID, params, cuts=cuts, grid=grid[:2])  # compile once (lambdify, SymPy roots): not part of planning

    runs = []
    for _ in range(5):
        t = time.perf_counter()
        p = plan(RID, params, cuts=cuts, grid=grid)
        runs.append(time.perf_counter() - t)
    t_plan = min(runs)
    n_points = len(cuts.cuts) * grid.size

    def timed(**kw: object) -> float:
        q = {k: v for k, v in params.items() if not (k == "T" and "eps" in kw)}
        plan(RID, q, cuts=cuts, grid=grid[:2], **kw)  # type: ignore[arg-type]
        ts = []
        for _ in range(3):
            t = time.perf_counter()
            plan(RID, q, cuts=cuts, grid=grid, **kw)  # type: ignore[arg-type]
            ts.append(time.perf_counter() - t)
        return min(ts)

    t_joint = timed(step="joint")
    t_eps = timed(eps=2e6)

    loop_grid = np.linspace(1, a.taus, a.loop_taus).round()
    t = time.perf_counter()
    loop_best: dict[str, tuple[float, float]] = {}
    for c in cuts.cuts:
        for tau in loop_grid:
            q = {**params, "d_c": float(c.d_c), "d_s": float(c.d_s), "tau": float(tau)}
            eta = st.max_step(RID, q).max_step
            ev = st.evaluate(RID, {**q, "eta": eta})
            if ev.applies and ev.value < loop_best.get(c.name, (np.inf, 0.0))[0]:
                loop_best[c.name] = (ev.value, tau)
    t_loop = time.perf_counter() - t
    per_loop = t_loop / (len(cuts.cuts) * loop_grid.size)
    # the loop agrees with the plan's curve where it sampled
    for i, c in enumerate(cuts.cuts):
        j = int(loop_best[c.name][1]) - 1
        assert np.isclose(p.curves["bound"][i, j], loop_best[c.name][0], rtol=1e-12)

    machine = platform.processor() or platform.machine()
    print(f"Machine: {machine}, Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"model {a.model}: {len(cuts.cuts)} cuts, built and enumerated in {t_model:.2f} s; grid tau = 1..{a.taus}")
    print()
    print("| path | points | time (s) | per point (us) | loop / path |")
    print("|---|---|---|---|---|")
    print(
        f"| `plan` (vectorised, best of 5) | {n_points:,} | {t_plan:.3f} | {1e6 * t_plan / n_points:.2f} | "
        f"{per_loop / (t_plan / n_points):,.0f} |"
    )
    print(
        f"| loop of `max_step` + `evaluate` | {len(cuts.cuts) * loop_grid.size:,} (sampled) | {t_loop:.3f} | "
        f"{1e6 * per_loop:.1f} | 1 |"
    )
    for label, tt in (
        ("`plan --step joint` (bound-minimising step per point)", t_joint),
        ("`plan --eps 2e6` (fewest rounds: bisection on T)", t_eps),
    ):
        print(f"| {label} | {n_points:,} | {tt:.3f} | {1e6 * tt / n_points:.2f} | {per_loop / (tt / n_points):,.0f} |")
    print(f"| loop, extrapolated to the full grid | {n_points:,} | {per_loop * n_points:.1f} | | |")
    best = p.best
    assert best is not None and best.best is not None
    print(f"\nbest: cut {best.cut.name if best.cut else '-'}, tau = {best.best.value:g}, bound {best.best.bound:.4g}")


if __name__ == "__main__":
    main()
