"""The evaluation engine on synthetic results whose answers are known in closed form."""

from __future__ import annotations

import numpy as np
import pytest

import sfltheory as st
from sfltheory.result import Hypothesis, Provenance, Result, Term
from sfltheory.vocabulary import symbols

L, eta, K, F, T, sigma2 = symbols("L eta K F T sigma2")
PROV = Provenance(seed="synthetic", label="Synthetic 1")


def make(*hyps: Hypothesis, terms: tuple[Term, ...] = ()) -> Result:
    terms = terms or (
        Term(name="init", expr=F / (eta * T), meaning="F/(eta T)"),
        Term(name="noise", expr=eta * L * sigma2, meaning="eta L sigma2"),
    )
    return Result(
        paper="mu_splitfed",
        label="synthetic",
        kind="theorem",
        title="synthetic",
        provenance=PROV,
        lhs="test",
        terms=terms,
        hypotheses=hyps,
        step="eta",
    )


def test_cubic_branch_matches_numpy_roots() -> None:
    # eta^3 L^3 + 8 eta^2 L^2 + 8 eta L <= 1 is increasing in eta; its boundary is the real root of
    # x^3 + 8x^2 + 8x - 1 = 0 (x = eta L), whose other two roots are negative -- Cardano's formula takes
    # complex intermediates here (three real roots), which real arithmetic turns into NaN.
    r = make(
        Hypothesis(
            name="cubic",
            lhs=eta**3 * L**3 + 8 * eta**2 * L**2 + 8 * eta * L,
            rel="<=",
            rhs=1,
            kind="step_size",
            printed="cubic",
        )
    )
    roots = np.roots([1, 8, 8, -1])
    x = max(z.real for z in roots if abs(z.imag) < 1e-12)
    for l_val in (0.5, 1.0, 4.0):
        assert st.max_step(r, L=l_val).max_step == pytest.approx(x / l_val, rel=1e-10)
    arr = st.max_step(r, L=np.array([0.5, 1.0, 4.0])).max_step
    np.testing.assert_allclose(arr, x / np.array([0.5, 1.0, 4.0]), rtol=1e-10)


def test_branch_sympy_cannot_isolate_uses_bisection() -> None:
    # eta * exp(eta) <= 1: boundary is the omega constant W(1) = 0.5671432904097838 (Lambert W),
    # which SymPy solves with LambertW -- and eta + exp(eta) <= 3 has boundary ln-free root of
    # x + e^x = 3, x = 0.7920599346... (bisection on the printed form, checked by substitution).
    r = make(Hypothesis(name="lambert", lhs=eta * sp_exp(eta), rel="<=", rhs=1, kind="step_size", printed="x e^x <= 1"))
    assert st.max_step(r, L=1).max_step == pytest.approx(0.5671432904097838, rel=1e-9)
    r2 = make(
        Hypothesis(name="mixed", lhs=eta + sp_exp(eta), rel="<=", rhs=3, kind="step_size", printed="x + e^x <= 3")
    )
    x = st.max_step(r2, L=1).max_step
    assert x + np.exp(x) == pytest.approx(3, rel=1e-12)


def sp_exp(x):  # type: ignore[no-untyped-def]
    import sympy

    return sympy.exp(x)


def test_division_by_zero_is_void_not_an_exception() -> None:
    # F/(eta T) with a validity condition sigma2 > 0 on a term sigma2^-1: at sigma2 = 0 the term is inf
    r = make(
        Hypothesis(name="sigma2>0", lhs=sigma2, rel=">", rhs=0, kind="validity", printed="sigma^2 > 0"),
        terms=(Term(name="floor", expr=1 / sigma2, meaning="1/sigma2"),),
    )
    ev = st.evaluate(r, sigma2=0.0)
    assert ev.value == np.inf and ev.void and "void" in ev.verdict()
    assert st.evaluate(r, sigma2=4.0).value == pytest.approx(0.25)


def test_error_names_the_alias_the_user_typed() -> None:
    with pytest.raises(st.ParameterError) as e:
        st.evaluate(
            "mu_splitfed/thm4.1",
            L=1,
            F=1,
            T=10,
            tau=2,
            d_c=1,
            d_s=1,
            eta=1e-3,
            sigma_c2=1,
            sigma_s2=1,
            **{"lambda": -1},
        )
    assert e.value.name == "lambda"


def test_max_step_without_a_step_reports_no_slack() -> None:
    sc = st.max_step("mu_splitfed/thm4.1", L=1, tau=2, d_c=1, d_s=1)
    # 1/(64*(2+2)) = 1/256
    assert sc.given is None and sc.max_step == pytest.approx(1 / 256)
    assert all(b.holds is None and b.slack is None for b in sc.branches)
    assert sc.advice() == "eta <= 0.00390625 (binding: eta<=1/(64L(tau+2d_s)))"


def test_strict_and_reverse_relations() -> None:
    r = make(
        Hypothesis(name="T>K", lhs=T, rel=">", rhs=K, kind="domain", printed="T > K"),
        Hypothesis(name="T>=10", lhs=T, rel=">=", rhs=10, kind="domain", printed="T >= 10"),
        Hypothesis(name="eta<1/L", lhs=eta, rel="<", rhs=1 / L, kind="step_size", printed="eta < 1/L"),
    )
    base = dict(F=1, T=10, eta=0.5, L=1, sigma2=1, K=9)
    assert st.evaluate(r, **base).applies
    assert not st.evaluate(r, **{**base, "K": 10}).applies  # T > K fails at equality
    assert not st.evaluate(r, **{**base, "eta": 1.0}).applies  # eta < 1/L fails at equality
    ev = st.evaluate(r, **{**base, "T": 9, "K": 1})
    assert [h.name for h in ev.failed()] == ["T>=10"] and ev.hypotheses[1].slack == pytest.approx(-1)


def test_branch_that_never_holds_is_infeasible() -> None:
    # eta + 2 <= 1 + eta^2 * 0 ... i.e. 2 + eta*L <= 1: false for every eta > 0; max step 0, not a root
    r = make(Hypothesis(name="never", lhs=2 + eta * L, rel="<=", rhs=1, kind="step_size", printed="2 + eta L <= 1"))
    sc = st.max_step(r, L=1)
    assert sc.max_step == 0.0 and sc.binding == "never"
    # eta^2 - 3 eta + 2 >= 0 written as <=: 3 eta - eta^2 <= 2 holds on (0, 1] and [2, inf): boundary 1
    r2 = make(
        Hypothesis(
            name="two roots", lhs=3 * eta - eta**2, rel="<=", rhs=2, kind="step_size", printed="3 eta - eta^2 <= 2"
        )
    )
    assert st.max_step(r2, L=1).max_step == pytest.approx(1.0)
