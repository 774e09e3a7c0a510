"""The step-size solver (sfltheory.stepsize): checked closed-form roots, bisection as the fallback, the path each
branch took; x/0 the same (inf) through every entry point; check-lr on an O-form corollary."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import sympy

import sfltheory as st
from sfltheory.errors import NoBoundError
from sfltheory.result import Hypothesis, Provenance, Result, Term, step_branch
from sfltheory.stepsize import PATHS
from sfltheory.vocabulary import symbols
from verify.app import main

L, K, M, eta, eta_c, delta, G_s2 = symbols("L K M eta eta_c delta G_s2")
PROV = Provenance(seed="synthetic", label="Synthetic step conditions")


def result(*branches: Hypothesis, terms: tuple[Term, ...] = (), step: str = "eta", paper: str = "heron_sfl") -> Result:
    return Result(
        paper=paper,
        label="synthetic",
        kind="lemma",
        title="synthetic",
        provenance=PROV,
        lhs="test",
        terms=terms or (Term(name="t", expr=L, meaning="L"),),
        hypotheses=branches,
        step=step,
    )


@pytest.fixture
def strict() -> Iterator[None]:
    """Any warning (a NumPy division by zero included) is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---- the cubic of HERON-SFL Lemma 4, written plainly (no _Numeric wrapper) -----------------------------------------
ALPHA = eta_c * K**3 * L**2 + 6 * eta_c**2 * K**3 * L**3 / M
CUBIC = step_branch(
    "(6LK/M+3alpha)eta_c^2<=eta_c K/4",
    (6 * L * K / M + 3 * ALPHA) * eta_c / (K / 4),
    1,
    r"\big(\frac{6Lh}{N}+3\alpha\big)\eta_c^2\le\frac{\eta_ch}{4}",
    where="synthetic copy of HERON-SFL Lemma 4, after (42)",
)


def cubic_root(k: float, l_: float, m: float) -> float:
    """The largest admissible eta_c by numpy.roots: 4/K (6LK/M + 3 alpha) eta_c = 1 is the cubic
    72 K^2 L^3/M x^3 + 12 K^2 L^2 x^2 + 24 L/M x - 1 = 0, increasing on x > 0: one positive root."""
    coeffs = [72 * k**2 * l_**3 / m, 12 * k**2 * l_**2, 24 * l_ / m, -1.0]
    pos = [z.real for z in np.roots(coeffs) if abs(z.imag) <= 1e-9 * abs(z) and z.real > 0]
    assert len(pos) == 1
    return pos[0]


def bisect(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Plain bisection for f(lo) <= 0 < f(hi)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) <= 0 else (lo, mid)
    return lo


CASES = [(1.0, 1.0, 2.0), (3.0, 2.0, 5.0), (2.0, 0.5, 100.0), (1.0, 10.0, 1.0), (8.0, 0.01, 50.0)]


@pytest.mark.parametrize(("k", "l_", "m"), CASES)
def test_cubic_step_condition_matches_numpy_roots_and_a_bisection(k: float, l_: float, m: float) -> None:
    r = result(CUBIC, step="eta_c")
    sc = st.max_step(r, K=k, L=l_, M=m)
    (b,) = sc.branches
    want = cubic_root(k, l_, m)
    lhs = sympy.lambdify(eta_c, CUBIC.lhs.subs({K: k, L: l_, M: m}))
    assert bisect(lambda x: lhs(x) - 1, 0.0, 1.0 / (24 * l_ / m)) == pytest.approx(want, rel=1e-12)
    assert sc.max_step == pytest.approx(want, rel=1e-10)
    assert b.path in ("closed form", "bisection") and b.path == sc.branches[0].path
    assert lhs(sc.max_step) == pytest.approx(1.0, rel=1e-9)  # on the boundary, not inside (0, root) nor beyond it


def test_cubic_over_a_sweep_and_cardanos_roots_are_used_where_they_check() -> None:
    r = result(CUBIC, step="eta_c")
    k, l_, m = (np.array(c) for c in zip(*CASES, strict=True))
    sc = st.max_step(r, K=k, L=l_, M=m)
    np.testing.assert_allclose(sc.max_step, [cubic_root(*c) for c in CASES], rtol=1e-10)
    # Cardano's formula, evaluated in complex arithmetic, gives these roots to ~1e-15: they pass the check
    assert st.max_step(r, K=1, L=1, M=2).branches[0].path == "closed form"
    assert st.max_step(r, K=3, L=2, M=5).branches[0].path == "closed form"


