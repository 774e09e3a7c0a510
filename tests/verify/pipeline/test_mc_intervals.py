"""Monte-Carlo verdicts (issue 29, item 8): intervals that hold at the seed count used, simultaneously over T.

The coverage is tested where the exact value is known: FedAvg is first order, so on the quadratic its
E||grad f(x^t)||^2 is exact (:mod:`verify.pipeline.exact`, mean and covariance propagated); the same algorithm run
through the Monte-Carlo path over independent seed blocks must have its simultaneous interval contain the exact
curve in about the stated fraction of repetitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("torch")

from sfltheory.experiments import experiment
from verify.pipeline.check import QUADRATIC_SEEDS, QUADRATIC_SEEDS_CAP, default_problem, gradnorm2_runs, seed_stages
from verify.pipeline.verdicts import CONFIDENCE, lhs_interval, lhs_series, t_quantile, verdict


def test_t_quantile_is_students_at_the_bonferroni_level() -> None:
    # textbook tables: t_{3, 0.975} = 3.182, t_{9, 0.995} = 3.250 (= 0.95 simultaneous over m = 5: 1 - 0.05/10)
    assert t_quantile(4, 1, 0.95) == pytest.approx(3.182, abs=1e-3)
    assert t_quantile(10, 5, 0.95) == pytest.approx(3.250, abs=1e-3)
    assert t_quantile(1, 5) == math.inf  # one seed: no interval


def test_the_running_minimum_interval_and_one_seed() -> None:
    # two seeds, g = [[3, 1, 2], [5, 1, 4]]: means 4, 1, 3; sd 1.414, 0, 1.414; se = sd / sqrt(2) = 1, 0, 1;
    # t_{1, 1 - 0.05/6} = 38.19 (m = 3); lo = running min of (4 - q, 1, 3 - q) = 4 - q, 4 - q, 3 - q;
    # hi = running min of (4 + q, 1, 3 + q) = 4 + q, 1, 1
    g = np.array([[3.0, 1.0, 2.0], [5.0, 1.0, 4.0]])
    lhs, lo, hi = lhs_interval("min", g, 0.1)
    q = t_quantile(2, 3)
    assert q == pytest.approx(38.19, abs=0.01)
    np.testing.assert_allclose(lhs, [4, 1, 1])
    np.testing.assert_allclose(lo, [4 - q, 4 - q, 3 - q])
    np.testing.assert_allclose(hi, [4 + q, 1, 1])
    # one seed: the interval is the whole line, so nothing is concluded (it is not taken for exact)
    _, lo1, hi1 = lhs_interval("avg", g[:1], 0.1)
    assert np.all(np.isinf(lo1)) and np.all(np.isinf(hi1))
    assert verdict(np.arange(1, 4), g[0], np.full(3, 10.0), lo1, hi1)[0] == "inconclusive"


def test_the_sequential_rule_doubles_seeds_up_to_its_cap() -> None:
    assert seed_stages(5) == [5]  # the user's count: one stage
    assert seed_stages(None) == [QUADRATIC_SEEDS, 2 * QUADRATIC_SEEDS, 4 * QUADRATIC_SEEDS]
    assert seed_stages(None)[-1] <= QUADRATIC_SEEDS_CAP


def test_the_simultaneous_interval_covers_the_exact_curve() -> None:
    # FedAvg (sl_noniid/thm2's algorithm) on the default quadratic, eta_l = 0.05, K = 2, T = 6, 6 seeds per
    # repetition, 12 repetitions on disjoint seeds. At 95% the expected misses are 0.6; the test allows 2 (P(3 or
    # more misses | coverage 0.95) = 2%; Bonferroni is conservative, so the true coverage is higher). The
    # comparison allows float rounding (1e-9 relative): at t = 0 every seed starts at x^0 and the interval is a
    # point.
    exp = experiment("sl_noniid/thm2")
    q = default_problem(exp)
    algo, T, n, reps = {"eta_l": 0.05, "eta_g": 1.0, "K": 2}, 6, 6, 12
    exact_g = gradnorm2_runs("fedavg", q, algo, T, seeds=1, batch=4, exact=True)
    exact_avg, _ = lhs_series("avg", exact_g, 0.05)
    exact_min = np.minimum.accumulate(exact_g[0])
    misses = {"avg": 0, "min": 0}
    for rep in range(reps):
        g = gradnorm2_runs("fedavg", q, algo, T, seeds=n, batch=4, first_seed=rep * n)
        for kind, exact in (("avg", exact_avg), ("min", exact_min)):
            _, lo, hi = lhs_interval(kind, g, 0.05, confidence=CONFIDENCE)
            tol = 1e-9 * np.abs(exact)
            misses[kind] += not bool(np.all((lo - tol <= exact) & (exact <= hi + tol)))
    assert misses["avg"] <= 2 and misses["min"] <= 2, misses
