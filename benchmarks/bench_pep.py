"""The direct SDP of verify.pep against PEPit on the same worst-case problems, as ratios in one run.

Issue 26 measured PEPit 0.5.1 through cvxpy and Clarabel on deterministic FedAvg (bounded dissimilarity at the
iterates): K = 5, R = 2 in 4.3 s, K = 5, R = 3 in 320 s, about 75% of it PEPit's translation and cvxpy's
compilation. The baseline is PEPit on the problem the cross-check tests write out
(tests/verify/pep/test_against_pepit.py: the same constraints, so the two values must agree); both solve with
Clarabel at tolerance 1e-10. Each timing is the best of ``--repeat`` (PEPit: one run per problem above 60 s).

Run: python benchmarks/bench_pep.py [--big] [--repeat N]   (prints a Markdown table for RESULTS.md)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' PEPit formulations are the baseline

from tests.verify.pep.test_against_pepit import pepit_fedavg, pepit_sl, pepit_worst
from verify.pep import WorstCaseSpec, worst_case


def timed(f: Callable[[], float], repeat: int) -> tuple[float, float]:
    """(value, best seconds of ``repeat`` calls)."""
    best, value = float("inf"), 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = f()
        best = min(best, time.perf_counter() - t0)
        if best > 60:
            break
    return value, best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="also FedAvg K = 5, R = 3 (PEPit: minutes)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    warnings.filterwarnings("ignore", message="Solution may be inaccurate")
    het = {"heterogeneity": "dissimilarity", "B2": 2.0, "G2": 0.5}
    problems = [("fedavg", 2, 2, 2, 0.1), ("fedavg", 2, 5, 2, 0.1), ("sl", 4, 2, 3, 0.05)]
    if a.big:
        problems.append(("fedavg", 2, 5, 3, 0.1))
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print("| problem | Gram size | direct (s) | PEPit (s) | PEPit / direct | values |")
    print("|---|---|---|---|---|---|")
    for alg, M, K, R, eta in problems:
        spec = WorstCaseSpec(algorithm=alg, R=R, M=M, params={"K": K, "eta_l": eta, "eta_g": 1.0}, L=1.0, F=1.0,
                             lhs="avg", **het)  # type: ignore[arg-type]  # fmt: skip
        size = worst_case(spec).size
        direct, t_direct = timed(lambda spec=spec: worst_case(spec).value, a.repeat)
        iterate = (pepit_fedavg if alg == "fedavg" else pepit_sl)(R, K, eta, 1.0)
        ref, t_pepit = timed(lambda it=iterate, M=M, R=R: pepit_worst(M, 1.0, 1.0, it, R, "avg", het="dissimilarity",
                                                                      B2=2.0, G2=0.5), a.repeat)  # fmt: skip
        agree = abs(direct - ref) / abs(ref)
        print(f"| {alg} M={M} K={K} R={R} | {size} | {t_direct:.3f} | {t_pepit:.2f} | {t_pepit / t_direct:.0f} | "
              f"{direct:.7g} vs {ref:.7g} ({agree:.1e}) |")  # fmt: skip


if __name__ == "__main__":
    main()
