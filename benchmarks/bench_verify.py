"""Exact falsification against Monte Carlo, and the time of `sfltheory verify --all` (issue 14).

* **Exact moments vs Monte Carlo**: the left-hand side of sl_noniid Thm. 1 (SL, K = 2, 4 clients, fixed order)
  on the default quadratic over T = 40 rounds, computed exactly by propagating the mean and covariance
  (``verify.pipeline.exact.exact_moments``) against the Monte-Carlo mean over ``--seeds`` training runs. The
  ratio is the time of the Monte Carlo over the time of the exact computation; the exact answer has no error
  bar, the Monte Carlo one a relative standard error that the script prints (what the seeds buy).
* **verify --all** (with ``--all``): the wall time of every verification of the catalogue on its default
  problem, and of the first-order ones alone (exact moments), per result.

Run: python benchmarks/bench_verify.py [--seeds 24] [--all]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from sfltheory.experiments import EXPERIMENTS
from verify.pipeline.check import check, default_problem
from verify.pipeline.exact import exact_moments
from verify.pipeline.verdicts import exact_applies
from verify.spec import CheckSpec
from verify.train import get, run


def exact_vs_monte_carlo(seeds: int, T: int = 40) -> None:
    exp = EXPERIMENTS["sl_noniid/thm1"]
    problem = default_problem(exp)
    algo = get("sl")(eta_l=0.03, K=2, eta_g=1.0, order="fixed")
    t0 = time.perf_counter()
    exact = exact_moments(algo, problem, T=T, batch=4).gradnorm2[:T]
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    g = np.asarray([run(algo, problem, T=T, batch=4, seed=s, progress=False).series("gradnorm2")[:T]
                    for s in range(seeds)])  # fmt: skip
    t_mc = time.perf_counter() - t0
    avg_exact = exact.mean()
    per = g.mean(1)
    se = per.std(ddof=1) / np.sqrt(seeds) / per.mean()
    print(f"exact moments, T = {T}: {t_exact:.2f} s; Monte Carlo over {seeds} seeds: {t_mc:.2f} s "
          f"(ratio MC/exact {t_mc / t_exact:.2f})")  # fmt: skip
    print(f"  (1/T) sum E||grad f||^2: exact {avg_exact:.5g}, Monte Carlo {per.mean():.5g} "
          f"(relative se {se:.2%}; |difference| {abs(per.mean() - avg_exact) / avg_exact:.2%})")  # fmt: skip


def verify_all() -> None:
    total = first = 0.0
    for rid, exp in EXPERIMENTS.items():
        t0 = time.perf_counter()
        check(CheckSpec(result=rid))
        dt = time.perf_counter() - t0
        total += dt
        if exact_applies(exp.algorithm):
            first += dt
        print(f"  {rid:36s} {exp.problem:9s} {dt:6.1f} s")
    n_first = sum(exact_applies(e.algorithm) for e in EXPERIMENTS.values())
    print(f"verify --all: {len(EXPERIMENTS)} results in {total:.0f} s; the {n_first} first-order ones (exact "
          f"moments) in {first:.0f} s")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=24)
    ap.add_argument("--all", action="store_true", help="also time every verification of `verify --all`")
    a = ap.parse_args()
    print(f"{platform.processor() or platform.machine()}, {platform.python_version()}")
    exact_vs_monte_carlo(a.seeds)
    if a.all:
        verify_all()


if __name__ == "__main__":
    main()
