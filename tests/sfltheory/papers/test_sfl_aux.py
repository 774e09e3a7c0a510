"""Non-IID SplitFed with auxiliary networks (seed 004_1446912755864da9.txt) against hand calculations.

Every expected number is worked out by hand in the comment next to it, from the printed formula cited
(Theorems 1-4 of Sec. 4 and their restatements A1-A4 in App. A).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sfltheory as st
from sfltheory.papers import sfl_aux

# Shared constants for l = 2, K = 1, L = 1, mu_L = 0.01 (Theorem 1's definitions):
#   A = 8 L^2 mu^2 (K^2 + 30 L^2 K^3 mu^2) + 2 = 8e-4 * (1 + 0.003) + 2 = 2.0008024
#   lambda_2 = (A^2 - 1)/(A - 1) = A + 1 = 3.0008024
#   Gamma = 4 (0.01 + 1e-4*(2-1)) (1 + 30e-4) + 30e-4 = 0.0404*1.003 + 0.003 = 0.0435212
#   Gamma lambda_2 = 0.0435212*3 + 0.0435212*0.0008024 = 0.1305636 + 0.000034921411 = 0.130598521411
ONE_MINUS_L2 = 0.869401478589  # 1 - Gamma lambda_2


# --- Theorem 1 (client side, full participation) -------------------------------------------------
def test_thm1_case_l1() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=1, K=1, L=1, eta_l=0.1, F=0.9, T=100, sigma2=1, eps2=0)
    # l = 1: lambda_2 = (A - 1)/(A - 1) = 1, lambda_1 = B (A^0 - 1)/(A - 1) = 0
    # Gamma = 4 (0.1 + 0)(1 + 30*0.01) + 30*0.01 = 0.52 + 0.3 = 0.82 ; 1 - Gamma = 0.18
    # init   2F/((1-G l2) mu K T)       = 1.8/(0.18*0.1*100) = 1.8/1.8 = 1
    # drift  5 K mu^2 L^2 s^2 /0.18     = 0.05/0.18 = 5/18
    # update 4(L mu)(K l + 5 L^2 K^2 l mu^2) s^2/0.18 = 0.4*1.05/0.18 = 0.42/0.18 = 7/3
    assert ev.terms["initialisation"] == pytest.approx(1.0)
    assert ev.terms["drift variance (Phi_1)"] == pytest.approx(5 / 18)
    assert ev.terms["update variance (Phi_1)"] == pytest.approx(7 / 3)
    assert ev.terms["drift heterogeneity (Phi_1)"] == 0 and ev.terms["gradient growth"] == 0
    assert ev.value == pytest.approx(65 / 18)  # 18/18 + 5/18 + 42/18
    assert ev.applies and ev.proof_conditions_hold and not ev.void
    assert "applies" in ev.verdict()


def test_thm1_case_l2_no_noise() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=2, K=1, L=1, eta_l=0.01, F=1, T=100, sigma2=0, eps2=0)
    # sigma = 0: B = 0, lambda_1 = 0; only init = 2/(0.8694014786 * 0.01*1*100) = 2/0.869401478589
    assert ev.value == pytest.approx(2 / ONE_MINUS_L2, rel=1e-9)
    assert ev.value == pytest.approx(2.3004332, rel=1e-7)


def test_thm1_case_l2_full() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=2, K=1, L=1, eta_l=0.01, F=1, T=100, sigma2=1, eps2=1)
    # B = 8e-4 ((1 + 5e-4) + (1 + 30e-4)) = 8e-4 * 2.0035 = 0.0016028 ; lambda_1 = B (0 + 1) = 0.0016028
    # numerators over 1 - Gamma lambda_2:
    #   init 2                 drift var 5e-4          drift het 30e-4
    #   update var 4(0.0101)(2 + 10e-4) = 0.0404*2.001 = 0.0808404
    #   update het 4(0.0101)(2 + 60e-4) = 0.0404*2.006 = 0.0810424
    #   growth 0.0435212*0.0016028 = 0.00006963392 + 0.00000012186 = 0.00006975578
    assert ev.terms["update variance (Phi_1)"] == pytest.approx(0.0808404 / ONE_MINUS_L2, rel=1e-9)
    assert ev.terms["update heterogeneity (Phi_1)"] == pytest.approx(0.0810424 / ONE_MINUS_L2, rel=1e-9)
    assert ev.terms["gradient growth"] == pytest.approx(0.00006975578 / ONE_MINUS_L2, rel=1e-8)
    # 2 + 0.0005 + 0.003 + 0.0808404 + 0.0810424 + 0.00006975578 = 2.16545255578
    assert ev.value == pytest.approx(2.16545255578 / ONE_MINUS_L2, rel=1e-9)


def test_thm1_lambda_1_closed_form_at_l3() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=3, K=1, L=1, eta_l=0.01, F=1, T=100, sigma2=1, eps2=0)
    # A = 2.0008024 ; B = 8e-4 (1 + 5e-4) = 0.0008004
    # lambda_1 = B sum_{j=0}^{2} (A^j - 1)/(A - 1) = B (0 + 1 + (A + 1)) = 0.0008004*4.0008024 = 0.00320224224
    # lambda_2 = A^2 + A + 1 = 4.00321024385 + 2.0008024 + 1 = 7.00401264385
    # Gamma = 4 (0.01 + 1e-4*2)(1.003) + 0.003 = 0.0409224 + 0.003 = 0.0439224
    # Gamma lambda_2 = 0.3074568 + 0.0439224*0.00401264385 = 0.3074568 + 0.000176245 = 0.307633045
    one_minus = 1 - 0.307633045
    assert ev.terms["gradient growth"] == pytest.approx(0.0439224 * 0.00320224224 / one_minus, rel=1e-7)


def test_thm1_void_at_the_edge_of_the_printed_condition() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=1, K=1, L=1, eta_l=0.125, F=1, T=100, sigma2=1, eps2=1)
    # mu_L = 1/(1*1*1*2^{3}) = 0.125 satisfies the printed branch with equality, but
    # Gamma = 4*0.125*(1 + 30/64) + 30/64 = 0.5*1.46875 + 0.46875 = 1.203125 >= 1: void
    by_name = {h.name: h for h in ev.hypotheses}
    assert by_name["mu_L<=1/(lLK2^(1.15l+1.85))"].holds
    assert by_name["validity: Gamma*lambda_2<1"].lhs == pytest.approx(1.203125)
    assert ev.void
    assert "void" in ev.verdict() and "Gamma*lambda_2<1" in ev.verdict()


@pytest.mark.parametrize(("K", "void"), [(7, True), (8, False)])
def test_thm1_void_threshold_in_k_at_l1(K: int, void: bool) -> None:
    # l = 1, mu_L = 1/(8LK): x = L mu K = 1/8; Gamma = 4x + 120x^3/K + 30x^2 = 0.96875 + 0.234375/K
    # K = 7: 0.96875 + 0.0334821 = 1.0022321 (void) ; K = 8: 0.96875 + 0.0292969 = 0.9980469
    ev = st.evaluate("sfl_aux/thm1", l=1, K=K, L=2, eta_l=1 / (16 * K), F=1, T=10, sigma2=1, eps2=1)
    assert ev.hypotheses[1].lhs == pytest.approx(0.96875 + 0.234375 / K)
    assert bool(ev.void) is void


def test_thm1_statement_branch_both_sides() -> None:
    sc = st.max_step("sfl_aux/thm1", l=2, K=1, L=1)
    # 1/(2*1*1*2^{2.3+1.85}) = 1/(2*2^{4.15}) = 1/(2*17.7522...) = 0.0281641
    b = 1 / (2 * 2**4.15)
    assert sc.max_step == pytest.approx(b) and sc.max_step == pytest.approx(0.0281641, rel=1e-5)
    assert sc.binding == "mu_L<=1/(lLK2^(1.15l+1.85))"
    base = dict(l=2, K=1, L=1, F=1, T=10, sigma2=1, eps2=1)
    assert st.evaluate("sfl_aux/thm1", **base, eta_l=b * (1 - 1e-9)).applies
    above = st.evaluate("sfl_aux/thm1", **base, eta_l=b * (1 + 1e-6))
    assert [h.name for h in above.failed()] == ["mu_L<=1/(lLK2^(1.15l+1.85))"]


def test_thm1_gamma_branch_both_sides() -> None:
    sc = st.max_step("sfl_aux/thm1", l=1, K=1, L=1)
    # Gamma(mu) = 4mu + 30mu^2 + 120mu^3 = 1: at 0.1124: 0.4496+0.37903+0.17040 = 0.99903 ;
    # at 0.1125: 0.45 + 0.37969 + 0.17086 = 1.00055 ; so the root lies in (0.1124, 0.1125)
    (g,) = [b for b in sc.branches if b.name == "step: Gamma*lambda_2<1"]
    assert 0.1124 < g.bound < 0.1125
    assert sc.max_step == pytest.approx(0.125)  # the statement's branch, 1/8
    assert sc.binding_all == "step: Gamma*lambda_2<1" and sc.max_step_all == pytest.approx(g.bound)
    base = dict(l=1, K=1, L=1, F=1, T=10, sigma2=1, eps2=1)
    assert not st.evaluate("sfl_aux/thm1", **base, eta_l=g.bound * (1 - 1e-6)).void
    assert st.evaluate("sfl_aux/thm1", **base, eta_l=g.bound * (1 + 1e-6)).void


def test_thm1_reddi_branch_both_sides() -> None:
    # [13] Lemma 3: mu_L <= 1/(8LK) = 1/(8*1*2) = 0.0625 ; statement at l=1: 1/(1*1*2*8) = 0.0625 too
    sc = st.max_step("sfl_aux/thm1", l=1, K=2, L=1)
    (r,) = [b for b in sc.branches if b.name.startswith("[13]")]
    assert r.bound == pytest.approx(0.0625) and r.source == "implicit"
    base = dict(l=1, K=2, L=1, F=1, T=10, sigma2=1, eps2=1)
    hyp = "[13] Lemma 3: mu_L<=1/(8LK)"
    below = {h.name: h.holds for h in st.evaluate("sfl_aux/thm1", **base, eta_l=0.0625 * (1 - 1e-9)).hypotheses}
    above = {h.name: h.holds for h in st.evaluate("sfl_aux/thm1", **base, eta_l=0.0625 * (1 + 1e-6)).hypotheses}
    assert below[hyp] and not above[hyp]


def test_thm1_vectorised_void() -> None:
    ev = st.evaluate("sfl_aux/thm1", l=1, K=1, L=1, eta_l=np.array([0.1, 0.125]), F=0.9, T=100, sigma2=1, eps2=0)
    # Gamma = 0.82 at 0.1 (valid), 1.203125 at 0.125 (void)
    assert list(ev.void) == [False, True]
    assert ev.value[0] == pytest.approx(65 / 18)


# --- Theorem 2 (client side, partial participation) ----------------------------------------------
P2A = dict(l=1, K=1, L=1, eta_l=0.1, n=2, M=4, F=0.9, T=100, sigma2=1, eps2=1)


def test_thm2_case_l1() -> None:
    ev = st.evaluate("sfl_aux/thm2", **P2A)
    # init  2F/(mu K T) = 1.8/(0.1*100) = 0.18
    # sigma_L^2: 5*0.01 + 4*0.01*(1 + 5*0.01) + 0.1*(1/2 + 15*0.01) = 0.05 + 0.042 + 0.065 = 0.157
    # sigma_G^2: 30*0.01 + 0.1*(90*0.01 + 3) + 4*0.01*(1 + 30*0.01) = 0.3 + 0.39 + 0.052 = 0.742
    # growth: lambda_1 = 0 at l = 1
    assert ev.terms["initialisation"] == pytest.approx(0.18)
    assert ev.terms["variance"] == pytest.approx(0.157)
    assert ev.terms["heterogeneity"] == pytest.approx(0.742)
    assert ev.value == pytest.approx(1.079)
    # Gamma' = 4*0.01*(1 + 0.3) + 0.1*(0.9 + 3) + 0.3 = 0.052 + 0.39 + 0.3 = 0.742 < 1
    assert ev.hypotheses[1].lhs == pytest.approx(0.742)
    assert not ev.void and ev.applies


def test_thm2_case_l2() -> None:
    ev = st.evaluate("sfl_aux/thm2", l=2, K=1, L=1, eta_l=0.01, n=1, M=2, F=1, T=100, sigma2=1, eps2=0)
    # Gamma' = 4e-4 (2 + 30*2*1e-4) + (0.01/2)(90*2*1e-4 + 3) + 30e-4 = 0.0008024 + 0.01509 + 0.003 = 0.0188924
    # Gamma' lambda_2 = 0.0188924*3.0008024 = 0.0566772 + 0.00001515926 = 0.05669235926
    # sigma_L^2: 5e-4 + 4e-4 (4 + 20e-4) + 0.01 (1 + 15e-4) = 0.0005 + 0.0016008 + 0.010015 = 0.0121158
    # growth: Gamma' lambda_1 = 0.0188924 * 0.0008004 = 0.00001512147696 ; over 1 - 0.05669235926
    assert ev.terms["initialisation"] == pytest.approx(2.0)  # 2/(0.01*1*100)
    assert ev.terms["variance"] == pytest.approx(0.0121158)
    assert ev.terms["gradient growth"] == pytest.approx(0.00001512147696 / 0.94330764074, rel=1e-8)
    assert ev.value == pytest.approx(2 + 0.0121158 + 0.00001512147696 / 0.94330764074, rel=1e-10)


def test_thm2_proof_edition_divides_every_term() -> None:
    ev = st.evaluate("sfl_aux/thm2@proof", **P2A)
    # (A35): every term over 1 - Gamma' lambda_2 = 1 - 0.742 = 0.258: 1.079/0.258 = 4.1821705...
    assert ev.value == pytest.approx(1.079 / 0.258)
    assert ev.terms["initialisation"] == pytest.approx(0.18 / 0.258)
    ev2 = st.evaluate("sfl_aux/thm2@proof", l=2, K=1, L=1, eta_l=0.01, n=1, M=2, F=1, T=100, sigma2=1, eps2=0)
    # (2 + 0.0121158 + 0.00001512147696)/0.94330764074
    assert ev2.value == pytest.approx((2 + 0.0121158 + 0.00001512147696) / 0.94330764074, rel=1e-10)
    assert (
        ev2.value > st.evaluate("sfl_aux/thm2", l=2, K=1, L=1, eta_l=0.01, n=1, M=2, F=1, T=100, sigma2=1, eps2=0).value
    )


def test_thm2_void_at_the_edge() -> None:
    ev = st.evaluate("sfl_aux/thm2", **{**P2A, "eta_l": 0.125})
    # Gamma' = 4/64 (1 + 30/64) + 0.125 (90/64 + 3) + 30/64 = 0.091796875 + 0.55078125 + 0.46875 = 1.111328125
    assert ev.hypotheses[1].lhs == pytest.approx(1.111328125)
    assert ev.void and "void" in ev.verdict()
    # the printed branch itself holds (0.125 <= 1/8)
    assert ev.hypotheses[0].holds


def test_thm2_void_at_the_edge_for_large_k() -> None:
    # l = 1, x = L mu K = 1/8: Gamma' = 4x^2 + 120x^4/K + 90x^3 + 3x + 30x^2 = 1.08203125 + 0.029296875/K
    ev = st.evaluate("sfl_aux/thm2", **{**P2A, "K": 100, "eta_l": 1 / 800})
    assert ev.hypotheses[1].lhs == pytest.approx(1.08203125 + 0.029296875 / 100)
    assert ev.void


def test_thm2_branches_both_sides() -> None:
    sc = st.max_step("sfl_aux/thm2", l=1, K=1, L=1)
    # statement: 1/(1*1*1*2^3) = 1/8 ; the validity condition is not a step-size branch here
    assert sc.max_step == pytest.approx(0.125) and sc.max_step_all == pytest.approx(0.125)
    assert [b.name for b in sc.branches] == ["mu_L<=1/(lLK2^(1.15l+1.85))", "[13] Lemma 3: mu_L<=1/(8LK)"]
    base = {k: v for k, v in P2A.items() if k != "eta_l"}
    assert st.evaluate("sfl_aux/thm2", **base, eta_l=0.125 * (1 - 1e-9)).hypotheses[0].holds
    assert not st.evaluate("sfl_aux/thm2", **base, eta_l=0.125 * (1 + 1e-6)).hypotheses[0].holds


def test_thm2_validity_both_sides() -> None:
    # Gamma' at l = K = L = 1: 4mu^2(1 + 30mu^2) + mu(90mu^2 + 3) + 30mu^2 = 3mu + 34mu^2 + 90mu^3 + 120mu^4
    # at 0.108: 0.324 + 0.396576 + 0.11337 + 0.01632 = 0.85027 ... at 0.118: 0.354 + 0.473416 + 0.147878 + 0.02327 = 0.99856
    # at 0.119: 0.357 + 0.481474 + 0.151669 + 0.024067 = 1.01421: the boundary lies in (0.118, 0.119)
    base = {k: v for k, v in P2A.items() if k != "eta_l"}
    assert not st.evaluate("sfl_aux/thm2", **base, eta_l=0.118).void
    assert st.evaluate("sfl_aux/thm2", **base, eta_l=0.119).void
    assert st.evaluate("sfl_aux/thm2@proof", **base, eta_l=0.119).void
    assert st.evaluate("sfl_aux/thm2", **base, eta_l=0.118).hypotheses[1].lhs == pytest.approx(0.99856, abs=1e-4)


def test_thm2_needs_n() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("sfl_aux/thm2", **{k: v for k, v in P2A.items() if k != "n"})
    assert e.value.name == "n"


# --- Corollaries 1, 2 (O-only) ------------------------------------------------------------------
@pytest.mark.parametrize(("rid", "see"), [("sfl_aux/cor1", "sfl_aux/thm1"), ("sfl_aux/cor2", "sfl_aux/thm2")])
def test_client_corollaries_are_o_only(rid: str, see: str) -> None:
    r = st.get(rid)
    assert not r.explicit and r.terms == () and r.see == see
    assert r.rate == r"\mathcal{O}\left(\frac{l}{\sqrt{T}}+\frac{1}{T\sqrt{T}}\right)"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(rid, l=1, K=1, L=1, eta_l=0.01, F=1, T=100, sigma2=1, eps2=1, n=1)
    assert see in str(e.value)


def test_cor1_step() -> None:
    sc = st.max_step("sfl_aux/cor1", l=1, K=1, L=1, T=100)
    # 1/(1*1*1*2^3*sqrt(100)) = 1/80 = 0.0125
    assert sc.max_step == pytest.approx(0.0125)
    assert sc.binding == "mu_L<=1/(lLK2^(1.15l+1.85)sqrt(T))"
    below = st.max_step("sfl_aux/cor1", l=1, K=1, L=1, T=100, eta_l=0.0125 * (1 - 1e-9))
    above = st.max_step("sfl_aux/cor1", l=1, K=1, L=1, T=100, eta_l=0.0125 * (1 + 1e-6))
    assert below.branches[0].holds and not above.branches[0].holds


def test_cor2_step() -> None:
    sc = st.max_step("sfl_aux/cor2", l=1, K=2, L=0.5, T=16)
    # 1/(1*0.5*2*8*4) = 1/32
    assert sc.max_step == pytest.approx(1 / 32)
    assert not st.max_step("sfl_aux/cor2", l=1, K=2, L=0.5, T=16, eta_l=(1 / 32) * (1 + 1e-6)).branches[0].holds


# --- Theorem 3 (server side, full participation) -------------------------------------------------
P3A = dict(l=2, F=1, eta=0.01, M=2, T=100, L=1, sigma2=1, eps2=1)


def test_thm3_case_a() -> None:
    ev = st.evaluate("sfl_aux/thm3", **P3A)
    # 2m - 3 = 1
    # init 2lF/(mu(2m-3)T) = 4/(0.01*100) = 4
    # var  L mu m^2 9.2 s^2/(2m-3) = 0.04*9.2 = 0.368 ; het 0.04*13.2 = 0.528
    assert ev.terms["initialisation"] == pytest.approx(4)
    assert ev.terms["variance"] == pytest.approx(0.368)
    assert ev.terms["heterogeneity"] == pytest.approx(0.528)
    assert ev.value == pytest.approx(4.896)
    # proof branches: 0.01 <= 1/(2*5) = 0.1 ; gradient 0.24 + 0.064 + 0.00384 = 0.30784 <= 2 ;
    # variance 16*2*5*0.01 + 96*2*5*1e-4 = 1.6 + 0.096 = 1.696 <= 7.2
    assert ev.applies and ev.proof_conditions_hold


def test_thm3_case_b() -> None:
    ev = st.evaluate("sfl_aux/thm3", l=1, F=2, eta=0.001, M=5, T=1000, L=2, sigma2=0.5, eps2=0.25)
    # 2m - 3 = 7
    # init 2*1*2/(0.001*7*1000) = 4/7
    # var  2*0.001*25*9.2*0.5/7 = 0.05*4.6/7 = 0.23/7 ; het 0.05*13.2*0.25/7 = 0.165/7
    assert ev.value == pytest.approx(4.395 / 7)


@pytest.mark.parametrize(("M", "void"), [(1, True), (2, False)])
def test_thm3_validity(M: int, void: bool) -> None:
    ev = st.evaluate("sfl_aux/thm3", **{**P3A, "M": M})
    # 2m - 3 = -1 (m = 1, void) or 1 (m = 2)
    assert bool(ev.void) is void
    if void:
        assert ev.verdict() == "the bound is void: validity condition validity: 2m-3>0 fails"
        assert ev.value < 0  # 2lF/(mu(-1)T) < 0: meaningless


def _holds(rid: str, params: dict, hyp: str) -> bool:
    (h,) = [h for h in st.evaluate(rid, **params).hypotheses if h.name == hyp]
    return bool(h.holds)


@pytest.mark.parametrize(
    ("hyp", "lo", "hi"),
    [
        ("mu<=1/(2L)", 0.5, 0.5),  # 1/(2*1)
        ("mu<=1/(2L(2m+1))", 0.1, 0.1),  # 1/(2*1*5)
        # 24mu + 640mu^2 + 3840mu^3 = 2: at 0.03747: 0.89928 + 0.89856 + 0.20200 = 1.99984; at 0.0375: 2.0025
        ("(b_15) gradient coefficient <= 2", 0.03747, 0.0375),
        # 960mu^2 + 160mu - 7.2 = 0: (-160 + sqrt(25600 + 27648))/1920 = (-160 + 230.7553)/1920 = 0.0368517
        ("(b_15) variance coefficients <= 7.2", 0.0368517, 0.0368518),
    ],
)
def test_thm3_branches_both_sides(hyp: str, lo: float, hi: float) -> None:
    sc = st.max_step("sfl_aux/thm3", M=2, L=1)
    (b,) = [b for b in sc.branches if b.name == hyp]
    assert lo * (1 - 1e-9) <= b.bound <= hi * (1 + 1e-9)
    assert _holds("sfl_aux/thm3", {**P3A, "eta": b.bound * (1 - 1e-7)}, hyp)
    assert not _holds("sfl_aux/thm3", {**P3A, "eta": b.bound * (1 + 1e-6)}, hyp)


def test_thm3_statement_condition_is_not_enough() -> None:
    ev = st.evaluate("sfl_aux/thm3", **{**P3A, "eta": 0.4})
    # 0.4 <= 1/(2L) = 0.5 holds; 0.4 > 1/(2L(2m+1)) = 0.1 and the (b_15) branches fail
    assert ev.applies and not ev.proof_conditions_hold
    assert ev.verdict().startswith("the statement's conditions hold, but the proof also needs")
    sc = st.max_step("sfl_aux/thm3", M=2, L=1)
    assert sc.max_step == pytest.approx(0.5) and sc.binding == "mu<=1/(2L)"
    assert (
        sc.max_step_all == pytest.approx(0.0368517, rel=1e-5)
        and sc.binding_all == "(b_15) variance coefficients <= 7.2"
    )


def test_thm3_appendix_edition() -> None:
    ev = st.evaluate("sfl_aux/thm3@appendix", **P3A)
    assert ev.value == pytest.approx(4.896)  # same bound as Theorem 3
    sc = st.max_step("sfl_aux/thm3@appendix", M=2, L=1)
    # 1/(8 L m^2) = 1/32 = 0.03125, below every proof branch (0.1, 0.03747, 0.03685)
    assert sc.max_step == pytest.approx(1 / 32) and sc.binding == "mu<=1/(8Lm^2)"
    assert sc.max_step_all == pytest.approx(1 / 32)
    assert st.evaluate("sfl_aux/thm3@appendix", **{**P3A, "eta": (1 / 32) * (1 - 1e-9)}).applies
    assert not st.evaluate("sfl_aux/thm3@appendix", **{**P3A, "eta": (1 / 32) * (1 + 1e-6)}).applies
    assert st.evaluate("sfl_aux/thm3@appendix", **{**P3A, "M": 1}).void


# --- Theorem 4 (server side, partial participation) ----------------------------------------------
P4A = dict(l=2, F=1, eta=0.01, M=3, n=3, T=100, L=1, sigma2=1, eps2=1)


def test_thm4_case_a() -> None:
    ev = st.evaluate("sfl_aux/thm4", **P4A)
    # m - 2 = 1 ; init lF/(mu(m-2)T) = 2/(0.01*100) = 2 ; var 7 L mu m^2 s^2 = 7*0.01*9 = 0.63 ; het 0.63
    assert ev.value == pytest.approx(3.26)
    assert ev.applies and ev.proof_conditions_hold


def test_thm4_case_b() -> None:
    ev = st.evaluate("sfl_aux/thm4", l=4, F=0.5, eta=0.002, M=6, n=3, T=500, L=0.5, sigma2=2, eps2=1)
    # m - 2 = 4 ; init 4*0.5/(0.002*4*500) = 2/4 = 0.5
    # L mu m^2/(m-2) = 0.5*0.002*36/4 = 0.009 ; var 0.009*7*2 = 0.126 ; het 0.009*7*1 = 0.063
    assert ev.terms["initialisation"] == pytest.approx(0.5)
    assert ev.terms["variance"] == pytest.approx(0.126)
    assert ev.value == pytest.approx(0.689)


@pytest.mark.parametrize(("M", "void"), [(1, True), (3, False)])
def test_thm4_validity(M: int, void: bool) -> None:
    ev = st.evaluate("sfl_aux/thm4", **{**P4A, "M": M, "n": 1})
    # m - 2 = -1 (void) or 1
    assert bool(ev.void) is void
    assert ("void" in ev.verdict()) is void


def test_thm4_validity_at_m2_as_array() -> None:
    # m = 2: m - 2 = 0. Given as an array the division gives inf and the bound is reported void; a scalar
    # M = 2 makes the lambdified code divide a Python float by zero (evaluate's limitation, see the report).
    ev = st.evaluate("sfl_aux/thm4", **{**P4A, "M": np.array([2.0, 3.0]), "n": 2})
    assert list(ev.void) == [True, False]
    assert ev.value[1] == pytest.approx(3.26)


@pytest.mark.parametrize(
    ("n", "hyp", "lo", "hi"),
    [
        (3, "mu<=1/(8L^2m^2)", 1 / 72, 1 / 72),  # 1/(8*1*9)
        (3, "mu<=1/(2L(2m+1))", 1 / 14, 1 / 14),  # 1/(2*1*7)
        # n = m = 3: 3024mu^2 + 27mu + 9072mu^3 = 3: at 0.0264: 2.10764+0.7128+0.16692 = 2.98736; at 0.0265: 3.00793
        (3, "(b_15) gradient coefficient <= 3-2(m-n)", 0.0264, 0.0265),
        # n = 2: 640mu^2 + 12mu + 4032mu^3 = 3 - 2 = 1: at 0.0292: 0.54569+0.3504+0.10039 = 0.99648; at 0.0293: 0.54943+0.3516+0.10142 = 1.00245
        (2, "(b_15) gradient coefficient <= 3-2(m-n)", 0.0292, 0.0293),
        # 9072mu^2 + 3024mu + 3 <= 126: (-3024 + sqrt(9144576 + 4*9072*123))/18144 = (-3024 + sqrt(13608000))/18144
        (
            3,
            "(b_15) sigma_L^2 coefficient <= 14 m^2",
            (-3024 + math.sqrt(13608000)) / 18144,
            (-3024 + math.sqrt(13608000)) / 18144,
        ),
        # 9072mu^2 + 3024mu + 27 <= 126: (-3024 + sqrt(9144576 + 4*9072*99))/18144 = (-3024 + sqrt(12737088))/18144
        (
            3,
            "(b_15) sigma_G^2 coefficient <= 14 m^2",
            (-3024 + math.sqrt(12737088)) / 18144,
            (-3024 + math.sqrt(12737088)) / 18144,
        ),
    ],
)
def test_thm4_branches_both_sides(n: int, hyp: str, lo: float, hi: float) -> None:
    sc = st.max_step("sfl_aux/thm4", M=3, n=n, L=1)
    (b,) = [b for b in sc.branches if b.name == hyp]
    assert lo * (1 - 1e-9) <= b.bound <= hi * (1 + 1e-9)
    params = {**P4A, "n": n}
    assert _holds("sfl_aux/thm4", {**params, "eta": b.bound * (1 - 1e-7)}, hyp)
    assert not _holds("sfl_aux/thm4", {**params, "eta": b.bound * (1 + 1e-6)}, hyp)


def test_thm4_descent_step_impossible_for_small_n() -> None:
    # n = 1, m = 3: 3 - 2(m - n) = -1 < 0 while the left side is positive: no step size works
    sc = st.max_step("sfl_aux/thm4", M=3, n=1, L=1)
    (b,) = [b for b in sc.branches if b.name == "(b_15) gradient coefficient <= 3-2(m-n)"]
    assert b.bound == 0.0
    ev = st.evaluate("sfl_aux/thm4", **{**P4A, "n": 1})
    assert ev.applies and not ev.proof_conditions_hold


def test_thm4_statement_condition_does_not_scale_with_l() -> None:
    # L = 0.01: 1/(8 L^2 m^2) = 1/(8e-4*9) = 138.9, so mu = 100 satisfies the statement, but the gradient
    # coefficient has 3 L n^2 mu = 3*0.01*9*100 = 27 > 3
    ev = st.evaluate("sfl_aux/thm4", **{**P4A, "L": 0.01, "eta": 100})
    assert ev.applies and not ev.proof_conditions_hold
    assert "(b_15) gradient coefficient <= 3-2(m-n)" in ev.verdict()


def test_thm4_appendix_edition_full_participation() -> None:
    p = {k: v for k, v in P4A.items() if k != "n"}
    ev = st.evaluate("sfl_aux/thm4@appendix", **p)
    assert ev.value == pytest.approx(3.26)  # same bound as Theorem 4
    assert ev.params["n"] == 3 and ev.derived == {"n": "M"}
    assert ev.applies
    ev2 = st.evaluate("sfl_aux/thm4@appendix", **p, n=2)
    assert not ev2.applies and "full participation: n = m fails" in ev2.verdict()
    sc = st.max_step("sfl_aux/thm4@appendix", M=3, L=1)
    assert sc.max_step == pytest.approx(1 / 72)
    assert st.evaluate("sfl_aux/thm4@appendix", **{**p, "M": 1}).void  # m - 2 = -1 (n defaults to m = 1)


# --- Corollaries 3, 4 (O-only) ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rid", "see"),
    [
        ("sfl_aux/cor3", "sfl_aux/thm3"),
        ("sfl_aux/cor3@appendix", "sfl_aux/thm3@appendix"),
        ("sfl_aux/cor4", "sfl_aux/thm4"),
    ],
)
def test_server_corollaries_are_o_only(rid: str, see: str) -> None:
    r = st.get(rid)
    assert not r.explicit and r.terms == () and r.see == see
    assert r.rate == r"\mathcal{O}\left(\frac{l}{\sqrt{T}}\right)"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(rid, **P4A)
    assert e.value.name == rid and see in str(e.value)


def test_cor3_steps() -> None:
    # main: 1/(2 L sqrt T) = 1/(2*10) = 0.05
    sc = st.max_step("sfl_aux/cor3", L=1, T=100)
    assert sc.max_step == pytest.approx(0.05)
    assert not st.max_step("sfl_aux/cor3", L=1, T=100, eta=0.05 * (1 + 1e-6)).branches[0].holds
    assert st.max_step("sfl_aux/cor3", L=1, T=100, eta=0.05 * (1 - 1e-9)).branches[0].holds
    # appendix: 1/(L m^2 sqrt T) = 1/(4*4) = 1/16 at T = 16, above A3's 1/(8 L m^2) = 1/32
    sa = st.max_step("sfl_aux/cor3@appendix", L=1, M=2, T=16)
    assert sa.max_step == pytest.approx(1 / 16)
    assert sa.max_step_all == pytest.approx(1 / 32) and sa.binding_all == "mu<=1/(8Lm^2)"
    # T = 100: 1/(4*10) = 0.025 < 1/32
    assert st.max_step("sfl_aux/cor3@appendix", L=1, M=2, T=100).max_step_all == pytest.approx(0.025)


def test_cor4_steps() -> None:
    # 1/(L^2 m^2 sqrt T) = 1/(9*4) = 1/36 at T = 16 ; Theorem 4: 1/(8*9) = 1/72
    sc = st.max_step("sfl_aux/cor4", L=1, M=3, T=16)
    assert sc.max_step == pytest.approx(1 / 36) and sc.max_step_all == pytest.approx(1 / 72)
    assert not st.max_step("sfl_aux/cor4", L=1, M=3, T=16, eta=(1 / 36) * (1 + 1e-6)).branches[0].holds
    assert st.max_step("sfl_aux/cor4", L=1, M=3, T=16, eta=(1 / 36) * (1 - 1e-9)).branches[0].holds


# --- bad input -----------------------------------------------------------------------------------
BASE1 = dict(l=1, K=1, L=1, eta_l=0.1, F=0.9, T=100, sigma2=1, eps2=0)


@pytest.mark.parametrize(
    ("rid", "params", "name"),
    [
        ("sfl_aux/thm1", {k: v for k, v in BASE1.items() if k != "F"}, "F"),
        ("sfl_aux/thm1", {**BASE1, "L": -1}, "L"),
        ("sfl_aux/thm1", {**BASE1, "K": 0}, "K"),
        ("sfl_aux/thm1", {**BASE1, "l": 1.5}, "l"),
        ("sfl_aux/thm1", {**BASE1, "foo": 1}, "foo"),
        ("sfl_aux/thm2", {**BASE1, "n": 5, "M": 4}, "n"),
        ("sfl_aux/thm3", {**P3A, "M": 2.5}, "M"),
        ("sfl_aux/thm4", {**P4A, "T": 0}, "T"),
        ("sfl_aux/thm4", {**P4A, "eta": 0}, "eta"),
    ],
)
def test_bad_input(rid: str, params: dict, name: str) -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(rid, **params)
    assert e.value.name == name


def test_aliases() -> None:
    ev = st.evaluate("sfl_aux/thm2", l=1, K=1, L=1, mu_L=0.1, n=2, m=4, F=0.9, T=100, sigma_L2=1, sigma_G2=1)
    assert ev.value == pytest.approx(1.079)
    ev3 = st.evaluate("sfl_aux/thm3", l=2, F=1, mu=0.01, m=2, T=100, L=1, sigma_L2=1, sigma_G2=1)
    assert ev3.value == pytest.approx(4.896)


# --- catalogue ------------------------------------------------------------------------------------
def test_catalogue_and_editions() -> None:
    ids = {r.id for r in st.results("sfl_aux")}
    assert ids == {
        "sfl_aux/thm1",
        "sfl_aux/cor1",
        "sfl_aux/thm2",
        "sfl_aux/thm2@proof",
        "sfl_aux/cor2",
        "sfl_aux/thm3",
        "sfl_aux/thm3@appendix",
        "sfl_aux/cor3",
        "sfl_aux/cor3@appendix",
        "sfl_aux/thm4",
        "sfl_aux/thm4@appendix",
        "sfl_aux/cor4",
        "sfl_aux/eqA11",
        "sfl_aux/eqA44",
        "sfl_aux/eqA57",
    }
    assert [r.id for r in st.editions(st.get("sfl_aux/thm3"))] == ["sfl_aux/thm3", "sfl_aux/thm3@appendix"]
    for r in st.results("sfl_aux"):
        assert r.provenance.seed == "004_1446912755864da9.txt"
        assert r.statement and r.discrepancies
        assert r.step in ("eta_l", "eta")
        assert all(h.where for h in r.hypotheses)
        if r.edition:
            assert r.discrepancies
    # the client results constrain only mu_L, the server results only mu
    for rid in ("sfl_aux/thm1", "sfl_aux/thm2", "sfl_aux/thm2@proof"):
        assert "eta" not in st.get(rid).parameters()
    for rid in ("sfl_aux/thm3", "sfl_aux/thm4"):
        assert "eta_l" not in st.get(rid).parameters()


def test_auxiliary_constants_match_hand_values() -> None:
    # l = 2, K = 1, L = 1, mu_L = 0.01, sigma_L^2 = 1, sigma_G^2 = 0 (hand values at the top of this file)
    sub = {sfl_aux.ell: 2, sfl_aux.K: 1, sfl_aux.L: 1, sfl_aux.eta_l: 0.01, sfl_aux.sigma2: 1, sfl_aux.eps2: 0}
    assert float(sfl_aux.A_CONST.subs(sub)) == pytest.approx(2.0008024)
    assert float(sfl_aux.B_CONST.subs(sub)) == pytest.approx(0.0008004)  # 8e-4 (1 + 5e-4)
    assert float(sfl_aux.LAMBDA_2.subs(sub)) == pytest.approx(3.0008024)
    assert float(sfl_aux.LAMBDA_1.subs(sub)) == pytest.approx(0.0008004)
    assert float(sfl_aux.GAMMA.subs(sub)) == pytest.approx(0.0435212)
    assert float(sfl_aux.GAMMA_PRIME.subs(sub)) == pytest.approx(0.0188924)


# --- the drift bounds (A11), (A44), (A57) of the appendix (lemmas) ----------------------------------------
def test_eqA11_hand_value() -> None:
    ev = st.evaluate("sfl_aux/eqA11", K=2, L=1, eta_l=0.05, sigma2=1, eps2=0.5, gradnorm2_f=2)
    # (A11) at K = 2, mu_L = 0.05 (mu_L^2 = 0.0025), sigma_L^2 = 1, sigma_G^2 = 0.5, ||grad F^c||^2 = 2:
    #   5K mu^2 sigma_L^2 = 5*2*0.0025*1 = 0.025 ; 30K^2 mu^2 sigma_G^2 = 30*4*0.0025*0.5 = 0.15
    #   30K^2 mu^2 ||grad||^2 = 30*4*0.0025*2 = 0.6 ; total 0.775
    assert ev.terms["variance"] == pytest.approx(0.025)
    assert ev.terms["heterogeneity"] == pytest.approx(0.15)
    assert ev.terms["gradient"] == pytest.approx(0.6)
    assert ev.value == pytest.approx(0.775)
    # [13]: 0.05 <= 1/(8*1*2) = 0.0625 ; (a_6): 6*2*0.0025*1*(2-1)*(4-1) = 0.09 <= K = 2
    assert ev.applies and ev.proof_conditions_hold


def test_eqA11_step_branches_both_sides() -> None:
    sc = st.max_step("sfl_aux/eqA11", K=2, L=1)
    by_name = {b.name: b for b in sc.branches}
    # [13] Lemma 3: 1/(8LK) = 1/16 = 0.0625 ; (a_6): 6*2*mu^2*1*3 <= 2 -> mu^2 <= 1/18 -> mu <= 0.2357022604
    assert by_name["[13] Lemma 3: mu_L<=1/(8LK)"].bound == pytest.approx(0.0625)
    assert by_name["(a_6): 6K mu_L^2 L^2 <= 1/(K-1) - 1/(2K-1)"].bound == pytest.approx(math.sqrt(1 / 18))
    assert all(b.source == "implicit" for b in sc.branches)  # the paper prints no condition for (A11)
    assert sc.max_step_all == pytest.approx(0.0625) and sc.binding_all == "[13] Lemma 3: mu_L<=1/(8LK)"
    base = dict(K=2, L=1, sigma2=1, eps2=1, gradnorm2_f=1)
    assert st.evaluate("sfl_aux/eqA11", **base, eta_l=0.0625 * (1 - 1e-9)).proof_conditions_hold
    assert not st.evaluate("sfl_aux/eqA11", **base, eta_l=0.0625 * (1 + 1e-6)).proof_conditions_hold


@pytest.mark.parametrize("K", [1, 2, 3, 5, 8, 20])
def test_eqA11_bounds_the_unrolled_recursion_of_a9(K: int) -> None:
    # (A9) before (a_6), with smoothness applied to its 6K term: D_0 = 0,
    # D_k = (1 + 1/(2K-1) + 6K mu^2 L^2) D_{k-1} + mu^2 sigma_L^2 + 6K mu^2 (sigma_G^2 + ||grad||^2); at [13]'s step
    # mu = 1/(8LK) every D_k, k in [K], must lie below (A11)
    L, s2, e2, g = 2.0, 1.5, 0.7, 3.0
    mu = 1 / (8 * L * K)
    a = 1 + 1 / (2 * K - 1) + 6 * K * mu**2 * L**2
    c = mu**2 * s2 + 6 * K * mu**2 * (e2 + g)
    drift, worst = 0.0, 0.0
    for _ in range(K - 1):
        drift = a * drift + c
        worst = max(worst, drift)
    ev = st.evaluate("sfl_aux/eqA11", K=K, L=L, eta_l=mu, sigma2=s2, eps2=e2, gradnorm2_f=g)
    assert worst <= ev.value
    assert ev.value == pytest.approx(5 * K * mu**2 * s2 + 30 * K**2 * mu**2 * (e2 + g))


SERVER_DRIFT = dict(M=2, eta=0.01, L=1, sigma2=1, eps2=1, gradnorm2_f=0.5)


@pytest.mark.parametrize("rid", ["sfl_aux/eqA44", "sfl_aux/eqA57"])
def test_server_drift_hand_value(rid: str) -> None:
    ev = st.evaluate(rid, **SERVER_DRIFT)
    # 16(m + 2m^2) mu^2 = 16*(2 + 8)*1e-4 = 0.016 ; sigma_L^2 0.016*1, sigma_G^2 0.016*1, gradient 0.016*0.5 = 0.008
    assert ev.terms["variance"] == pytest.approx(0.016)
    assert ev.terms["heterogeneity"] == pytest.approx(0.016)
    assert ev.terms["gradient"] == pytest.approx(0.008)
    assert ev.value == pytest.approx(0.04)
    # 0.01 <= 1/(2*1*(2*2+1)) = 0.1 and m = 2 > 1
    assert ev.applies and ev.proof_conditions_hold


@pytest.mark.parametrize("rid", ["sfl_aux/eqA44", "sfl_aux/eqA57"])
def test_server_drift_conditions_both_sides(rid: str) -> None:
    sc = st.max_step(rid, M=3, L=2)
    # printed with the display: 'Given mu <= 1/(2L(2m+1))' = 1/(2*2*7) = 1/28
    assert sc.max_step == pytest.approx(1 / 28) and sc.binding == "mu<=1/(2L(2m+1))"
    assert [b.source for b in sc.branches] == ["statement"]
    base = {**SERVER_DRIFT, "M": 3, "L": 2}
    below = {**base, "eta": (1 / 28) * (1 - 1e-9)}
    above = {**base, "eta": (1 / 28) * (1 + 1e-6)}
    assert st.evaluate(rid, **below).applies and not st.evaluate(rid, **above).applies
    # 'for m > 1': one client is outside the display's range (m - 1 = 0 in its 1 + 1/(m-1))
    one = st.evaluate(rid, **{**SERVER_DRIFT, "M": 1})
    assert not one.applies and [h.name for h in one.failed()] == ["m>1"]


def test_server_drift_condition_is_the_proofs_in_the_theorems() -> None:
    # the same condition is the display's own in the lemmas, a proof-only one in Theorems 3, 4
    name = "mu<=1/(2L(2m+1))"
    assert {h.name: h.source for h in st.get("sfl_aux/eqA44").hypotheses}[name] == "statement"
    assert {h.name: h.source for h in st.get("sfl_aux/thm3").hypotheses}[name] == "proof"
    assert {h.name: h.source for h in st.get("sfl_aux/thm4").hypotheses}[name] == "proof"


@pytest.mark.parametrize("m", [2, 3, 4, 7, 12])
def test_eqA44_bounds_the_unrolled_recursion_b14(m: int) -> None:
    # (b_14): D_i <= (1 + 1/(2m-1) + 4(1+2m) mu^2 L^2) D_{i-1} + 4(1+2m) mu^2 (sigma_L^2 + sigma_G^2 + ||grad||^2),
    # D_0 = 0 (x_{S,0}^t = x_S^t); at the edge mu = 1/(2L(2m+1)) the mean of D_0..D_{m-1} must lie below (A44)
    L, s2, e2, g = 1.5, 2.0, 0.5, 1.0
    mu = 1 / (2 * L * (2 * m + 1))
    a = 1 + 1 / (2 * m - 1) + 4 * (1 + 2 * m) * mu**2 * L**2
    c = 4 * (1 + 2 * m) * mu**2 * (s2 + e2 + g)
    drifts = [0.0]
    for _ in range(m - 1):
        drifts.append(a * drifts[-1] + c)
    ev = st.evaluate("sfl_aux/eqA44", M=m, L=L, eta=mu, sigma2=s2, eps2=e2, gradnorm2_f=g)
    assert sum(drifts) / m <= ev.value
    # the printed closed form: 16(m + 2m^2) mu^2 (sigma_L^2 + sigma_G^2 + ||grad||^2)
    assert ev.value == pytest.approx(16 * (m + 2 * m**2) * mu**2 * (s2 + e2 + g))


@pytest.mark.parametrize(("m", "n"), [(3, 1), (4, 2), (6, 3), (6, 6)])
def test_eqA57_still_bounds_the_n_steps_of_partial_participation(m: int, n: int) -> None:
    # with n sampled clients the server takes n sequential steps: the same recursion over n steps, mean of D_0..D_{n-1}
    L, s2, e2, g = 1.0, 1.0, 1.0, 1.0
    mu = 1 / (2 * L * (2 * m + 1))
    a = 1 + 1 / (2 * m - 1) + 4 * (1 + 2 * m) * mu**2 * L**2
    c = 4 * (1 + 2 * m) * mu**2 * (s2 + e2 + g)
    drifts = [0.0]
    for _ in range(n - 1):
        drifts.append(a * drifts[-1] + c)
    ev = st.evaluate("sfl_aux/eqA57", M=m, L=L, eta=mu, sigma2=s2, eps2=e2, gradnorm2_f=g)
    assert sum(drifts) / n <= ev.value


def test_eqA57_is_eqA44_printed_again() -> None:
    a44, a57 = st.get("sfl_aux/eqA44"), st.get("sfl_aux/eqA57")
    assert a44.kind == a57.kind == "lemma" and a44.statement == a57.statement
    assert (a44.provenance.equation, a57.provenance.equation) == ("(A44)", "(A57)")
    assert a44.provenance.label == "Theorem A3, proof" and a57.provenance.label == "Theorem A4, proof"
    # the partial-participation proof reuses the full-participation drift: recorded on (A57) and on Theorem 4
    wheres = [d.where for d in a57.discrepancies]
    assert "(A49) and the drift bound (A56)-(A57) in the proof of A4" in wheres
    assert wheres[0] in [d.where for d in st.get("sfl_aux/thm4").discrepancies]
    assert wheres[0] not in [d.where for d in a44.discrepancies]


def test_drift_lemmas_carry_the_reference_and_their_discrepancies() -> None:
    for rid in ("sfl_aux/eqA11", "sfl_aux/eqA44", "sfl_aux/eqA57"):
        r = st.get(rid)
        assert "Talebi" in r.provenance.reference and r.provenance.reference in r.provenance.citation
        assert r.notation["gradnorm2_f"].startswith(r"\mathbb E\|\nabla F^")
    wheres = [d.where for d in st.get("sfl_aux/eqA11").discrepancies]
    assert wheres[:2] == ["(A9), step (a_6) ('due to Assumption 3')", "(A9), left-hand side"]
    assert len(st.results("sfl_aux")) == 15  # the 12 results of the main text and App. A, and the 3 drift bounds
