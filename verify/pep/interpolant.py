r"""The concrete L-smooth function that attains a worst case: an interpolant of the data the SDP returns.

Data :math:`\{(x_i, g_i, f_i)\}_{i=1}^n` satisfying the L-smooth (non-convex) interpolation conditions (Taylor,
Hendrickx and Glineur, *Smooth strongly convex interpolation and exact worst-case performance of first-order
methods*, Math. Program. 161, 2017, Theorem 3.10 with :math:`\mu = -L`; :mod:`verify.pep.classes`) are met by

.. math:: f(x) = \min_{\lambda\in\Delta_n}\Big[a^\top\lambda + \tfrac1{4L}\|2Lx - W\lambda\|^2\Big]
          - \tfrac L2\|x\|^2,\qquad w_i = Lx_i - g_i,\quad
          a_i = f_i + \tfrac L2\|x_i\|^2 - \tfrac1{4L}\|g_i + Lx_i\|^2,

:math:`\Delta_n` the unit simplex. Derivation: :math:`h = f + \tfrac L2\|\cdot\|^2` is convex and
:math:`L' = 2L`-smooth, with data :math:`h_i = f_i + \tfrac L2\|x_i\|^2`, :math:`s_i = g_i + Lx_i` (the
conditions of Thm. 3.10 with :math:`\mu = -L` are those of the convex :math:`2L`-smooth class for these), and

.. math:: h(x) = \min_{\lambda\in\Delta_n} a^\top\lambda + \tfrac1{2L'}\|L'x - W\lambda\|^2,
          \quad W = L'X^\top - S^\top,\ a_i = h_i - \tfrac{\|s_i\|^2}{2L'},

the Moreau envelope (parameter :math:`1/L'`) of the convex :math:`\phi(u/L')`, :math:`\phi(u) = \min\{a^\top\lambda:
W\lambda = u,\ \lambda\in\Delta_n\}`: convex and :math:`L'`-smooth for *any* data, and equal to :math:`h_i` with
gradient :math:`s_i` at :math:`x_i` (:math:`\lambda = e_i` optimal) when the conditions hold. Hence f is L-smooth
(:math:`\nabla^2 h \in [0, 2L]` gives :math:`\nabla^2 f \in [-L, L]`), and by the envelope theorem

.. math:: \nabla f(x) = Lx - W\lambda^\star(x).

Its infimum: for fixed :math:`\lambda` the bracket minus :math:`\tfrac L2\|x\|^2` is minimised at :math:`x =
W\lambda/L` with value :math:`a^\top\lambda - \tfrac1{4L}\|W\lambda\|^2`, concave in :math:`\lambda`, so minimised at
a vertex:

.. math:: \inf_x f(x) = \min_i\Big(f_i - \tfrac{\|g_i\|^2}{2L}\Big),\ \text{attained at } x_i - g_i/L,

which is why the infimum conditions of :func:`verify.pep.classes.infimum` are exact for one function.

The inner problem is a convex QP over the simplex with a positive *semi*-definite Hessian :math:`W^\top W/(2L)`
(repeated points make it singular), solved exactly by a primal active-set method (:func:`simplex_qp`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sfltheory.errors import ParameterError

if TYPE_CHECKING:
    from .classes import SmoothFunction
    from .gram import Expr, GramSolution
    from .worst import ClassWorstCase

__all__ = ["Interpolant", "average_value", "instance", "interpolant", "simplex_qp"]

_CACHE = 256  # points remembered per interpolant (the trainer asks for the value and gradient at one point often)


def simplex_qp(Q: np.ndarray, c: np.ndarray, *, max_iter: int | None = None) -> np.ndarray:
    r""":math:`\arg\min_{\lambda\in\Delta_n} \tfrac12\lambda^\top Q\lambda + c^\top\lambda` for a symmetric positive
    semi-definite Q, by a primal active-set method: on the current face (the free set F) the step solves the
    equality-constrained problem in an orthonormal basis Z of :math:`\{p: \mathbf 1^\top p = 0\}`; where the
    reduced Hessian :math:`Z^\top Q_{FF} Z` is singular and the reduced gradient has a component in its kernel the
    objective is linear and decreasing along it, so the step follows that ray to the face's boundary; at a
    stationary point of the face the most negative multiplier :math:`\mu_i = g_i + \nu` of a bound frees it."""
    n = len(c)
    Q = (Q + Q.T) / 2
    scale = max(float(np.abs(Q).max(initial=0.0)), float(np.abs(c).max(initial=0.0)), 1e-300)
    lam = np.zeros(n)
    vertex = 0.5 * np.diag(Q) + c
    lam[int(np.argmin(vertex))] = 1.0
    free = lam > 0
    cap = max_iter if max_iter is not None else 50 * n + 100
    freed = -1  # the bound released last: a zero step that would close it again means optimal (degenerate)
    for _ in range(cap):
        F = np.flatnonzero(free)
        p, ray = _face_step(Q[np.ix_(F, F)], (Q @ lam + c)[F], scale)
        neg = p < 0
        ratios = lam[F][neg] / -p[neg]
        alpha = float(ratios.min()) if ratios.size else np.inf
        if not ray and alpha >= 1.0:  # the face's minimiser: stationary there, the multipliers decide
            lam[F] += p
            g = Q @ lam + c
            mu = g - float(g[F].mean())  # mu_i = g_i + nu, nu = -mean(g_F) (g_F is constant at stationarity)
            mu[F] = np.inf
            j = int(np.argmin(mu))
            if mu[j] >= -1e-13 * scale:
                return lam
            free[j] = True
            freed = j
            continue
        if not np.isfinite(alpha):
            return lam
        k = int(F[neg][int(np.argmin(ratios))])
        if alpha <= 0.0 and k == freed:
            return lam
        lam[F] += alpha * p
        lam[k] = 0.0
        free[k] = False
        lam = np.maximum(lam, 0.0)
        lam /= lam.sum()
    raise ParameterError("interpolant", f"the simplex QP did not converge in {cap} active-set steps (n = {n})")


def _face_step(Qf: np.ndarray, gf: np.ndarray, scale: float) -> tuple[np.ndarray, bool]:
    """The step on a face: ``(p, False)`` minimising the quadratic model with ``sum(p) = 0``, or ``(d, True)`` a
    descent ray in the kernel of the reduced Hessian (the model unbounded below along it)."""
    m = len(gf)
    if m == 1:
        return np.zeros(1), False
    ones = np.ones((m, 1)) / np.sqrt(m)
    Z = np.linalg.svd(np.eye(m) - ones @ ones.T)[0][:, : m - 1]  # orthonormal basis of 1^perp
    H = Z.T @ Qf @ Z
    e, U = np.linalg.eigh((H + H.T) / 2)
    r = U.T @ (Z.T @ gf)
    null = e <= 1e-12 * max(float(e.max(initial=0.0)), scale)
    gscale = max(float(np.abs(gf).max()), 1e-300)
    if null.any() and float(np.abs(r[null]).max()) > 1e-13 * gscale:
        d = -Z @ (U[:, null] @ r[null])
        return d, True
    y = np.zeros_like(r)
    y[~null] = -r[~null] / e[~null]
    return Z @ (U @ y), False


@dataclass(frozen=True, eq=False)
class Interpolant:
    r"""The L-smooth interpolant of points ``X`` (n x d), gradients ``G`` (n x d) and values ``f`` (n): see the
    module docstring. :meth:`value`, :meth:`grad` (both through one QP, cached per point), :meth:`infimum`."""

    X: np.ndarray
    G: np.ndarray
    f: np.ndarray
    L: float
    W: np.ndarray = field(init=False, repr=False)
    a: np.ndarray = field(init=False, repr=False)
    _cache: OrderedDict[bytes, tuple[float, np.ndarray]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        X = np.atleast_2d(np.asarray(self.X, dtype=np.float64))
        G = np.atleast_2d(np.asarray(self.G, dtype=np.float64))
        f = np.asarray(self.f, dtype=np.float64).reshape(-1)
        L = float(self.L)
        if X.shape != G.shape or X.shape[0] != f.shape[0] or X.shape[0] < 1:
            raise ParameterError("interpolant", f"X {X.shape}, G {G.shape} and f {f.shape} must be n x d, n x d, n")
        if not (np.isfinite(X).all() and np.isfinite(G).all() and np.isfinite(f).all()):
            raise ParameterError("interpolant", "the data must be finite")
        if not (L > 0 and np.isfinite(L)):
            raise ParameterError("L", f"must be a finite number > 0 (got {self.L!r})")
        for name, v in (("X", X), ("G", G), ("f", f), ("L", L)):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "W", L * X - G)  # rows w_i = L x_i - g_i
        s = G + L * X
        a = f + 0.5 * L * np.sum(X * X, 1) - np.sum(s * s, 1) / (4 * L)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "_cache", OrderedDict())

    @property
    def n(self) -> int:
        """The number of data points."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """The dimension."""
        return int(self.X.shape[1])

    def weights(self, x: np.ndarray) -> np.ndarray:
        r""":math:`\lambda^\star(x)`, the minimiser over the simplex (not unique where W's columns are dependent;
        :math:`W\lambda^\star` is)."""
        x = np.asarray(x, dtype=np.float64).reshape(self.d)
        L = self.L
        return simplex_qp(self.W @ self.W.T / (2 * L), self.a - self.W @ x)

    def evaluate(self, x: Any) -> tuple[float, np.ndarray]:
        """The value and the gradient at ``x`` (one QP, remembered for the last few hundred points)."""
        x = np.asarray(x, dtype=np.float64).reshape(self.d)
        key = x.tobytes()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit[0], hit[1].copy()
        L = self.L
        lam = self.weights(x)
        u = self.W.T @ lam
        r = 2 * L * x - u
        value = float(self.a @ lam + (r @ r) / (4 * L) - 0.5 * L * (x @ x))
        grad = L * x - u
        self._cache[key] = (value, grad)
        if len(self._cache) > _CACHE:
            self._cache.popitem(last=False)
        return value, grad.copy()

    def value(self, x: Any) -> float:
        """f(x)."""
        return self.evaluate(x)[0]

    def grad(self, x: Any) -> np.ndarray:
        r""":math:`\nabla f(x) = Lx - W\lambda^\star(x)`."""
        return self.evaluate(x)[1]

    def infimum(self) -> float:
        r""":math:`\inf f = \min_i f_i - \|g_i\|^2/(2L)` (module docstring), attained at :meth:`minimiser`."""
        return float(np.min(self.f - np.sum(self.G * self.G, 1) / (2 * self.L)))

    def minimiser(self) -> np.ndarray:
        r"""A point where the infimum is attained: :math:`x_i - g_i/L` for the minimising i."""
        i = int(np.argmin(self.f - np.sum(self.G * self.G, 1) / (2 * self.L)))
        return self.X[i] - self.G[i] / self.L

    def violation(self) -> float:
        """The largest violation of the pairwise interpolation conditions (Thm. 3.10, mu = -L) by the data:
        <= 0 up to rounding when they are interpolable, and then f(x_i) = f_i, grad f(x_i) = g_i."""
        L = self.L
        X, G, f = self.X, self.G, self.f
        dx = X[:, None, :] - X[None, :, :]  # [i, j] = x_i - x_j
        dg = G[:, None, :] - G[None, :, :]
        lhs = (f[:, None] - f[None, :] - np.einsum("jk,ijk->ij", G, dx) - np.sum(dg * dg, 2) / (4 * L)
               + L / 4 * np.sum(dx * dx, 2) - 0.5 * np.sum(dg * dx, 2))  # fmt: skip
        np.fill_diagonal(lhs, 0.0)
        return float(max(0.0, -lhs.min()))

    def scaled(self, alpha: float) -> Interpolant:
        r"""The interpolant of :math:`\alpha^2 f(\cdot/\alpha)`: points and gradients times :math:`\alpha`, values
        times :math:`\alpha^2` -- the same L, :math:`f(x^0) - f^*` times :math:`\alpha^2`, and every method with
        fixed steps sees the same iterates times :math:`\alpha` (its squared gradients times :math:`\alpha^2`)."""
        return Interpolant(self.X * alpha, self.G * alpha, self.f * alpha**2, self.L)

    def to_dict(self) -> dict[str, Any]:
        """``{"X": n x d, "G": n x d, "f": n}`` as lists (float64), what :meth:`from_dict` reads with L."""
        return {"X": self.X.tolist(), "G": self.G.tolist(), "f": self.f.tolist()}

    @classmethod
    def from_dict(cls, raw: Any, L: float) -> Interpolant:
        """The interpolant of a ``{"X", "G", "f"}`` object (:meth:`to_dict`) with smoothness ``L``."""
        if not isinstance(raw, dict) or any(k not in raw for k in ("X", "G", "f")):
            raise ParameterError("problem.file", "each client must be an object with X, G and f")
        try:
            return cls(np.asarray(raw["X"], float), np.asarray(raw["G"], float), np.asarray(raw["f"], float), L)
        except (TypeError, ValueError):
            raise ParameterError("problem.file", "X, G and f must be (nested) lists of numbers") from None


def _value(e: Expr, sol: GramSolution) -> float:
    """An :class:`~verify.pep.gram.Expr` evaluated at the solution (its Gram part, scalars and constant)."""
    out = float(e.const)
    for (i, j), v in e.quad.items():
        out += v * float(sol.gram[i, j])
    for k, v in e.lin.items():
        out += v * float(sol.scalars[k])
    return out


def _coordinates(sol: GramSolution) -> np.ndarray:
    """The basis vectors' coordinates (r x n), with at least one row (a zero Gram matrix gives a zero row)."""
    V = sol.points()
    return V if V.shape[0] > 0 else np.zeros((1, sol.size))


