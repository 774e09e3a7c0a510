"""Split learning on non-IID data (seed 002_56e5daea794305d7.txt) against hand calculations.

Every expected number below is worked out by hand in the comment next to it, from the printed formula
cited (paper R -> T, N -> M). Inputs are chosen so that the arithmetic is checkable on paper.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import sfltheory as st
from sfltheory.fixed import chosen

P = "sl_noniid/"


def hyp(ev: st.Evaluation, name: str) -> Any:
    (h,) = [h for h in ev.hypotheses if h.name == name]
    return h


def branch(sc: st.StepCheck, name: str) -> Any:
    (b,) = [b for b in sc.branches if b.name == name]
    return b


# Shared inputs: N = 2 clients, K = 5 local steps, R = 10 rounds, eta_l = 0.01.
A = dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, B2=1, G2=1)


# --- Theorem 1, eq. (5) ----------------------------------------------------------------------------
def test_thm1_case_a() -> None:
    ev = st.evaluate(P + "thm1", **A)
    # T_1 4F/(N K eta_g eta_l R)      = 4/(2*5*1*0.01*10)     = 4
    # T_2 12 N^2 K^2 eta_l^2 L^2 G^2  = 12*4*25*1e-4          = 0.12
    #     6 N^2 K eta_l^2 L^2 sigma^2 = 6*4*5*1e-4            = 0.012
    # T_3 4 N eta_g eta_l L sigma^2   = 4*2*1*0.01            = 0.08
    assert ev.terms["initialisation"] == pytest.approx(4)
    assert ev.terms["client drift (G^2)"] == pytest.approx(0.12)
    assert ev.terms["client drift (sigma^2)"] == pytest.approx(0.012)
    assert ev.terms["global variance"] == pytest.approx(0.08)
    assert ev.value == pytest.approx(4.212)
    assert ev.derived == {"eta_g": "1"}  # vanilla SL
    assert ev.applies and ev.proof_conditions_hold and not ev.void


def test_thm1_case_b() -> None:
    ev = st.evaluate(P + "thm1", L=2, F=3, T=100, M=4, K=2, eta_l=1e-3, eta_g=2, sigma2=0.5, B2=4, G2=2)
    # T_1 4*3/(4*2*2*1e-3*100)          = 12/1.6                 = 7.5
    # T_2 12*16*4*1e-6*4*2               = 768e-6*8               = 0.006144
    #     6*16*2*1e-6*4*0.5              = 192e-6*2               = 0.000384
    # T_3 4*4*2*1e-3*2*0.5               = 0.032
    assert ev.value == pytest.approx(7.5 + 0.006144 + 0.000384 + 0.032)
    # branches: 1/(2*4*2*2*sqrt(9)) = 1/96 and 1/(2*4*2*2*2) = 1/64, both above 1e-3
    assert ev.applies


def test_thm1_effective_rate_and_aliases() -> None:
    # eta_tilde = N K eta_g eta_l = 0.1 gives eta_l = 0.1/(2*5*1) = 0.01: case A again; R and N are aliases
    ev = st.evaluate(P + "thm1", L=1, F=1, R=10, N=2, K=5, eta_tilde=0.1, sigma2=1, B2=1, G2=1)
    assert ev.params["eta_l"] == pytest.approx(0.01)
    assert ev.value == pytest.approx(4.212)


def test_thm1_b_at_least_one() -> None:
    assert hyp(st.evaluate(P + "thm1", **A), "B^2>=1").holds
    ev = st.evaluate(P + "thm1", **{**A, "B2": 0.99})
    assert not ev.applies and "B^2>=1 fails" in ev.verdict()


def test_thm1_eq47_never_binds_when_b_ge_1() -> None:
    rng = np.random.default_rng(1)
    for _ in range(100):
        p = dict(
            L=float(rng.uniform(0.1, 10)),
            M=int(rng.integers(1, 50)),
            K=int(rng.integers(1, 50)),
            B2=float(rng.uniform(1, 20)),
            eta_g=float(rng.uniform(0.1, 10)),
        )
        sc = st.max_step(P + "thm1", **p)
        # 1/(2NKL sqrt(2B^2+1)) <= 1/(2NKL) always
        assert sc.max_step_all == pytest.approx(sc.max_step)


def test_thm1_proof_edition() -> None:
    ev = st.evaluate(P + "thm1@proof", **A)
    # eq. (44) has the terms of (5): 4 + 0.12 + 0.012 + 0.08
    assert ev.value == pytest.approx(4.212)
    ev_b = st.evaluate(P + "thm1@proof", L=2, F=3, T=100, M=4, K=2, eta_l=1e-3, eta_g=2, sigma2=0.5, B2=4, G2=2)
    assert ev_b.value == pytest.approx(7.538528)  # 7.5 + 0.006144 + 0.000384 + 0.032
    r = st.get(P + "thm1@proof")
    assert "average over the rounds" in r.lhs and "xbar" in st.get(P + "thm1").lhs


# --- step-size branches, both sides ----------------------------------------------------------------
C1 = dict(L=1, F=1, M=2, K=5, T=1000, sigma2=1, B2=1, G2=1)
BRANCHES = [
    # (id, evaluation inputs, branch, hand bound, binds among the statement's branches)
    ("thm1", A, "eta_l<=1/(2NKL sqrt(2B^2+1))", 1 / (20 * math.sqrt(3)), True),  # 1/(2*2*5*1*sqrt 3)
    ("thm1", {**A, "eta_g": 2}, "eta_l<=1/(2NKL eta_g)", 1 / 40, True),  # 1/(2*2*5*2) < 1/(20 sqrt 3)
    ("thm1", A, "eq.(47) 2NKL eta_l<=1", 1 / 20, False),  # 1/(2*2*5)
    ("thm1@proof", A, "eq.(45) D=4N^2K^2L^2eta_l^2<=1/(2B^2+1)", 1 / (20 * math.sqrt(3)), True),
    ("thm1@proof", {**A, "eta_g": 2}, "eq.(46) 2NK eta_g eta_l L<=1", 1 / 40, True),
    ("thm1@proof", A, "eq.(47) 2NKL eta_l<=1", 1 / 20, False),
    ("lem4", dict(L=1, M=2, K=5, eta_l=0.01, sigma2=1, B2=1, G2=1, gradnorm2_f=1), "eta_l<=1/(2NKL)", 1 / 20, True),
    ("cor1@explicit", C1, "eta_l<=1/(2NKL sqrt(2B^2+1))", 1 / (20 * math.sqrt(3)), True),
    ("cor1@explicit", {**C1, "eta_g": 2}, "eta_l<=1/(2NKL eta_g)", 1 / 40, True),
    ("cor2@explicit", C1, "eta_l<=1/(2NKL sqrt(2B^2+1))", 1 / (20 * math.sqrt(3)), True),
    ("cor2@explicit", {**C1, "eta_g": 2}, "eta_l<=1/(2NKL eta_g)", 1 / 40, True),
    ("cor3@explicit", C1, "eta_l<=1/(2NKL sqrt(2B^2+1))", 1 / (20 * math.sqrt(3)), True),
    ("cor3@explicit", {**C1, "eta_g": 2}, "eta_l<=1/(2NKL eta_g)", 1 / 40, True),
    ("thm2", A, "eta_l<=1/(2KL sqrt(2B^2+1))", 1 / (10 * math.sqrt(3)), True),  # 1/(2*5*1*sqrt 3)
    ("thm2", {**A, "eta_g": 2}, "eta_l<=1/(2KL eta_g)", 1 / 20, True),  # 1/(2*5*2) = 0.05 < 0.0577
    ("sec4.3.speedup@explicit", C1, "eta_l<=1/(2KL sqrt(2B^2+1))", 1 / (10 * math.sqrt(3)), True),
    (
        "thm3",
        dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, eps2=1),
        "eta_l<=1/(2 sqrt5 KL)",
        1 / (10 * math.sqrt(5)),
        True,
    ),
    (
        "thm3",
        dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, eps2=1),
        "eq.(71) D=4K^2L^2eta_l^2<=1/5",
        1 / (10 * math.sqrt(5)),
        False,
    ),
    ("thm3", dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, eps2=1), "eq.(72) 2K eta_l L<=1", 1 / 10, False),
    (
        "thm3",
        dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, eps2=1),
        "(68) with Young's factor 2: eta_l<=1/(6KL)",
        1 / 30,
        False,
    ),
    ("tab1.fl", A, "eta_l<=1/(2KL sqrt(2B^2+1))", 1 / (10 * math.sqrt(3)), True),
]
EFF = dict(L=1, F=1, T=10, M=2, K=5, sigma2=1, B2=1, G2=1, eta_tilde=0.05)
EFF_BRANCHES = [
    (rid, EFF, name, bound)
    for rid in ("tab1.fl_eff", "tab1.sl_eff", "sec4.3.fl", "sec4.3.sl")
    # 1/(2L sqrt(2B^2+1)) = 1/(2 sqrt 3) and 1/(2L) = 1/2
    for name, bound in (("eta_tilde<=1/(2L sqrt(2B^2+1))", 1 / (2 * math.sqrt(3))), ("eta_tilde<=1/(2L)", 0.5))
]


@pytest.mark.parametrize(("rid", "params", "name", "bound", "binds"), BRANCHES)
def test_eta_l_branch_both_sides(rid: str, params: dict, name: str, bound: float, binds: bool) -> None:
    base = {k: v for k, v in params.items() if k != "eta_l"}
    sc = st.max_step(P + rid, **base)
    assert branch(sc, name).bound == pytest.approx(bound)
    if binds:
        assert sc.binding == name and sc.max_step == pytest.approx(bound)
    if "eta_l" in chosen(st.get(P + rid)):  # the edition sets eta_l itself: a given one is refused (issue 24)
        with pytest.raises(st.ParameterError, match=r"sets eta_l = .* itself"):
            st.evaluate(P + rid, **base, eta_l=bound)
        return
    below = st.evaluate(P + rid, **base, eta_l=bound * (1 - 1e-9))
    above = st.evaluate(P + rid, **base, eta_l=bound * (1 + 1e-6))
    assert hyp(below, name).holds and not hyp(above, name).holds
    assert branch(st.max_step(P + rid, **base, eta_l=bound * (1 - 1e-9)), name).holds
    assert not branch(st.max_step(P + rid, **base, eta_l=bound * (1 + 1e-6)), name).holds
    flipped = {h.name for h in above.failed()} - {h.name for h in below.failed()}
    assert name in flipped
    if binds:  # the binding branch is the only stated step-size condition that fails just above it
        assert {h.name for h in above.failed("statement") if h.kind == "step_size"} == {name}


@pytest.mark.parametrize(("rid", "params", "name", "bound"), EFF_BRANCHES)
def test_eta_tilde_branch_both_sides(rid: str, params: dict, name: str, bound: float) -> None:
    base = {k: v for k, v in params.items() if k != "eta_tilde"}
    sc = st.max_step(P + rid, **base)
    assert branch(sc, name).bound == pytest.approx(bound)
    assert sc.max_step == pytest.approx(1 / (2 * math.sqrt(3)))
    below = st.evaluate(P + rid, **base, eta_tilde=bound * (1 - 1e-9))
    above = st.evaluate(P + rid, **base, eta_tilde=bound * (1 + 1e-6))
    assert hyp(below, name).holds and not hyp(above, name).holds
    assert hyp(above, name).source == "implicit"


# --- Lemma 4, eq. (16) -----------------------------------------------------------------------------
def test_lem4_case_a() -> None:
    ev = st.evaluate(P + "lem4", L=1, M=2, K=5, eta_l=0.01, sigma2=1, B2=1, G2=1, gradnorm2_f=1)
    # D = 4 N^2 K^2 eta_l^2 L^2 = 4*4*25*1e-4 = 0.04, 1 - D = 0.96
    # 2 N^3 K^2 eta_l^2 sigma^2 = 2*8*25*1e-4 = 0.04 ; 4 N^3 K^3 eta_l^2 (B^2*1 + G^2) = 4*8*125*1e-4*2 = 0.8
    # (0.04 + 0.8)/0.96 = 0.875
    assert ev.terms["variance"] == pytest.approx(0.04 / 0.96)
    assert ev.value == pytest.approx(0.875)
    assert ev.applies and not ev.void


def test_lem4_case_b() -> None:
    ev = st.evaluate(P + "lem4", L=1, M=1, K=1, eta_l=0.25, sigma2=2, B2=1, G2=0, gradnorm2_f=3)
    # D = 4*0.0625 = 0.25 ; (2*0.0625*2 + 4*0.0625*(1*3 + 0))/0.75 = (0.25 + 0.75)/0.75 = 4/3
    assert ev.value == pytest.approx(4 / 3)


def test_lem4_validity_both_sides() -> None:
    p = dict(L=1, M=1, K=1, sigma2=1, B2=1, G2=1, gradnorm2_f=1)
    # 1 - 4 N^2 K^2 eta_l^2 L^2 > 0  <=>  eta_l < 1/2 here
    below = st.evaluate(P + "lem4", **p, eta_l=0.5 * (1 - 1e-9))
    above = st.evaluate(P + "lem4", **p, eta_l=0.5 * (1 + 1e-6))
    assert not below.void and below.applies
    assert above.void and "void" in above.verdict()
    # at eta_l = 1/(2NKL) = 0.5 exactly the statement's condition holds, but the denominator is 0: void
    edge = st.evaluate(P + "lem4", **p, eta_l=np.array([0.5]))
    # the statement's condition holds, but a void bound does not apply (issue 24)
    assert bool(np.all(edge.statement_holds)) and bool(np.all(edge.void)) and not bool(np.any(edge.applies))
    assert np.isinf(edge.value[0])
    scalar = st.evaluate(P + "lem4", **p, eta_l=0.5)  # the same as a scalar: void, not a ZeroDivisionError
    assert scalar.statement_holds and not scalar.applies and scalar.void
    assert "1-4N^2K^2eta_l^2L^2>0" in scalar.verdict()


# --- Corollary 1, eq. (6) --------------------------------------------------------------------------
def test_cor1_is_o_form_only() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "cor1", **C1)
    assert e.value.name == P + "cor1" and "sl_noniid/cor1@explicit" in str(e.value)


def test_cor1_explicit_case_a() -> None:
    ev = st.evaluate(P + "cor1@explicit", **C1)
    # T = NKR = 2*5*1000 = 10^4, sqrt = 100
    # 4 L F/sqrt(T) = 0.04 ; 12 N^2 K^2 G^2/(eta_g^2 T) = 1200/10^4 = 0.12 ; 6 N^2 K sigma^2/T = 120/10^4 = 0.012
    # 4 N sigma^2/sqrt(T) = 8/100 = 0.08
    assert ev.value == pytest.approx(0.252)
    # eta_l = 1/(eta_g L sqrt(T)) = 0.01: Theorem 1 at R = 1000 gives the same
    assert ev.params["eta_l"] == pytest.approx(0.01)
    assert st.evaluate(P + "thm1", **{**A, "T": 1000}).value == pytest.approx(0.252)
    assert ev.applies


def test_cor1_explicit_case_b() -> None:
    ev = st.evaluate(P + "cor1@explicit", L=2, F=1, M=1, K=4, T=400, eta_g=2, sigma2=1, B2=1, G2=1)
    # T = 1*4*400 = 1600, sqrt = 40 ; eta_l = 1/(2*2*40) = 1/160
    # 4*2*1/40 = 0.2 ; 12*1*16/(4*1600) = 0.03 ; 6*1*4/(4*1600) = 0.00375 ; 4*1*1/40 = 0.1
    assert ev.value == pytest.approx(0.33375)
    assert ev.params["eta_l"] == pytest.approx(1 / 160)
    assert ev.applies


def test_cor1_explicit_small_horizon() -> None:
    ev = st.evaluate(P + "cor1@explicit", **{**C1, "T": 10})
    # T = 100: 4/10 + 1200/100 + 120/100 + 8/10 = 0.4 + 12 + 1.2 + 0.8
    assert ev.value == pytest.approx(14.4)
    assert not ev.applies  # eta_l = 0.1 > 1/(20 sqrt 3) and T = 100 < 1200


def test_cor1_horizon_conditions_both_sides() -> None:
    # first: NKR >= 4N^2K^2(2B^2+1)/eta_g^2 = 4*4*25*3 = 1200, i.e. R >= 120
    assert hyp(st.evaluate(P + "cor1@explicit", **{**C1, "T": 120}), "T=NKR>=4N^2K^2(2B^2+1)/eta_g^2").holds
    assert not hyp(st.evaluate(P + "cor1@explicit", **{**C1, "T": 119}), "T=NKR>=4N^2K^2(2B^2+1)/eta_g^2").holds
    # second (eta_g = 2: the first is 300): NKR >= 4N^2K^2 = 400, i.e. R >= 40
    ok = st.evaluate(P + "cor1@explicit", **{**C1, "T": 40, "eta_g": 2})
    bad = st.evaluate(P + "cor1@explicit", **{**C1, "T": 39, "eta_g": 2})
    assert hyp(ok, "T=NKR>=4N^2K^2").holds and hyp(ok, "T=NKR>=4N^2K^2(2B^2+1)/eta_g^2").holds
    assert not hyp(bad, "T=NKR>=4N^2K^2").holds
    assert ok.applies and not bad.applies


def test_cor1_choice_checked() -> None:
    ev = st.evaluate(P + "cor1@explicit", **C1, eta_l=0.02)
    # 1*0.02 != 1/(1*100)
    assert not hyp(ev, "choice eta_g eta_l = 1/(L sqrt(T)), T = NKR").holds


# --- Corollary 2, eq. (49) -------------------------------------------------------------------------
def test_cor2_is_o_form_only() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "cor2", **C1)
    assert e.value.name == P + "cor2" and "sl_noniid/cor2@explicit" in str(e.value)


def test_cor2_explicit_case_a() -> None:
    ev = st.evaluate(P + "cor2@explicit", **{**C1, "T": 100})
    # 4F/sqrt(R) = 0.4 ; 12 L^2 G^2/R = 0.12 ; 6 L^2 sigma^2/(K R) = 6/500 = 0.012 ; 4 L sigma^2/(K sqrt R) = 4/50 = 0.08
    assert ev.value == pytest.approx(0.612)
    # eta_l = 1/(N K eta_g sqrt(R)) = 1/100; Theorem 1 at R = 100 agrees
    assert ev.params["eta_l"] == pytest.approx(0.01)
    assert st.evaluate(P + "thm1", **{**A, "T": 100}).value == pytest.approx(0.612)
    assert ev.applies and ev.proof_conditions_hold


def test_cor2_explicit_case_b() -> None:
    ev = st.evaluate(P + "cor2@explicit", L=2, F=2, T=400, K=4, M=3, sigma2=2, G2=0.5, B2=1)
    # 4*2/20 = 0.4 ; 12*4*0.5/400 = 0.06 ; 6*4*2/(4*400) = 0.03 ; 4*2*2/(4*20) = 0.2
    assert ev.value == pytest.approx(0.69)
    assert ev.params["eta_l"] == pytest.approx(1 / 240)  # 1/(3*4*1*20)


def test_cor2_large_r_conditions_both_sides() -> None:
    c = {**C1}
    # R >= 4 L^2 (2B^2+1)/eta_g^2 = 12
    assert hyp(st.evaluate(P + "cor2@explicit", **{**c, "T": 12}), "R>=4L^2(2B^2+1)/eta_g^2").holds
    assert not hyp(st.evaluate(P + "cor2@explicit", **{**c, "T": 11}), "R>=4L^2(2B^2+1)/eta_g^2").holds
    # eta_g = 2: the first is 3, the second R >= 4 L^2 = 4
    assert hyp(st.evaluate(P + "cor2@explicit", **{**c, "T": 4, "eta_g": 2}), "R>=4L^2").holds
    assert not hyp(st.evaluate(P + "cor2@explicit", **{**c, "T": 3, "eta_g": 2}), "R>=4L^2").holds


def test_cor2_printed_second_term_disagrees() -> None:
    (disc,) = [x for x in st.get(P + "cor2").discrepancies if "second term" in x.where]
    assert r"\sqrt{KR}" in disc.printed and "KR" in disc.expected


# --- Corollary 3, eq. (50) -------------------------------------------------------------------------
def test_cor3_is_o_form_only() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "cor3", B2=1)
    assert e.value.name == P + "cor3" and "sl_noniid/cor3@explicit" in str(e.value)


def test_cor3_explicit_case_a() -> None:
    ev = st.evaluate(P + "cor3@explicit", L=0.25, F=1, M=1, K=1, T=32, sigma2=2, G2=1 / 3, B2=4)
    # r0 = 4F = 4, r0/R = 1/8 ; c = 4 L sigma^2/K = 2 ; e = L^2(12 G^2 + 6 sigma^2/K) = (4 + 12)/16 = 1
    # d = 2L max{sqrt(2B^2+1), 1} = 0.5*3 = 1.5
    # d r0/R = 1.5/8 = 0.1875 ; 2 sqrt(c r0/R) = 2 sqrt(1/4) = 1 ; 2 e^(1/3) (r0/R)^(2/3) = 2*(1/4) = 0.5
    assert ev.terms["step-size limit"] == pytest.approx(0.1875)
    assert ev.terms["variance"] == pytest.approx(1)
    assert ev.terms["client drift"] == pytest.approx(0.5)
    assert ev.value == pytest.approx(1.6875)
    # gamma = min{1/1.5, sqrt(1/16), (1/8)^(1/3)} = min{2/3, 1/4, 1/2} = 1/4 ; eta_l = gamma/(N K eta_g) = 0.25
    assert ev.params["eta_l"] == pytest.approx(0.25)
    assert ev.applies
    # Theorem 1 at this eta_l: 4/(0.25*32) + 12*0.0625*0.0625/3 + 6*0.0625*0.0625*2 + 4*0.25*0.25*2
    #   = 0.5 + 0.015625 + 0.046875 + 0.5 = 1.0625 <= 1.6875
    thm = st.evaluate(P + "thm1", L=0.25, F=1, M=1, K=1, T=32, sigma2=2, G2=1 / 3, B2=4, eta_l=0.25)
    assert thm.value == pytest.approx(1.0625)


def test_cor3_explicit_case_b() -> None:
    ev = st.evaluate(P + "cor3@explicit", L=1, F=2, M=1, K=3, T=8, sigma2=3, G2=1 / 6, B2=4)
    # r0/R = 8/8 = 1 ; c = 4*3/3 = 4 ; e = 12/6 + 18/3 = 8 ; d = 2*3 = 6
    # d r0/R = 6 ; 2 sqrt(4) = 4 ; 2*8^(1/3) = 4
    assert ev.value == pytest.approx(14)
    # gamma = min{1/6, sqrt(1/4), (1/8)^(1/3)} = 1/6 ; eta_l = 1/(6*3) = 1/18
    assert ev.params["eta_l"] == pytest.approx(1 / 18)


# --- Theorem 2 (FedAvg), eq. (51) ------------------------------------------------------------------
def test_thm2_case_a() -> None:
    ev = st.evaluate(P + "thm2", **A)
    # 4F/(K eta_g eta_l R) = 4/(5*0.01*10) = 8 ; 12 K(K-1) eta_l^2 L^2 G^2 = 240e-4 = 0.024
    # 6 (K-1) eta_l^2 L^2 sigma^2 = 24e-4 = 0.0024 ; 4 eta_g eta_l L sigma^2/N = 0.04/2 = 0.02
    assert ev.value == pytest.approx(8.0464)
    assert ev.applies


def test_thm2_case_b_one_local_step() -> None:
    ev = st.evaluate(P + "thm2", L=2, F=3, T=100, M=4, K=1, eta_l=0.05, eta_g=2, sigma2=0.5, G2=5, B2=1)
    # 12/(1*2*0.05*100) = 1.2 ; K - 1 = 0: no drift ; 4*2*0.05*2*0.5/4 = 0.1
    assert ev.value == pytest.approx(1.3)
    assert ev.terms["client drift (G^2)"] == 0
    # eta_g = 2 > sqrt 3: 1/(2*1*2*2) = 1/8 binds before 1/(4 sqrt 3)
    assert st.max_step(P + "thm2", L=2, K=1, B2=1, eta_g=2).max_step == pytest.approx(1 / 8)


def test_thm2_effective_rate() -> None:
    # eta_tilde = K eta_g eta_l = 0.05 -> eta_l = 0.01: case A
    p = {k: v for k, v in A.items() if k != "eta_l"}
    assert st.evaluate(P + "thm2", **p, eta_tilde=0.05).value == pytest.approx(8.0464)


# --- Sec. 4.3: FedAvg's linear speedup --------------------------------------------------------------
def test_speedup_is_o_form_only() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "sec4.3.speedup", **C1)
    assert e.value.name == P + "sec4.3.speedup" and "sl_noniid/sec4.3.speedup@explicit" in str(e.value)


def test_speedup_explicit_case_a() -> None:
    ev = st.evaluate(P + "sec4.3.speedup@explicit", L=1, F=1, M=4, K=5, T=20, sigma2=1, B2=1, G2=1)
    # KR = 100, NKR = 400 ; eta_l = sqrt(4)/(1*10) = 0.2
    # 4/20 = 0.2 ; 12*4*4/20 = 9.6 ; 6*4*4/100 = 0.96 ; 4/20 = 0.2
    assert ev.value == pytest.approx(10.96)
    assert ev.params["eta_l"] == pytest.approx(0.2)
    # equals Theorem 2 at eta_l = 0.2
    assert st.evaluate(P + "thm2", L=1, F=1, M=4, K=5, T=20, sigma2=1, B2=1, G2=1, eta_l=0.2).value == pytest.approx(
        10.96
    )
    assert not ev.applies  # 0.2 > 1/(10 sqrt 3): the horizon is too short


def test_speedup_explicit_case_b() -> None:
    ev = st.evaluate(P + "sec4.3.speedup@explicit", L=1, F=1, M=1, K=1, T=10000, sigma2=1, B2=1, G2=1)
    # eta_l = 1/100 ; 4/100 + 0 + 0 + 4/100
    assert ev.value == pytest.approx(0.08)
    assert ev.applies


# --- Theorem 3, eq. (53) ---------------------------------------------------------------------------
C3 = dict(L=1, F=1, T=10, M=2, K=5, eta_l=0.01, sigma2=1, eps2=1)


def test_thm3_case_a() -> None:
    ev = st.evaluate(P + "thm3", **C3)
    # 4F/(N K eta_l R) = 4/(2*5*0.01*10) = 4 ; 40 K^2 L^2 eta_l^2 G^2 = 40*25e-4 = 0.1
    # 10 K L^2 eta_l^2 sigma^2 = 50e-4 = 0.005 ; 4 L eta_l sigma^2 = 0.04 ; 4 G^2 = 4
    assert ev.value == pytest.approx(8.145)
    assert ev.terms["heterogeneity floor"] == pytest.approx(4)
    assert ev.applies and ev.proof_conditions_hold


def test_thm3_case_b() -> None:
    ev = st.evaluate(P + "thm3", L=2, F=4, T=50, M=4, K=2, eta_l=0.02, sigma2=0.5, eps2=0.25)
    # 16/(4*2*0.02*50) = 2 ; 40*4*4*4e-4*0.25 = 0.064 ; 10*2*4*4e-4*0.5 = 0.016 ; 4*2*0.02*0.5 = 0.08 ; 4*0.25 = 1
    assert ev.value == pytest.approx(3.16)


def test_thm3_implicit_young_condition() -> None:
    # 1/30 < eta_l = 0.04 < 1/(10 sqrt 5) = 0.0447: the statement holds, the corrected (68) needs eta_l <= 1/(6KL)
    ev = st.evaluate(P + "thm3", **{**C3, "eta_l": 0.04})
    assert ev.applies and not ev.proof_conditions_hold and "proof also needs" in ev.verdict()
    sc = st.max_step(P + "thm3", L=1, K=5)
    assert sc.max_step == pytest.approx(1 / (10 * math.sqrt(5)))
    assert sc.max_step_all == pytest.approx(1 / 30) and sc.binding_all == "(68) with Young's factor 2: eta_l<=1/(6KL)"


def test_thm3_needs_eta_g_one() -> None:
    # Theorem 3's bound is stated at eta_g = 1 and does not contain eta_g: another value is refused (it used to
    # be evaluated at eta_g = 1 with "the bound applies"); eta_g = 1 itself is accepted
    with pytest.raises(st.ParameterError, match=r"sl_noniid/thm3 is stated at eta_g = 1 only"):
        st.evaluate(P + "thm3", **C3, eta_g=2)
    assert st.evaluate(P + "thm3", **C3, eta_g=1).value == st.evaluate(P + "thm3", **C3).value


@pytest.mark.parametrize("rid", ["sec4.3.speedup@explicit", "tab1.fl"])
def test_a_result_stated_at_eta_g_one_refuses_another(rid: str) -> None:
    # both bounds are printed at eta_g = 1 (no eta_g in them): eta_g = 2 cannot be evaluated, only refused
    params = C1 if rid.startswith("sec4.3") else A
    with pytest.raises(st.ParameterError, match=r"is stated at eta_g = 1 only"):
        st.evaluate(P + rid, {**params, "eta_g": 2})


def test_thm3_g2_is_eps2() -> None:
    p = {k: v for k, v in C3.items() if k != "eps2"}
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "thm3", **p, G2=1)
    assert e.value.name == "eps2"
    # eta_tilde = K eta_l (Table 6): 0.05 -> eta_l = 0.01
    q = {k: v for k, v in C3.items() if k != "eta_l"}
    assert st.evaluate(P + "thm3", **q, eta_tilde=0.05).value == pytest.approx(8.145)


# --- Table 1 and the displays of Sec. 4.3 ----------------------------------------------------------
def test_tab1_fl() -> None:
    ev = st.evaluate(P + "tab1.fl", **A)
    # F/(eta_l K R) = 1/(0.01*5*10) = 2 ; eta_l^2 K^2 G^2 = 25e-4 ; eta_l^2 K sigma^2 = 5e-4 ; eta_l sigma^2/N = 0.005
    assert ev.value == pytest.approx(2.008)
    ev2 = st.evaluate(P + "tab1.fl", L=1, F=2, T=100, K=2, M=10, eta_l=0.1, sigma2=4, G2=3, B2=1)
    # 2/(0.1*2*100) = 0.1 ; 0.01*4*3 = 0.12 ; 0.01*2*4 = 0.08 ; 0.1*4/10 = 0.04
    assert ev2.value == pytest.approx(0.34)


def test_tab1_fl_eff() -> None:
    ev = st.evaluate(P + "tab1.fl_eff", **EFF)
    # F/(eta R) = 1/0.5 = 2 ; eta^2 G^2 = 0.0025 ; eta^2 sigma^2/K = 0.0005 ; eta sigma^2/(N K) = 0.005
    assert ev.value == pytest.approx(2.008)
    assert ev.params["eta_l"] == pytest.approx(0.01)  # eta_tilde/(K eta_g) = 0.05/5
    ev2 = st.evaluate(P + "tab1.fl_eff", L=1, F=2, T=100, K=2, M=10, eta_tilde=0.2, sigma2=4, G2=3, B2=1)
    # 0.1 + 0.12 + 0.08 + 0.2*4/20 = 0.34: row 3 is row 1 at eta_tilde = K eta_l
    assert ev2.value == pytest.approx(0.34)
    assert ev.applies and ev.proof_conditions_hold


def test_tab1_sl_eff() -> None:
    ev = st.evaluate(P + "tab1.sl_eff", **{**EFF, "eta_tilde": 0.1})
    # 1/1 = 1 ; 0.01 ; 0.01/5 = 0.002 ; 0.1/5 = 0.02 -- Theorem 1's case A terms over (4, 12, 6, 4)
    assert ev.value == pytest.approx(1.032)
    assert ev.params["eta_l"] == pytest.approx(0.01)  # 0.1/(2*5*1)
    ev2 = st.evaluate(P + "tab1.sl_eff", L=1, F=2, T=100, K=2, M=10, eta_tilde=0.2, sigma2=4, G2=3, B2=1)
    # 0.1 + 0.12 + 0.08 + 0.2*4/2 = 0.7
    assert ev2.value == pytest.approx(0.7)


def test_tab1_effective_rate_coupling() -> None:
    ev = st.evaluate(P + "tab1.sl_eff", **{**EFF, "eta_tilde": 0.1}, eta_l=0.02)
    # N K eta_g eta_l = 2*5*0.02 = 0.2 != 0.1
    assert not hyp(ev, "eta_tilde = N K eta_g eta_l").holds
    assert st.evaluate(P + "tab1.sl_eff", **{k: v for k, v in EFF.items() if k != "eta_tilde"}, eta_l=0.01).params[
        "eta_tilde"
    ] == pytest.approx(0.1)


def test_tab1_rounds_to_epsilon() -> None:
    p = dict(F=1, eps_target=0.1, sigma2=1, M=2, K=5, G2=1)
    # FL: F^2/eps^2 = 100 ; sigma^4/(N^2 K^2 eps^2) = 1/(4*25*0.01) = 1 ; (K G^2 + sigma^2)/(K eps) = 6/0.5 = 12
    assert st.evaluate(P + "tab1.fl_reps", **p).value == pytest.approx(113)
    # SL: 100 + 1/(25*0.01) + 12 = 116
    assert st.evaluate(P + "tab1.sl_reps", **p).value == pytest.approx(116)
    q = dict(F=2, epsilon=0.5, sigma2=4, M=1, K=2, G2=3)
    # N = 1: both 4/0.25 + 16/(4*0.25) + (6+4)/(2*0.5) = 16 + 16 + 10 = 42
    assert st.evaluate(P + "tab1.fl_reps", **q).value == pytest.approx(42)
    assert st.evaluate(P + "tab1.sl_reps", **{k: v for k, v in q.items() if k != "M"}).value == pytest.approx(42)


def test_sec43_displays() -> None:
    p = dict(L=1, B2=1, F=1, T=100, K=5, M=2, sigma2=1, G2=1)
    # F/sqrt R = 0.1 ; (K G^2 + sigma^2)/(K R) = 6/500 = 0.012 ; FL sigma^2/(N K sqrt R) = 0.01 ; SL sigma^2/(K sqrt R) = 0.02
    fl, sl = st.evaluate(P + "sec4.3.fl", **p), st.evaluate(P + "sec4.3.sl", **p)
    assert fl.value == pytest.approx(0.122) and sl.value == pytest.approx(0.132)
    assert fl.params["eta_tilde"] == pytest.approx(0.1) and fl.applies and fl.proof_conditions_hold
    # R = 4: 0.5 + 6/20 + 1/20 = 0.85 (FL) ; 0.5 + 0.3 + 1/10 = 0.9 (SL) ; eta_tilde = 1/2 > 1/(2 sqrt 3)
    fl4, sl4 = st.evaluate(P + "sec4.3.fl", **{**p, "T": 4}), st.evaluate(P + "sec4.3.sl", **{**p, "T": 4})
    assert fl4.value == pytest.approx(0.85) and sl4.value == pytest.approx(0.9)
    assert not fl4.proof_conditions_hold


# --- Table 4 ---------------------------------------------------------------------------------------
def test_tab4_fedavg() -> None:
    assert st.evaluate(P + "tab4.fl_client", d=1000).value == pytest.approx(2000)  # 2 x
    assert st.evaluate(P + "tab4.fl_client", d=2**20).value == pytest.approx(2**21)
    assert st.evaluate(P + "tab4.fl_round", M=10, d=1000).value == pytest.approx(20000)  # 2 N x
    assert st.evaluate(P + "tab4.fl_round", M=3, d=7).value == pytest.approx(42)


def test_tab4_split_learning_per_client() -> None:
    # E n_i q + E n_i q + x_c = 2*60*100*2 + 500 = 24500 ; centralized + 2 x_c = 24000 + 1000 = 25000
    assert st.evaluate(P + "tab4.sl_p2p_client", E=2, n_i=60, q=100, d_c=500).value == pytest.approx(24500)
    assert st.evaluate(P + "tab4.sl_central_client", E=2, n_i=60, q=100, d_c=500).value == pytest.approx(25000)
    # 1*10*3*2 + 7 = 67 ; 60 + 14 = 74
    assert st.evaluate(P + "tab4.sl_p2p_client", E_epochs=1, D_k=10, q_smash=3, d_c=7).value == pytest.approx(67)
    assert st.evaluate(P + "tab4.sl_central_client", E_epochs=1, D_k=10, q_smash=3, d_c=7).value == pytest.approx(74)


def test_tab4_split_learning_per_round() -> None:
    p = dict(E_epochs=2, n_data=600, M=10, d_c=500)
    # 2En + N x_c = 2400 + 5000 ; 2En + 2N x_c = 2400 + 10000 ; with the global update + x_c
    assert st.evaluate(P + "tab4.sl_p2p_round", **p).value == pytest.approx(7400)
    assert st.evaluate(P + "tab4.sl_central_round", **p).value == pytest.approx(12400)
    assert st.evaluate(P + "tab4.slg_p2p_round", **p).value == pytest.approx(7900)
    assert st.evaluate(P + "tab4.slg_central_round", **p).value == pytest.approx(12900)
    q = dict(E_epochs=1, n_data=10, M=1, d_c=7)
    # 20 + 7 = 27 ; 20 + 14 = 34 ; 27 + 7 = 34 ; 34 + 7 = 41
    assert st.evaluate(P + "tab4.sl_p2p_round", **q).value == pytest.approx(27)
    assert st.evaluate(P + "tab4.sl_central_round", **q).value == pytest.approx(34)
    assert st.evaluate(P + "tab4.slg_p2p_round", **q).value == pytest.approx(34)
    assert st.evaluate(P + "tab4.slg_central_round", **q).value == pytest.approx(41)


def test_tab4_round_total_lacks_q() -> None:
    # one client (N = 1, n = n_i = 10), q = 3: the client column gives 67, the printed round total 27;
    # they agree only when q = 1 (10 + 10 + 7 = 27)
    client = st.evaluate(P + "tab4.sl_p2p_client", E_epochs=1, D_k=10, q_smash=3, d_c=7).value
    total = st.evaluate(P + "tab4.sl_p2p_round", E_epochs=1, n_data=10, M=1, d_c=7).value
    assert client == pytest.approx(67) and total == pytest.approx(27)
    assert st.evaluate(P + "tab4.sl_p2p_client", E_epochs=1, D_k=10, q_smash=1, d_c=7).value == pytest.approx(total)
    assert any("q is missing" in x.note for x in st.get(P + "tab4.sl_p2p_round").discrepancies)


# --- catalogue and bad input -----------------------------------------------------------------------
def test_catalogue_and_editions() -> None:
    ids = {r.id for r in st.results("sl_noniid")}
    for rid in (
        "thm1",
        "thm1@proof",
        "lem4",
        "cor1",
        "cor1@explicit",
        "cor2@explicit",
        "cor3@explicit",
        "thm2",
        "thm3",
        "tab1.sl_reps",
        "tab4.slg_central_round",
    ):
        assert P + rid in ids
    assert [r.id for r in st.editions(st.get(P + "thm1"))] == [P + "thm1", P + "thm1@proof"]
    for r in st.results("sl_noniid"):
        assert r.provenance.seed == "002_56e5daea794305d7.txt" and r.statement
        assert r.explicit or (r.see and st.get(r.see).explicit and not r.terms)


@pytest.mark.parametrize(
    ("change", "name", "rule"),
    [
        ({"L": -1}, "L", "> 0"),
        ({"K": 0}, "K", "integer >= 1"),
        ({"T": 0}, "T", "integer >= 1"),
        ({"M": 2.5}, "M", "integer >= 1"),
        ({"eta_l": -0.01}, "eta_l", "> 0"),
        ({"sigma2": float("inf")}, "sigma2", "finite"),
        ({"foo": 1}, "foo", "unknown parameter"),
        ({"F": None}, "F", "missing"),
        ({"R": 10}, "R", "given twice"),
        ({"eta_l": "fast"}, "eta_l", "must be a number"),
    ],
)
def test_bad_input_names_parameter(change: dict, name: str, rule: str) -> None:
    p = {k: v for k, v in {**A, **change}.items() if v is not None}
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "thm1", **p)
    assert e.value.name == name and rule in str(e.value)


def test_bad_input_counts_in_models() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "tab4.sl_p2p_client", E_epochs=1, D_k=10.5, q_smash=3, d_c=7)
    assert e.value.name == "D_k"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + "tab4.sl_p2p_round", E_epochs=0, n_data=10, M=1, d_c=7)
    assert e.value.name == "E_epochs"
    with pytest.raises(st.ParameterError) as e:
        st.max_step(P + "thm3", L=1)
    assert e.value.name == "K"


# --- eq. (43): the one-round inequality of Theorem 1's proof ---------------------------------------------
R43 = dict(L=1, M=2, K=5, eta_l=0.01, sigma2=1, B2=1, G2=1, gradnorm2_f=2)


def test_eq43_case_a() -> None:
    ev = st.evaluate(P + "eq43", **R43)
    # -(1/4)||grad f||^2         = -2/4                     = -0.5
    # N L eta_g eta_l sigma^2     = 2*1*1*0.01*1             = 0.02
    # (3/2) N^2 K L^2 eta_l^2 s^2 = 1.5*4*5*1e-4             = 0.003
    # 3 N^2 K^2 L^2 eta_l^2 G^2   = 3*4*25*1e-4              = 0.03
    assert ev.terms["descent"] == pytest.approx(-0.5)
    assert ev.terms["global variance"] == pytest.approx(0.02)
    assert ev.terms["client drift (sigma^2)"] == pytest.approx(0.003)
    assert ev.terms["client drift (G^2)"] == pytest.approx(0.03)
    assert ev.value == pytest.approx(-0.447)
    assert ev.derived == {"eta_g": "1"} and ev.applies and ev.proof_conditions_hold


def test_eq43_case_b_averages_to_thm1_proof() -> None:
    ev = st.evaluate(P + "eq43", L=2, M=4, K=2, eta_l=1e-3, eta_g=2, sigma2=0.5, G2=2, B2=4, gradnorm2_f=0.4)
    # -0.4/4 = -0.1 ; 4*2*2*1e-3*0.5 = 0.008 ; 1.5*16*2*4*1e-6*0.5 = 9.6e-5 ; 3*16*4*4*1e-6*2 = 1.536e-3
    assert ev.value == pytest.approx(-0.1 + 0.008 + 9.6e-5 + 1.536e-3)
    # averaging (43) over the rounds and multiplying by 4 gives (44): four times the three error terms are the last
    # three terms of Theorem 1's case B, 7.538528 - 7.5 = 0.038528 = 4*(0.008 + 9.6e-5 + 1.536e-3)
    errors = ev.value - ev.terms["descent"]
    assert 4 * errors == pytest.approx(0.038528)
    thm = st.evaluate(P + "thm1@proof", L=2, F=3, T=100, M=4, K=2, eta_l=1e-3, eta_g=2, sigma2=0.5, B2=4, G2=2)
    assert 4 * errors == pytest.approx(thm.value - thm.terms["initialisation"])


def test_eq43_conditions_are_theorem_1s() -> None:
    base = {k: v for k, v in R43.items() if k != "eta_l"}
    sc = st.max_step(P + "eq43", **base)
    # (45): 1/(2*2*5*1*sqrt 3) = 1/(20 sqrt 3) = 0.02887 binds; (46): 1/(2*2*5*1*1) = 0.05 ; (47) 0.05 (proof only)
    assert sc.max_step == pytest.approx(1 / (20 * math.sqrt(3)))
    assert sc.binding == "eq.(45) D=4N^2K^2L^2eta_l^2<=1/(2B^2+1)"
    above = st.evaluate(P + "eq43", **base, eta_l=0.03)
    assert not above.applies and "eq.(45)" in above.verdict()
    assert hyp(st.evaluate(P + "eq43", **R43), "eq.(47) 2NKL eta_l<=1").source == "proof"


def test_thm1_proof_eq47_is_printed_in_the_proof_only() -> None:
    # (47) 2NKL eta_l <= 1 comes from Lemma 4 and is printed only in the constraint summary of App. D.2; (45) and (46)
    # are the two branches of (48), the condition Theorem 1 prints
    ev = st.evaluate(P + "thm1@proof", **A)
    assert hyp(ev, "eq.(47) 2NKL eta_l<=1").source == "proof"
    assert hyp(ev, "eq.(45) D=4N^2K^2L^2eta_l^2<=1/(2B^2+1)").source == "statement"
    assert hyp(ev, "eq.(46) 2NK eta_g eta_l L<=1").source == "statement"


# --- eq. (69): the per-client inequality of Theorem 3's proof ----------------------------------------------
R69 = dict(L=1, K=5, eta_l=0.01, sigma2=1, eps2=1, gradnorm2_f=2)


def test_eq69_case_a_averages_to_thm3() -> None:
    ev = st.evaluate(P + "eq69", **R69)
    # -(1/4)*2 = -0.5 ; L eta_l sigma^2 = 0.01 ; G^2 = 1 ; (5/2) K L^2 eta_l^2 sigma^2 = 2.5*5*1e-4 = 0.00125
    # 10 K^2 L^2 eta_l^2 G^2 = 10*25*1e-4 = 0.025 ; total -0.5 + 0.01 + 1 + 0.00125 + 0.025 = 0.53625
    assert ev.terms["heterogeneity floor"] == pytest.approx(1)
    assert ev.terms["client drift (G^2)"] == pytest.approx(0.025)
    assert ev.value == pytest.approx(0.53625)
    assert ev.applies and ev.proof_conditions_hold
    # four times the error terms, 4*(0.01 + 1 + 0.00125 + 0.025) = 4.145, are Theorem 3's case A without its
    # initialisation term: 8.145 - 4
    errors = ev.value - ev.terms["descent"]
    assert 4 * errors == pytest.approx(4.145)
    thm = st.evaluate(P + "thm3", **C3)
    assert 4 * errors == pytest.approx(thm.value - thm.terms["initialisation"])


def test_eq69_case_b() -> None:
    ev = st.evaluate(P + "eq69", L=2, K=2, eta_l=0.02, sigma2=0.5, eps2=0.25, gradnorm2_f=1)
    # -0.25 ; 2*0.02*0.5 = 0.02 ; 0.25 ; 2.5*2*4*4e-4*0.5 = 0.004 ; 10*4*4*4e-4*0.25 = 0.016 ; total 0.04
    assert ev.value == pytest.approx(0.04)
    # Theorem 3's case B: 3.16 - 2 (initialisation) = 1.16 = 4*(0.02 + 0.25 + 0.004 + 0.016)
    thm = st.evaluate(P + "thm3", L=2, F=4, T=50, M=4, K=2, eta_l=0.02, sigma2=0.5, eps2=0.25)
    assert 4 * (ev.value - ev.terms["descent"]) == pytest.approx(thm.value - thm.terms["initialisation"])


def test_eq69_young_condition_and_effective_rate() -> None:
    # 1/30 < 0.04 < 1/(10 sqrt 5) = 0.0447: (73) holds, the corrected (68) needs eta_l <= 1/(6KL) = 1/30
    ev = st.evaluate(P + "eq69", **{**R69, "eta_l": 0.04})
    assert ev.applies and not ev.proof_conditions_hold
    assert {h.name for h in ev.failed()} == {"(68) with Young's factor 2: eta_l<=1/(6KL)"}
    # eta_tilde = K eta_l (Table 6): 0.05 -> eta_l = 0.01, case A
    q = {k: v for k, v in R69.items() if k != "eta_l"}
    assert st.evaluate(P + "eq69", **q, eta_tilde=0.05).value == pytest.approx(0.53625)


# --- eq. (67): one client's drift (Wang et al., 2020) ------------------------------------------------------
def test_eq67_case_a() -> None:
    ev = st.evaluate(P + "eq67", L=1, K=5, eta_l=0.01, sigma2=1, gradnorm2_Fk=2)
    # D = 4 K^2 L^2 eta_l^2 = 4*25*1e-4 = 0.01 ; 4 K^3 eta_l^2 ||grad f_i||^2 = 4*125*1e-4*2 = 0.1
    # 2 K^2 eta_l^2 sigma^2 = 2*25*1e-4 = 0.005 ; (0.1 + 0.005)/0.99 = 0.1060606...
    assert ev.terms["gradient"] == pytest.approx(0.1 / 0.99)
    assert ev.value == pytest.approx(0.105 / 0.99)
    assert ev.applies and not ev.void


def test_eq67_case_b() -> None:
    ev = st.evaluate(P + "eq67", L=0.5, K=1, eta_l=0.5, sigma2=2, gradnorm2_Fk=3)
    # D = 4*1*0.25*0.25 = 0.25 ; (4*1*0.25*3 + 2*1*0.25*2)/0.75 = (3 + 1)/0.75 = 16/3
    assert ev.value == pytest.approx(16 / 3)


def test_eq67_is_lemma_4_for_one_client() -> None:
    # at N = 1, (16) with B^2||grad f||^2 + G^2 = 1*1 + 1 = 2 is (67) with ||grad f_i||^2 = 2: both (0.005 + 0.1)/0.99
    lem = st.evaluate(P + "lem4", L=1, M=1, K=5, eta_l=0.01, sigma2=1, B2=1, G2=1, gradnorm2_f=1)
    one = st.evaluate(P + "eq67", L=1, K=5, eta_l=0.01, sigma2=1, gradnorm2_Fk=2)
    assert lem.value == pytest.approx(one.value) == pytest.approx(0.105 / 0.99)


def test_eq67_denominator_both_sides() -> None:
    p = dict(L=1, K=5, sigma2=1, gradnorm2_Fk=1)
    # 1 - 4 K^2 L^2 eta_l^2 > 0 <=> eta_l < 1/(2KL) = 0.1, where (72) 2K eta_l L <= 1 still holds
    below = st.evaluate(P + "eq67", **p, eta_l=0.1 * (1 - 1e-9))
    above = st.evaluate(P + "eq67", **p, eta_l=0.1 * (1 + 1e-6))
    edge = st.evaluate(P + "eq67", **p, eta_l=0.1)
    assert not below.void and above.void and edge.void
    assert hyp(edge, "eq.(72) 2K eta_l L<=1").holds and hyp(edge, "1-4K^2L^2eta_l^2>0").source == "implicit"
    assert st.max_step(P + "eq67", L=1, K=5).max_step == pytest.approx(0.1)
    assert any(x.where == "App. D.4, eq. (67)" for x in st.get(P + "eq67").discrepancies)


# --- Sec. 4.2, "Effect of eta_g": the rates at eta_g = 1 and eta_g = N ----------------------------------------
@pytest.mark.parametrize(
    ("label", "rate_part"), [("sec4.2.eta_g1", "N^2K^2G^2"), ("sec4.2.eta_gN", r"\frac{K^2G^2+K\sigma^2}{T}")]
)
def test_eta_g_rates_are_o_form_only(label: str, rate_part: str) -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P + label, **C1)
    assert e.value.name == P + label and f"{P}{label}@explicit" in str(e.value)
    r = st.get(P + label)
    assert rate_part in (r.rate or "") and not r.explicit and r.see == f"{P}{label}@explicit"
    # both inherit Corollary 1's missing N in sigma^2/sqrt(T)
    assert any("T_3" in x.where for x in r.discrepancies)


def test_eta_g1_explicit() -> None:
    ev = st.evaluate(P + "sec4.2.eta_g1@explicit", **C1)
    # T = NKR = 10^4 ; 4 L F/100 = 0.04 ; 12 N^2 K^2 G^2/T = 1200/10^4 = 0.12 ; 6 N^2 K sigma^2/T = 0.012 ; 4 N/100 = 0.08
    assert ev.value == pytest.approx(0.252)
    assert ev.params["eta_g"] == 1 and ev.params["eta_l"] == pytest.approx(0.01) and ev.applies
    assert ev.value == pytest.approx(st.evaluate(P + "cor1@explicit", **C1).value)
    with pytest.raises(st.ParameterError, match=r"is stated at eta_g = 1 only"):
        st.evaluate(P + "sec4.2.eta_g1@explicit", **C1, eta_g=2)


def test_eta_gN_explicit_case_a() -> None:
    ev = st.evaluate(P + "sec4.2.eta_gN@explicit", **C1)
    # eta_g = N = 2, eta_l = 1/(eta_g L sqrt(NKR)) = 1/(2*100) = 0.005
    # 4 L F/100 = 0.04 ; 12 K^2 G^2/T = 300/10^4 = 0.03 ; 6 K sigma^2/T = 30/10^4 = 0.003 ; 4 N sigma^2/100 = 0.08
    assert ev.value == pytest.approx(0.153)
    assert ev.params["eta_g"] == 2 and ev.params["eta_l"] == pytest.approx(0.005) and ev.applies
    # Theorem 1 at eta_g = 2, eta_l = 0.005, R = 1000: 4/(2*5*2*0.005*1000) + 12*4*25*25e-6 + 6*4*5*25e-6 + 4*2*2*0.005
    thm = st.evaluate(P + "thm1", **{**A, "T": 1000, "eta_g": 2, "eta_l": 0.005})
    assert thm.value == pytest.approx(0.04 + 0.03 + 0.003 + 0.08) == pytest.approx(ev.value)
    assert not st.evaluate(P + "sec4.2.eta_gN@explicit", **C1, eta_g=3).applies  # eta_g = N fails


def test_eta_gN_explicit_case_b_and_horizon() -> None:
    ev = st.evaluate(P + "sec4.2.eta_gN@explicit", L=2, F=1, M=4, K=1, T=100, sigma2=1, G2=1, B2=1)
    # NKR = 400, sqrt 20 ; 4*2*1/20 = 0.4 ; 12*1*1/400 = 0.03 ; 6*1*1/400 = 0.015 ; 4*4*1/20 = 0.8
    assert ev.value == pytest.approx(1.245)
    assert ev.params["eta_l"] == pytest.approx(1 / 160)  # 1/(4*2*20)
    # horizon at eta_g = N = 2, B^2 = 1: NKR >= 4 N^2 K^2 max{3/4, 1} = 400, i.e. R >= 40 with N K = 10
    assert hyp(st.evaluate(P + "sec4.2.eta_gN@explicit", **{**C1, "T": 40}), "T=NKR>=4N^2K^2").holds
    assert not hyp(st.evaluate(P + "sec4.2.eta_gN@explicit", **{**C1, "T": 39}), "T=NKR>=4N^2K^2").holds


def test_new_results_in_catalogue() -> None:
    ids = [r.id for r in st.results("sl_noniid")]
    assert len(ids) == 35
    new = ["eq43", "eq67", "eq69", "sec4.2.eta_g1", "sec4.2.eta_g1@explicit", "sec4.2.eta_gN", "sec4.2.eta_gN@explicit"]
    assert all(P + x in ids for x in new)
    # next to their relatives: (43) after Theorem 1, the eta_g rates after Corollary 1, (69) and (67) after Theorem 3
    assert ids.index(P + "eq43") == ids.index(P + "thm1@proof") + 1
    assert ids.index(P + "sec4.2.eta_g1") == ids.index(P + "cor1@explicit") + 1
    assert ids.index(P + "eq69") == ids.index(P + "thm3") + 1
    for r in st.results("sl_noniid"):
        assert "ICLR 2023" in r.provenance.reference and all("TODO" not in d.rule for d in r.defaults)
