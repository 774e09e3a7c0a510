"""`verify --tightest`: the worst case over the class next to the paper's bound and the quadratic's own run.

The default quadratic of each check lies in its result's class with its exact constants (L, F, B^2, G^2, eps^2),
so its deterministic run can never exceed the worst case over the class: measured <= tightest at every point is
a check from outside the SDP (the quadratic's moments come from verify.pipeline.exact)."""

from __future__ import annotations

import pytest

from verify.app import main
from verify.pipeline.check import check
from verify.pipeline.records import Verification
from verify.pipeline.report import markdown
from verify.pipeline.report.document import build
from verify.spec import CheckSpec

pytest.importorskip("clarabel")


@pytest.mark.parametrize(
    "result", ["sl_noniid/thm1@proof", "sl_noniid/thm2", "cut_layer/prop1", "sl_noniid/cor2@explicit"]
)
def test_the_quadratic_never_beats_the_worst_case(result: str) -> None:
    v = check(CheckSpec(result=result, T=3, tightest=2))
    t = v.tightest
    assert t is not None and not t.reason and t.points
    checked = 0
    for p in t.points:
        assert p.T in (1, 2) and p.tightest > 0
        if p.measured is not None:
            assert p.measured <= p.tightest * (1 + 1e-6) + 1e-12, p
            checked += 1
        if p.M == 1:
            assert p.kind == "exact"
    assert checked >= 2
    assert set(t.kinds) == {p.kind for p in t.points} | {p.kind for p in t.by_step}
    again = Verification.from_dict(v.to_dict())  # the record survives JSON
    assert again.tightest == t
    if "@explicit" in result:  # a corollary's step is its own: no step sweep
        assert t.by_step == ()
        return
    # the step sweep at T = 2: the admissible step of the first M times 1/8 .. 4; at x1 the same point as the leg's
    first = next(p for p in t.points if p.mode == "admissible" and p.T == 2)
    assert [p.mode for p in t.by_step] == ["x0.125", "x0.25", "x0.5", "x1", "x2", "x4"]
    assert [p.step / first.step for p in t.by_step] == pytest.approx([0.125, 0.25, 0.5, 1, 2, 4])
    at1 = t.by_step[3]
    assert (at1.M, at1.T, at1.paper) == (first.M, 2, pytest.approx(first.paper))
    assert at1.tightest == pytest.approx(first.tightest, rel=1e-6)
    assert "Against the step (T = 2" in markdown.render(build([v]))


def test_one_client_is_left_out_where_the_bound_needs_two() -> None:
    # sfl_aux Theorem A3 divides by 2m - 3: no claim at m = 1, so no M = 1 point
    v = check(CheckSpec(result="sfl_aux/thm3@appendix", T=2, tightest=2, practical=False))  # one leg: 2x faster
    assert v.tightest is not None and {p.M for p in v.tightest.points} == {4}
    assert all(p.measured is not None and p.measured <= p.tightest * (1 + 1e-6) for p in v.tightest.points)


def test_what_pep_does_not_cover_says_why() -> None:
    v = check(CheckSpec(result="mu_splitfed/thm4.1", T=2, tightest=1, seeds=2))
    assert v.tightest is not None and "zeroth-order" in v.tightest.reason and not v.tightest.points


def test_partial_participation_is_solved_at_the_smallest_draws() -> None:
    # sfl_aux Theorem 4 (n of m drawn with replacement): the expectation over every draw, at m = 3, n = 2
    v = check(CheckSpec(result="sfl_aux/thm4", T=2, tightest=2, seeds=2))
    t = v.tightest
    assert t is not None and not t.reason and {p.M for p in t.points} == {3} and "M = 3, n = 2" in t.note
    assert all(p.measured is None and p.kind == "relaxation" and p.ratio > 1 for p in t.points)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "sl_noniid/thm2", "--tightest", "31"], "at most 30 rounds"),
        (["verify", "sl_noniid/thm2", "--tightest", "0"], "--tightest"),
        (["verify", "sl_noniid/thm2", "--tightest", "--model", "mlp", "--data", "digits"], "not with a model"),
        (["verify", "sl_noniid/thm2", "--tightest", "--run", "x.csv"], "--tightest"),
    ],
)
def test_bad_tightest_flags_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own refusals
        code = int(e.code or 0)
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1