def interpolant(fn: SmoothFunction, sol: GramSolution, V: np.ndarray | None = None) -> Interpolant:
    """One client's interpolant: the points it was queried at, its gradients and values at the solution, in the
    coordinates ``V`` (default :meth:`GramSolution.points`)."""
    V = _coordinates(sol) if V is None else V
    X = np.array([V @ x.coords(sol.size) for x, _, _ in fn.points])
    G = np.array([V @ g.coords(sol.size) for _, g, _ in fn.points])
    f = np.array([_value(v, sol) for _, _, v in fn.points])
    return Interpolant(X, G, f, fn.L)


def instance(wc: ClassWorstCase) -> tuple[list[Interpolant], np.ndarray]:
    """A worst case made concrete: one interpolant per client and the starting point x^0, in one coordinate
    system (:meth:`GramSolution.points`)."""
    V = _coordinates(wc.solution)
    fs = [interpolant(fn, wc.solution, V) for fn in wc.clients]
    return fs, V @ wc.x0.coords(wc.solution.size)


def average_value(fs: Sequence[Interpolant], x: Any) -> tuple[float, np.ndarray]:
    r"""The value and gradient of :math:`\frac1M\sum_m f_m` at ``x``."""
    out = [f.evaluate(x) for f in fs]
    return float(np.mean([v for v, _ in out])), np.mean([g for _, g in out], axis=0)
