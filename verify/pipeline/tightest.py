r"""The tightest bound next to the paper's (issue 26): ``sfltheory verify ID --tightest``.

For a first-order result with an experiment, at each step of the check (the theorem's largest admissible step, and
the user's or the practical one) and each number of rounds R = 1..R_max, the worst case of the quantity the result
bounds over the function class its assumptions define (:mod:`verify.pep.worst`), next to the paper's bound at the
same constants with :math:`\sigma^2 = 0` (the deterministic part of a stochastic theorem: the worst case is over
full-gradient runs) and the deterministic run of the check's own quadratic. The ratio paper / tightest is how much
of the bound is the analysis rather than the algorithm.

Clients. FedAvg-type algorithms (``fedavg``, ``sfl_v1_analysed``) treat their clients symmetrically, and the worst
case is the same for every M >= 2 (agent symmetry: Colla and Hendrickx, *Automatic performance estimation for
decentralized optimization*, IEEE TAC 2023; checked at M = 2, 3, 4 in ``tests/verify/pep/test_against_pepit.py``):
they are solved at M = 2 and reported for the check's M. The sequential ones (``sl``, ``sfl_aux``) are solved at the
check's M; sfl_aux drawing its clients at random (Theorem 4) as the expectation over every draw, at the smallest m
and n the theorem allows (:data:`SAMPLED`). Where the result is stated for one client too (its statement hypotheses
hold at M = 1), M = 1 is added: there the worst case is **exact**, attained by a concrete function
(:mod:`verify.pep.interpolant`), and a bound below it whose hypotheses hold is refuted by that function, run by the
trainer (:func:`verify.pep.replay.refute`). At the last T the admissible step is also scaled by
:data:`STEP_FACTORS`: the bound and the worst case against the step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.algorithms import algorithm
from sfltheory.errors import SflTheoryError
from sfltheory.experiments import LHS_KINDS, Experiment, lhs_quantity
from verify.pep import WorstCaseSpec, require_solver, worst_case
from verify.pep.replay import refutation_record, refute
from verify.pep.worst import build
from verify.problems import QuadraticProblem
from verify.spec import CheckSpec

from .records import Tightest, TightestPoint
from .theoryparams import algorithm_params
from .verdicts import lhs_series

__all__ = [
    "SYMMETRIC",
    "class_text",
    "not_covered",
    "pep_spec",
    "tightest_of",
    "tightest_points",
    "untightened",
]

SYMMETRIC = ("fedavg", "sfl_v1_analysed")  # parallel clients: the worst case does not depend on M >= 2
SEQUENTIAL = ("sl", "sfl_aux")
# Points whose SDP has more Gram columns are left out (said so): Clarabel took 1-4 s at 37 columns, 17 s at 50
# (sl M = 4, K = 2, R = 3; M = 1, K = 2, R = 24; two cores, benchmarks/RESULTS.md) and grows as the cube. 44 keeps
# the default R = 3 of split learning at M = 4 with the averaged model (41 columns).
GRAM_LIMIT = 44
GRAM_LIMIT_EXACT = 60  # one client: the exact points, which can refute a bound, are worth the 10-30 s they take
# At M = 1 the heterogeneity assumptions are empty (B >= 1), so the theorem claims its bound for every value of their
# constants: the M = 1 points take those that make it smallest (the largest admissible step, no drift term).
ONE_CLIENT = {"B2": 1.0, "G2": 0.0, "eps2": 0.0}
# sfl_aux drawing n clients with replacement (Theorem 4): the expectation over every sequence of draws is a tree of
# M^n paths per server round; solved at m = 3, n = 2 (9 a round), the smallest the theorem allows (m - 2 > 0 and its
# step conditions need n >= m - 1): 39 Gram columns at R = 3, 363 at R = 4 (left out).
SAMPLED = {"sfl_aux": (3, 2)}
SAMPLED_NOTE = (
    "clients drawn with replacement: the worst case of the expectation over every sequence of draws (a "
    "tree of paths), solved at M = 3, n = 2, the smallest the theorem allows (m - 2 > 0, n >= m - 1), "
    "with the bound and its admissible step there; the check's own run (M = 4, n = 3) is not comparable"
)
SYMMETRIC_NOTE = (
    "parallel clients: solved at M = 2, the same worst case as at any M >= 2 by agent symmetry "
    "(Colla and Hendrickx 2023; checked at M = 2, 3, 4 in the tests)"
)
SEQUENTIAL_NOTE = "sequential clients: solved at the check's M (the order matters, no symmetry reduces it)"


def not_covered(exp: Experiment) -> str:
    """Why PEP does not apply to this experiment ("" when it does)."""
    a = algorithm(exp.algorithm)
    if a.client != "first" or a.server != "first":
        return (
            "zeroth-order: performance estimation needs a method that queries gradients, not function-value "
            "differences along random directions; the quadratic search (--worst-case) covers it"
        )
    if exp.algorithm not in (*SYMMETRIC, *SEQUENTIAL):
        return f"{exp.algorithm} has no performance-estimation model yet"
    if exp.sampled and exp.algorithm not in SAMPLED:
        return ("partial participation draws its clients at random each round: the worst case needs the expectation "
                "over every draw (an SDP over all paths), not built for this algorithm")  # fmt: skip
    if exp.problem != "quadratic":
        return "its assumptions (bounded gradients) are checked on a model, not by a function class"
    return ""


def untightened(exp: Experiment) -> Tightest:
    """The record of a result the worst case does not cover, with the reason."""
    return Tightest(quantity=LHS_KINDS[exp.lhs], assumptions="", reason=not_covered(exp) or "not on a quadratic")


def heterogeneity(r: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """The heterogeneity assumption of ``r`` as the worst case imposes it, with its constants."""
    used = set(r.parameters())
    if "B2" in used or "G2" in used:
        B2, G2 = float(params.get("B2", 1.0)), float(params.get("G2", 0.0))
        return {"heterogeneity": "dissimilarity", "B2": B2, "G2": G2}
    if "eps2" in used:
        return {"heterogeneity": "deviation", "eps2": float(params["eps2"])}
    return {"heterogeneity": "none"}


def quantity(exp: Experiment, r: Any) -> str:
    """The worst case's left-hand side: as the statement prints it (sl_noniid's averaged model), else the
    experiment's."""
    return "at_average" if r.lhs.startswith("E||grad f(xbar") else exp.lhs