def test_the_plain_cubic_agrees_with_heron_sfl_lemma4() -> None:
    # heron_sfl wraps the same condition in _Numeric (solved by bisection there); both give one step
    name = "Lemma 4 (6Lh/N+3alpha)eta_c^2<=eta_c h/4"
    for k, l_, m in CASES:
        (mine,) = st.max_step(result(CUBIC, step="eta_c"), K=k, L=l_, M=m).branches
        (theirs,) = [b for b in st.max_step("heron_sfl/lemma4", K=k, L=l_, M=m).branches if b.name == name]
        assert mine.bound == pytest.approx(theirs.bound, rel=1e-12)


# ---- roots are checked; bisection is the fallback; the path is reported ---------------------------------------------
def test_a_planted_wrong_root_is_rejected_and_bisection_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # eta L <= 1: the true boundary is 1/L; SymPy is made to answer 2/L
    monkeypatch.setenv("SFLTHEORY_CACHE", "off")  # a planted answer must not be read from, or left in, the disk cache
    monkeypatch.setattr(sympy, "solve", lambda *a, **k: [2 / L])
    r = result(step_branch("eta L<=1", eta * L, 1, r"\eta L\le1", where="synthetic"))
    sc = st.max_step(r, L=4)
    assert sc.max_step == pytest.approx(0.25, rel=1e-14)  # not 0.5
    assert sc.branches[0].path == "bisection"


def test_a_planted_complex_root_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SFLTHEORY_CACHE", "off")  # a planted answer must not be read from, or left in, the disk cache
    monkeypatch.setattr(sympy, "solve", lambda *a, **k: [(1 + sympy.I) / L])
    r = result(step_branch("eta L<=1", eta * L, 1, r"\eta L\le1", where="synthetic"))
    sc = st.max_step(r, L=2)
    assert sc.max_step == pytest.approx(0.5, rel=1e-14) and sc.branches[0].path == "bisection"


def test_a_root_right_at_some_points_only_mixes_the_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1/L^2 is the boundary of eta L <= 1 at L = 1 only: checked there, bisected elsewhere
    monkeypatch.setenv("SFLTHEORY_CACHE", "off")  # a planted answer must not be read from, or left in, the disk cache
    monkeypatch.setattr(sympy, "solve", lambda *a, **k: [1 / L**2])
    r = result(step_branch("eta L<=1", eta * L, 1, r"\eta L\le1", where="synthetic"))
    sc = st.max_step(r, L=np.array([1.0, 2.0, 8.0]))
    np.testing.assert_allclose(sc.max_step, [1.0, 0.5, 0.125], rtol=1e-14)
    assert list(sc.branches[0].path) == ["closed form", "bisection", "bisection"]


def test_paths_of_a_correct_root_an_unconstrained_and_an_infeasible_branch() -> None:
    r = result(
        step_branch("eta<=1/L", eta, 1 / L, r"\eta\le1/L", where="synthetic"),
        step_branch("eta(1-L)<=1", eta * (1 - L), 1, r"\eta(1-L)\le1", where="synthetic"),  # root 1/(1-L) < 0
        # the step cancels once simplified: eta(L+1) - eta L - eta + 1/L <= 1 is 1/L <= 1
        step_branch("cancels", eta * (L + 1) - eta * L - eta + 1 / L, 1, r"1/L\le1", where="synthetic"),
        step_branch("2+eta L<=1", 2 + eta * L, 1, r"2+\eta L\le1", where="synthetic"),  # root -1/L: never holds
        step_branch("eta^2<=eta+L", eta**2 - eta, L, r"\eta^2-\eta\le L", where="synthetic"),
    )
    sc = st.max_step(r, L=2)
    got = {b.name: (b.bound, b.path) for b in sc.branches}
    assert got["eta<=1/L"] == (pytest.approx(0.5), "closed form")
    assert got["eta(1-L)<=1"] == (math.inf, "unconstrained")
    assert got["cancels"] == (math.inf, "unconstrained")
    assert got["2+eta L<=1"] == (0.0, "infeasible")
    assert got["eta^2<=eta+L"] == (pytest.approx(2.0), "closed form")  # roots -1 and 2
    assert set(PATHS) == {"closed form", "bisection", "unconstrained", "infeasible"}


# ---- x/0: inf (a void bound) through all four entry points ---------------------------------------------------------
FLOOR = result(
    step_branch("eta<=2/delta", eta, 2 / delta, r"\eta\le\frac2\delta", where="synthetic"),
    terms=(Term(name="floor", expr=2 / delta * G_s2, meaning="(2/delta) G_s^2"),),
)


