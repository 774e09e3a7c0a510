"""Vectorised bound evaluation: speed per point as ratios, measured in one run.

Targets (issue 2): a sweep over 10^6 points is one call; per point it is >= 1000x faster than SymPy
substitution, and within 3x of the same formula written by hand in NumPy.

Run: python benchmarks/bench_evaluate.py [--points N]   (prints a Markdown table for RESULTS.md)
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import numpy as np

import sfltheory as st

RID = "mu_splitfed/thm4.3"


def params(n: int) -> dict[str, np.ndarray | float]:
    rng = np.random.default_rng(0)
    return {
        "L": rng.uniform(0.5, 5, n),
        "F": 2.0,
        "T": 1000.0,
        "tau": rng.integers(1, 64, n).astype(float),
        "d_c": rng.integers(1, 10**4, n).astype(float),
        "d_s": rng.integers(10**4, 10**7, n).astype(float),
        "M": 10.0,
        "eta": rng.uniform(1e-9, 1e-6, n),
        "eta_g": 1.0,
        "sigma_c2": 1.0,
        "sigma_s2": 1.0,
        "eps2": 0.5,
        "lam": 1e-6,
    }


def by_hand(L, F, T, tau, d_c, d_s, M, eta, eta_g, sigma_c2, sigma_s2, eps2, lam):  # type: ignore[no-untyped-def]
    """Theorem 4.3, eq. (10), typed out by hand."""
    return (
        4 * F / (T * eta_g * eta * tau)
        + 16 * eta * (2 * eta * tau * L + eta_g / M) * L * d_s * sigma_s2
        + 4 * eta_g * eta * tau * L * d_c * sigma_c2 / M
        + 24 * eta * (4 * eta * tau * L + eta_g / M) * L * (tau + 2 * d_s) * eps2
        + 12 * eta_g * eta * tau * L * d_c * eps2 / M
        + (1 / tau + 8 * eta**2 * tau * L**2 + 2 * eta_g * eta / M) * tau * L**2 * lam**2 * d_s**3
        + L**2 * lam**2 * d_c**3
    )


def best(f: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10**6)
    ap.add_argument("--sympy-points", type=int, default=200)
    a = ap.parse_args()
    n = a.points
    p = params(n)
    r = st.get(RID)

    st.evaluate(r, params(10))  # compile once, outside the timing
    fn = st.bound_function(r)
    t_eval = best(lambda: st.evaluate(r, p))
    t_value = best(lambda: st.bound_value(r, p))
    t_fn = best(lambda: fn(**p))
    t_hand = best(lambda: by_hand(**p))

    # SymPy substitution, per point, on a subsample
    expr = r.bound_expr
    sub = params(a.sympy_points)
    pts = [
        {s: (v[i] if isinstance(v, np.ndarray) else v) for s, v in ((sym, sub[sym.name]) for sym in expr.free_symbols)}
        for i in range(a.sympy_points)
    ]
    t0 = time.perf_counter()
    for d in pts:
        float(expr.subs(d).evalf())
    t_sympy = (time.perf_counter() - t0) / a.sympy_points

    # same numbers either way
    assert np.allclose(st.bound_value(r, p), by_hand(**p), rtol=1e-10)

    per = {
        k: v / n
        for k, v in {"evaluate": t_eval, "bound_value": t_value, "bound_function": t_fn, "hand": t_hand}.items()
    }
    print(f"machine: {platform.processor() or platform.machine()}, numpy {np.__version__}, {n} points, {RID}")
    print("| path | time per point (ns) | SymPy subs / path | path / hand-written NumPy |")
    print("|---|---|---|---|")
    print(f"| SymPy `subs().evalf()` | {t_sympy * 1e9:,.0f} | 1 | — |")
    for k in ("evaluate", "bound_value", "bound_function", "hand"):
        print(f"| `{k}` | {per[k] * 1e9:,.1f} | {t_sympy / per[k]:,.0f} | {per[k] / per['hand']:.2f} |")
    print()
    print("evaluate = validated parameters, every term and all 17 hypotheses (with slacks);")
    print("bound_value = validated parameters and the bound; bound_function = the bound, unchecked.")


if __name__ == "__main__":
    main()
