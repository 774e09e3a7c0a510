"""Exact E||grad f(x^t)||^2 of first-order algorithms on quadratics against a closed-form recursion and against
Monte Carlo over seeds through the trainer."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sfltheory.errors import ParameterError  # noqa: E402
from verify.pipeline.exact import exact_moments  # noqa: E402
from verify.problems import QuadraticProblem  # noqa: E402
from verify.train import get, run  # noqa: E402


def test_sgd_matches_the_closed_form_recursion() -> None:
    # FedAvg with M = 1, K = 1, eta_g = 1 is SGD on f(x) = 1/2 (x - b)^T H (x - b) with gradient noise of
    # covariance sigma2/(d B) I for a batch of B: mu' = (I - eta H) mu + eta H b,
    # Sigma' = (I - eta H) Sigma (I - eta H) + eta^2 sigma2/(d B) I, E||grad||^2 = ||H(mu - b)||^2 + tr(H Sigma H)
    H = np.diag([0.5, 1.0, 2.0, 3.0])
    b = np.array([1.0, -2.0, 0.5, 0.0])
    x0 = np.zeros(4)
    eta, s2, B = 0.2, 0.7, 3
    p = QuadraticProblem(np.diag(H).tolist(), [b.tolist()], x0.tolist(), 2, s2)
    m = exact_moments(get("fedavg")(eta_l=eta, K=1, eta_g=1.0), p, T=6, batch=B)
    mu, S, want = x0.copy(), np.zeros((4, 4)), []
    I4 = np.eye(4)
    for _ in range(7):
        g = H @ (mu - b)
        want.append(g @ g + np.trace(H @ S @ H))
        mu = (I4 - eta * H) @ mu + eta * H @ b
        S = (I4 - eta * H) @ S @ (I4 - eta * H) + eta**2 * s2 / (4 * B) * I4
    np.testing.assert_allclose(m.gradnorm2, want, rtol=1e-12)
    assert m.maps == 1  # a time-invariant round: one map serves every t


@pytest.mark.parametrize(("name", "params"), [("fedavg", {"eta_l": 0.1, "K": 2}),
                                              ("sl", {"eta_l": 0.1, "K": 2, "order": "fixed", "eta_g": 0.8}),
                                              ("sfl_v1_analysed", {"eta": 0.1, "K": 2}),
                                              ("sfl_v2", {"eta": 0.1, "order": "fixed"})])  # fmt: skip
def test_exact_moments_agree_with_monte_carlo(name: str, params: dict) -> None:
    # 200 seeds through the trainer: the sample mean of ||grad f(x^t)||^2 at t = 3 lies within 4 standard errors
    p = QuadraticProblem.from_targets(L=1.0, sigma2=2.0, eps2=1.0, d=6, M=3, seed=1)
    ex = exact_moments(get(name)(**params), p, T=3, batch=2)
    g = np.array([run(get(name)(**params), p, T=3, batch=2, seed=s, progress=False).series("gradnorm2")
                  for s in range(200)])  # fmt: skip
    mean, se = g[:, 3].mean(), g[:, 3].std(ddof=1) / math.sqrt(len(g))
    assert abs(mean - ex.gradnorm2[3]) < 4 * se, (mean, se, ex.gradnorm2[3])
    np.testing.assert_allclose(g[0, 0], ex.gradnorm2[0], rtol=1e-12)  # t = 0 is deterministic


def test_random_order_is_refused() -> None:
    p = QuadraticProblem.from_targets(d=4, M=3)
    with pytest.raises(ParameterError, match="discrete randomness"):
        exact_moments(get("sl")(order="random"), p, T=2)