@pytest.mark.usefixtures("strict")
@pytest.mark.parametrize("zero", [0, 0.0, np.float64(0.0), np.array(0.0)])
def test_two_over_delta_at_delta_zero_is_inf_everywhere(zero: float) -> None:
    assert st.evaluate(FLOOR, delta=zero, G_s2=1, eta=0.1).value == math.inf
    assert st.evaluate(FLOOR, delta=zero, G_s2=1, eta=0.1).terms["floor"] == math.inf
    assert st.bound_value(FLOOR, delta=zero, G_s2=1) == math.inf
    assert st.bound_function(FLOOR)(delta=zero, G_s2=1) == math.inf  # plain Python numbers too
    sc = st.max_step(FLOOR, delta=zero)
    assert sc.max_step == math.inf and sc.branches[0].path == "unconstrained"


@pytest.mark.usefixtures("strict")
def test_two_over_delta_over_a_sweep_with_a_zero() -> None:
    d = np.array([0.0, 0.5, 4.0])
    want = [math.inf, 4.0, 0.5]
    np.testing.assert_array_equal(st.evaluate(FLOOR, delta=d, G_s2=1, eta=0.1).value, want)
    np.testing.assert_array_equal(st.bound_value(FLOOR, delta=d, G_s2=1), want)
    np.testing.assert_array_equal(st.bound_function(FLOOR)(delta=d, G_s2=1), want)
    sc = st.max_step(FLOOR, delta=d)
    np.testing.assert_array_equal(sc.max_step, want)
    assert list(sc.branches[0].path) == ["unconstrained", "closed form", "closed form"]


# ---- check-lr on an O-form corollary --------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# sl_noniid Corollary 1 at N = M = 2 clients, K = 2 local steps, L = 1, B^2 = 1, R = T = 4 rounds:
#   its step is the choice eta_g eta_l = 1/(L sqrt(NKR)) = 1/sqrt(16) = 0.25 (eta_g = 1);
#   Theorem 1 caps eta_l <= 1/(2NKL sqrt(2B^2+1)) = 1/(8 sqrt 3) = 0.0721688 and eta_l <= 1/(2NKL eta_g) = 0.125;
#   equivalently the corollary's own condition NKR >= 4N^2K^2 (2B^2+1)/eta_g^2 = 192 fails (NKR = 16).
# At R = 100: NKR = 400 >= 192, the choice is 1/20 = 0.05 <= 0.0721688: every cap holds.
COR1 = ("L=1", "K=2", "M=2", "B2=1")


def test_max_step_refuses_an_o_form_corollary_and_names_the_explicit_edition() -> None:
    with pytest.raises(NoBoundError, match=r"sl_noniid/cor1@explicit") as e:
        st.max_step("sl_noniid/cor1", L=1, K=2, M=2, B2=1, T=4)
    assert "stated only up to constants" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(NoBoundError, match=r"sl_noniid/cor2@explicit"):
        st.max_step("sl_noniid/cor2", L=1, K=2, M=2, B2=1, T=4)


def test_check_lr_on_an_o_form_corollary_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "check-lr", "sl_noniid/cor1", *COR1, "T=4")
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("sfltheory: error: ")
    assert "sl_noniid/cor1@explicit" in err


def test_the_explicit_edition_catches_the_corollarys_step_breaking_theorem_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, _ = run(capsys, "check-lr", "sl_noniid/cor1@explicit", *COR1, "T=4", "--json")
    d = json.loads(out)
    assert rc == 1  # the corollary's own step violates a stated branch
    assert d["given"] == pytest.approx(0.25)
    assert d["max_step"] == pytest.approx(1 / (8 * math.sqrt(3)))
    assert {b["name"]: b["holds"] for b in d["branches"]} == {
        "eta_l<=1/(2NKL sqrt(2B^2+1))": False,
        "eta_l<=1/(2NKL eta_g)": False,
    }
    assert all(b["path"] == "closed form" for b in d["branches"])
    rc, out, _ = run(capsys, "check-lr", "sl_noniid/cor1@explicit", *COR1, "T=100")
    assert rc == 0 and "eta_l = 0.05 satisfies every stated branch" in out


def test_check_lr_shows_the_path_of_each_branch(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=0.001")
    assert rc == 1  # 0.001 > 1/(16 L tau d_c) = 1/3200
    header = next(line for line in out.splitlines() if line.startswith("branch"))
    assert header.split()[:5] == ["branch", "source", "max", "eta", "path"]
    assert out.count("closed form") == len(st.max_step("mu_splitfed/thm4.1", L=1, tau=2, d_c=100, d_s=1).branches)
