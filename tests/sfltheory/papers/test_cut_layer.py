"""Cut-layer paper (seed 003_60e24e21677c19f3.txt) against hand calculations from the printed formulas.

Paper -> canonical: S -> L, K (clients) -> M, tau (local iterations) -> K, B_k -> batch, eta^t -> eta.
Every expected number below is worked out by hand in the comment next to it, from the equation cited.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sfltheory as st

P1 = "cut_layer/prop1"
P1_PROOF = "cut_layer/prop1@proof"
P1_ROUND = "cut_layer/prop1@round"

# Case A: F=10, T=100, K(=tau)=5, M(=clients)=10, L(=S)=1, sigma2=eps2=1, eta=0.01; sum_alpha2 defaults to 1/M=0.1
A = dict(F=10, T=100, K=5, M=10, L=1, sigma2=1, eps2=1, eta=0.01)


# --- Proposition 1, eq. (6) ------------------------------------------------------------------------
def test_prop1_case_a() -> None:
    ev = st.evaluate(P1, **A)
    # init  4F/(T tau)                              = 40/500                        = 0.08
    # noise 16 K S tau sum a^2 (s^2+e^2) eta^2      = 16*10*1*5*0.1*2*1e-4          = 0.016
    assert ev.terms["initialisation"] == pytest.approx(0.08)
    assert ev.terms["variance+heterogeneity"] == pytest.approx(0.016)
    assert ev.value == pytest.approx(0.096)
    assert ev.derived == {"sum_alpha2": "1/M"}
    assert ev.params["sum_alpha2"] == pytest.approx(0.1)
    # branches: 1/(16*1*5) = 0.0125 and 1/(8*1*10*5*0.1) = 0.025, both above 0.01
    assert ev.applies and ev.proof_conditions_hold and not ev.void
    assert "applies" in ev.verdict()


def test_prop1_case_b() -> None:
    ev = st.evaluate(P1, F=1, T=10, K=2, M=4, L=2, sigma2=3, eps2=1, eta=0.01)
    # init  4*1/(10*2)                              = 0.2
    # noise 16*4*2*2*0.25*(3+1)*1e-4 = 256*0.25*4*1e-4 = 0.0256
    assert ev.value == pytest.approx(0.2256)
    # branches: 1/(16*2*2) = 1/64 = 0.015625, 1/(8*2*4*2*0.25) = 1/32 = 0.03125
    assert ev.applies


def test_prop1_with_unequal_weights() -> None:
    ev = st.evaluate(P1, **A, sum_alpha2=0.5)
    # noise 16*10*1*5*0.5*2*1e-4 = 800*0.5*2*1e-4 = 800*1e-4 = 0.08; init 0.08
    assert ev.terms["variance+heterogeneity"] == pytest.approx(0.08)
    assert ev.value == pytest.approx(0.16)
    assert ev.derived == {}


def test_prop1_tau_from_epochs_dataset_and_batch() -> None:
    p = {k: v for k, v in A.items() if k != "K"}
    ev = st.evaluate(P1, **p, E_epochs=1, D_k=100, batch=32)
    # tau = ceil(1*100/32) = ceil(3.125) = 4
    # init 4*10/(100*4) = 0.1; noise 16*10*1*4*0.1*2*1e-4 = 0.0128
    assert ev.params["K"] == 4
    assert ev.value == pytest.approx(0.1128)
    assert "K" in ev.derived


def test_prop1_paper_alias_s_for_smoothness() -> None:
    p = {k: v for k, v in A.items() if k != "L"}
    assert st.evaluate(P1, **p, S=1).value == pytest.approx(0.096)


def test_prop1_first_branch_both_sides() -> None:
    sc = st.max_step(P1, L=1, K=5, M=10)
    # min{1/(16*1*5), 1/(8*1*10*5*0.1)} = min{0.0125, 0.025}
    assert sc.max_step == pytest.approx(0.0125)
    assert sc.binding == "eta<=1/(16 S tau)"
    # equal weights: the proof's own conditions do not bind (1/(sqrt8*5)=0.0707, 1/10, 0.02247, 4/(41*5)=0.0195)
    assert sc.max_step_all == pytest.approx(0.0125)
    below = st.evaluate(P1, **{**A, "eta": 0.0125 * (1 - 1e-9)})
    above = st.evaluate(P1, **{**A, "eta": 0.0125 * (1 + 1e-6)})
    assert below.applies and below.proof_conditions_hold
    assert not above.applies
    assert [h.name for h in above.failed()] == ["eta<=1/(16 S tau)"]
    assert "does not apply" in above.verdict()


def test_prop1_second_branch_both_sides() -> None:
    sc = st.max_step(P1, L=1, K=5, M=10, sum_alpha2=0.5)
    # min{1/80 = 0.0125, 1/(8*1*10*5*0.5) = 1/200 = 0.005}
    assert sc.max_step == pytest.approx(0.005)
    assert sc.binding == "eta<=1/(8 S K tau sum alpha_k^2)"
    base = {**A, "sum_alpha2": 0.5}
    assert st.evaluate(P1, **{**base, "eta": 0.005 * (1 - 1e-9)}).applies
    above = st.evaluate(P1, **{**base, "eta": 0.005 * (1 + 1e-6)})
    assert not above.applies
    assert [h.name for h in above.failed("statement")] == ["eta<=1/(8 S K tau sum alpha_k^2)"]


def test_prop1_implicit_condition_from_21_both_sides() -> None:
    # with the factor 2 of ||a+b||^2 restored: eta <= 4/(41 S K tau sum a^2) = 4/(41*1*10*5*0.5) = 4/1025 = 0.00390244
    sc = st.max_step(P1, L=1, K=5, M=10, sum_alpha2=0.5)
    assert sc.max_step_all == pytest.approx(4 / 1025)
    assert sc.binding_all.startswith("(21) with")
    base = {**A, "sum_alpha2": 0.5}
    ok = st.evaluate(P1, **{**base, "eta": 0.0039})
    bad = st.evaluate(P1, **{**base, "eta": 0.0040})
    assert ok.applies and ok.proof_conditions_hold
    assert bad.applies and not bad.proof_conditions_hold  # the statement holds, the proof step does not
    assert "(implicit)" in bad.verdict()


def test_prop1_proof_and_implicit_branches_are_implied_with_equal_weights() -> None:
    # Claim in papers/cut_layer.py: with sum_alpha2 = 1/M, 1/(16 L K) is below 1/(sqrt8 L K), 1/(2 L K),
    # 0.11237/(L K) and 4/(41 L K) = 0.0976/(L K).
    rng = np.random.default_rng(3)
    for _ in range(100):
        p = dict(L=float(rng.uniform(0.01, 100)), K=int(rng.integers(1, 200)), M=int(rng.integers(1, 1000)))
        sc = st.max_step(P1, **p)
        assert sc.max_step_all == pytest.approx(sc.max_step)
        assert sc.max_step == pytest.approx(1 / (16 * p["L"] * p["K"]))


def test_prop1_26_coefficient_condition_both_sides() -> None:
    # 8x + 8x^2 <= 1, x = eta S tau: x = (-8 + sqrt(64 + 32))/16 = (-8 + 9.797959)/16 = 0.1123724; S=1, tau=5: eta = 0.0224745
    name = "(26) noise and coefficient: 8 eta S tau + 8 (eta S tau)^2 <= 1"
    sc = st.max_step(P1, L=1, K=5, M=10)
    (b,) = [b for b in sc.branches if b.name == name]
    assert b.bound == pytest.approx(0.0224744871)
    for eta, holds in ((0.0224, True), (0.0226, False)):
        (h,) = [h for h in st.evaluate(P1, **{**A, "eta": eta}).hypotheses if h.name == name]
        assert h.holds is holds


def test_prop1_lemma_conditions_both_sides() -> None:
    # S=1, tau=5: Lemma 1 needs eta <= 1/(sqrt8*5) = 0.0707107; Lemma 2 eta <= 1/(2*5) = 0.1
    for name, below, above in (
        ("Lemma 1: eta<=1/(sqrt(8) S tau)", 0.0707, 0.0708),
        ("Lemma 2: eta<=1/(2 S tau)", 0.0999, 0.1001),
    ):
        for eta, holds in ((below, True), (above, False)):
            ev = st.evaluate(P1, **{**A, "eta": eta})
            (h,) = [h for h in ev.hypotheses if h.name == name]
            assert h.holds is holds and h.source == "proof"


def test_prop1_weights_domain_both_sides() -> None:
    # sum_k alpha_k = 1 forces sum alpha_k^2 >= 1/M = 0.1
    assert st.evaluate(P1, **A, sum_alpha2=0.1).proof_conditions_hold
    ev = st.evaluate(P1, **A, sum_alpha2=0.099)
    assert ev.applies and not ev.proof_conditions_hold
    assert [h.name for h in ev.failed()] == ["sum_alpha2 >= 1/M (paper: sum alpha_k^2 >= 1/K)"]


def test_prop1_vectorised() -> None:
    ev = st.evaluate(P1, **{**A, "eta": np.array([0.01, 0.02])})
    # eta = 0.02: noise = 0.016*4 = 0.064, total 0.144; it violates 0.0125
    assert np.allclose(ev.value, [0.096, 0.144])
    assert list(ev.applies) == [True, False]


def test_prop1_bad_inputs() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **{k: v for k, v in A.items() if k != "F"})
    assert e.value.name == "F"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **{**A, "L": -1})
    assert e.value.name == "L"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **{**A, "K": 0})
    assert e.value.name == "K"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **A, tau=0)
    assert e.value.name == "tau"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **{**A, "M": 2.5})
    assert e.value.name == "M"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **A, foo=1)
    assert e.value.name == "foo"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **A, sum_alpha2=1.5)
    assert e.value.name == "sum_alpha2"
    with pytest.raises(st.ParameterError) as e:
        st.max_step(P1, L=1, M=10)
    assert e.value.name == "K"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1, **{**A, "T": 0})
    assert e.value.name == "T"


def test_prop1_catalogue_entry() -> None:
    r = st.get(P1)
    assert r.kind == "proposition" and r.step == "eta" and r.rate is None and r.explicit
    assert r.provenance.equation == "(6)"
    assert {e.id for e in st.editions(r)} == {P1, P1_PROOF, P1_ROUND}
    assert len(r.discrepancies) >= 10
    # the bound does not depend on the cut layer
    assert not {"d", "d_c", "d_s"} & set(r.parameters())


# --- Proposition 1, per-round descent (26) ---------------------------------------------------------
B = dict(eta=0.01, K=5, gradnorm2_f=4, M=10, L=1, sigma2=1, eps2=1)


def test_prop1_proof_case_a() -> None:
    ev = st.evaluate(P1_PROOF, **B)
    # descent -(eta tau/4)||grad f||^2            = -(0.01*5/4)*4          = -0.05
    # noise   2 K S eta^2 tau^2 sum a^2 (s^2+e^2) = 2*10*1*1e-4*25*0.1*2   = 0.01
    assert ev.terms["descent"] == pytest.approx(-0.05)
    assert ev.terms["variance+heterogeneity"] == pytest.approx(0.01)
    assert ev.value == pytest.approx(-0.04)
    assert ev.applies


def test_prop1_proof_case_b() -> None:
    ev = st.evaluate(P1_PROOF, eta=0.02, K=2, gradnorm2_f=1, M=4, L=2, sigma2=3, eps2=1)
    # descent -(0.02*2/4)*1 = -0.01; noise 2*4*2*4e-4*4*0.25*4 = 0.0256; total 0.0156
    assert ev.value == pytest.approx(0.0156)
    # branches 1/(16*2*2) = 0.015625 < 0.02: the first fails
    assert not ev.applies
    assert [h.name for h in ev.failed("statement")] == ["eta<=1/(16 S tau)"]


def test_prop1_proof_noise_is_half_of_the_statement() -> None:
    # (26) times 4/tau: 4/5 * 0.01 = 0.008 ; the noise term of (6) at the same inputs is 0.016 = 2 * 0.008
    proof = st.evaluate(P1_PROOF, **B).terms["variance+heterogeneity"]
    stated = st.evaluate(P1, **A).terms["variance+heterogeneity"]
    assert 4 / 5 * proof == pytest.approx(0.008)
    assert stated == pytest.approx(2 * 0.008)


def test_prop1_proof_branches_both_sides() -> None:
    sc = st.max_step(P1_PROOF, L=1, K=5, M=10, sum_alpha2=0.5)
    # same branches as (6): min{0.0125, 0.005}
    assert sc.max_step == pytest.approx(0.005)
    base = {**B, "sum_alpha2": 0.5}
    assert st.evaluate(P1_PROOF, **{**base, "eta": 0.005 * (1 - 1e-9)}).applies
    assert not st.evaluate(P1_PROOF, **{**base, "eta": 0.005 * (1 + 1e-6)}).applies
    assert st.max_step(P1_PROOF, L=1, K=5, M=10).max_step == pytest.approx(0.0125)
    assert not st.evaluate(P1_PROOF, **{**B, "eta": 0.0125 * (1 + 1e-6)}).applies


def test_prop1_proof_bad_inputs() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1_PROOF, **{k: v for k, v in B.items() if k != "gradnorm2_f"})
    assert e.value.name == "gradnorm2_f"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1_PROOF, **{**B, "gradnorm2_f": -1})
    assert e.value.name == "gradnorm2_f"


# --- Lemma 1, eq. (7) ------------------------------------------------------------------------------
def test_lem1_case_a() -> None:
    ev = st.evaluate("cut_layer/lem1", K=2, eta=0.1, sigma2=1, eps2=2, gradnorm2_f=3, L=1)
    # 2 tau^2 * 8 tau eta^2 = 2*4*8*2*0.01 = 1.28 per unit
    # variance 1.28*1 = 1.28 ; heterogeneity 1.28*2 = 2.56 ; gradient 1.28*3 = 3.84
    assert ev.terms["variance"] == pytest.approx(1.28)
    assert ev.terms["heterogeneity"] == pytest.approx(2.56)
    assert ev.terms["gradient"] == pytest.approx(3.84)
    assert ev.value == pytest.approx(7.68)
    # eta = 0.1 <= 1/(sqrt8*1*2) = 0.1767767
    assert ev.applies


def test_lem1_case_b() -> None:
    ev = st.evaluate("cut_layer/lem1", K=5, eta=0.01, sigma2=0.5, eps2=0.25, gradnorm2_f=0.25, L=2)
    # 2*25*8*5*1e-4*(0.5+0.25+0.25) = 2000*1e-4*1 = 0.2
    assert ev.value == pytest.approx(0.2)
    # 1/(sqrt8*2*5) = 1/28.2843 = 0.0353553 >= 0.01
    assert st.max_step("cut_layer/lem1", L=2, K=5).max_step == pytest.approx(0.0353553, rel=1e-5)


def test_lem1_branch_both_sides() -> None:
    sc = st.max_step("cut_layer/lem1", L=1, K=2)
    # 1/(sqrt8*1*2) = 1/5.6568542 = 0.1767767
    assert sc.max_step == pytest.approx(0.1767767, rel=1e-6)
    p = dict(K=2, sigma2=1, eps2=2, gradnorm2_f=3, L=1)
    assert st.evaluate("cut_layer/lem1", **p, eta=0.1767).applies
    assert not st.evaluate("cut_layer/lem1", **p, eta=0.1768).applies


def test_lem1_bad_inputs() -> None:
    p = dict(K=2, eta=0.1, sigma2=1, eps2=2, gradnorm2_f=3, L=1)
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/lem1", **{**p, "K": 1.5})
    assert e.value.name == "K"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/lem1", **{k: v for k, v in p.items() if k != "eps2"})
    assert e.value.name == "eps2"
    assert st.get("cut_layer/lem1").kind == "lemma"


# --- Lemma 2, eq. (11) -----------------------------------------------------------------------------
def test_lem2_case_a() -> None:
    ev = st.evaluate("cut_layer/lem2", K=2, eta=0.1, L=1, gradnorm2_Fk=1, sigma2=1)
    # 8 tau^3 eta^2 S^2 = 8*8*0.01*1 = 0.64 ; times (1 + 1) = 1.28
    assert ev.terms["gradient"] == pytest.approx(0.64)
    assert ev.terms["variance"] == pytest.approx(0.64)
    assert ev.value == pytest.approx(1.28)
    assert ev.applies and ev.proof_conditions_hold


def test_lem2_case_b() -> None:
    ev = st.evaluate("cut_layer/lem2", K=4, eta=0.05, L=2, gradnorm2_Fk=0.5, sigma2=0.5)
    # 8*64*0.0025*4*(0.5+0.5) = 512*0.01 = 5.12 ; branch 1/(2*2*4) = 0.0625 >= 0.05
    assert ev.value == pytest.approx(5.12)
    assert ev.applies


def test_lem2_branches_both_sides() -> None:
    sc = st.max_step("cut_layer/lem2", L=1, K=2)
    # statement 1/(2*1*2) = 0.25 ; implicit (12): 1/(1*sqrt(2*2*3)) = 1/sqrt12 = 0.2886751
    assert sc.max_step == pytest.approx(0.25)
    assert sc.binding == "eta<=1/(2 S tau)"
    assert sc.max_step_all == pytest.approx(0.25)
    (imp,) = [b for b in sc.branches if b.source == "implicit"]
    assert imp.bound == pytest.approx(0.2886751, rel=1e-6)
    p = dict(K=2, L=1, gradnorm2_Fk=1, sigma2=1)
    assert st.evaluate("cut_layer/lem2", **p, eta=0.2499).applies
    mid = st.evaluate("cut_layer/lem2", **p, eta=0.2501)
    assert not mid.applies and mid.proof_conditions_hold
    high = st.evaluate("cut_layer/lem2", **p, eta=0.29)
    assert not high.applies and not high.proof_conditions_hold


def test_lem2_implicit_condition_implied_for_every_tau() -> None:
    # 1/(2K) <= 1/sqrt(2K(1+K))  <=>  4K^2 >= 2K(1+K)  <=>  K >= 1
    for k in range(1, 60):
        sc = st.max_step("cut_layer/lem2", L=3, K=k)
        assert sc.max_step_all == pytest.approx(sc.max_step)
        assert sc.max_step == pytest.approx(1 / (6 * k))


def test_lem2_bad_inputs() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/lem2", K=2, eta=0.1, L=0, gradnorm2_Fk=1, sigma2=1)
    assert e.value.name == "L"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/lem2", K=2, eta=0.1, L=1, sigma2=1)
    assert e.value.name == "gradnorm2_Fk"


# --- tau := ceil(E D_k / B_k) ----------------------------------------------------------------------
def test_tau_def() -> None:
    # ceil(5*500/64) = ceil(39.0625) = 40 ; ceil(1*128/64) = 2 ; ceil(2*100/64) = ceil(3.125) = 4
    assert st.evaluate("cut_layer/tau_def", E_epochs=5, D_k=500, batch=64).value == 40
    assert st.evaluate("cut_layer/tau_def", E=1, D_k=128, B_k=64).value == 2
    assert st.evaluate("cut_layer/tau_def", E_epochs=2, D_k=100, batch=64).value == 4
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/tau_def", E_epochs=0, D_k=100, batch=64)
    assert e.value.name == "E_epochs"


# --- SFL-V2: no result -----------------------------------------------------------------------------
def test_sfl_v2_has_no_result() -> None:
    r = st.get("cut_layer/sfl_v2")
    assert r.kind == "model" and not r.explicit and r.rate is None and r.terms == ()
    assert any("left to future work" in n for n in r.notes)
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("cut_layer/sfl_v2")
    assert e.value.name == "cut_layer/sfl_v2"
    with pytest.raises(st.ParameterError) as e:
        st.max_step("cut_layer/sfl_v2")
    assert e.value.name == "cut_layer/sfl_v2"


def test_every_result_cites_the_seed() -> None:
    rs = st.results("cut_layer")
    assert {r.id for r in rs} == {
        P1,
        P1_PROOF,
        P1_ROUND,
        "cut_layer/lem1",
        "cut_layer/lem2",
        "cut_layer/tau_def",
        "cut_layer/sfl_v2",
    }
    for r in rs:
        assert r.provenance.seed == "003_60e24e21677c19f3.txt"
        for h in r.hypotheses:
            assert h.where and h.printed
            if h.source == "implicit":
                assert h.note
    assert math.isclose(st.max_step(P1, L=2, K=1, M=1).max_step, 1 / 32)  # 1/(16*2*1)


# --- Proposition 1, per-round bound (27), App. B.4 ---------------------------------------------------
# (27): eta^t ||grad f(theta^t)||^2 <= (4/tau)(f(theta^t) - E f(theta^{t+1})) + 8 K S (eta^t)^2 (2 tau^2/tau) sum a^2 (s^2+e^2)
# the decrease is gap_round - gap_next (optimality gaps before and after the round)
R27 = dict(eta=0.01, K=5, gap_round=1.5, gap_next=1.0, M=10, L=1, sigma2=1, eps2=1)


def test_prop1_round_case_a() -> None:
    ev = st.evaluate(P1_ROUND, **R27)
    # decrease (4/tau)(1.5 - 1.0)                          = 0.8*0.5                              = 0.4
    # noise    8 K S eta^2 (2 tau^2/tau) sum a^2 (s^2+e^2) = 8*10*1*1e-4*(2*25/5)*0.1*2 = 8e-3*10*0.2 = 0.016
    assert ev.terms["decrease"] == pytest.approx(0.4)
    assert ev.terms["variance+heterogeneity"] == pytest.approx(0.016)
    assert ev.value == pytest.approx(0.416)
    assert ev.derived == {"sum_alpha2": "1/M"}
    # branches as for (26): 1/(16*1*5) = 0.0125, 1/(8*1*10*5*0.1) = 0.025, both above 0.01
    assert ev.applies and ev.proof_conditions_hold


def test_prop1_round_case_b_increase() -> None:
    ev = st.evaluate(P1_ROUND, eta=0.02, K=2, gap_round=0.1, gap_next=0.3, M=4, L=2, sigma2=3, eps2=1)
    # decrease (4/2)(0.1 - 0.3) = -0.4 (f went up); sum a^2 = 1/4
    # noise 8*4*2*4e-4*(2*4/2)*0.25*(3+1) = 0.0256*4*0.25*4 = 0.1024 ; total -0.4 + 0.1024 = -0.2976
    assert ev.terms["decrease"] == pytest.approx(-0.4)
    assert ev.terms["variance+heterogeneity"] == pytest.approx(0.1024)
    assert ev.value == pytest.approx(-0.2976)
    # 1/(16*2*2) = 0.015625 < 0.02: the first branch fails
    assert not ev.applies
    assert [h.name for h in ev.failed("statement")] == ["eta<=1/(16 S tau)"]


def test_prop1_round_noise_is_twice_the_rearranged_26_and_equals_6() -> None:
    # (26) times 4/tau: 4/5 * 0.01 = 0.008; (27) prints 0.016 = 2 * 0.008 (the "(27) vs (26)" discrepancy)
    n26 = st.evaluate(P1_PROOF, **B).terms["variance+heterogeneity"]
    n27 = st.evaluate(P1_ROUND, **R27).terms["variance+heterogeneity"]
    assert 4 / 5 * n26 == pytest.approx(0.008)
    assert n27 == pytest.approx(2 * 0.008)
    # averaging (27) over t at a constant step gives (6)'s noise term: 16 K S tau sum a^2 (s^2+e^2) eta^2 = 0.016
    assert st.evaluate(P1, **A).terms["variance+heterogeneity"] == pytest.approx(n27)


def test_prop1_round_tau_from_epochs() -> None:
    p = {k: v for k, v in R27.items() if k != "K"}
    ev = st.evaluate(P1_ROUND, **p, E_epochs=1, D_k=100, batch=32)
    # tau = ceil(100/32) = 4: decrease (4/4)*0.5 = 0.5; noise 8*10*1e-4*(2*16/4)*0.1*2 = 8e-3*8*0.2 = 0.0128
    assert ev.params["K"] == 4
    assert ev.value == pytest.approx(0.5128)


def test_prop1_round_branches_both_sides() -> None:
    sc = st.max_step(P1_ROUND, L=1, K=5, M=10, sum_alpha2=0.5)
    # min{1/(16*5) = 0.0125, 1/(8*10*5*0.5) = 0.005}; the implicit (21) condition 4/(41*10*5*0.5) = 4/1025
    assert sc.max_step == pytest.approx(0.005)
    assert sc.binding == "eta<=1/(8 S K tau sum alpha_k^2)"
    assert sc.max_step_all == pytest.approx(4 / 1025)
    base = {**R27, "sum_alpha2": 0.5}
    assert st.evaluate(P1_ROUND, **{**base, "eta": 0.005 * (1 - 1e-9)}).applies
    above = st.evaluate(P1_ROUND, **{**base, "eta": 0.005 * (1 + 1e-6)})
    assert not above.applies
    assert [h.name for h in above.failed("statement")] == ["eta<=1/(8 S K tau sum alpha_k^2)"]
    assert st.max_step(P1_ROUND, L=1, K=5, M=10).max_step == pytest.approx(0.0125)  # 1/(16*1*5)


def test_prop1_round_bad_inputs() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1_ROUND, **{k: v for k, v in R27.items() if k != "gap_next"})
    assert e.value.name == "gap_next"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(P1_ROUND, **{**R27, "gap_round": -1})
    assert e.value.name == "gap_round"


def test_prop1_round_catalogue_entry() -> None:
    r = st.get(P1_ROUND)
    assert r.label == "prop1" and r.edition == "round" and r.step == "eta" and r.rate is None and r.explicit
    assert r.provenance.equation == "(27)" and r.provenance.section == "App. B.4"
    assert "App. B.4, (27) vs (26)" in {d.where for d in r.discrepancies}
    sources = {h.name: h.source for h in r.hypotheses}
    assert sources["eta<=1/(16 S tau)"] == "statement"
    assert sources["Lemma 1: eta<=1/(sqrt(8) S tau)"] == "proof"
    assert sources["(26) noise and coefficient: 8 eta S tau + 8 (eta S tau)^2 <= 1"] == "implicit"


def test_every_result_carries_the_reference_and_real_default_rules() -> None:
    for r in st.results("cut_layer"):
        assert "Dachille" in r.provenance.reference and "arXiv:2412.15536" in r.provenance.reference
        assert r.provenance.reference in r.provenance.citation
        for d in r.defaults:
            assert "TODO" not in d.rule and d.rule.strip()