def pep_spec(exp: Experiment, r: Any, params: Mapping[str, Any], algo: Mapping[str, Any], *, M: int,
             R: int) -> WorstCaseSpec:  # fmt: skip
    """The worst-case problem of one point: the algorithm's parameters ``algo`` (its step set), M, R; a sampled
    experiment's draws ``n`` from ``params``."""
    names = ("K", "eta_l", "eta_g", "eta", "l")
    return WorstCaseSpec(algorithm=exp.algorithm, R=R, M=M, params={k: float(algo[k]) for k in names if k in algo},
                         L=float(params["L"]), F=float(params["F"]), lhs=quantity(exp, r),
                         n=int(params["n"]) if exp.sampled else 0, **heterogeneity(r, params))  # fmt: skip


def one_client_ok(r: Any, params: Mapping[str, Any]) -> bool:
    """Whether the result's statement hypotheses of kind domain/validity hold at M = 1 (at its largest admissible
    step there, or its own choice)."""
    p = {**params, "M": 1.0, "T": 1.0}
    try:
        if r.step not in p and not any(h.kind == "choice" for h in r.hypotheses):
            p[r.step] = float(np.asarray(st.max_step(r, p).max_step))
        ev = st.evaluate(r, p)
    except SflTheoryError:
        return False
    return all(bool(np.all(h.holds)) for h in ev.hypotheses
               if h.kind == "validity" or (h.source == "statement" and h.kind == "domain"))  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Points:
    """What :func:`tightest_points` computed: the points, why each kind, the points left out (in words), and the
    refutation records (:func:`verify.pep.replay.refutation_record`) of each bound shown false."""

    points: tuple[TightestPoint, ...]
    kinds: dict[str, str]
    skipped: str
    refutations: tuple[dict[str, Any], ...]
    by_step: tuple[TightestPoint, ...] = ()


def at_point(r: Any, params: Mapping[str, Any], mode: str, step: float | None, M: int, M_check: int,
             T: int) -> tuple[Any, float, dict[str, Any]]:  # fmt: skip
    """The evaluation of the bound (sigma2 = 0), the step and the bound's parameters at one point."""
    p = {**params, "T": float(T), **{k: v for k, v in (("M", float(M)), ("sigma2", 0.0)) if k in params}}
    if "sum_alpha2" in p:
        p["sum_alpha2"] = 1.0 / M
    if M == 1:  # one client: every B^2 >= 1, G^2, eps^2 >= 0 gives the same class, so the claim at the smallest
        p.update({k: v for k, v in ONE_CLIENT.items() if k in p})  # bound is the one to test
    if step is None:  # the corollary's own choice at this T
        ev = st.evaluate(r, p)
        return ev, float(np.asarray(ev.params[r.step])), p
    at = float(np.asarray(st.max_step(r, p).max_step)) if mode == "admissible" and M != M_check else step
    return st.evaluate(r, {**p, r.step: at}), at, p


