"""Issue 24, theory half: what ``bound`` and ``check-lr`` report for the built-in results.

1. ``applies`` is the conditions an edition rests on (a proof display: its proof's), and never a void bound;
2. a value an edition sets itself (a corollary's eta) is refused in one line, never silently ignored;
3. a derived count between integers (Remark 2's rounds) is made whole and shown with the value derived;
4. check-lr labels its largest step by the sources it is taken over, never "(statement)" for an implicit branch;
5. a hypothesis side or a largest step beyond the float range is "unbounded", not a refusal and never "inf".
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import sfltheory as st
from sfltheory.errors import ParameterError
from tests.refusal import refused
from verify.app import main

EQ24 = ["L=1", "d_c=2", "d_s=2", "descent_round=1", "lam=1", "sigma_c2=1", "sigma_s2=1", "tau=2"]
COR42 = ["F=1", "L=1", "T=2", "d=4", "d_c=2", "d_s=2", "lam=1", "sigma_c2=1", "sigma_s2=1", "tau=2"]
REMARK2 = ["K=2", "L=1", "M=2", "batch=2", "d_aux=1", "d_c=2", "eps_target=1"]
THM41 = ["F=1", "T=2", "d_c=2", "d_s=2", "lam=1", "sigma_c2=1", "sigma_s2=1", "tau=2"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert err == "" and "Traceback" not in out
    return rc, out


def kv(args: list[str]) -> dict[str, float]:
    return {k: float(v) for k, v in (a.split("=") for a in args)}


# ---- 1. applies ----------------------------------------------------------------------------------------------------
def test_item1_proof_display_applies_only_where_its_proof_conditions_hold(capsys: pytest.CaptureFixture[str]) -> None:
    # eq. (24)'s statement prints only the coupling; its 8 step conditions are the proof's. At L = 1, tau = 2,
    # d_s = 2 the first, eta_s <= P/(64 L (tau P + 2 d_s)) = 1/384 = 0.0026, fails at eta = 100.
    rc, out = run(capsys, "check-lr", "mu_splitfed/eq24", *EQ24, "eta=100")
    assert rc == 1  # the documented "the step violates the theorem" status
    assert "max eta (proof: the statement prints no step-size condition): 0.00260417" in out
    rc, out = run(capsys, "bound", "mu_splitfed/eq24", *EQ24, "eta=100", "--json")
    d = json.loads(out)
    assert rc == 0 and d["applies"] is False and d["statement_holds"] is True and d["rests_on_proof"] is True
    assert "does not apply" in d["answer"]
    # inside every condition (eta = 1e-3 < 1/384) it applies, and check-lr exits 0
    assert run(capsys, "check-lr", "mu_splitfed/eq24", *EQ24, "eta=0.001")[0] == 0
    assert st.evaluate("mu_splitfed/eq24", kv(EQ24), eta=1e-3).applies is True


def test_item1_a_void_bound_never_applies(capsys: pytest.CaptureFixture[str]) -> None:
    # sfl_aux Theorem A4 at M = 2: the implicit validity condition m - 2 > 0 fails and the bound is x/0 = inf
    p = dict(F=1, L=1, M=2, T=10, eps2=1, eta=1e-3, l=2, n=1, sigma2=1)
    ev = st.evaluate("sfl_aux/thm4", p)
    assert ev.void and ev.applies is False and ev.statement_holds is True
    rc, out = run(capsys, "bound", "sfl_aux/thm4", *(f"{k}={v}" for k, v in p.items()))
    assert rc == 0 and "no finite bound" in out.splitlines()[0] and "inf" not in out
    # a sweep: void at M = 2 only (M = 3: m - 2 = 1 > 0)
    sweep = st.evaluate("sfl_aux/thm4", {**p, "M": np.array([2.0, 3.0]), "n": 1})
    assert list(np.asarray(sweep.void)) == [True, False]
    assert not bool(np.asarray(sweep.applies)[0])


# ---- 2. values an edition sets itself ------------------------------------------------------------------------------
def test_item2_a_corollarys_own_step_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(main, capsys, "bound", "mu_splitfed/cor4.2@proof", *COR42, "eta=0.5")
    assert line.startswith("sfltheory: error: parameter 'eta': mu_splitfed/cor4.2@proof sets eta = ")
    assert "itself" in line and "mu_splitfed/thm4.1" in line
    # the side door: eta_s would replace the choice (eta = eta_s fires first)
    line = refused(main, capsys, "bound", "mu_splitfed/cor4.2@proof", *COR42, "eta_s=0.5")
    assert "parameter 'eta_s'" in line and "sets eta = " in line
    for rid in ("mu_splitfed/cor4.2", "mu_splitfed/cor4.4", "mu_splitfed/cor4.4@proof"):
        with pytest.raises(ParameterError, match=r"sets eta = .* itself"):
            st.evaluate(rid, eta=0.5, F=1, L=1, T=2, d=4, tau=2, M=2, sigma_c2=1, sigma_s2=1, eps2=1)
    with pytest.raises(ParameterError, match=r"sets eta_l = .* itself"):
        st.max_step("sl_noniid/cor3@explicit", F=1, K=2, L=1, M=2, T=4, B2=1, G2=1, sigma2=1, eta_l=0.01)


def test_item2_without_the_value_the_corollary_uses_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    # eta = 1/sqrt(d tau T) = 1/sqrt(16) = 0.25
    ev = st.evaluate("mu_splitfed/cor4.2@proof", kv(COR42))
    assert ev.params["eta"] == pytest.approx(0.25) and ev.derived["eta"].startswith("1/")
    # a statement that restates its choice checks a given value itself (honoured, reported): Remark 2's eta_c
    ev = st.evaluate("heron_sfl/remark2", kv(REMARK2), eta_c=1e-3)
    assert not ev.applies and "choice eta_c" in [h.name for h in ev.failed("statement")]


# ---- 3. derived counts ---------------------------------------------------------------------------------------------
def test_item3_remark2_round_count_is_rounded_up_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    # T = (d_aux + d_c)/(K M b eps^2) = 3/(2*2*2*1) = 0.375 rounds: one whole round
    rc, out = run(capsys, "bound", "heron_sfl/remark2", *REMARK2, "eta_c=0.001")
    assert rc == 0 and "T = 1 ((d_aux + d_c)/(K*M*batch*eps_target**2) = 0.375, rounded up to a whole count)" in out
    rc, out = run(capsys, "bound", "heron_sfl/remark2", *REMARK2, "--json")
    d = json.loads(out)
    assert d["parameters"]["T"] == 1 and d["rounded"]["T"]["derived"] == pytest.approx(0.375)
    # the remark's choice of T holds at the whole count; Theorem 1's eta_c is taken there: sqrt(M b/(d K T))
    assert {h["name"]: h["holds"] for h in d["hypotheses"]}["choice T"] is True
    assert d["parameters"]["eta_c"] == pytest.approx(math.sqrt(2 * 2 / (3 * 2 * 1)))
    # 2.7 rounds -> 3 (eps = 1/sqrt(10/3*...)): d = 3, K M b = 8, eps^2 = 3/(8*2.7)
    ev = st.evaluate("heron_sfl/remark2", {**kv(REMARK2), "eps_target": math.sqrt(3 / (8 * 2.7))})
    assert ev.params["T"] == 3 and ev.rounded["T"] == pytest.approx(2.7)
    # a user-given T that is not whole stays an error
    line = refused(main, capsys, "bound", "heron_sfl/remark2", *REMARK2, "T=1.5")
    assert "parameter 'T': must be an integer >= 1" in line


def test_item3_every_derived_count_declares_how_it_is_made_whole() -> None:
    from sfltheory.defaults import GENERIC, whole
    from sfltheory.lexicon import get as param
    from sfltheory.registry import results

    # the rule itself: rounds needed round up, a float's last ulp does not (3.0000000000000004 is 3)
    assert whole(0.375, "up") == 1 and whole(2.001, "up") == 3 and whole(3 + 4e-16, "up") == 3
    assert whole(2.5, "nearest") == 3 and whole(2.4, "nearest") == 2 and whole(2.4, "none") == 2.4
    # identities never round (d = d_c + d_s); every count a result derives is "up" unless it says why not
    assert all(d.rounding == "none" for d in GENERIC)
    counts = {(r.id, d.name): d for r in results() for d in r.defaults if param(d.name).integer and not d.fixed}
    assert counts[("heron_sfl/remark2", "T")].rounding == "up"
    for (_, _), d in counts.items():
        assert d.rounding == "up" or "real number" in d.rule or d.expr.func.__name__ == "Add", d
    # eq. (12) keeps its ratio (its identity T_0 t_straggler/tau = T_0 t_server holds at the ratio): 10*4.8/2.4 = 20
    ev = st.evaluate("mu_splitfed/eq12", T0=10, t_straggler=4.8, t_server=2)
    assert ev.params["tau"] == pytest.approx(2.4) and ev.rounded == {} and ev.value == pytest.approx(20)


# ---- 4. check-lr labels --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rid", "args", "label"),
    [
        ("sl_noniid/tab1.fl_eff", ["K=2", "L=1", "B2=1"], "max eta_tilde (implicit: "),
        ("sfl_aux/eqA11", ["K=2", "L=1"], "max eta_l (implicit: "),
        ("mu_splitfed/thm4.1@proof", ["L=1", "d_c=2", "d_s=2", "tau=2"], "max eta (proof: "),
    ],
)
def test_item4_check_lr_labels_the_largest_step_by_its_source(
    capsys: pytest.CaptureFixture[str], rid: str, args: list[str], label: str
) -> None:
    rc, out = run(capsys, "check-lr", rid, *args)
    assert rc == 0 and label in out and "(statement):" not in out
    d = json.loads(run(capsys, "check-lr", rid, *args, "--json")[1])
    assert d["max_step_basis"] != "statement"
    # the statement's own branches keep the label
    rc, out = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "d_c=2", "d_s=2", "tau=2")
    assert "max eta (statement): " in out


def test_item4_the_implicit_branch_also_sets_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    # tab1.fl_eff: eta_tilde <= 1/(2 L sqrt(2B^2 + 1)) = 1/(2 sqrt 3) = 0.2887 (implicit): 0.3 violates it
    assert run(capsys, "check-lr", "sl_noniid/tab1.fl_eff", "K=2", "L=1", "B2=1", "eta_tilde=0.3")[0] == 1
    assert run(capsys, "check-lr", "sl_noniid/tab1.fl_eff", "K=2", "L=1", "B2=1", "eta_tilde=0.28")[0] == 0


# ---- 5. beyond the float range -------------------------------------------------------------------------------------
def test_item5_a_hypothesis_limit_beyond_the_float_range_holds(capsys: pytest.CaptureFixture[str]) -> None:
    # 1/(64 L (tau + 2 d_s)) at L = 1e-320: 1/(64e-320 * 6) = 2.6e317 > 1.8e308; eta = 1e-3 is far below
    rc, out = run(capsys, "bound", "mu_splitfed/thm4.1", "L=1e-320", *THM41, "eta=0.001")
    assert rc == 0 and "every hypothesis holds: the bound applies" in out
    assert "unbounded (> 1.8e308)" in out and " inf" not in out
    d = json.loads(run(capsys, "bound", "mu_splitfed/thm4.1", "L=1e-320", *THM41, "eta=0.001", "--json")[1])
    h = next(h for h in d["hypotheses"] if h["name"] == "eta<=1/(64L(tau+2d_s))")
    assert h["holds"] is True and h["rhs"] is None and h["slack"] is None and set(h["not_finite"]) == {"rhs", "slack"}
    assert d["applies"] is True and d["value"] == pytest.approx(1000)  # F/(eta T) ... = 1/(1e-3) = 1000


def test_item5_a_huge_step_is_still_compared_exactly() -> None:
    # eta = 5e307 at L = 1e-320: eta <= 1/(64e-320 * 6) = 2.6e317 holds, with a slack of 2.6e317 (beyond the range)
    ev = st.evaluate("mu_splitfed/thm4.1", {**kv(THM41), "F": 1e308}, L=1e-320, eta=5e307)
    h = next(h for h in ev.hypotheses if h.name == "eta<=1/(64L(tau+2d_s))")
    assert h.holds is True and set(h.beyond) == {"rhs", "slack"} and h.slack == math.inf
    # over a sweep: beyond the range at L = 1e-320 only; at L = 1e-300 the limit 2.6e297 is a float
    ev = st.evaluate("mu_splitfed/thm4.1", kv(THM41), L=np.array([1e-320, 1e-300]), eta=1e-3)
    h = next(h for h in ev.hypotheses if h.name == "eta<=1/(64L(tau+2d_s))")
    assert list(np.asarray(h.holds)) == [True, True] and "rhs" in h.beyond
    assert np.asarray(h.slack)[1] == pytest.approx(1 / (64e-300 * 6))


def test_item5_a_largest_step_beyond_the_float_range_is_unbounded(capsys: pytest.CaptureFixture[str]) -> None:
    sc = st.max_step("mu_splitfed/thm4.1", L=1e-320, tau=2, d_c=100, d_s=1, eta=1e-3)
    assert sc.max_step == math.inf and all(b.beyond for b in sc.branches)
    rc, out = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1e-320", "tau=2", "d_c=100", "d_s=1", "eta=0.001")
    assert rc == 0 and "no condition of mu_splitfed/thm4.1 bounds eta" in out.splitlines()[0]
    assert "max eta (statement): unbounded" in out and " inf" not in out
    d = json.loads(run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1e-320", "tau=2", "d_c=100", "d_s=1", "--json")[1])
    assert d["max_step"] is None and d["max_step_unbounded"] is True
    assert all(b["max"] is None and b["max_beyond_float_range"] for b in d["branches"])
    # the bound itself beyond the range is still refused: F/(eta T) = 1e10/(1e-300 * 2) = 5e309
    line = refused(main, capsys, "bound", "mu_splitfed/thm4.1", "L=1", *THM41[1:], "F=1e10", "eta=1e-300")
    assert "outside the floating-point range" in line
