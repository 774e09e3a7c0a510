r"""The function classes of the seeds' assumptions, as constraints on the points a method queries.

* :class:`SmoothFunction`: an L-smooth, possibly non-convex function (:math:`\|\nabla f(x)-\nabla f(y)\|\le
  L\|x-y\|`). Data :math:`\{(x_i, g_i, f_i)\}` are interpolated by such a function if and only if, for every pair,

  .. math:: f_i \ge f_j + \langle g_j, x_i - x_j\rangle + \tfrac{1}{4L}\|g_i-g_j\|^2 - \tfrac L4\|x_i-x_j\|^2
            + \tfrac12\langle g_i - g_j, x_i - x_j\rangle

  (Taylor, Hendrickx and Glineur, *Smooth strongly convex interpolation and exact worst-case performance of
  first-order methods*, Math. Program. 161, 2017, Theorem 3.10 with :math:`\mu = -L`).
* the infimum: :math:`f(x) - f^* \ge \|\nabla f(x)\|^2/(2L)` at each point (from :math:`f^* \le f(x - \nabla
  f(x)/L)`), and :math:`f(x^0) - f^* \le F`. For one function the two are also sufficient: the interpolant of
  :mod:`verify.pep.interpolant` has infimum exactly :math:`\min_i (f_i - \|g_i\|^2/(2L))`.
* heterogeneity, imposed at the points where every client is queried (the global iterates): bounded dissimilarity
  :math:`\frac1M\sum_m\|\nabla f_m\|^2 \le B^2\|\nabla f\|^2 + G^2` (sl_noniid Assumption 3) and bounded deviation
  :math:`\|\nabla f_m - \nabla f\|^2 \le \epsilon^2` for every m (cut_layer, sfl_aux Assumption 3).
"""

from __future__ import annotations

from collections.abc import Sequence

from .gram import Expr, GramProblem, Vec, inner

__all__ = ["SmoothFunction", "average_at", "bounded_deviation", "bounded_dissimilarity", "infimum"]


class SmoothFunction:
    """One client's L-smooth function, seen through the points it is queried at (:meth:`at`)."""

    def __init__(self, pep: GramProblem, L: float) -> None:
        self.pep = pep
        self.L = float(L)
        self.points: list[tuple[Vec, Vec, Expr]] = []
        self._index: dict[tuple[tuple[int, float], ...], int] = {}

    def at(self, x: Vec) -> tuple[Vec, Expr]:
        """The gradient and the value at ``x``: new unknowns the first time ``x`` is queried, the same after."""
        k = x.key()
        if k not in self._index:
            self._index[k] = len(self.points)
            self.points.append((x, self.pep.vector(), self.pep.scalar()))
        _, g, f = self.points[self._index[k]]
        return g, f

    def grad(self, x: Vec) -> Vec:
        """The gradient at ``x``."""
        return self.at(x)[0]

    def interpolation(self) -> list[Expr]:
        """The pairwise conditions (each ``>= 0``) of the L-smooth class over every point queried."""
        L = self.L
        out = []
        for i, (xi, gi, fi) in enumerate(self.points):
            for j, (xj, gj, fj) in enumerate(self.points):
                if i == j:
                    continue
                dx, dg = xi - xj, gi - gj
                out.append(fi - fj - inner(gj, dx) - (1 / (4 * L)) * inner(dg, dg) + (L / 4) * inner(dx, dx)
                           - 0.5 * inner(dg, dx))  # fmt: skip
        return out


def average_at(fs: Sequence[SmoothFunction], x: Vec) -> tuple[Vec, Expr]:
    r"""The gradient and value of :math:`f = \frac1M\sum_m f_m` at ``x``."""
    gs, vs = zip(*(f.at(x) for f in fs), strict=True)
    M = len(fs)
    g = Vec({})
    v = Expr()
    for gm, vm in zip(gs, vs, strict=True):
        g = g + (1.0 / M) * gm
        v = v + (1.0 / M) * vm
    return g, v


def infimum(pep: GramProblem, fs: Sequence[SmoothFunction], points: Sequence[Vec], x0: Vec, F: float) -> Expr:
    r"""A scalar :math:`f^*` with :math:`f(x) - f^* \ge \|\nabla f(x)\|^2/(2L)` at each of ``points`` and
    :math:`f(x^0) - f^* \le F`; the constraints are added to ``pep``, :math:`f^*` returned."""
    fstar = pep.scalar()
    L = fs[0].L
    for x in points:
        g, v = average_at(fs, x)
        pep.require(v - fstar - (1 / (2 * L)) * inner(g, g))
    _, v0 = average_at(fs, x0)
    pep.require(F - (v0 - fstar))
    return fstar


def bounded_dissimilarity(pep: GramProblem, fs: Sequence[SmoothFunction], x: Vec, B2: float, G2: float) -> None:
    r""":math:`\frac1M\sum_m\|\nabla f_m(x)\|^2 \le B^2\|\nabla f(x)\|^2 + G^2` at ``x``."""
    g, _ = average_at(fs, x)
    spread = Expr()
    for f in fs:
        gm = f.grad(x)
        spread = spread + (1.0 / len(fs)) * inner(gm, gm)
    pep.require(B2 * inner(g, g) + G2 - spread)


def bounded_deviation(pep: GramProblem, fs: Sequence[SmoothFunction], x: Vec, eps2: float) -> None:
    r""":math:`\|\nabla f_m(x) - \nabla f(x)\|^2 \le \epsilon^2` at ``x``, for every client m."""
    g, _ = average_at(fs, x)
    for f in fs:
        d = f.grad(x) - g
        pep.require(eps2 - inner(d, d))