STEP_FACTORS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)  # the step sweep: the admissible step times these, at T = R


@dataclass
class Collect:
    """The points of one result as they are computed (:func:`tightest_points`)."""

    exp: Experiment
    r: Any
    M_check: int
    algo_at: Any
    measured_at: Any
    kinds: dict[str, str]
    refuted: list[dict[str, Any]]

    def point(self, ev: Any, at: float, p: Mapping[str, Any], mode: str, M: int, T: int, *,
              measure: bool = True) -> TightestPoint | None:  # fmt: skip
        """One worst case next to the bound ``ev`` at step ``at`` (and the quadratic's value where ``measure`` and M
        is the check's); None where the SDP would be too large. An exact worst case above a bound whose statement
        hypotheses hold refutes it: replayed by the trainer."""
        algo = self.algo_at(ev.params, at)
        exp, r = self.exp, self.r
        spec = pep_spec(exp, r, p, algo, M=2 if (M > 1 and exp.algorithm in SYMMETRIC) else M, R=T)
        built = build(spec)  # once: its size decides, then it is solved
        if built[0].n > (GRAM_LIMIT_EXACT if M == 1 else GRAM_LIMIT):
            return None
        wc = worst_case(spec, built)
        self.kinds.setdefault(wc.kind, wc.why)
        failing = tuple(sorted(h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds))))
        paper = float(np.asarray(ev.value))
        ref = refute(spec, paper, wc=wc) if wc.kind == "exact" and not failing and wc.value > paper else None
        if ref is not None:
            self.refuted.append(refutation_record(ref, result=r.id, T=T, step=at))
        return TightestPoint(
            mode=mode, step=at, M=M, T=T, paper=paper, tightest=wc.value, kind=wc.kind,
            measured=self.measured_at(algo, T) if measure and M == self.M_check else None, failing=failing,
            seconds=wc.seconds,
            replayed=None if ref is None else ref.measured,
        )  # fmt: skip


def tightest_points(exp: Experiment, r: Any, params: Mapping[str, Any], legs: list[tuple[str, float | None]], *,
                    rounds: int, algo_at: Any, measured_at: Any) -> Points:  # fmt: skip
    """Every point: for each leg ``(mode, step)`` (step None: the corollary's choice at each T), each M (the check's,
    and 1 where the statement allows it) and each T = 1..rounds whose SDP has at most :data:`GRAM_LIMIT` columns;
    then, at T = rounds, the admissible step times :data:`STEP_FACTORS` (at M = 1 where allowed, else the check's
    M; not for a corollary, whose step is its own). ``algo_at(ev_params, step)`` gives the algorithm's parameters,
    ``measured_at(algo, T)`` the deterministic quadratic's left-hand side at T (check's M only). Where an exact worst
    case (M = 1) exceeds the bound and the statement's hypotheses hold, the bound is refuted: the worst case is
    replayed by the trainer on the concrete function (:func:`verify.pep.replay.refute`)."""
    require_solver("verify --tightest")
    M_check = int(params["M"]) if "M" in params else 1
    c = Collect(exp=exp, r=r, M_check=M_check, algo_at=algo_at, measured_at=measured_at, kinds={}, refuted=[])
    out = []
    left_out: dict[int, int] = {}
    if exp.sampled:  # every draw is a path: M^n of them a round, so the smallest M and n the result allows
        M_s, n_s = SAMPLED[exp.algorithm]
        params = {**params, "M": float(M_s), "n": float(n_s)}
    Ms = [1, M_check] if M_check > 1 and one_client_ok(r, params) else [int(params.get("M", M_check))]
    for mode, step in legs:
        for M in Ms:
            for T in range(1, rounds + 1):
                point = c.point(*at_point(r, params, mode, step, M, M_check, T), mode, M, T)
                if point is None:
                    left_out[M] = min(T, left_out.get(M, T))
                    break
                out.append(point)
    sweep = []
    if not exp.at_choice:
        M = Ms[0]
        _, at, p = at_point(r, params, "admissible", legs[0][1], M, M_check, rounds)
        for f in STEP_FACTORS:
            point = c.point(st.evaluate(r, {**p, r.step: at * f}), at * f, p, f"x{f:g}", M, rounds, measure=False)
            if point is not None:
                sweep.append(point)
    skipped = "; ".join(f"M = {M}: T >= {T} left out (the SDP would pass "
                        f"{GRAM_LIMIT_EXACT if M == 1 else GRAM_LIMIT} Gram columns)"
                        for M, T in sorted(left_out.items()))  # fmt: skip
    return Points(points=tuple(out), kinds=c.kinds, skipped=skipped, refutations=tuple(c.refuted),
                  by_step=tuple(sweep))  # fmt: skip


