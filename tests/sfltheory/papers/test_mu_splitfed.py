"""MU-SplitFed (seed 000_0fb66116fc20c956.txt) against hand calculations from the printed formulas.

Every expected number below is worked out by hand in the comment next to it, from the equation cited.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sfltheory as st

# Shared inputs. Case A: small round numbers.
A = dict(L=1, F=1, T=10, tau=2, d_c=1, d_s=1, eta=0.001, sigma_c2=1, sigma_s2=1, lam=0.1)


# --- Theorem 4.1, eq. (8) --------------------------------------------------------------------------
def test_thm41_case_a() -> None:
    ev = st.evaluate("mu_splitfed/thm4.1", **A)
    # init   4F/(eta tau T)                      = 4/(0.001*2*10)             = 200
    # server 16 eta L (eta tau L + 1) d_s s_s^2  = 0.016*(0.002+1)            = 0.016032
    # client 8 eta tau L d_c s_c^2               = 8*0.001*2                  = 0.016
    # ZO s   4 L^2 (eta^2 tau^2 L^2 + 1/4) lam^2 d_s^3 = 4*(4e-6+0.25)*0.01   = 0.01000016
    # ZO c   L^2 lam^2 d_c^3                     = 0.01
    assert ev.terms["initialisation"] == pytest.approx(200)
    assert ev.terms["server variance"] == pytest.approx(0.016032)
    assert ev.terms["client variance"] == pytest.approx(0.016)
    assert ev.terms["ZO bias server"] == pytest.approx(0.01000016)
    assert ev.terms["ZO bias client"] == pytest.approx(0.01)
    assert ev.value == pytest.approx(200.05203216)
    # branches: 1/(64*1*(2+2)) = 1/256 and 1/(16*1*2*1) = 1/32, both above eta = 0.001
    assert ev.applies and ev.proof_conditions_hold
    assert "applies" in ev.verdict()


def test_thm41_case_b() -> None:
    ev = st.evaluate(
        "mu_splitfed/thm4.1", L=2, F=10, T=100, tau=4, d_c=10, d_s=1000, eta=1e-6, sigma_c2=1, sigma_s2=2, lam=1e-4
    )
    # init   40/(1e-6*4*100)                          = 100000
    # server 16*1e-6*2*(1e-6*4*2+1)*1000*2 = 0.064*1.000008 = 0.064000512
    # client 8*1e-6*4*2*10*1                          = 6.4e-4
    # ZO s   4*4*(1e-12*16*4+0.25)*1e-8*1e9 = 160*0.250000000064 = 40.00000001024
    # ZO c   4*1e-8*1000                              = 4e-5
    assert ev.value == pytest.approx(100000 + 0.064000512 + 6.4e-4 + 40.00000001024 + 4e-5, rel=1e-12)


def test_thm41_proof_edition_has_the_factor_two() -> None:
    ev = st.evaluate("mu_splitfed/thm4.1@proof", **A)
    # server 16*0.001*(2*0.002+1) = 0.016064 ; ZO s 4*(2*4e-6+0.25)*0.01 = 0.01000032
    assert ev.terms["server variance"] == pytest.approx(0.016064)
    assert ev.terms["ZO bias server"] == pytest.approx(0.01000032)
    # 200 + 0.016064 + 0.016 + 0.01000032 + 0.01
    assert ev.value == pytest.approx(200.05206432)
    # the gap to the statement is 16 eta L (eta tau L) d_s s_s^2 + 4 L^2 eta^2 tau^2 L^2 lam^2 d_s^3
    # = 16*0.001*0.002 + 4*4e-6*0.01 = 3.2e-5 + 1.6e-7 = 3.216e-5
    assert ev.value - st.evaluate("mu_splitfed/thm4.1", **A).value == pytest.approx(3.216e-5)


def test_thm41_proof_edition_with_p2() -> None:
    ev = st.evaluate("mu_splitfed/thm4.1@proof", **A, P=2)
    # variance terms halve: 0.016064/2 = 0.008032, 0.016/2 = 0.008; others unchanged
    assert ev.value == pytest.approx(200 + 0.008032 + 0.008 + 0.01000032 + 0.01)


def test_thm41_first_branch_binds_on_both_sides() -> None:
    p = dict(L=1, tau=2, d_c=1, d_s=1)
    sc = st.max_step("mu_splitfed/thm4.1", **p)
    # min{1/(64*(2+2)), 1/(16*2*1)} = min{1/256, 1/32}
    assert sc.max_step == pytest.approx(1 / 256)
    assert sc.binding == "eta<=1/(64L(tau+2d_s))"
    below = st.evaluate("mu_splitfed/thm4.1", **{**A, "eta": (1 / 256) * (1 - 1e-9)})
    above = st.evaluate("mu_splitfed/thm4.1", **{**A, "eta": (1 / 256) * (1 + 1e-6)})
    assert below.applies and not above.applies
    assert [h.name for h in above.failed()] == ["eta<=1/(64L(tau+2d_s))"]


def test_thm41_second_branch_binds_on_both_sides() -> None:
    # d_c = 100: 1/(16*1*2*100) = 1/3200 < 1/(64*(2+2)) = 1/256
    sc = st.max_step("mu_splitfed/thm4.1", L=1, tau=2, d_c=100, d_s=1)
    assert sc.max_step == pytest.approx(1 / 3200)
    assert sc.binding == "eta<=1/(16L tau d_c)"
    base = {**A, "d_c": 100}
    assert st.evaluate("mu_splitfed/thm4.1", **{**base, "eta": 1 / 3200 * (1 - 1e-9)}).applies
    assert not st.evaluate("mu_splitfed/thm4.1", **{**base, "eta": 1 / 3200 * (1 + 1e-6)}).applies


def test_thm41_proof_conditions_are_implied_at_p1() -> None:
    # Claim in papers/mu_splitfed.py: App. C.1's extra conditions never bind when P = 1.
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = dict(
            L=float(rng.uniform(0.1, 100)),
            tau=int(rng.integers(1, 100)),
            d_c=int(rng.integers(1, 10**6)),
            d_s=int(rng.integers(1, 10**8)),
        )
        sc = st.max_step("mu_splitfed/thm4.1", **p)
        assert sc.max_step_all == pytest.approx(sc.max_step)


def test_thm41_check_lr_with_separate_client_and_server_steps() -> None:
    # eta_s = 0.001, eta_c = 0.003 != tau*eta_s = 2*0.001 = 0.002: the coupling fails
    sc = st.max_step("mu_splitfed/thm4.1", L=1, tau=2, d_c=1, d_s=1, eta_s=0.001, eta_c=0.003)
    (coupling,) = sc.other
    assert coupling.name == "coupling eta_c = tau*eta_s" and not coupling.holds
    assert sc.given == pytest.approx(0.001)


# --- Corollary 4.2, eq. (9) ------------------------------------------------------------------------
def test_cor42_at_a_large_horizon() -> None:
    # d = 16, tau = 4: d_c = sqrt(16/4) = 2, d_s = 14. T = 2^20: sqrt(tau T) = 2048, sqrt(T) = 1024
    ev = st.evaluate("mu_splitfed/cor4.2", L=1, F=2, T=2**20, tau=4, d=16, sigma_s2=0.5, sigma_c2=3)
    # init   4 sqrt(d) F/sqrt(tau T)     = 4*4*2/2048 = 0.015625
    # server 48 L sqrt(d) s_s^2/sqrt(tau T) = 48*4*0.5/2048 = 0.046875
    # ZO     9 sqrt(d)/sqrt(tau T)       = 36/2048 = 0.017578125
    # client 8 L s_c^2/sqrt(T)           = 24/1024 = 0.0234375
    assert ev.value == pytest.approx(0.103515625)
    assert ev.params["d_c"] == pytest.approx(2) and ev.params["d_s"] == pytest.approx(14)
    # eta = 1/sqrt(d tau T) = 1/8192 <= 1/(64*(4+28)) = 1/2048 and <= 1/(16*4*2) = 1/128
    assert ev.params["eta"] == pytest.approx(1 / 8192)
    assert ev.applies and ev.proof_conditions_hold


def test_cor42_choice_violates_branch_at_small_horizon() -> None:
    ev = st.evaluate("mu_splitfed/cor4.2", L=1, F=1, T=100, tau=4, d=16, sigma_s2=1, sigma_c2=1)
    # init 16/20 = 0.8; server 48*4/20 = 9.6; ZO 36/20 = 1.8; client 8/10 = 0.8
    assert ev.value == pytest.approx(13.0)
    # eta = 1/sqrt(16*4*100) = 1/80 > 1/(64*(4+28)) = 1/2048: the corollary's own eta is infeasible
    assert not ev.applies
    assert "eta<=1/(64L(tau+2d_s))" in ev.verdict()


def test_cor42_split_rule_tolerates_integer_rounding() -> None:
    base = dict(L=1, F=1, T=2**20, tau=4, d=20, sigma_s2=1, sigma_c2=1)
    # sqrt(20/4) = 2.236: d_c = 2 or 3 are real cuts within 1; d_c = 4 is not
    assert st.evaluate("mu_splitfed/cor4.2", **base, d_c=3).hypotheses[1].holds
    assert not st.evaluate("mu_splitfed/cor4.2", **base, d_c=4).hypotheses[1].holds


def test_cor42_proof_edition() -> None:
    lam = math.sqrt(1 / 2097152)  # lam^2 = 1/(sqrt(tau T) d^(5/2) L) = 1/(2048*1024)
    ev = st.evaluate(
        "mu_splitfed/cor4.2@proof", L=1, F=2, T=2**20, tau=4, d=16, d_c=2, sigma_s2=0.5, sigma_c2=3, lam=lam
    )
    # init      4*4*2/2048                          = 0.015625
    # server    48*1*14*0.5/sqrt(16*4*2^20)         = 336/8192 = 0.041015625
    # ZO s      9*lam^2*14^3 = 9*2744/2097152       = 0.011775970458984375
    # ZO c      lam^2*2^3 = 8/2097152               = 3.814697265625e-06
    # client    8*sqrt(4)*1*2*3/sqrt(16*2^20)       = 96/4096 = 0.0234375
    assert ev.value == pytest.approx(0.09185791015625)
    # With L = 4 and the corollary's lam, the proof's ZO terms keep a factor L that (9) drops:
    lam4 = math.sqrt(1 / (2048 * 1024 * 4))
    ev4 = st.evaluate(
        "mu_splitfed/cor4.2@proof", L=4, F=2, T=2**20, tau=4, d=16, d_c=2, sigma_s2=0.5, sigma_c2=3, lam=lam4
    )
    # 16*(9*2744 + 8)/(2097152*4) = 4*24704/2097152 = 0.047119140625 vs printed 9*4/2048 = 0.017578125
    assert ev4.terms["ZO bias server"] + ev4.terms["ZO bias client"] == pytest.approx(0.047119140625)


# --- Theorem 4.3, eq. (10) -------------------------------------------------------------------------
B = dict(L=1, F=1, T=10, tau=2, d_c=1, d_s=1, M=2, eta=0.001, eta_g=1, sigma_c2=1, sigma_s2=1, eps2=1, lam=0.1)


def test_thm43_case_b() -> None:
    ev = st.evaluate("mu_splitfed/thm4.3", **B)
    # init     4F/(T eta_g eta tau)                     = 4/(10*0.001*2) = 200
    # server   16 eta (2 eta tau L + eta_g/M) L d_s s_s^2 = 0.016*(0.004+0.5) = 0.008064
    # client   4 eta_g eta tau L d_c s_c^2/M            = 0.008/2 = 0.004
    # het s    24 eta (4 eta tau L + eta_g/M) L (tau+2d_s) eps^2 = 0.024*0.508*4 = 0.048768
    # het c    12 eta_g eta tau L d_c eps^2/M           = 0.024/2 = 0.012
    # ZO s     (1/tau + 8 eta^2 tau L^2 + 2 eta_g eta/M) tau L^2 lam^2 d_s^3 = (0.5+1.6e-5+0.001)*0.02 = 0.01002032
    # ZO c     0.01
    assert ev.terms["server heterogeneity"] == pytest.approx(0.048768)
    assert ev.terms["ZO bias server"] == pytest.approx(0.01002032)
    assert ev.value == pytest.approx(200.09285232)
    assert ev.applies and ev.proof_conditions_hold


def test_thm43_case_c() -> None:
    ev = st.evaluate(
        "mu_splitfed/thm4.3",
        L=2,
        F=5,
        T=50,
        tau=1,
        d_c=2,
        d_s=3,
        M=4,
        eta=1e-3,
        eta_g=2,
        sigma_c2=0.5,
        sigma_s2=0.25,
        eps2=0.1,
        lam=0.01,
    )
    # init   20/(50*2*0.001*1)                       = 200
    # server 0.016*(0.004+0.5)*2*3*0.25/2 ... = 16*0.001*0.504*2*3*0.25 = 0.012096
    # client 4*2*0.001*1*2*2*0.5/4                   = 0.004
    # het s  24*0.001*(0.008+0.5)*2*7*0.1            = 0.0170688
    # het c  12*2*0.001*1*2*2*0.1/4                  = 0.0024
    # ZO s   (1 + 3.2e-5 + 0.001)*1*4*1e-4*27        = 0.0108111456
    # ZO c   4*1e-4*8                                = 0.0032
    assert ev.value == pytest.approx(200.0495759456)


def test_thm43_appendix_same_bound_other_branch() -> None:
    main, app = st.evaluate("mu_splitfed/thm4.3", **B), st.evaluate("mu_splitfed/thm4.3@appendix", **B)
    assert app.value == pytest.approx(200.09285232)
    assert app.value == main.value
    sc = st.max_step("mu_splitfed/thm4.3@appendix", L=1, tau=2, d_s=1, d_c=1, M=2, eta_g=1)
    # 1/sqrt(120*(4+4)) = 1/sqrt(960) < M/(12 tau L d_c) = 1/12
    assert sc.max_step == pytest.approx(1 / math.sqrt(960))
    # the main text's branch 1/(120*2*(1+1)) = 1/480 is stricter than D.1's
    assert st.max_step("mu_splitfed/thm4.3", L=1, tau=2, d_s=1, d_c=1, M=2, eta_g=1).max_step == pytest.approx(1 / 480)


def test_thm43_proof_edition_p2() -> None:
    ev = st.evaluate("mu_splitfed/thm4.3@proof", **B, P=2)
    # server 0.008064/2 = 0.004032; client 0.004/2 = 0.002; het s 0.024*0.508*(2+2/2) = 0.036576;
    # het c 0.012/2 = 0.006; ZO unchanged 0.01002032 + 0.01
    assert ev.value == pytest.approx(200.06862832)


def test_thm43_branches_both_sides() -> None:
    p = dict(L=1, tau=2, d_s=1, M=2, eta_g=1)
    # first branch binds at d_c = 1: 1/480 vs 2/24
    assert st.max_step("mu_splitfed/thm4.3", **p, d_c=1).binding == "eta<=1/(120L tau(1+2d_s/tau))"
    assert st.evaluate("mu_splitfed/thm4.3", **{**B, "eta": 1 / 480 * (1 - 1e-9)}).applies
    assert not st.evaluate("mu_splitfed/thm4.3", **{**B, "eta": 1 / 480 * (1 + 1e-6)}).applies
    # second binds at M = 1, d_c = 100: 1/(12*2*100) = 1/2400 < 1/480
    sc = st.max_step("mu_splitfed/thm4.3", **{**p, "M": 1}, d_c=100)
    assert sc.binding == "eta<=M/(12 tau L d_c)" and sc.max_step == pytest.approx(1 / 2400)
    b2 = {**B, "M": 1, "d_c": 100}
    assert st.evaluate("mu_splitfed/thm4.3", **{**b2, "eta": 1 / 2400 * (1 - 1e-9)}).applies
    assert not st.evaluate("mu_splitfed/thm4.3", **{**b2, "eta": 1 / 2400 * (1 + 1e-6)}).applies


def test_thm43_implicit_conditions_bind_for_large_global_step() -> None:
    sc = st.max_step("mu_splitfed/thm4.3", L=1, tau=1, d_s=1, d_c=1, M=1, eta_g=100)
    # statement: min{1/(120*(1+2)), 1/(12*1*1*1)} = 1/360
    assert sc.max_step == pytest.approx(1 / 360)
    # implicit server coefficient: 6 eta (4 eta + 100)(1 + 2) <= 1/4, i.e. 72 eta^2 + 1800 eta - 1/4 <= 0,
    # positive root by the quadratic formula:
    root = (-1800 + math.sqrt(1800**2 + 4 * 72 * 0.25)) / (2 * 72)
    assert sc.max_step_all == pytest.approx(root, rel=1e-9)
    assert sc.binding_all == "D.1.3 server coefficient <= -eta_g eta_s tau/4"
    # the other implicit branches: 1/(2*100) = 0.005, 1/100 = 0.01, 1/(12*100) = 1/1200
    bounds = {b.name: b.bound for b in sc.branches}
    assert bounds["D.1.3 drop server ||sum grad f_lambda||^2: eta_g eta_s tau L<=1/2"] == pytest.approx(0.005)
    assert bounds["D.1.3 drop client ||sum grad f_lambda||^2: eta_g eta_c L<=1"] == pytest.approx(0.01)
    assert bounds["D.1.3 client coefficient: eta_c<=MP/(12 eta_g L d_c)"] == pytest.approx(1 / 1200)
    ev = st.evaluate("mu_splitfed/thm4.3", **{**B, "tau": 1, "M": 1, "eta_g": 100, "eta": 1e-3})
    assert ev.applies and not ev.proof_conditions_hold
    assert "proof also needs" in ev.verdict()


# --- Corollary 4.4, eq. (11) -----------------------------------------------------------------------
def test_cor44_case_one() -> None:
    ev = st.evaluate("mu_splitfed/cor4.4", L=1, F=1, T=100, tau=4, M=4, d=16, eps2=1, sigma_s2=1, sigma_c2=1)
    # sqrt(tau T M) = 40, tau T = 400, sqrt(TM) = 20, sqrt(d) = 4
    # init 4*1*4*1/40 = 0.4; parallel 8*4*(3+2)/40 = 4; drift 32*4*(3+1)/400 = 1.28
    # client (12+4)/20 = 0.8; ZO 6*4/400 = 0.06
    assert ev.value == pytest.approx(6.54)
    # eta = 1/(tau L sqrt(dT)) = 1/160; eta_g = sqrt(tau M) = 4
    assert ev.params["eta"] == pytest.approx(1 / 160) and ev.params["eta_g"] == pytest.approx(4)


def test_cor44_case_two() -> None:
    ev = st.evaluate("mu_splitfed/cor4.4", L=2, F=0.5, T=400, tau=1, M=1, d=4, eps2=0, sigma_s2=0.5, sigma_c2=2)
    # sqrt(tau T M) = 20; init 4*2*2*0.5/20 = 0.4; parallel 8*2*1/20 = 0.8; drift 32*2*0.5/400 = 0.08
    # client 8/20 = 0.4; ZO 6*2/400 = 0.03
    assert ev.value == pytest.approx(1.71)


def test_cor44_implicit_condition_is_4_tau_m_le_dt() -> None:
    ok = st.evaluate("mu_splitfed/cor4.4", L=1, F=1, T=100, tau=4, M=4, d=16, eps2=1, sigma_s2=1, sigma_c2=1)
    (h,) = [h for h in ok.hypotheses if h.source == "implicit"]
    # eta_g eta tau L = sqrt(tau M/(dT)) = sqrt(16/1600) = 0.1 <= 1/2
    assert h.holds and h.lhs == pytest.approx(0.1)
    bad = st.evaluate("mu_splitfed/cor4.4", L=1, F=1, T=16, tau=4, M=100, d=16, eps2=1, sigma_s2=1, sigma_c2=1)
    (h,) = [h for h in bad.hypotheses if h.source == "implicit"]
    # sqrt(400/256) = 1.25 > 1/2
    assert not h.holds and h.lhs == pytest.approx(1.25)


def test_cor44_proof_edition_and_its_undercount() -> None:
    p = dict(L=1, F=1, T=100, tau=4, M=4, d=16, d_c=2, eps2=1, sigma_s2=1, sigma_c2=1, lam=0.01)
    ev = st.evaluate("mu_splitfed/cor4.4@proof", **p)
    # init 0.4
    # het s  24 (4/10 + 2/2)(14/4) 1/(4*10)             = 24*1.4*3.5/40 = 2.94
    # var s  16 (2/10 + 1)(14/4)/40                     = 1.68
    # ZO s   (1 + 8/1600 + 2*2/(1*sqrt(6400))) 1e-4 2744 = 1.055*0.2744 = 0.289492
    # het c  12*2*(2/4)/20 = 0.6 ; var c 4*2*0.5/20 = 0.2 ; ZO c 1e-4*8 = 0.0008
    assert ev.value == pytest.approx(6.110292)
    # Theorem 4.3's server heterogeneity at the corollary's choices eta = 1/160, eta_g = 4:
    # 24*(1/160)*(4*(1/160)*4 + 4/4)*1*(4 + 28)*1 = 0.15*1.1*32 = 5.28 > 2.94 printed by the proof
    thm = st.evaluate("mu_splitfed/thm4.3", **{k: v for k, v in p.items() if k != "d"}, d_s=14, eta=1 / 160, eta_g=4)
    assert thm.terms["server heterogeneity"] == pytest.approx(5.28)
    assert ev.terms["server heterogeneity"] < thm.terms["server heterogeneity"]


# --- eq. (12) --------------------------------------------------------------------------------------
def test_eq12_time_model() -> None:
    ev = st.evaluate("mu_splitfed/eq12", T0=1000, t_straggler=10, t_server=2.5)
    # tau = 10/2.5 = 4; T0 t_straggler/tau = 10000/4 = 2500 = T0 t_server
    assert ev.params["tau"] == pytest.approx(4) and ev.value == pytest.approx(2500)
    ev3 = st.evaluate("mu_splitfed/eq12", T0=1000, t_straggler=10, t_server=2.5, tau=3)
    # 10000/3; tau = 3 is not the integer nearest 4
    assert ev3.value == pytest.approx(10000 / 3) and not ev3.applies


# --- vectorised evaluation -------------------------------------------------------------------------
def test_arrays_broadcast() -> None:
    tau = np.array([1, 2, 4])
    ev = st.evaluate("mu_splitfed/thm4.1", **{**A, "tau": tau})
    # init 4/(0.001*tau*10) = 400/tau
    np.testing.assert_allclose(ev.terms["initialisation"], [400, 200, 100])
    assert ev.value.shape == (3,)
    # branch 1/(64(tau+2)): 1/192, 1/256, 1/384 all above 0.001
    assert np.all(ev.applies)
    sc = st.max_step("mu_splitfed/thm4.1", L=1, tau=tau, d_c=1, d_s=1)
    np.testing.assert_allclose(sc.max_step, [1 / 192, 1 / 256, 1 / 384])


# --- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "name", "rule"),
    [
        ({"L": -1}, "L", "> 0"),
        ({"tau": 0}, "tau", "integer >= 1"),
        ({"T": 10.5}, "T", "integer >= 1"),
        ({"d_c": 3, "d": 2, "d_s": None}, "d_c", "<= d"),
        ({"sigma_s2": float("nan")}, "sigma_s2", "finite"),
        ({"foo": 1}, "foo", "unknown parameter"),
        ({"F": None}, "F", "missing"),
        ({"lambda": 0.1}, "lambda", "given twice"),
        ({"d": 5}, "d", "d_c + d_s"),
        ({"eta": "fast"}, "eta", "must be a number"),
    ],
)
def test_bad_input_names_parameter(change: dict, name: str, rule: str) -> None:
    p = {**A, **change}
    p = {k: v for k, v in p.items() if v is not None}
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("mu_splitfed/thm4.1", **p)
    assert e.value.name == name and rule in str(e.value)


def test_alias_accepted() -> None:
    p = {k: v for k, v in A.items() if k != "lam"}
    assert st.evaluate("mu_splitfed/thm4.1", **p, **{"lambda": 0.1}).value == pytest.approx(200.05203216)


def test_unknown_id() -> None:
    with pytest.raises(st.UnknownResultError, match=r"thm4\.1"):
        st.get("mu_splitfed/thm41")


def test_derived_d_s_must_be_positive() -> None:
    with pytest.raises(st.ParameterError, match="d_s"):
        st.evaluate("mu_splitfed/thm4.1", **{**A, "d_s": None, "d": 1})  # type: ignore[arg-type]


def test_derived_d_s_from_equal_d_and_d_c() -> None:
    p = {k: v for k, v in A.items() if k != "d_s"}
    with pytest.raises(st.ParameterError, match=r"d_s.*derived as d - d_c"):
        st.evaluate("mu_splitfed/thm4.1", **p, d=1)


# --- the package: every result once, in order ----------------------------------------------------
def test_catalogue_holds_old_and_new_results() -> None:
    from sfltheory.papers import mu_splitfed

    ids = [r.id for r in mu_splitfed.RESULTS]
    # 10 results before the package (thm4.1 x2, cor4.2 x2, thm4.3 x3, cor4.4 x2, eq12) + 14 new ones
    assert len(ids) == len(set(ids)) == 24
    assert ids[:2] == ["mu_splitfed/thm4.1", "mu_splitfed/thm4.1@proof"] and ids[-1] == "mu_splitfed/eq12"
    assert [r.id for r in st.results("mu_splitfed")] == ids
    # every result carries the full reference in its provenance
    assert all("arXiv:2510.21155" in r.provenance.reference for r in mu_splitfed.RESULTS)


def test_proof_editions_label_proof_only_conditions() -> None:
    # App. C.1.3 step (iii) and App. D.1.3 'where we assume' print their step-size conditions in the proof only
    for rid in ("mu_splitfed/thm4.1@proof", "mu_splitfed/thm4.3@proof", "mu_splitfed/eq24"):
        srcs = {h.source for h in st.get(rid).hypotheses if h.kind == "step_size"}
        assert "statement" not in srcs, rid
    # Corollary 4.4's statement prints eta_g = sqrt(tau M); App. D.1.4 only derives it
    (h,) = [h for h in st.get("mu_splitfed/cor4.4@proof").hypotheses if h.name == "eta_g = sqrt(tau M)"]
    assert h.source == "statement"


def test_thm43_proof_max_step_is_over_the_proof_conditions() -> None:
    # No branch of (33)'s edition is in the statement, so max_step is the minimum over all of them. At B:
    # D.1.3 assumed: 1/sqrt(120*(4 + 4)) = 0.0323 and eta_c <= MP/(12 L d_c) = 1/6 -> eta <= 1/12; D.1.1: 1/sqrt(48);
    # Lemma D.3: 1/(2 sqrt(24*1.5)) = 1/12; implicit server coefficient 6 eta (8 eta + 1/2)(4 + 4) <= 2/4, i.e.
    # 384 eta^2 + 24 eta - 1/2 <= 0, root (-24 + sqrt(576 + 768))/768 = 0.0164848...; the others are larger
    sc = st.max_step("mu_splitfed/thm4.3@proof", L=1, tau=2, d_s=1, d_c=1, M=2, eta_g=1, P=1)
    root = (-24 + math.sqrt(24**2 + 4 * 384 * 0.5)) / (2 * 384)
    assert sc.max_step == pytest.approx(root) and sc.max_step_all == pytest.approx(root)
    assert sc.binding == "D.1.3 server coefficient <= -eta_g eta_s tau/4"


# --- eq. (24): the one-round inequality ----------------------------------------------------------
def test_eq24_case_a() -> None:
    ev = st.evaluate("mu_splitfed/eq24", **{k: v for k, v in A.items() if k not in ("F", "T")}, descent_round=0.1)
    # server 4 eta^2 tau L (2 eta tau L + 1) d_s s_s^2/P = 4e-6*2*1.004          = 8.032e-6
    # ZO s   eta tau L^2 (2 eta^2 tau^2 L^2 + 1/4) lam^2 d_s^3 = 0.002*0.250008*0.01 = 5.00016e-6
    # ZO c   (eta/4) tau L^2 lam^2 d_c^3 = 0.00025*2*0.01                          = 5e-6
    # client 2 eta^2 tau^2 L d_c s_c^2/P = 2e-6*4                                  = 8e-6
    assert ev.terms["server variance"] == pytest.approx(8.032e-6)
    assert ev.terms["ZO bias server"] == pytest.approx(5.00016e-6)
    assert ev.value == pytest.approx(0.1 + 8.032e-6 + 5.00016e-6 + 5e-6 + 8e-6)
    assert ev.params["P"] == 1 and ev.applies and ev.proof_conditions_hold


def test_eq24_summed_is_thm41_proof() -> None:
    # Averaging (24) over T rounds (descent telescopes to F/T) and dividing by eta tau/4 gives the proof's display:
    # at A, 4/(0.001*2) * eq24(descent = 1/10) = 2000 * 0.10002603216 = 200.05206432
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = dict(L=rng.uniform(0.1, 3), tau=int(rng.integers(1, 9)), d_c=int(rng.integers(1, 50)), d_s=int(rng.integers(1, 50)),
                 eta=rng.uniform(1e-5, 1e-2), sigma_c2=rng.uniform(0, 2), sigma_s2=rng.uniform(0, 2), lam=rng.uniform(0, 0.1),
                 P=int(rng.integers(1, 4)))  # fmt: skip
        F, T = rng.uniform(0.1, 5), int(rng.integers(1, 100))
        one = st.evaluate("mu_splitfed/eq24", **p, descent_round=F / T).value
        assert 4 / (p["eta"] * p["tau"]) * one == pytest.approx(
            st.evaluate("mu_splitfed/thm4.1@proof", **p, F=F, T=T).value
        )
    at_a = {k: v for k, v in A.items() if k not in ("F", "T")}
    assert 4 / 0.002 * st.evaluate("mu_splitfed/eq24", **at_a, descent_round=0.1).value == pytest.approx(200.05206432)


def test_eq24_step_branch() -> None:
    # all branches are the proof's; at L=1, tau=2, d_c=d_s=1, P=1 step (iii) binds: 1/(64*(2+2)) = 1/256
    # (the others: 1/32, 1/2, 1/8, 1/4, 1/(4 sqrt 2), 1/(2 sqrt 8), 1/(4 sqrt 6))
    sc = st.max_step("mu_splitfed/eq24", L=1, tau=2, d_c=1, d_s=1, P=1)
    assert sc.max_step == pytest.approx(1 / 256) and sc.binding == "eta_s<=P/(64L(tau P+2d_s))"
    ev = st.evaluate(
        "mu_splitfed/eq24", **{k: v for k, v in A.items() if k not in ("F", "T", "eta")}, eta=1 / 200, descent_round=0.1
    )
    assert not ev.proof_conditions_hold
    assert [h.name for h in ev.failed()] == ["eta_s<=P/(64L(tau P+2d_s))"]


# --- Lemma B.1, (13) and (14) --------------------------------------------------------------------
def test_lemma_b1() -> None:
    # (14) at d=4, L=2, lam=0.1, ||grad f||^2=3: 2*4*3 + (4/2)*0.01*64 = 24 + 1.28
    assert st.evaluate("mu_splitfed/lemmaB.1", d=4, L=2, lam=0.1, gradnorm2_f=3).value == pytest.approx(25.28)
    # (13): (L/2) lam d^{3/2} = 1*0.1*8 = 0.8
    assert st.evaluate("mu_splitfed/lemmaB.1.bias", d=4, L=2, lam=0.1).value == pytest.approx(0.8)


# --- Lemmas C.2, C.3, C.4 (App. C.2) -------------------------------------------------------------
C = dict(d_s=10, P=2, L=1, lam=0.1, sigma_s2=0.5, gradnorm2_xs=3, drift_xs=0.2)


def test_lemma_c2() -> None:
    ev = st.evaluate("mu_splitfed/lemmaC.2", **C, gradnorm2_lam_xs=1)
    # (25): 4*10*3/2 + 4*1*10*0.2/2 + 2*10*0.5/2 + 1*0.01*1000/(2*2) - 1/2 = 60 + 4 + 5 + 2.5 - 0.5
    assert ev.terms["smoothed gradient (subtracted)"] == pytest.approx(-0.5)
    assert ev.value == pytest.approx(71.0)
    # not given, the subtracted term is dropped (it is <= 0): 71.5
    ev0 = st.evaluate("mu_splitfed/lemmaC.2", **C)
    assert ev0.value == pytest.approx(71.5) and "gradnorm2_lam_xs" in ev0.derived


def test_lemma_c3_and_its_proof_from_c2() -> None:
    ev = st.evaluate("mu_splitfed/lemmaC.3", **C)
    # (28): 4*11/2*3 + 4*1*11/2*0.2 + 2*10*0.5/2 + 0.01*1000/2 = 66 + 4.4 + 5 + 5
    assert ev.value == pytest.approx(80.4)
    # (29)-(30): E||G||^2 <= (25) without its subtracted term + (1 - 1/P) * (30), where
    # (30) = 4*3 + 4*1*0.2 + (1/2)*0.01*1000 = 17.8: 71.5 + 17.8/2 = 80.4, at any point
    rng = np.random.default_rng(2)
    for _ in range(20):
        p = dict(d_s=int(rng.integers(1, 100)), P=int(rng.integers(1, 9)), L=rng.uniform(0.1, 3), lam=rng.uniform(0, 1),
                 sigma_s2=rng.uniform(0, 2), gradnorm2_xs=rng.uniform(0, 5), drift_xs=rng.uniform(0, 1))  # fmt: skip
        eq30 = 4 * p["gradnorm2_xs"] + 4 * p["L"] ** 2 * p["drift_xs"] + p["L"] ** 2 * p["lam"] ** 2 * p["d_s"] ** 3 / 2
        c2 = st.evaluate("mu_splitfed/lemmaC.2", **p).value
        assert st.evaluate("mu_splitfed/lemmaC.3", **p).value == pytest.approx(c2 + (1 - 1 / p["P"]) * eq30)


def test_lemma_c4() -> None:
    p = dict(tau=2, P=1, d_s=3, L=1, lam=0.1, sigma_s2=0.5, gradnorm2_xs=2)
    ev = st.evaluate("mu_splitfed/lemmaC.4", **p, eta_s=0.01)
    # 16*1e-4*8*(1 + 3/2)/1*2 = 0.064; 8*1e-4*4*0.5*3/1 = 0.0048; 2*1e-4*8*1*0.01*27 = 0.000432
    assert ev.value == pytest.approx(0.069232) and ev.applies
    # eta_s <= 1/(4L sqrt(tau^2 + tau d_s/P)) = 1/(4 sqrt 10), = sqrt(P)/(4 tau L sqrt(P + d_s/tau)) = 1/(8 sqrt 2.5)
    sc = st.max_step("mu_splitfed/lemmaC.4", **p)
    assert sc.max_step == pytest.approx(1 / (4 * math.sqrt(10))) == pytest.approx(1 / (8 * math.sqrt(2.5)))
    assert not st.evaluate("mu_splitfed/lemmaC.4", **p, eta_s=0.08).applies  # 0.08 > 0.0790569
    # the printed sigma_L^2 is recorded and read as sigma_s^2
    assert any("sigma_L" in d.printed for d in st.get("mu_splitfed/lemmaC.4").discrepancies)


# --- Lemmas D.2, D.3 (App. D.2) ------------------------------------------------------------------
def test_lemma_d2() -> None:
    ev = st.evaluate("mu_splitfed/lemmaD.2", **C, eps2=0.4, gradnorm2_lam_xs=1)
    # (34): 6*10*3/2 + 6*1*10*0.2/2 + 6*10*0.4/2 + 2*10*0.5/2 + 0.01*1000/(2*2) - 1/2 = 90 + 6 + 12 + 5 + 2.5 - 0.5
    assert ev.terms["heterogeneity"] == pytest.approx(12)
    assert ev.value == pytest.approx(115.0)


def test_lemma_d3() -> None:
    p = dict(tau=2, P=1, d_s=3, L=1, lam=0.1, sigma_s2=0.5, eps2=0.4, gradnorm2_xs=2)
    ev = st.evaluate("mu_splitfed/lemmaD.3", **p, eta_s=0.01)
    # 24*1e-4*(8 + 4*3/1) = 0.048; gradient 0.048*2 = 0.096; heterogeneity 0.048*0.4 = 0.0192;
    # variance 8*1e-4*4*3*0.5/1 = 0.0048; ZO 2*1e-4*8*0.01*27 = 0.000432
    assert ev.terms["heterogeneity"] == pytest.approx(0.0192)
    assert ev.value == pytest.approx(0.120432)
    # eta_s <= sqrt(P)/(tau L sqrt(24 (P + d_s/tau))) = 1/(2 sqrt 60)
    assert st.max_step("mu_splitfed/lemmaD.3", **p).max_step == pytest.approx(1 / (2 * math.sqrt(60)))


# --- footnote 3 and Table 2 ----------------------------------------------------------------------
def test_footnote3_rounds() -> None:
    # 1/(tau eps^2): tau=4, eps=0.1 -> 1/(4*0.01) = 25; tau=1 -> 100, the footnote's O(1/eps^2)
    assert st.evaluate("mu_splitfed/fn3", tau=4, eps_target=0.1).value == pytest.approx(25)
    assert st.evaluate("mu_splitfed/fn3", tau=1, eps_target=0.1).value == pytest.approx(100)


def test_table2_rows() -> None:
    # row 1: K/eps^2 = 5/0.01 = 500; row 2: K/(M eps^2) = 5/(10*0.01) = 50
    assert st.evaluate("mu_splitfed/tab2.sfl_v1", K=5, eps_target=0.1).value == pytest.approx(500)
    assert st.evaluate("mu_splitfed/tab2.sfl_v2", K=5, M=10, eps_target=0.1).value == pytest.approx(50)
    # row 3: d/(M eps^2) = 100/(10*0.01) = 1000, stated at tau = 1 only
    assert st.evaluate("mu_splitfed/tab2.mu_tau1", d=100, M=10, eps_target=0.1).value == pytest.approx(1000)
    with pytest.raises(st.ParameterError, match="tau"):
        st.evaluate("mu_splitfed/tab2.mu_tau1", d=100, M=10, eps_target=0.1, tau=2)
    # row 4: d/(tau M eps^2) = 100/(4*10*0.01) = 250; tau = 1 is outside the row (tau > 1)
    ev = st.evaluate("mu_splitfed/tab2.mu", d=100, tau=4, M=10, eps_target=0.1)
    assert ev.value == pytest.approx(250) and ev.applies
    assert not st.evaluate("mu_splitfed/tab2.mu", d=100, tau=1, M=10, eps_target=0.1).applies
    # row 5: 1/(M eps^2) = 1/(10*0.01) = 10 at tau = d -- row 4 at tau = d = 100: 100/(100*10*0.01) = 10
    ev5 = st.evaluate("mu_splitfed/tab2.mu_taud", d=100, M=10, eps_target=0.1)
    assert ev5.value == pytest.approx(10) and ev5.params["tau"] == pytest.approx(100) and ev5.applies
    assert ev5.value == pytest.approx(st.evaluate("mu_splitfed/tab2.mu", d=100, tau=100, M=10, eps_target=0.1).value)
    assert not st.evaluate("mu_splitfed/tab2.mu_taud", d=100, M=10, eps_target=0.1, tau=50).applies
    # the SFL-V2 row's cost disagrees with its own rate (1/(M K eps^2) rounds, K exchanges each: 10, not 50)
    (disc,) = st.get("mu_splitfed/tab2.sfl_v2").discrepancies
    assert "SFL-V2" in disc.where
