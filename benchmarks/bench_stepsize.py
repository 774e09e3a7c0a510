"""The step-size solver (sfltheory/stepsize.py): the largest admissible step over many points, as ratios.

Baselines in the same run: the same closed form typed by hand in NumPy (cut_layer Prop. 1, two branches
eta <= 1/(16 L K) and eta <= 1/(8 L M K sum_alpha2)), and ``evaluate`` of the same result at the same points
(what a user pays to check one given step). For HERON-SFL Lemma 4's cubic condition -- Cardano's roots are
checked at the slack, bisection where none passes -- the baseline is numpy.roots point by point.

Run: python benchmarks/bench_stepsize.py [--points N]   (prints a Markdown table for RESULTS.md)
"""

from __future__ import annotations

import argparse
import platform
from collections import Counter

import numpy as np
from bench_evaluate import best  # the same best-of-n timer (benchmarks/ is on the path when run as a script)

import sfltheory as st
from sfltheory.stepsize import max_step


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=100_000)
    n = ap.parse_args().points
    rng = np.random.default_rng(0)
    p = {"L": rng.uniform(0.5, 5, n), "K": rng.integers(1, 20, n).astype(float), "M": 10.0, "sum_alpha2": 0.1}
    hand = lambda: np.minimum(1 / (16 * p["L"] * p["K"]), 1 / (8 * p["L"] * p["M"] * p["K"] * p["sum_alpha2"]))  # noqa: E731
    got = max_step("cut_layer/prop1", p)
    assert np.allclose(got.max_step, hand(), rtol=1e-12)
    t_hand = best(hand)
    t_step = best(lambda: max_step("cut_layer/prop1", p))
    t_eval = best(lambda: st.evaluate("cut_layer/prop1", {**p, "eta": 0.01, "F": 1.0, "T": 100.0, "sigma2": 1.0,
                                                         "eps2": 1.0}))  # fmt: skip

    # HERON-SFL Lemma 4: (6Lh/N + 3 alpha) eta_c^2 <= eta_c h/4 with alpha = eta_c h^3 L^2 + 6 eta_c^2 h^3 L^3/N
    m = min(n, 2000)
    q = {"L": rng.uniform(0.5, 5, m), "K": rng.integers(1, 8, m).astype(float), "M": 8.0}
    res = max_step("heron_sfl/lemma4", q)
    br = next(b for b in res.branches if b.name.startswith("Lemma 4"))
    # one string when every point took the same path, else one per point
    paths = Counter(np.broadcast_to(np.asarray(br.path), (m,)).tolist())

    def roots() -> np.ndarray:
        out = np.empty(m)
        for i in range(m):
            L, h, N = q["L"][i], q["K"][i], q["M"]
            # multiply by 4/(h eta): 4(6Lh/N) eta/h + 12 h^2 L^2 eta^2 + 72 h^2 L^3 eta^3/N - 1 <= 0
            c = [72 * h**2 * L**3 / N, 12 * h**2 * L**2, 24 * L / N, -1.0]
            r = np.roots(c)
            out[i] = min(x.real for x in r if abs(x.imag) < 1e-12 and x.real > 0)
        return out

    assert np.allclose(br.bound, roots(), rtol=1e-9)
    t_cubic = best(lambda: max_step("heron_sfl/lemma4", q), 3)
    t_roots = best(roots, 3)

    print(f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"NumPy {np.__version__}; {n} points (Prop. 1), {m} points (Lemma 4)\n")  # fmt: skip
    print("| path | time per point (ns) | ratio |")
    print("|---|---|---|")
    print(f"| hand-written NumPy, Prop. 1's two branches | {t_hand / n * 1e9:.1f} | 1.00 |")
    print(f"| `max_step('cut_layer/prop1')` (validation, every branch, path) | {t_step / n * 1e9:.1f} | "
          f"{t_step / t_hand:.1f} x hand |")  # fmt: skip
    print(f"| `evaluate('cut_layer/prop1')` at one given step | {t_eval / n * 1e9:.1f} | "
          f"{t_step / t_eval:.2f} (max_step / evaluate) |")  # fmt: skip
    print(f"| numpy.roots per point, Lemma 4's cubic | {t_roots / m * 1e9:.0f} | 1.00 |")
    print(f"| `max_step('heron_sfl/lemma4')` | {t_cubic / m * 1e9:.0f} | {t_cubic / t_roots:.3f} x numpy.roots |")
    print(f"\nLemma 4's cubic branch, path taken: {dict(paths)}")


if __name__ == "__main__":
    main()