def tightest_of(spec: CheckSpec, s: Any, runs: Callable[..., np.ndarray]) -> Tightest:
    """The tightest bound at each leg's step of a prepared check on a quadratic (``s``:
    :class:`verify.pipeline.check.QuadraticSetting`), next to the paper's bound with sigma2 = 0 and the deterministic
    run of the same quadratic (``runs``: :func:`verify.pipeline.check.gradnorm2_runs`)."""
    exp, r = s.exp, s.r
    q = quantity(exp, r)
    what = "||grad f(xbar^R)||^2 at the averaged model xbar^R = (1/R) sum_{r<R} x^r" if q == "at_average" \
        else LHS_KINDS[q].replace("E||", "||")  # fmt: skip
    why = not_covered(exp)
    if why:
        return Tightest(quantity=what, assumptions="", reason=why)
    quiet = QuadraticProblem(s.quad.H, s.quad.b, s.quad.x0, s.quad.d_c, 0.0, name=s.quad.name)  # sigma2 = 0

    done: dict[str, np.ndarray] = {}

    def measured_at(algo: Mapping[str, Any], T: int) -> float:
        # one run per parameter set, to the last T: the left-hand side at T reads its first T rounds only (sfl_aux's
        # exact moments took 9 s a run, once per T before)
        key = repr(sorted(algo.items()))
        if key not in done:
            done[key] = runs(exp.algorithm, quiet, algo, spec.tightest, seeds=1, batch=s.batch, exact=True,
                             quantity=lhs_quantity(exp.lhs))  # fmt: skip
        return float(lhs_series(exp.lhs, done[key][:, :T], float(algo.get(exp.step_to[0], 0.0)))[0][T - 1])

    steps: list[tuple[str, float | None]] = [("corollary's choice", None)] if exp.at_choice else list(s.steps)
    got = tightest_points(exp, r, s.params, steps, rounds=spec.tightest,
                          algo_at=lambda ev, at: algorithm_params(exp, ev, at), measured_at=measured_at)  # fmt: skip
    note = SAMPLED_NOTE if exp.sampled else SYMMETRIC_NOTE if exp.algorithm in SYMMETRIC else SEQUENTIAL_NOTE
    if q == "at_average":  # the exact moments give the average of the norms, not the norm at the average
        note += ("; the measured column is the quadratic's (1/T) sum_t ||grad f(x^t)||^2, the quantity the proof "
                 "bounds, which is at least ||grad f(xbar)||^2 on a quadratic (Jensen)")  # fmt: skip
    return Tightest(quantity=what, assumptions=class_text(r, s.params), kinds=got.kinds, points=got.points,
                    note=note, skipped=got.skipped, refutations=got.refutations, by_step=got.by_step)  # fmt: skip


def class_text(r: Any, params: Mapping[str, Any]) -> str:
    """The function class in words, with its constants."""
    h = heterogeneity(r, params)
    het = {
        "dissimilarity": f"bounded dissimilarity B^2 = {h.get('B2', 0):.4g}, G^2 = {h.get('G2', 0):.4g}",
        "deviation": f"bounded deviation eps^2 = {h.get('eps2', 0):.4g}",
        "none": "no heterogeneity bound",
    }
    one = "" if h["heterogeneity"] == "none" else (
        " (at M = 1 every B^2 >= 1, G^2, eps^2 >= 0 give the same class: those points take B^2 = 1, G^2 = eps^2 = 0, "
        "the smallest bound the theorem claims)"
    )  # fmt: skip
    return (
        f"each client L-smooth (L = {float(params['L']):.4g}), f(x^0) - f* <= F = {float(params['F']):.4g}, "
        f"{het[h['heterogeneity']]}{one}; full local gradients (sigma^2 = 0)"
    )
