"""HERON-SFL (seed 001_e8dcbf2a405221d7.txt) against hand calculations from the printed formulas.

Every expected number below is worked out by hand in the comment next to it, from the equation cited.
The paper's d is encoded as d_c + d_aux; N -> M, h -> K, mu -> lam, B -> batch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sfltheory as st

# --- shared inputs ---------------------------------------------------------------------------------
# Theorem 1, case A: L=1, M=2, K=2, d = 10 + 0 = 10, B = 4, eta_c = 0.01, eta_s defaults to
# eta_c K/(2M-1) = 0.02/3, so eta_min = min{0.01*2/4, (0.02/3)*3/4} = min{0.005, 0.005} = 0.005.
A1 = dict(L=1, F=1, T=100, M=2, K=2, lam=0.1, batch=4, G_c2=1, G_s2=1, sigma_c2=1, delta=1, d_c=10, d_aux=0, eta_c=0.01)
# Theorem 2, case C: L=1, M=2, d = 2, kappa = 2 -> rho = 1 + (2*2 + 2 - 2)/(2 + 2) = 2; eta_c = 0.04,
# eta_s defaults to eta_c/(2M-1) = 0.04/3, eta_min = min{0.04/4, (0.04/3)*3/4} = 0.01.
C2 = dict(L=1, F=1, T=100, M=2, lam=0.01, G_s2=1, sigma_c2=1, delta=1, d_c=2, d_aux=0, kappa=2, eta_c=0.04)
# Theorem 2, case D: L=1, M=1, d = 1, kappa = 1 -> rho = 1 + (1 + 1 - 2)/3 = 1; eta_c = 0.1, eta_s = 0.04:
# eta_min = min{0.1/4, 0.04*1/4} = min{0.025, 0.01} = 0.01 (the server side binds).
D2 = dict(L=1, F=2, T=10, M=1, lam=0.05, G_s2=0, sigma_c2=4, delta=0, d_c=1, d_aux=0, kappa=1, eta_c=0.1, eta_s=0.04)

THM1_IDS = ["heron_sfl/thm1", "heron_sfl/thm1@proof", "heron_sfl/thm1@round", "heron_sfl/thm1@sum"]
THM2_ETA_C_IDS = ["heron_sfl/thm2", "heron_sfl/thm2@round", "heron_sfl/thm2@sum"]


def _bounds(rid: str, **p: float) -> dict[str, float]:
    return {b.name: float(b.bound) for b in st.max_step(rid, **p).branches}


def _branch_holds(rid: str, name: str, **p: float) -> bool:
    (b,) = [b for b in st.max_step(rid, **p).branches if b.name == name]
    assert b.holds is not None
    return bool(b.holds)


def _hyp(ev: st.Evaluation, name: str) -> bool:
    (h,) = [h for h in ev.hypotheses if h.name == name]
    return bool(h.holds)


# --- catalogue -------------------------------------------------------------------------------------
def test_catalogue_lists_every_result_and_edition() -> None:
    ids = {r.id for r in st.results("heron_sfl")}
    assert {
        "heron_sfl/thm1",
        "heron_sfl/thm1@proof",
        "heron_sfl/thm1@round",
        "heron_sfl/thm1@sum",
        "heron_sfl/lemma2",
        "heron_sfl/lemma3",
        "heron_sfl/lemma4",
        "heron_sfl/eq45",
        "heron_sfl/remark2",
        "heron_sfl/thm2",
        "heron_sfl/thm2@round",
        "heron_sfl/thm2@sum",
        "heron_sfl/thm2@proof",
        "heron_sfl/thm2@floor",
        "heron_sfl/lemma5",
        "heron_sfl/table1_comm",
        "heron_sfl/table1_flops",
        "heron_sfl/table1_memory",
        "heron_sfl/table1_comm_cse_fsl",
        "heron_sfl/table1_flops_cse_fsl",
        "heron_sfl/table1_memory_cse_fsl",
        "heron_sfl/table1_comm_sfl",
        "heron_sfl/table1_flops_sfl",
        "heron_sfl/table1_memory_sfl",
    } == ids
    assert [r.edition for r in st.editions(st.get("heron_sfl/thm2"))] == ["", "round", "sum", "proof", "floor"]


def test_every_result_cites_the_seed_and_records_where() -> None:
    for r in st.results("heron_sfl"):
        assert r.provenance.seed == "001_e8dcbf2a405221d7.txt"
        assert r.statement
        for h in r.hypotheses:
            assert h.where, (r.id, h.name)
            assert h.source in ("statement", "proof", "implicit")
        if not r.explicit:
            assert r.rate and not r.terms


# --- Theorem 1: O-form statement and (49) ----------------------------------------------------------
@pytest.mark.parametrize("rid", ["heron_sfl/thm1", "heron_sfl/thm1@proof"])
def test_thm1_o_forms_refuse_and_name_the_explicit_edition(rid: str) -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(rid, **A1)
    assert e.value.name == rid
    assert "heron_sfl/thm1@sum" in str(e.value)
    r = st.get(rid)
    assert r.see == "heron_sfl/thm1@sum" and not r.explicit


def test_thm1_rate_as_printed() -> None:
    r = st.get("heron_sfl/thm1")
    assert r.rate is not None and r"\sqrt{\frac{d}{hNBT}}" in r.rate and r"\sqrt{\frac{1}{dhNBT}}" in r.rate


# --- Theorem 1: step sizes (shared by every edition) ------------------------------------------------
@pytest.mark.parametrize("rid", [*THM1_IDS, "heron_sfl/lemma4"])
def test_thm1_branches_by_hand(rid: str) -> None:
    b = _bounds(rid, L=1, M=2, K=2)
    # (30) 1/(3Lh) = 1/6 ; 2/(NLh^2) = 2/(2*1*4) = 1/4 ; N/(72L) = 2/72 = 1/36
    assert b["eta_c<=1/(3Lh)"] == pytest.approx(1 / 6)
    assert b["eta_c<=2/(NLh^2)"] == pytest.approx(1 / 4)
    assert b["eta_c<=N/(72L)"] == pytest.approx(1 / 36)
    # (40)(a) 1/(2hL) = 1/4
    assert b["(40)(a) eta_c<=1/(2hL)"] == pytest.approx(1 / 4)
    # alpha = 8 eta + 24 eta^2 <= 4hL/N = 4  ->  6 eta^2 + 2 eta - 1 = 0  ->  eta = (-2 + sqrt(28))/12
    assert b["implicit alpha<=4hL/N"] == pytest.approx((-2 + math.sqrt(28)) / 12)  # 0.274292
    # (6Lh/N + 3 alpha) eta^2 <= eta h/4  ->  6 eta + 24 eta^2 + 72 eta^3 <= 1/2: root ~ 0.063882
    # (check: 6*0.063882 + 24*0.063882^2 + 72*0.063882^3 = 0.383292 + 0.097942 + 0.018770 = 0.500004)
    g = b["Lemma 4 (6Lh/N+3alpha)eta_c^2<=eta_c h/4"]
    assert g == pytest.approx(0.063882, rel=1e-4)
    assert 6 * g + 24 * g**2 + 72 * g**3 == pytest.approx(0.5)
    if rid != "heron_sfl/lemma4":
        # (45)(a) eta_s <= 1/(NL) with eta_s = eta_c h/(2N-1) = 2 eta_c/3  ->  eta_c <= 3/(2*2) = 0.75
        assert b["(45)(a) eta_s<=1/(NL)"] == pytest.approx(0.75)
    sc = st.max_step(rid, L=1, M=2, K=2)
    assert sc.max_step == pytest.approx(1 / 36) and sc.binding == "eta_c<=N/(72L)"
    assert sc.max_step_all == pytest.approx(1 / 36)


def test_thm1_second_branch_binds_for_many_clients() -> None:
    # L=1, M=100, K=2: 1/(3*2) = 0.1667, 2/(100*4) = 0.005, 100/72 = 1.39  ->  2/(NLh^2) binds
    sc = st.max_step("heron_sfl/thm1@sum", L=1, M=100, K=2)
    assert sc.max_step == pytest.approx(0.005) and sc.binding == "eta_c<=2/(NLh^2)"


def test_thm1_branches_at_five_clients_one_step() -> None:
    b = _bounds("heron_sfl/thm1@sum", L=1, M=5, K=1)
    # 1/(3*1*1) = 1/3 ; 2/(5*1*1) = 2/5 ; 5/72 -> N/(72L) binds
    assert b["eta_c<=1/(3Lh)"] == pytest.approx(1 / 3)
    assert b["eta_c<=2/(NLh^2)"] == pytest.approx(2 / 5)
    assert b["eta_c<=N/(72L)"] == pytest.approx(5 / 72)
    assert st.max_step("heron_sfl/thm1@sum", L=1, M=5, K=1).binding == "eta_c<=N/(72L)"


@pytest.mark.parametrize(
    ("name", "bound"),
    [
        ("eta_c<=1/(3Lh)", 1 / 6),
        ("eta_c<=2/(NLh^2)", 1 / 4),
        ("eta_c<=N/(72L)", 1 / 36),
        ("(40)(a) eta_c<=1/(2hL)", 1 / 4),
        ("(45)(a) eta_s<=1/(NL)", 0.75),
        ("implicit alpha<=4hL/N", (-2 + math.sqrt(28)) / 12),
    ],
)
@pytest.mark.parametrize("rid", THM1_IDS)
def test_thm1_each_branch_on_both_sides(rid: str, name: str, bound: float) -> None:
    # same hand bounds as above (L=1, M=2, K=2); eta_s follows eta_c through the default coupling
    base = dict(L=1, M=2, K=2)
    assert _branch_holds(rid, name, **base, eta_c=bound * (1 - 1e-6))
    assert not _branch_holds(rid, name, **base, eta_c=bound * (1 + 1e-6))
    if st.get(rid).explicit:
        p = {**A1, "eta_c": bound * (1 - 1e-6)}
        if rid.endswith("@round"):
            p = {k: v for k, v in p.items() if k not in ("F", "T", "delta")} | dict(
                gap_round=0.5, gap_next=0.49, drift_round=2
            )
        assert _hyp(st.evaluate(rid, **p), name)
        assert not _hyp(st.evaluate(rid, **{**p, "eta_c": bound * (1 + 1e-6)}), name)


@pytest.mark.parametrize("rid", THM1_IDS)
def test_thm1_gradient_condition_on_both_sides(rid: str) -> None:
    name = "Lemma 4 (6Lh/N+3alpha)eta_c^2<=eta_c h/4"
    g = _bounds(rid, L=1, M=2, K=2)[name]
    assert _branch_holds(rid, name, L=1, M=2, K=2, eta_c=g * (1 - 1e-6))
    assert not _branch_holds(rid, name, L=1, M=2, K=2, eta_c=g * (1 + 1e-6))


def test_thm1_proof_conditions_are_implied_by_the_statement() -> None:
    # the printed gradient condition and alpha <= 4hL/N follow from (30): alpha <= 2L h/N + 2L h/(3N) < 4hL/N
    for L in (0.5, 1.0, 7.0):
        for M in (1, 2, 5, 30, 1000):
            for K in (1, 2, 5, 40):
                sc = st.max_step("heron_sfl/lemma4", L=L, M=M, K=K)
                assert sc.max_step_all == pytest.approx(sc.max_step), (L, M, K, sc.binding_all)


def test_thm1_coupling_is_a_proof_condition() -> None:
    sc = st.max_step("heron_sfl/thm1", L=1, M=2, K=2, eta_c=0.01)
    (c,) = sc.other
    assert c.holds  # default eta_s = 0.02/3
    sc = st.max_step("heron_sfl/thm1", L=1, M=2, K=2, eta_c=0.01, eta_s=0.01)
    (c,) = sc.other
    assert not c.holds and c.source == "proof"


# --- Theorem 1 @sum: eq. (48) averaged over t ------------------------------------------------------
def test_thm1_sum_case_a() -> None:
    ev = st.evaluate("heron_sfl/thm1@sum", **A1)
    # eta_min = 0.005 (see A1)
    # init    F/(eta_min T)                           = 1/(0.005*100)                         = 2
    # G_c     eta_c^2 6hLdG_c^2/(NB) / eta_min        = 1e-4*6*2*10/(2*4) = 1.5e-3 -> /0.005  = 0.3
    # sigma   eta_c^2 18hL s^2/N / eta_min            = 1e-4*18*2/2 = 1.8e-3       -> /0.005  = 0.36
    # ZO d^2  eta_c d^2L^2h mu^2/(48B) / eta_min      = 0.01*100*2*0.01/192 = 1/9600 -> /0.005 = 1/48
    # ZO      eta_c 13hL^2mu^2/12 / eta_min           = 0.01*13*2*0.01/12 = 0.0026/12 -> /0.005 = 13/300
    # drift   eta_s G_s^2 delta/(2N eta_min)          = (0.02/3)/(4*0.005)                   = 1/3
    # server  L N^2 eta_s^2 G_s^2/(2 eta_min)         = 4*(0.02/3)^2/0.01 = 0.0016/9/0.01    = 4/225
    assert ev.terms["initialisation"] == pytest.approx(2)
    assert ev.terms["client variance (G_c)"] == pytest.approx(0.3)
    assert ev.terms["client variance (sigma)"] == pytest.approx(0.36)
    assert ev.terms["ZO bias (d^2)"] == pytest.approx(1 / 48)
    assert ev.terms["ZO bias"] == pytest.approx(13 / 300)
    assert ev.terms["drift"] == pytest.approx(1 / 3)
    assert ev.terms["server variance"] == pytest.approx(4 / 225)
    assert ev.value == pytest.approx(2 + 0.3 + 0.36 + 1 / 48 + 13 / 300 + 1 / 3 + 4 / 225)  # 3.0752778
    assert "eta_s" in ev.derived  # eta_c h/(2N-1)
    assert ev.applies and ev.proof_conditions_hold


def test_thm1_sum_case_b_server_side_eta_min() -> None:
    p = dict(L=1, F=1, T=10, M=1, K=4, lam=1, batch=1, G_c2=2, G_s2=3, sigma_c2=0, delta=0, d_c=1, d_aux=1)
    ev = st.evaluate("heron_sfl/thm1@sum", **p, eta_c=0.01, eta_s=0.02)
    # d = 2; eta_min = min{0.01*4/4, 0.02*1/4} = min{0.01, 0.005} = 0.005
    # init   1/(0.005*10)                              = 20
    # G_c    1e-4*6*4*1*2*2/(1*1) = 9.6e-3 -> /0.005   = 1.92
    # sigma  0 ; drift 0 (delta = 0)
    # ZO d^2 0.01*4*1*4*1/48 = 0.16/48 -> /0.005       = 2/3
    # ZO     0.01*13*4/12 = 0.52/12 -> /0.005          = 26/3
    # server 1*1*4e-4*3/(2*0.005)                      = 0.12
    assert ev.terms["initialisation"] == pytest.approx(20)
    assert ev.terms["ZO bias"] == pytest.approx(26 / 3)
    assert ev.value == pytest.approx(20 + 1.92 + 2 / 3 + 26 / 3 + 0.12)  # 31.373333
    assert ev.applies  # 0.01 <= min{1/12, 1/8, 1/72}; eta_s = 0.02 <= 1


def test_thm1_sum_vectorised() -> None:
    ev = st.evaluate("heron_sfl/thm1@sum", **{**A1, "T": np.array([100, 200])})
    # only the initialisation changes: 1/(0.005*200) = 1
    assert np.allclose(ev.terms["initialisation"], [2, 1])


# --- Theorem 1 @round: eq. (48) ---------------------------------------------------------------------
R1 = {k: v for k, v in A1.items() if k not in ("F", "T", "delta")}


def test_thm1_round_case_a() -> None:
    ev = st.evaluate("heron_sfl/thm1@round", **R1, gap_round=0.5, gap_next=0.49, drift_round=2)
    # init  (gap_round - gap_next)/eta_min = 0.01/0.005 = 2 ; drift eta_s G_s^2 * 2/(2N eta_min) = (0.04/3)/0.02 = 2/3
    # the other terms as in case A of @sum: 0.3 + 0.36 + 1/48 + 13/300 + 4/225
    assert ev.terms["drift"] == pytest.approx(2 / 3)
    assert ev.value == pytest.approx(2 + 0.3 + 0.36 + 1 / 48 + 13 / 300 + 2 / 3 + 4 / 225)  # 3.4086111


def test_thm1_round_negative_descent() -> None:
    ev = st.evaluate("heron_sfl/thm1@round", **R1, gap_round=0.2, gap_next=0.205, drift_round=0)
    # init (0.2 - 0.205)/0.005 = -1 ; drift 0 ; rest 0.3 + 0.36 + 1/48 + 13/300 + 4/225
    assert ev.value == pytest.approx(-1 + 0.3 + 0.36 + 1 / 48 + 13 / 300 + 4 / 225)  # -0.2580556


# --- Lemma 3, eq. (24) ------------------------------------------------------------------------------
def test_lemma3_case_a() -> None:
    p = dict(L=1, K=2, eta_c=0.1, gc2_round=1, G_c2=1, batch=2, d_c=2, d_aux=0, lam=0.5, sigma_c2=1)
    ev = st.evaluate("heron_sfl/lemma3", **p)
    # h^3 eta_c^2 = 8*0.01 = 0.08
    # gradient 3*0.08*1 = 0.24 ; G_c 2*1*0.08/2 = 0.08 ; ZO d^2 4*1*0.25*0.08/(4*2) = 0.01
    # var+bias (6*1 + 2*0.25*1)*0.08/2 = 6.5*0.04 = 0.26
    assert ev.terms["gradient"] == pytest.approx(0.24)
    assert ev.terms["ZO bias (d^2)"] == pytest.approx(0.01)
    assert ev.value == pytest.approx(0.59)
    assert ev.applies  # 0.1 <= 1/(3*1*2) = 1/6


def test_lemma3_case_b() -> None:
    p = dict(L=2, K=1, eta_c=0.1, gc2_round=0, G_c2=3, batch=1, d_c=1, d_aux=1, lam=1, sigma_c2=0)
    ev = st.evaluate("heron_sfl/lemma3", **p)
    # d = 2, h^3 eta_c^2 = 0.01 ; G_c 2*3*0.01 = 0.06 ; ZO d^2 4*4*1*0.01/4 = 0.04 ; var+bias (0+2*1*4)*0.01/2 = 0.04
    assert ev.value == pytest.approx(0.14)


def test_lemma3_branch_on_both_sides() -> None:
    # 1/(3Lh) = 1/(3*2*1) = 1/6
    p = dict(L=2, K=1, gc2_round=0, G_c2=3, batch=1, d_c=1, d_aux=1, lam=1, sigma_c2=0)
    assert st.max_step("heron_sfl/lemma3", L=2, K=1).max_step == pytest.approx(1 / 6)
    assert st.evaluate("heron_sfl/lemma3", **p, eta_c=(1 / 6) * (1 - 1e-9)).applies
    assert not st.evaluate("heron_sfl/lemma3", **p, eta_c=(1 / 6) * (1 + 1e-6)).applies


# --- Lemma 4, eqs. (31)/(43) ------------------------------------------------------------------------
def test_lemma4_case_a() -> None:
    p = dict(L=1, M=2, K=2, eta_c=0.01, gc2_round=4, G_c2=1, batch=4, d_c=10, d_aux=0, lam=0.1, sigma_c2=1)
    ev = st.evaluate("heron_sfl/lemma4", **p)
    # descent -eta_c h/4 * 4 = -0.01*2 = -0.02 ; Phi_c = 1.5e-3 + 1.8e-3 + 1/9600 + 0.0026/12 (see @sum, case A)
    assert ev.terms["descent"] == pytest.approx(-0.02)
    assert ev.value == pytest.approx(-0.02 + 1.5e-3 + 1.8e-3 + 1 / 9600 + 0.0026 / 12)  # -0.01637917
    assert ev.applies and ev.proof_conditions_hold


def test_lemma4_case_b() -> None:
    p = dict(L=2, M=1, K=1, eta_c=0.005, gc2_round=0, G_c2=2, batch=1, d_c=3, d_aux=1, lam=0.5, sigma_c2=2)
    ev = st.evaluate("heron_sfl/lemma4", **p)
    # d = 4, eta_c^2 = 2.5e-5
    # G_c    2.5e-5*6*1*2*4*2/1        = 2.5e-5*96 = 2.4e-3
    # sigma  2.5e-5*18*1*2*2/1         = 2.5e-5*72 = 1.8e-3
    # ZO d^2 0.005*16*4*1*0.25/48      = 0.08/48   = 1/600
    # ZO     0.005*13*1*4*0.25/12      = 0.065/12
    assert ev.value == pytest.approx(2.4e-3 + 1.8e-3 + 1 / 600 + 0.065 / 12)  # 0.01128333
    # branches: 1/(3*2) = 1/6, 2/(1*2*1) = 1, 1/(72*2) = 1/144 = 0.00694 > 0.005
    assert ev.applies


# --- eq. (45) ---------------------------------------------------------------------------------------
def test_eq45_case_a() -> None:
    ev = st.evaluate("heron_sfl/eq45", L=1, M=2, eta_s=0.1, G_s2=1, drift_round=0.5, gs2_round=2)
    # drift 0.1*1*0.5 = 0.05 ; descent -0.1*3*2/4 = -0.15 ; server 1*4*0.01*1/2 = 0.02
    assert ev.value == pytest.approx(0.05 - 0.15 + 0.02)
    assert ev.applies  # 0.1 <= 1/(2*1)


def test_eq45_case_b_and_branch() -> None:
    ev = st.evaluate("heron_sfl/eq45", L=2, M=3, eta_s=0.05, G_s2=2, drift_round=1, gs2_round=0)
    # drift 0.05*2*1 = 0.1 ; descent 0 ; server 2*9*0.0025*2/2 = 0.045
    assert ev.value == pytest.approx(0.145)
    # 1/(NL) = 1/6
    sc = st.max_step("heron_sfl/eq45", L=2, M=3)
    assert sc.max_step == pytest.approx(1 / 6)
    p = dict(L=2, M=3, G_s2=2, drift_round=1, gs2_round=0)
    assert st.evaluate("heron_sfl/eq45", **p, eta_s=(1 / 6) * (1 - 1e-9)).applies
    assert not st.evaluate("heron_sfl/eq45", **p, eta_s=(1 / 6) * (1 + 1e-6)).applies


def test_eq45_drift_is_2n_times_that_of_48() -> None:
    # (45): eta_s G_s^2 sum d ; (48): eta_s G_s^2 sum d/(2N): with N = 2 the ratio is 4
    e45 = st.evaluate("heron_sfl/eq45", L=1, M=2, eta_s=0.1, G_s2=1, drift_round=1, gs2_round=0)
    assert e45.terms["drift"] == pytest.approx(0.1)  # 0.1*1*1
    r = st.get("heron_sfl/eq45")
    assert any("1/(2N)" in d.note for d in r.discrepancies)


# --- Theorem 2: O-form statement --------------------------------------------------------------------
def test_thm2_o_form_refuses_and_names_the_explicit_edition() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm2", **C2)
    assert e.value.name == "heron_sfl/thm2"
    assert "heron_sfl/thm2@proof" in str(e.value)
    assert st.get("heron_sfl/thm2").rate is not None and r"\frac{2}{\delta}" in str(st.get("heron_sfl/thm2").rate)


@pytest.mark.parametrize("rid", THM2_ETA_C_IDS)
def test_thm2_branches_by_hand(rid: str) -> None:
    b = _bounds(rid, L=1, M=2, d_c=2, d_aux=0, kappa=2)
    # rho/(4L) = 2/4 = 0.5 ; eta_s = eta_c/3 <= 1/(NL) = 1/2 -> eta_c <= 1.5
    assert b["eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))"] == pytest.approx(0.5)
    assert b["(45)(a) eta_s<=1/(NL)"] == pytest.approx(1.5)
    sc = st.max_step(rid, L=1, M=2, d_c=2, d_aux=0, kappa=2)
    assert sc.max_step == pytest.approx(0.5) and sc.max_step_all == pytest.approx(0.5)
    # d = 100, kappa = 1: rho = 1 + (100 + 100 - 2)/102 = 1 + 198/102 = 300/102 ; /4 = 0.735294
    b = _bounds(rid, L=1, M=2, d_c=60, d_aux=40, kappa=1)
    assert b["eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))"] == pytest.approx(300 / 408)


@pytest.mark.parametrize(
    ("name", "bound"), [("eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))", 0.5), ("(45)(a) eta_s<=1/(NL)", 1.5)]
)
@pytest.mark.parametrize("rid", THM2_ETA_C_IDS)
def test_thm2_each_branch_on_both_sides(rid: str, name: str, bound: float) -> None:
    base = dict(L=1, M=2, d_c=2, d_aux=0, kappa=2)
    assert _branch_holds(rid, name, **base, eta_c=bound * (1 - 1e-6))
    assert not _branch_holds(rid, name, **base, eta_c=bound * (1 + 1e-6))
    if st.get(rid).explicit:
        p = {**C2, "eta_c": bound * (1 - 1e-6)}
        if rid.endswith("@round"):
            p = {k: v for k, v in p.items() if k not in ("F", "delta")} | dict(
                gap_round=0.5, gap_next=0.48, drift_round=3
            )
        assert _hyp(st.evaluate(rid, **p), name)
        assert not _hyp(st.evaluate(rid, **{**p, "eta_c": bound * (1 + 1e-6)}), name)


@pytest.mark.parametrize("rid", ["heron_sfl/thm2@sum", "heron_sfl/thm2@proof", "heron_sfl/thm2@floor"])
def test_thm2_smoothing_on_both_sides(rid: str) -> None:
    # kappa^(1/4)/((NT)^(1/4)(d+3)^(3/2)) = 2^(1/4)/(200^(1/4)*5^(3/2)) = 0.01^(1/4)/(5 sqrt 5)
    #   = 0.316228/11.18034 = 1/sqrt(1250) = 0.0282843
    bound = 1 / math.sqrt(1250)
    p = {k: v for k, v in C2.items() if k != "lam"} | {"Delta_drift": 0}
    if rid.endswith("@proof"):
        p = {k: v for k, v in p.items() if k != "eta_c"} | {"eta": 0.01}
    if rid.endswith("@floor"):
        p = {
            k: v for k, v in p.items() if k in ("G_s2", "M", "L", "d_c", "d_aux", "delta", "kappa", "T", "Delta_drift")
        }
    name = "mu<=kappa^(1/4)/((NT)^(1/4)(d+3)^(3/2))"
    assert _hyp(st.evaluate(rid, **p, lam=bound * (1 - 1e-6)), name)
    assert not _hyp(st.evaluate(rid, **p, lam=bound * (1 + 1e-6)), name)


# --- Theorem 2 @sum, eq. (61) ------------------------------------------------------------------------
def test_thm2_sum_case_c() -> None:
    ev = st.evaluate("heron_sfl/thm2@sum", **C2)
    # eta_min = 0.01, rho = 2, d = 2
    # init    1/(0.01*100)                                 = 1
    # ZO      eta_c mu^2 L^2 (d+3)^3/8 = 0.04*1e-4*125/8 = 6.25e-5   -> /0.01 = 6.25e-3
    # ZO L^4  eta_c^2 L^4 mu^2 d^3 = 1.6e-3*1e-4*8 = 1.28e-6          -> /0.01 = 1.28e-4
    # Young   eta_c^3 L^2 rho^2 = 6.4e-5*4 = 2.56e-4                  -> /0.01 = 0.0256
    # var     eta_c^2 L rho (s^2 + G_s^2)/N = 1.6e-3*2*2/2 = 3.2e-3   -> /0.01 = 0.32
    # drift   eta_s G_s^2 delta/(2N eta_min) = (0.04/3)/(4*0.01)      = 1/3
    # server  L N^2 eta_s^2 G_s^2/(2 eta_min) = 4*(0.04/3)^2/0.02     = 0.0064/9/0.02 = 0.32/9
    assert ev.terms["Young term"] == pytest.approx(0.0256)
    assert ev.terms["variance"] == pytest.approx(0.32)
    assert ev.value == pytest.approx(1 + 6.25e-3 + 1.28e-4 + 0.0256 + 0.32 + 1 / 3 + 0.32 / 9)  # 1.7208669
    assert ev.applies and ev.proof_conditions_hold


def test_thm2_sum_case_d_server_side_eta_min() -> None:
    ev = st.evaluate("heron_sfl/thm2@sum", **D2)
    # eta_min = 0.01, rho = 1, d = 1
    # init   2/(0.01*10)                       = 20
    # ZO     0.1*0.0025*1*64/8 = 0.002  -> /0.01 = 0.2
    # ZO L^4 0.01*1*0.0025*1 = 2.5e-5   -> /0.01 = 2.5e-3
    # Young  0.001*1*1                  -> /0.01 = 0.1
    # var    0.01*1*1*(4 + 0)/1 = 0.04  -> /0.01 = 4
    # drift 0 (delta = 0, G_s^2 = 0) ; server 0 (G_s^2 = 0)
    assert ev.value == pytest.approx(20 + 0.2 + 2.5e-3 + 0.1 + 4)  # 24.3025
    # lam bound: 1/(10^(1/4) * 4^(3/2)) = 1/(1.778279*8) = 0.070293 > 0.05 ; rho/(4L) = 0.25 >= 0.1
    assert ev.applies


# --- Theorem 2 @round, eq. (60) ----------------------------------------------------------------------
def test_thm2_round_case_c() -> None:
    p = {k: v for k, v in C2.items() if k not in ("F", "delta")}
    ev = st.evaluate("heron_sfl/thm2@round", **p, gap_round=0.5, gap_next=0.48, drift_round=3)
    # init (0.5 - 0.48)/0.01 = 2 ; drift (0.04/3)*1*3/(4*0.01) = 1 ; rest as @sum case C
    assert ev.terms["initialisation"] == pytest.approx(2)
    assert ev.terms["drift"] == pytest.approx(1)
    assert ev.value == pytest.approx(2 + 6.25e-3 + 1.28e-4 + 0.0256 + 0.32 + 1 + 0.32 / 9)  # 3.3875336


def test_thm2_round_case_d() -> None:
    p = {k: v for k, v in D2.items() if k not in ("F", "delta")}
    ev = st.evaluate("heron_sfl/thm2@round", **p, gap_round=1, gap_next=1.1, drift_round=5)
    # init (1 - 1.1)/0.01 = -10 ; drift 0 (G_s^2 = 0) ; rest 0.2 + 2.5e-3 + 0.1 + 4
    assert ev.value == pytest.approx(-10 + 0.2 + 2.5e-3 + 0.1 + 4)  # -5.6975


# --- Theorem 2 @proof, eq. (62) as the TeX prints it ------------------------------------------------
P2 = {k: v for k, v in C2.items() if k != "eta_c"}


def test_thm2_proof_case_c() -> None:
    ev = st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.01)
    # eta = 0.01 (eta_c = 0.04, eta_s = 0.04/3), rho = 2, d = 2
    # init    F/(eta T)                         = 1/(0.01*100)           = 1
    # ZO      mu^2 L^2 (d+3)^3/2                = 1e-4*125/2             = 6.25e-3
    # drift   2 G_s^2 delta/(N(2N-1))           = 2/(2*3)                = 1/3
    # server  eta 8 L N^2 G_s^2/(2N-1)^2        = 0.01*8*4/9             = 0.32/9
    # ZO L^4  eta 6 L^4 mu^2 d^3                = 0.01*6*1e-4*8          = 4.8e-5
    # var     eta 16 L rho (s^2+G_s^2)/N        = 0.01*16*2*2/2          = 0.32
    # Young   eta^2 4 L^2 rho^2                 = 1e-4*4*4               = 1.6e-3
    assert ev.terms["ZO bias (L^4)"] == pytest.approx(4.8e-5)
    assert ev.terms["Young term"] == pytest.approx(1.6e-3)
    assert ev.value == pytest.approx(1 + 6.25e-3 + 1 / 3 + 0.32 / 9 + 4.8e-5 + 0.32 + 1.6e-3)  # 1.6967869
    assert ev.derived.keys() == {"eta_c", "eta_s"}
    assert ev.applies and ev.proof_conditions_hold


def test_thm2_proof_case_d() -> None:
    p = {k: v for k, v in D2.items() if k not in ("eta_c", "eta_s")}
    ev = st.evaluate("heron_sfl/thm2@proof", **p, eta=0.025)
    # eta_c = 0.1, eta_s = 0.1 (M = 1), rho = 1, d = 1
    # init 2/(0.025*10) = 8 ; ZO 0.0025*64/2 = 0.08 ; drift 0 ; server 0
    # ZO L^4 0.025*6*0.0025 = 3.75e-4 ; var 0.025*16*1*4 = 1.6 ; Young 6.25e-4*4 = 2.5e-3
    assert ev.value == pytest.approx(8 + 0.08 + 3.75e-4 + 1.6 + 2.5e-3)  # 9.682875


def test_thm2_proof_accepts_eta_c_alone() -> None:
    a = st.evaluate("heron_sfl/thm2@proof", **C2)  # eta = eta_c/4 = 0.01
    assert a.value == pytest.approx(1 + 6.25e-3 + 1 / 3 + 0.32 / 9 + 4.8e-5 + 0.32 + 1.6e-3)


def test_thm2_proof_vs_sum_is_the_tex_vs_rendered_gap() -> None:
    # (61) at eta_c = 4 eta gives 16 eta L^4 mu^2 d^3 and 64 eta^2 L^2 rho^2; the TeX of (62) prints 6 and 4.
    # gap = 10 eta L^4 mu^2 d^3 + 60 eta^2 L^2 rho^2 = 10*0.01*1e-4*8 + 60*1e-4*4 = 8e-5 + 0.024 = 0.02408
    gap = st.evaluate("heron_sfl/thm2@sum", **C2).value - st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.01).value
    assert gap == pytest.approx(0.02408)


def test_thm2_proof_branches_and_couplings() -> None:
    b = _bounds("heron_sfl/thm2@proof", L=1, M=2, d_c=2, d_aux=0, kappa=2)
    # eta_c = 4 eta <= rho/(4L) = 0.5 -> eta <= 0.125 ; eta_s = 4 eta/3 <= 1/2 -> eta <= 3/8
    assert b["eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))"] == pytest.approx(0.125)
    assert b["(45)(a) eta_s<=1/(NL)"] == pytest.approx(0.375)
    name = "eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))"
    assert _hyp(st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.125 * (1 - 1e-6)), name)
    assert not _hyp(st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.125 * (1 + 1e-6)), name)
    name = "(45)(a) eta_s<=1/(NL)"
    assert _hyp(st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.375 * (1 - 1e-6)), name)
    assert not _hyp(st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.375 * (1 + 1e-6)), name)
    # inconsistent eta_c: the coupling (a proof condition) fails
    ev = st.evaluate("heron_sfl/thm2@proof", **P2, eta=0.01, eta_c=0.05)
    assert ev.applies and not ev.proof_conditions_hold
    assert "(62) coupling eta = eta_c/4" in ev.verdict()


# --- Theorem 2 @floor, eq. (65) ----------------------------------------------------------------------
FL = dict(G_s2=1, M=2, L=1, d_c=2, d_aux=0, kappa=2, T=100)


def test_thm2_floor_case_a() -> None:
    ev = st.evaluate("heron_sfl/thm2@floor", **FL, Delta_drift=3, delta=0.5, lam=0.01)
    # drift     (2/0.5) * 2*1*3/(2*3)            = 4*1       = 4
    # smoothing (2/0.5) * 1e-4*1*125/2           = 4*6.25e-3 = 0.025
    assert ev.value == pytest.approx(4.025)
    assert ev.applies and not ev.void


def test_thm2_floor_case_b() -> None:
    ev = st.evaluate("heron_sfl/thm2@floor", **{**FL, "L": 2}, Delta_drift=0, delta=2, lam=0.02)
    # drift 0 ; smoothing (2/2) * 4e-4*4*125/2 = 0.1
    assert ev.value == pytest.approx(0.1)


def test_thm2_floor_validity_on_both_sides() -> None:
    void = st.evaluate("heron_sfl/thm2@floor", **FL, Delta_drift=1, delta=0, lam=0.01)
    assert void.void and "void" in void.verdict()
    assert math.isinf(void.value)
    ok = st.evaluate("heron_sfl/thm2@floor", **FL, Delta_drift=1, delta=1e-12, lam=0.01)
    assert not ok.void and ok.applies
    # (2/1e-12) * 2*1*1/(2*3) = 2e12/3 ; plus (2/1e-12)*6.25e-3 = 1.25e10
    assert ok.value == pytest.approx(2e12 / 3 + 1.25e10)


# --- Lemma 5, eq. (51) -------------------------------------------------------------------------------
def test_lemma5_case_a() -> None:
    p = dict(L=1, M=2, eta_c=0.04, gc2_round=4, lam=0.01, d_c=2, d_aux=0, kappa=2, sigma_c2=1, G_s2=1)
    ev = st.evaluate("heron_sfl/lemma5", **p)
    # descent -0.04*4/4 = -0.04 ; Phi_c' = 6.25e-5 + 1.28e-6 + 2.56e-4 + 3.2e-3 (see @sum case C)
    assert ev.value == pytest.approx(-0.04 + 6.25e-5 + 1.28e-6 + 2.56e-4 + 3.2e-3)  # -0.03648022


def test_lemma5_case_b() -> None:
    p = dict(L=1, M=1, eta_c=0.1, gc2_round=0, lam=0.05, d_c=1, d_aux=0, kappa=1, sigma_c2=4, G_s2=0)
    ev = st.evaluate("heron_sfl/lemma5", **p)
    # 0.002 + 2.5e-5 + 1e-3 + 0.04 (see @sum case D, before dividing by eta_min)
    assert ev.value == pytest.approx(0.043025)
    with pytest.raises(st.ParameterError):
        st.max_step("heron_sfl/lemma5", L=1)  # Lemma 5 prints no step-size condition


# --- Table I -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("rid", ["heron_sfl/table1_comm", "heron_sfl/table1_comm_cse_fsl"])
def test_table1_comm_decoupled(rid: str) -> None:
    # pq + 2(|theta_c| + |theta_a|) = 256*1000 + 2*(100 + 50) = 256000 + 300
    assert st.evaluate(rid, batch=256, q_smash=1000, d_c=100, d_aux=50).value == pytest.approx(256300)
    # paper letters: p = 2, q = 3, |theta_c| = 4, |theta_a| = 0 -> 6 + 8 = 14
    assert st.evaluate(rid, p=2, q=3, d_c=4, d_aux=0).value == pytest.approx(14)


def test_table1_comm_sfl() -> None:
    # 2pq + 2|theta_c| = 2*256*1000 + 2*100 = 512200 ; 2*2*3 + 2*4 = 20
    assert st.evaluate("heron_sfl/table1_comm_sfl", batch=256, q_smash=1000, d_c=100).value == pytest.approx(512200)
    assert st.evaluate("heron_sfl/table1_comm_sfl", p=2, q=3, d_c=4).value == pytest.approx(20)


def test_table1_flops() -> None:
    # n_p (F_c + F_a), n_p = 2 (two-point, Sec. V-B3): 2*(10 + 5) = 30 ; n_p = 5: 5*15 = 75
    ev = st.evaluate("heron_sfl/table1_flops", flops_c=10, flops_a=5)
    assert ev.value == pytest.approx(30) and ev.derived == {"n_p": "2"}
    assert st.evaluate("heron_sfl/table1_flops", F_c=10, F_a=5, n_p=5).value == pytest.approx(75)
    # CSE-FSL 3(F_c + F_a) = 45 ; 3*(1 + 0) = 3 ; SFLV1/V2 3F_c = 30 ; 3*2.5 = 7.5
    assert st.evaluate("heron_sfl/table1_flops_cse_fsl", flops_c=10, flops_a=5).value == pytest.approx(45)
    assert st.evaluate("heron_sfl/table1_flops_cse_fsl", flops_c=1, flops_a=0).value == pytest.approx(3)
    assert st.evaluate("heron_sfl/table1_flops_sfl", flops_c=10).value == pytest.approx(30)
    assert st.evaluate("heron_sfl/table1_flops_sfl", flops_c=2.5).value == pytest.approx(7.5)
    # Table II: 39.90 / 59.51 = 0.67 ~ 2/3, the two-point / first-order ratio with F_a = 0
    assert 39.90 / 59.51 == pytest.approx(2 / 3, rel=0.01)


@pytest.mark.parametrize(
    "rid", ["heron_sfl/table1_memory", "heron_sfl/table1_memory_cse_fsl", "heron_sfl/table1_memory_sfl"]
)
def test_table1_memory_is_o_form(rid: str) -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(rid, d_c=1)
    assert e.value.name == rid and "constants" in str(e.value)


# --- bad inputs --------------------------------------------------------------------------------------
def test_missing_parameter() -> None:
    p = {k: v for k, v in A1.items() if k != "F"}
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **p)
    assert e.value.name == "F"
    p = {k: v for k, v in A1.items() if k != "d_aux"}
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **p)
    assert e.value.name == "d_aux"


def test_negative_l() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm2@sum", **{**C2, "L": -1})
    assert e.value.name == "L"
    with pytest.raises(st.ParameterError) as e:
        st.max_step("heron_sfl/thm1", L=-1, M=2, K=2)
    assert e.value.name == "L"


def test_zero_local_steps() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **{**A1, "K": 0})
    assert e.value.name == "K"
    with pytest.raises(st.ParameterError) as e:
        st.max_step("heron_sfl/thm1", L=1, M=2, h=0)  # the paper's h: reported as the user typed it
    assert e.value.name == "h"


def test_non_integer_count() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **{**A1, "M": 2.5})
    assert e.value.name == "M"
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/table1_flops", flops_c=1, flops_a=1, n_p=1.5)
    assert e.value.name == "n_p"


def test_unknown_name() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **A1, foo=1)
    assert e.value.name == "foo"


def test_paper_aliases() -> None:
    # N -> M, h -> K, mu -> lam, B -> batch: same numbers as case A
    p = {k: v for k, v in A1.items() if k not in ("M", "K", "lam", "batch")}
    ev = st.evaluate("heron_sfl/thm1@sum", **p, N=2, h=2, mu=0.1, B=4)
    assert ev.value == pytest.approx(2 + 0.3 + 0.36 + 1 / 48 + 13 / 300 + 1 / 3 + 4 / 225)
    with pytest.raises(st.ParameterError) as e:
        st.evaluate("heron_sfl/thm1@sum", **A1, N=2)
    assert e.value.name == "N"  # given twice


# --- discrepancies -----------------------------------------------------------------------------------
def test_discrepancies_recorded() -> None:
    t1 = st.get("heron_sfl/thm1")
    assert any("1/sqrt(d)" in d.note for d in t1.discrepancies)  # Remark 2: the ratio is 1/d
    assert any("min" in d.note for d in t1.discrepancies)
    t2 = st.get("heron_sfl/thm2@proof")
    assert any("16 and 64" in d.note for d in t2.discrepancies)
    assert any("2/delta" in d.note for d in t2.discrepancies)
    # Remark 2: sqrt(1/(d x)) / sqrt(d/x) = 1/d, e.g. d = 100, x = 1: 0.1/10 = 0.01
    assert math.sqrt(1 / 100) / math.sqrt(100) == pytest.approx(1 / 100)
    # Lemma 3 (28): h(h+1)/2 <= h^2/2 fails already at h = 1 (1 > 0.5)
    assert 1 * 2 / 2 > 1 / 2


# --- the package: one module per result, the reference in every provenance ---------------------------
NEW_IDS = {"heron_sfl/lemma2", "heron_sfl/remark2"}


def test_catalogue_adds_lemma2_and_remark2() -> None:
    # the 22 results of the single-module encoding plus Lemma 2 (19) and Remark 2's rounds count
    ids = [r.id for r in st.results("heron_sfl")]
    assert len(ids) == 24 and len(set(ids)) == 24
    assert NEW_IDS <= set(ids)
    # new results sit next to their relatives: Remark 2 after Theorem 1, Lemma 2 before Lemma 3
    assert ids.index("heron_sfl/remark2") == ids.index("heron_sfl/thm1@sum") + 1
    assert ids.index("heron_sfl/lemma2") + 1 == ids.index("heron_sfl/lemma3")


def test_package_exports_and_reference() -> None:
    from sfltheory.papers import heron_sfl

    assert heron_sfl.KEY == "heron_sfl" and heron_sfl.SEED == "001_e8dcbf2a405221d7.txt"
    assert "2601.09076" in heron_sfl.REFERENCE and "Kou" in heron_sfl.REFERENCE and "\n" not in heron_sfl.REFERENCE
    assert [r.id for r in heron_sfl.RESULTS] == [r.id for r in st.results("heron_sfl")]
    assert {"d_aux", "dev2_local"} <= {p.name for p in heron_sfl.PARAMS}
    for r in heron_sfl.RESULTS:
        assert r.provenance.reference == heron_sfl.REFERENCE, r.id
        assert heron_sfl.REFERENCE in r.provenance.citation
        for d in r.defaults:
            assert d.rule.strip() and "TODO" not in d.rule, (r.id, d.name)
    # every module states its result and cites the paper and the seed
    for mod in (heron_sfl.thm1, heron_sfl.remark2, heron_sfl.lemma2, heron_sfl.lemma3, heron_sfl.lemma4,
                heron_sfl.eq45, heron_sfl.thm2, heron_sfl.lemma5, heron_sfl.table1):  # fmt: skip
        assert mod.__doc__ and "arXiv:2601.09076" in mod.__doc__ and "001_e8dcbf2a405221d7.txt" in mod.__doc__


def test_own_assumptions_say_how_their_constants_are_read() -> None:
    from sfltheory.papers.heron_sfl import _common

    assert {p.name for p in _common.ZO_VARIANCE.picks} == {"sigma_c2"}
    assert not _common.OUTPUT_DRIFT.picks and "reference" in _common.OUTPUT_DRIFT.unmeasured


# --- Lemma 2, eq. (19) ---------------------------------------------------------------------------------
L2 = dict(L=1, d_c=10, d_aux=2, G_c2=1, batch=4, lam=0.1, sigma_c2=0.5, gc2_round=2, dev2_local=0.25)


def test_lemma2_case_a() -> None:
    ev = st.evaluate("heron_sfl/lemma2", **L2)
    # (19) at d = 12, L = 1, G_c^2 = 1, B = 4, mu = 0.1, sigma_c^2 = 0.5, ||grad f_c||^2 = 2, drift 0.25:
    # 2dG_c^2/B = 2*12/4 = 6 ; d^2L^2mu^2/(2B) = 144*0.01/8 = 0.18 ; 2mu^2L^2 = 0.02 ; 6 sigma_c^2 = 3 ;
    # 6||grad f_c||^2 = 12 ; 6L^2 drift = 1.5  ->  6 + 0.18 + 0.02 + 3 + 12 + 1.5 = 22.7
    assert ev.terms["ZO second moment (G_c)"] == pytest.approx(6)
    assert ev.terms["ZO bias (d^2)"] == pytest.approx(0.18)
    assert ev.terms["smoothing bias"] == pytest.approx(0.02)
    assert ev.terms["local drift"] == pytest.approx(1.5)
    assert ev.value == pytest.approx(22.7)
    assert ev.applies and not ev.hypotheses  # Lemma 2 prints no condition


def test_lemma2_case_b() -> None:
    ev = st.evaluate("heron_sfl/lemma2", **{**L2, "L": 2})
    # L = 2: d^2L^2mu^2/(2B) = 144*4*0.01/8 = 0.72 ; 2mu^2L^2 = 2*0.01*4 = 0.08 ; 6L^2 drift = 6*4*0.25 = 6
    # 6 + 0.72 + 0.08 + 3 + 12 + 6 = 27.8
    assert ev.value == pytest.approx(27.8)
    with pytest.raises(st.ParameterError):
        st.max_step("heron_sfl/lemma2", L=1)  # no step-size condition


def test_lemma2_is_the_beta_of_lemma3() -> None:
    # (26)-(29): Lemma 3's (24) is h^3 eta_c^2 beta/2 with beta = (19) at zero drift. Lemma 3 case A
    # (L=1, h=2, eta_c=0.1, d=2, B=2, mu=0.5, sigma^2=1, ||grad f_c||^2=1) gives 0.59; beta there is
    # 2*2/2 + 4*0.25/4 + 2*0.25 + 6 + 6 = 2 + 0.25 + 0.5 + 12 = 14.75, and 8*0.01/2 * 14.75 = 0.04*14.75 = 0.59
    p = dict(L=1, G_c2=1, batch=2, d_c=2, d_aux=0, lam=0.5, sigma_c2=1, gc2_round=1)
    beta = st.evaluate("heron_sfl/lemma2", **p, dev2_local=0).value
    assert beta == pytest.approx(14.75)
    l3 = st.evaluate("heron_sfl/lemma3", **p, K=2, eta_c=0.1).value
    assert l3 == pytest.approx(2**3 * 0.1**2 / 2 * beta) and l3 == pytest.approx(0.59)


def test_lemma2_record() -> None:
    r = st.get("heron_sfl/lemma2")
    assert r.kind == "lemma" and r.provenance.equation == "(19)" and r.provenance.section == "App. A-B1"
    assert [a.key for a in r.assumptions] == [
        "smoothness_per_client",
        "bounded_gradients_per_part",
        "zo_estimator_variance",
    ]
    notes = " ".join(d.note for d in r.discrepancies)
    assert "auxiliary head" in notes  # (20)(c): the estimator's gradient is that of the local auxiliary loss
    assert "factor d" in notes  # (4) vs (18)
    assert "s_c^{t,m+1}" in notes  # (26)'s index shift


# --- Remark 2: T = O(d/(hNB eps^2)) ----------------------------------------------------------------------
R2 = dict(d_c=1000, d_aux=0, K=2, M=10, batch=5, L=1)


def test_remark2_count_and_the_choices_it_assumes() -> None:
    ev = st.evaluate("heron_sfl/remark2", **R2, eps_target=0.1)
    # T = d/(hNB eps^2) = 1000/(2*10*5*0.01) = 1000/1 = 1000
    assert ev.value == pytest.approx(1000)
    # Theorem 1's choices at T = 1000: eta_c = sqrt(NB/(dhT)) = sqrt(50/2e6) = 0.005 (= NB eps/d = 50*0.1/1000),
    # eta_s = sqrt(hB/(dNT)) = sqrt(10/1e7) = 0.001 (= hB eps/d), mu = (dhNBT)^(-1/4) = (1e8)^(-1/4) = 0.01
    assert set(ev.derived) == {"T", "eta_c", "eta_s", "lam"}
    assert ev.params["T"] == pytest.approx(1000)
    assert ev.params["eta_c"] == pytest.approx(0.005)
    assert ev.params["eta_s"] == pytest.approx(0.001)
    assert ev.params["lam"] == pytest.approx(0.01)
    # (30): 0.005 <= min{1/6, 2/40 = 0.05, 10/72}; (45)(a): 0.001 <= 1/10
    assert ev.applies and ev.proof_conditions_hold


def test_remark2_speedup_as_printed() -> None:
    # h -> 2h halves the rounds, N B -> 2 N B halves them: 1000/(4*10*5*0.01) = 500 ; 1000/(2*10*10*0.01) = 500
    assert st.evaluate("heron_sfl/remark2", **{**R2, "K": 4}, eps_target=0.1).value == pytest.approx(500)
    assert st.evaluate("heron_sfl/remark2", **{**R2, "batch": 10}, eps_target=0.1).value == pytest.approx(500)


def test_remark2_holds_only_for_small_eps() -> None:
    # eta_c = NB eps/d <= 2/(NLh^2) iff eps <= 2d/(L N^2 B h^2) = 2000/(100*5*4) = 1: both sides of eps = 1
    name = "eta_c<=2/(NLh^2)"
    assert _hyp(st.evaluate("heron_sfl/remark2", **R2, eps_target=1 - 1e-6), name)
    bad = st.evaluate("heron_sfl/remark2", **R2, eps_target=1.2)
    # eta_c = 50*1.2/1000 = 0.06 > 0.05 ; the other branches: 0.06 <= 1/6 and 0.06 <= 10/72 = 0.139
    assert not bad.applies and [h.name for h in bad.failed("statement")] == [name]
    assert bad.value == pytest.approx(1000 / (100 * 1.44))  # 6.944: the count, printed but not applicable
    r = st.get("heron_sfl/remark2")
    assert any("2d/(L N^2 B h^2)" in d.note for d in r.discrepancies)


def test_remark2_record() -> None:
    r = st.get("heron_sfl/remark2")
    assert r.kind == "model" and r.explicit and r.rate is not None and r"hNB\varepsilon^{2}" in r.rate
    assert r.provenance.label == "Remark 2"
    assert [d.name for d in r.defaults] == ["T", "eta_c", "eta_s", "lam"]
    assert any("1/sqrt(d)" in d.note for d in r.discrepancies)  # the remark's own ratio claim


def test_remark2_step_and_its_choice() -> None:
    p = dict(R2, eps_target=0.1)
    # the step branches of (30) at L=1, N=10, h=2: 1/(3*2) = 0.1667, 2/(10*4) = 0.05, 10/72 = 0.139 -> 0.05 binds;
    # the choice eta_c = 0.005 (see above) lies inside
    sc = st.max_step("heron_sfl/remark2", **p)
    assert sc.max_step == pytest.approx(0.05) and sc.binding == "eta_c<=2/(NLh^2)"
    # a step other than the choice is not the remark's: the count does not apply to it
    ev = st.evaluate("heron_sfl/remark2", **p, eta_c=0.01)
    assert not ev.applies and [h.name for h in ev.failed("statement")] == ["choice eta_c"]
    assert ev.value == pytest.approx(1000)
