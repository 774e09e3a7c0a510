"""The worst case of verify.pep.worst against closed forms, and its place in `verify --tightest`.

Closed forms (L-smooth non-convex f, f(x^0) - f* <= F):
* T = 1: ||grad f(x^0)||^2 <= 2 L F, since f* <= f(x^0 - grad f(x^0)/L) <= f(x^0) - ||grad f(x^0)||^2/(2L); attained
  (f(x) = (L/2) x^2 - ... a one-dimensional function with f(x^0) - f* = F and slope sqrt(2LF) at x^0).
* gradient descent with step 1/L, N steps, min over t <= N: 4 L F / (3N + 2). The interpolation inequality between
  x_k and x_{k+1} = x_k - g_k/L gives f_k - f_{k+1} >= ||g_k||^2/(2L) + ||g_{k+1}||^2/(4L); summing k = 0..N-1 and
  adding f_N - f* >= ||g_N||^2/(2L): F >= (1/(2L) + 3(N-1)/(4L) + 3/(4L)) min_t ||g_t||^2 = (3N + 2)/(4L) min;
  Abbaszadehpeivasti, de Klerk and Zamani (Optim. Lett. 16, 2022) show it is attained. N = 1: 4/5; N = 5: 4/17.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sfltheory.errors import MissingExtraError, ParameterError
from verify.pep import WorstCaseSpec, worst_case
from verify.pep import gram as gram_module
from verify.pep.gram import GramProblem, Vec, inner

pytest.importorskip("clarabel")


@pytest.mark.parametrize(("N", "L", "F"), [(1, 1.0, 1.0), (2, 2.0, 0.5), (5, 1.0, 3.0)])
def test_gradient_descent_matches_the_closed_form(N: int, L: float, F: float) -> None:
    spec = WorstCaseSpec(algorithm="fedavg", R=N + 1, M=1, params={"K": 1, "eta_l": 1 / L, "eta_g": 1.0}, L=L, F=F,
                         lhs="min")  # fmt: skip
    w = worst_case(spec)
    assert w.kind == "exact"
    assert w.value == pytest.approx(4 * L * F / (3 * N + 2), rel=1e-6)


@pytest.mark.parametrize("algorithm", ["fedavg", "sl", "sfl_v1_analysed"])
def test_one_round_is_two_L_F(algorithm: str) -> None:
    params = {"K": 2, "eta_l": 0.1, "eta_g": 1.0, "eta": 0.1}
    spec = WorstCaseSpec(algorithm=algorithm, R=1, M=2, params=params, L=3.0, F=0.5, heterogeneity="dissimilarity",
                         B2=2.0, G2=1.0)  # fmt: skip
    assert worst_case(spec).value == pytest.approx(2 * 3.0 * 0.5, rel=1e-6)


def test_kinds_exact_with_one_client_relaxation_with_several() -> None:
    base = dict(algorithm="sl", R=2, params={"K": 2, "eta_l": 0.1, "eta_g": 1.0}, L=1.0, F=1.0)
    assert WorstCaseSpec(M=1, heterogeneity="dissimilarity", B2=1.0, **base).kind()[0] == "exact"  # type: ignore[arg-type]
    assert WorstCaseSpec(M=1, heterogeneity="deviation", eps2=0.1, **base).kind()[0] == "exact"  # type: ignore[arg-type]
    # B^2 < 1 is not empty at M = 1: ||g||^2 <= B^2 ||g||^2 + G^2 bounds the gradient; a relaxation then
    assert WorstCaseSpec(M=1, heterogeneity="dissimilarity", B2=0.5, **base).kind()[0] == "relaxation"  # type: ignore[arg-type]
    kind, why = WorstCaseSpec(M=3, heterogeneity="dissimilarity", B2=2.0, **base).kind()  # type: ignore[arg-type]
    assert kind == "relaxation" and "global iterates" in why


def test_more_heterogeneity_allows_a_worse_case() -> None:
    # a larger G^2 enlarges the class, so the worst case cannot decrease (monotone up to solver tolerance)
    vals = [worst_case(WorstCaseSpec(algorithm="fedavg", R=3, M=2, params={"K": 3, "eta_l": 0.3, "eta_g": 1.0},
                                     L=1.0, F=1.0, heterogeneity="dissimilarity", B2=1.5, G2=g)).value
            for g in (0.0, 0.5, 2.0)]  # fmt: skip
    assert vals[0] <= vals[1] * (1 + 1e-7) and vals[1] <= vals[2] * (1 + 1e-7)
    assert vals[2] > vals[0] * 1.01  # and here it does grow: local steps drift with heterogeneity


def test_the_gram_sdp_finds_a_smallest_eigenvalue() -> None:
    # min <C, G> s.t. trace G = 1, G psd is lambda_min(C): an independent check of the svec convention
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    C = A + A.T
    pep = GramProblem()
    vs = [pep.vector() for _ in range(4)]
    obj = sum((inner(vs[i], vs[j]) * (-C[i, j]) for i in range(4) for j in range(4)), start=inner(Vec({}), Vec({})))
    pep.fix(sum((inner(v, v) for v in vs), start=inner(Vec({}), Vec({}))) - 1.0)
    sol = pep.solve(obj)
    assert -sol.value == pytest.approx(float(np.linalg.eigvalsh(C)[0]), rel=1e-7)
    V = sol.points()
    np.testing.assert_allclose(V.T @ V, sol.gram, atol=1e-7)


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [("R", 0, "integer >= 1"), ("M", 1.5, "integer >= 1"), ("L", math.inf, "finite number > 0"),
     ("G2", -1.0, ">= 0"), ("lhs", "max", "must be one of"), ("algorithm", "sgd", "must be one of")],
)  # fmt: skip
def test_bad_specs_are_one_line_errors(field: str, value: object, rule: str) -> None:
    kw = dict(algorithm="fedavg", R=2, M=2, params={"K": 1, "eta_l": 0.1}, L=1.0, F=1.0)
    kw[field] = value
    with pytest.raises(ParameterError, match=rule):
        WorstCaseSpec(**kw)  # type: ignore[arg-type]


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gram_module, "clarabel", None)
    spec = WorstCaseSpec(algorithm="fedavg", R=1, M=1, params={"K": 1, "eta_l": 0.1}, L=1.0, F=1.0)
    with pytest.raises(MissingExtraError, match=r"extra 'pep'.*pip install"):
        worst_case(spec)
