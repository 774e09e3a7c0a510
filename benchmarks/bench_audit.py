"""The audit over the whole catalogue (issue 13: under a minute; issue 28: at most 30 CPU-seconds) on a 2-core CPU.

Baseline in the same run: the scalar loop a naive audit would pay just to evaluate the points it draws, one
`evaluate` call per (result, point), 256 points per explicit result. The audit does all of that vectorised
and much more (8 checks, local searches, SymPy solving and parsing), so the ratio says what the checks cost
beyond evaluating their points. Both start from a cold process: compiling each result (lambdify, the step
conditions solved by SymPy) is part of the audit's time. The audit's CPU time (``time.process_time``) is reported
beside its wall time: on a shared machine it is the steadier figure. ``SFLTHEORY_CACHE=off`` times it without the
LaTeX parse cache (:mod:`sfltheory.latexcache`).

Run: python benchmarks/bench_audit.py [--seed N]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import sfltheory as st
from sfltheory.audit.context import Context
from sfltheory.audit.runner import REGISTRY, audit


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    t, c = time.perf_counter(), time.process_time()
    res = audit(seed=a.seed)
    t_audit, cpu_audit = time.perf_counter() - t, time.process_time() - c

    # per check, on a fresh context (points drawn again: the first check to touch a result pays for them)
    ctx = Context(list(st.results()), seed=a.seed)
    per: dict[str, float] = {}
    for r in ctx.catalogue:
        for name, fn in REGISTRY.items():
            t = time.perf_counter()
            fn(r, ctx)
            per[name] = per.get(name, 0.0) + time.perf_counter() - t

    # baseline: the drawn points evaluated one call at a time
    n_calls = 0
    t = time.perf_counter()
    for r in ctx.catalogue:
        s = ctx.sample(r) if r.explicit else None
        if s is None:
            continue
        for i in range(s.size):
            st.evaluate(r, s.point(i))
            n_calls += 1
    t_loop = time.perf_counter() - t

    machine = platform.processor() or platform.machine()
    print(f"Machine: {machine}, Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"{len(res.results)} results, {len(res.findings)} findings, {len(res.skips)} skipped checks, seed {a.seed}")
    print()
    print("| path | time (s) | ratio to the loop |")
    print("|---|---|---|")
    print(f"| `sfltheory audit` (all results, cold process) | {t_audit:.1f} | {t_audit / t_loop:.2f} |")
    print(f"| the same audit, CPU seconds | {cpu_audit:.1f} | |")
    print(f"| loop of `evaluate`, one per drawn point ({n_calls:,} calls) | {t_loop:.1f} | 1 |")
    print()
    print("| check (second pass, compiled) | time (s) |")
    print("|---|---|")
    for name, v in per.items():
        print(f"| {name} | {v:.1f} |")


if __name__ == "__main__":
    main()
