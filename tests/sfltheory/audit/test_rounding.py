"""Witnesses rounded to the digits they are printed with, and re-checked there (issue 28, item 6)."""

from __future__ import annotations

import sfltheory as st
from sfltheory.audit.findings import Finding, Reevaluation
from sfltheory.audit.rounding import DIGITS, rounded, settle

PARAMS = {"L": 0.3, "K": 2, "M": 10, "F": 1.0, "T": 100, "sigma2": 1.0, "eps2": 1.0, "sum_alpha2": 0.1}


def finding(rv: Reevaluation) -> Finding:
    return Finding(
        result=rv.result, check="together", printed="", found="", severity="cosmetic", seed="x.txt: y",
        witness=dict(rv.params), reevaluations=(rv,),
    )  # fmt: skip


def test_rounded() -> None:
    assert rounded(0.028708309049546177, 12) == 0.0287083090495
    assert rounded(413055.0, 12) == 413055.0 and rounded(float("inf"), 12) == float("inf")
    # one unit in the last place apart, the same once rounded: the jitter that broke the docs test
    assert rounded(0.028708309049546177, 12) == rounded(0.02870830904954618, 12)


def test_a_point_inside_is_printed_with_twelve_digits() -> None:
    eta = 0.0123456789012345678
    ev = st.evaluate("cut_layer/prop1", {**PARAMS, "eta": eta})
    rv = Reevaluation(result="cut_layer/prop1", params={**PARAMS, "eta": eta}, value=float(ev.value), applies=True)
    (s,) = settle(finding(rv), {}).reevaluations
    assert s.params["eta"] == 0.0123456789012
    # and what it records is what `bound` gives at the printed point
    assert s.value == float(st.evaluate("cut_layer/prop1", dict(s.params)).value)


def test_a_step_on_its_boundary_keeps_the_digits_it_needs() -> None:
    # the largest step of cut_layer/prop1, eta <= 1/(16 L K) at L = 0.3, K = 2: 1/9.6 = 0.10416666666666667, which
    # 12 digits round up to 0.104166666667 -- outside the condition, where the bound would no longer apply
    eta = st.max_step("cut_layer/prop1", PARAMS).max_step
    assert eta == 1 / 9.6 and rounded(eta, DIGITS) > eta
    ev = st.evaluate("cut_layer/prop1", {**PARAMS, "eta": eta})
    assert bool(ev.applies)
    rv = Reevaluation(result="cut_layer/prop1", params={**PARAMS, "eta": eta}, value=float(ev.value), applies=True)
    f = settle(finding(rv), {})
    (s,) = f.reevaluations
    # 12 digits would flip "applies"; settle keeps more (13 here: 0.1041666666667, inside the condition's
    # tolerance), and the bound applies at the printed point as the finding records
    assert not bool(st.evaluate("cut_layer/prop1", {**PARAMS, "eta": rounded(eta, DIGITS)}).applies)
    assert s.params["eta"] != rounded(eta, DIGITS)
    assert bool(st.evaluate("cut_layer/prop1", dict(s.params)).applies)
    assert f.witness["eta"] == s.params["eta"]
