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
