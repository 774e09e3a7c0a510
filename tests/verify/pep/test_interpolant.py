"""The L-smooth interpolant of verify.pep.interpolant: on data sampled from known L-smooth functions (an indefinite
quadratic with eigenvalues in [-L, L], a sum of cosines) it interpolates exactly, its gradient is the finite
differences of its value, it is L-smooth, and its infimum is min_i f_i - ||g_i||^2/(2L), attained at x_i - g_i/L.
The simplex QP it solves meets its KKT conditions, singular Hessians included."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy.optimize import minimize

from verify.pep.interpolant import Interpolant, simplex_qp

Sampler = Callable[[np.random.Generator, int, int, float], tuple[np.ndarray, np.ndarray, np.ndarray]]


def quadratic_data(rng: np.random.Generator, n: int, d: int, L: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f(x) = x^T H x / 2 + b^T x, H symmetric with eigenvalues in [-L, L] (both ends hit): L-smooth, unbounded below."""
    U = np.linalg.qr(rng.standard_normal((d, d)))[0]
    eig = rng.uniform(-L, L, d)
    eig[0], eig[-1] = -L, L
    H = U @ np.diag(eig) @ U.T
    b = rng.standard_normal(d)
    X = 2 * rng.standard_normal((n, d))
    return X, X @ H + b, 0.5 * np.einsum("ij,jk,ik->i", X, H, X) + X @ b


def cosine_data(rng: np.random.Generator, n: int, d: int, L: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f(x) = sum_k c_k cos(<a_k, x> + p_k) with sum_k |c_k| ||a_k||^2 = L: L-smooth, bounded below."""
    K = 5
    A = rng.standard_normal((K, d))
    c = rng.uniform(0.2, 1.0, K) * rng.choice([-1.0, 1.0], K)
    c *= L / np.sum(np.abs(c) * np.sum(A * A, 1))
    p = rng.uniform(0, 2 * np.pi, K)
    X = 3 * rng.standard_normal((n, d))
    t = X @ A.T + p
    return X, -(np.sin(t) * c) @ A, np.cos(t) @ c


SAMPLERS = [pytest.param(quadratic_data, id="quadratic"), pytest.param(cosine_data, id="cosines")]


@pytest.mark.parametrize("sample", SAMPLERS)
@pytest.mark.parametrize(("n", "d", "L"), [(1, 1, 1.0), (6, 2, 0.5), (12, 4, 2.0), (20, 3, 1.0)])
def test_interpolation_is_exact_on_feasible_data(sample: Sampler, n: int, d: int, L: float) -> None:
    X, G, f = sample(np.random.default_rng(n + d), n, d, L)
    fn = Interpolant(X, G, f, L)
    assert fn.violation() <= 1e-12 * (1 + np.abs(f).max())
    for i in range(n):
        v, g = fn.evaluate(X[i])
        assert v == pytest.approx(f[i], rel=1e-11, abs=1e-11)
        np.testing.assert_allclose(g, G[i], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("sample", SAMPLERS)
def test_gradient_is_the_finite_differences_of_the_value(sample: Sampler) -> None:
    rng = np.random.default_rng(1)
    d, L = 3, 1.5
    fn = Interpolant(*sample(rng, 10, d, L), L)
    h = 1e-6
    for _ in range(10):
        x = 3 * rng.standard_normal(d)
        fd = np.array([(fn.value(x + h * e) - fn.value(x - h * e)) / (2 * h) for e in np.eye(d)])
        np.testing.assert_allclose(fn.grad(x), fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("sample", SAMPLERS)
def test_the_interpolant_is_L_smooth(sample: Sampler) -> None:
    rng = np.random.default_rng(2)
    d, L = 4, 0.7
    fn = Interpolant(*sample(rng, 15, d, L), L)
    for _ in range(200):
        x, y = 4 * rng.standard_normal((2, d))
        if rng.random() < 0.5:  # also pairs near each other, where the active face changes
            y = x + 1e-2 * rng.standard_normal(d)
        assert np.linalg.norm(fn.grad(x) - fn.grad(y)) <= L * np.linalg.norm(x - y) * (1 + 1e-8)


@pytest.mark.parametrize("sample", SAMPLERS)
def test_infimum_is_the_smallest_vertex_value(sample: Sampler) -> None:
    rng = np.random.default_rng(3)
    d, L = 2, 1.0
    X, G, f = sample(rng, 8, d, L)
    fn = Interpolant(X, G, f, L)
    inf = fn.infimum()
    assert inf == pytest.approx(float(np.min(f - np.sum(G * G, 1) / (2 * L))), abs=0)
    for i in range(len(f)):  # f(x_i - g_i/L) <= f_i - ||g_i||^2/(2L) for every i (a descent step's guarantee)
        assert fn.value(X[i] - G[i] / L) <= f[i] - G[i] @ G[i] / (2 * L) + 1e-10
    assert fn.value(fn.minimiser()) == pytest.approx(inf, abs=1e-10)
    found = [minimize(fn.value, 5 * rng.standard_normal(d), jac=fn.grad, method="BFGS").fun for _ in range(40)]
    assert min(found) >= inf - 1e-9  # nothing below the formula
    assert min(found) == pytest.approx(inf, abs=1e-6)  # and it is reached


def test_simplex_qp_meets_its_kkt_conditions_singular_hessians_included() -> None:
    rng = np.random.default_rng(4)
    for trial in range(300):
        n, k = int(rng.integers(1, 16)), int(rng.integers(1, 6))
        B = rng.standard_normal((k, n))
        if trial % 3 == 0:  # repeated columns: the face problems are singular
            B[:, 1:] = B[:, :1] * rng.integers(0, 2, n - 1)
        Q, c = B.T @ B, rng.standard_normal(n)
        lam = simplex_qp(Q, c)
        g = Q @ lam + c
        on = lam > 1e-12
        mu = g - g[on].mean()  # the multipliers of lambda >= 0: zero on the support, >= 0 off it
        assert lam.min() >= 0 and lam.sum() == pytest.approx(1.0, abs=1e-13)
        assert np.abs(mu[on]).max() <= 1e-10 and mu.min() >= -1e-10


def test_scaling_keeps_L_and_scales_values_like_alpha_squared() -> None:
    rng = np.random.default_rng(5)
    fn = Interpolant(*cosine_data(rng, 6, 2, 1.0), 1.0)
    alpha = 1.7
    big = fn.scaled(alpha)
    assert big.violation() <= 1e-12
    for _ in range(5):
        x = rng.standard_normal(2)
        assert big.value(alpha * x) == pytest.approx(alpha**2 * fn.value(x), rel=1e-11, abs=1e-11)
        np.testing.assert_allclose(big.grad(alpha * x), alpha * fn.grad(x), rtol=1e-10, atol=1e-11)
    assert big.infimum() == pytest.approx(alpha**2 * fn.infimum(), rel=1e-12)


def test_bad_data_is_refused() -> None:
    with pytest.raises(Exception, match="n x d"):
        Interpolant(np.zeros((2, 2)), np.zeros((3, 2)), np.zeros(2), 1.0)
    with pytest.raises(Exception, match="L"):
        Interpolant(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1), 0.0)


def test_a_worst_case_instance_interpolates_the_solvers_data() -> None:
    pytest.importorskip("clarabel", reason="the worst case needs Clarabel (the optional extra 'pep')")
    from verify.pep import WorstCaseSpec, worst_case
    from verify.pep.interpolant import instance

    spec = WorstCaseSpec(algorithm="fedavg", R=3, M=1, params={"K": 2, "eta_l": 0.5, "eta_g": 1.0}, L=1.0, F=1.0)
    wc = worst_case(spec)
    (fn,), x0 = instance(wc)
    assert fn.violation() <= 1e-7
    np.testing.assert_allclose(fn.X[0], x0)  # x^0 is the first point queried
    v, g = fn.evaluate(x0)
    assert v == pytest.approx(fn.f[0], abs=1e-7)
    np.testing.assert_allclose(g, fn.G[0], atol=1e-4)
    assert v - fn.infimum() == pytest.approx(spec.F, rel=1e-6)
