r"""A performance-estimation problem written directly as a semidefinite program over a Gram matrix.

Performance estimation (Drori and Teboulle, *Math. Program.* 145, 2014; Taylor, Hendrickx and Glineur, *Math.
Program.* 161, 2017) computes the worst case of a first-order method over a function class as an SDP: every
vector the method touches (the starting point, each gradient it queries) is a column of
:math:`P = [v_1, \dots, v_n]`, and every inner product is an entry of :math:`G = P^\top P \succeq 0`; function
values are scalar unknowns. The method's iterates are fixed linear combinations of the columns, so the
interpolation conditions of the class and the performance measure are linear in :math:`(G, f)`:

.. math:: \max_{G\succeq0,\ f}\ \langle C_0, G\rangle + c_0^\top f
          \quad\text{s.t.}\quad \langle C_i, G\rangle + c_i^\top f + e_i \ge 0\ (\text{or} = 0).

This module holds the algebra (:class:`Vec`, :class:`Expr`) and :class:`GramProblem`, which hands the SDP to the
Clarabel interior-point solver in its own conic form -- no modelling layer in between (issue 26 measured PEPit
through cvxpy spending about 75% of a K = 5, R = 3 FedAvg problem translating and compiling; here the direct build
is 2-8x faster than PEPit on the same problems, the rest being Clarabel's: benchmarks/RESULTS.md). Clarabel is the
optional extra ``pep``; without it :meth:`GramProblem.solve` raises :class:`sfltheory.errors.MissingExtraError`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from sfltheory.errors import MissingExtraError

try:  # the optional extra 'pep'; everything else runs without it
    import clarabel
except ImportError:  # pragma: no cover - exercised where the extra is absent
    clarabel = None

__all__ = ["EXTRA", "Expr", "GramProblem", "GramSolution", "Vec", "inner", "require_solver"]

EXTRA = "pep"


def require_solver(what: str) -> None:
    """Raise :class:`MissingExtraError` now, before any work, when Clarabel is not installed."""
    if clarabel is None:
        raise MissingExtraError(f"{what} needs the SDP solver Clarabel, the optional extra '{EXTRA}': "
                                f"pip install -e .[{EXTRA}] (or pip install clarabel)")  # fmt: skip


class Vec:
    """A vector of the problem: a linear combination of the Gram basis (``{column: coefficient}``)."""

    __slots__ = ("c",)

    def __init__(self, c: Mapping[int, float]) -> None:
        self.c = {k: float(v) for k, v in c.items() if v != 0.0}

    def __add__(self, o: Vec) -> Vec:
        out = dict(self.c)
        for k, v in o.c.items():
            out[k] = out.get(k, 0.0) + v
        return Vec(out)

    def __sub__(self, o: Vec) -> Vec:
        return self + (-1.0) * o

    def __rmul__(self, a: float) -> Vec:
        return Vec({k: a * v for k, v in self.c.items()})

    def __neg__(self) -> Vec:
        return (-1.0) * self

    def key(self) -> tuple[tuple[int, float], ...]:
        """A hashable identity: two iterates with the same coefficients (to 1e-13) are the same point."""
        return tuple(sorted((k, round(v, 13)) for k, v in self.c.items() if abs(v) > 1e-15))

    def coords(self, n: int) -> np.ndarray:
        """The coefficients as a dense vector of length ``n``."""
        out = np.zeros(n)
        for k, v in self.c.items():
            out[k] = v
        return out


class Expr:
    r"""A scalar linear in the Gram entries and the scalar unknowns: :math:`\sum c_{ij}G_{ij} + \sum a_k f_k + e`,
    the Gram part keyed by ``(i, j)`` with ``i <= j`` (the coefficient of the one entry :math:`G_{ij} = G_{ji}`)."""

    __slots__ = ("const", "lin", "quad")

    def __init__(self, quad: Mapping[tuple[int, int], float] | None = None,
                 lin: Mapping[int, float] | None = None, const: float = 0.0) -> None:  # fmt: skip
        self.quad = dict(quad or {})
        self.lin = dict(lin or {})
        self.const = float(const)

    def _merge(self, o: Expr | float, s: float) -> Expr:
        if not isinstance(o, Expr):
            return Expr(self.quad, self.lin, self.const + s * float(o))
        q, lin = dict(self.quad), dict(self.lin)
        for ij, v in o.quad.items():
            q[ij] = q.get(ij, 0.0) + s * v
        for k, v in o.lin.items():
            lin[k] = lin.get(k, 0.0) + s * v
        return Expr(q, lin, self.const + s * o.const)

    def __add__(self, o: Expr | float) -> Expr:
        return self._merge(o, 1.0)

    __radd__ = __add__

    def __sub__(self, o: Expr | float) -> Expr:
        return self._merge(o, -1.0)

    def __rsub__(self, o: float) -> Expr:
        return (-1.0) * self + o

    def __mul__(self, a: float) -> Expr:
        a = float(a)
        return Expr({k: a * v for k, v in self.quad.items()}, {k: a * v for k, v in self.lin.items()}, a * self.const)

    __rmul__ = __mul__

    def __neg__(self) -> Expr:
        return (-1.0) * self


def inner(a: Vec, b: Vec) -> Expr:
    r""":math:`\langle a, b\rangle = \sum_{i,j} a_i b_j G_{ij}` as an :class:`Expr`."""
    q: dict[tuple[int, int], float] = {}
    for i, x in a.c.items():
        for j, y in b.c.items():
            ij = (i, j) if i <= j else (j, i)
            q[ij] = q.get(ij, 0.0) + x * y
    return Expr(q)


@dataclass(frozen=True, kw_only=True)
class GramSolution:
    """What the solver returned: the optimal value, the Gram matrix and the scalars at the optimum, the status,
    and the problem's size and the seconds spent building and solving it."""

    value: float
    gram: np.ndarray
    scalars: np.ndarray
    status: str
    size: int
    constraints: int
    seconds: float

    def points(self, tol: float = 1e-9) -> np.ndarray:
        r"""Columns :math:`v_1, \dots, v_n` in :math:`\mathbb R^r` with :math:`V^\top V \approx G` (rows: the
        coordinates), ``r`` the number of eigenvalues above ``tol`` times the largest: a concrete instance."""
        w, U = np.linalg.eigh((self.gram + self.gram.T) / 2)
        keep = w > tol * max(float(w.max()), 1e-300)
        return (U[:, keep] * np.sqrt(w[keep])).T


class GramProblem:
    """Vectors, scalars, constraints and a performance measure; :meth:`solve` maximises it."""

    def __init__(self) -> None:
        self.n = 0
        self.p = 0
        self.ge: list[Expr] = []
        self.eq: list[Expr] = []

    def vector(self) -> Vec:
        """A new column of the Gram basis (a starting point or a gradient the method queries)."""
        self.n += 1
        return Vec({self.n - 1: 1.0})

    def scalar(self) -> Expr:
        """A new scalar unknown (a function value, or the infimum f*)."""
        self.p += 1
        return Expr(lin={self.p - 1: 1.0})

    def require(self, e: Expr) -> None:
        """Add the constraint ``e >= 0``."""
        self.ge.append(e)

    def require_all(self, es: Iterable[Expr]) -> None:
        """Add ``e >= 0`` for each."""
        self.ge.extend(es)

    def fix(self, e: Expr) -> None:
        """Add the constraint ``e == 0``."""
        self.eq.append(e)

    def _row(self, e: Expr, width: int) -> tuple[list[int], list[float]]:
        cols: list[int] = []
        vals: list[float] = []
        r2 = math.sqrt(2.0)
        for (i, j), v in e.quad.items():
            cols.append(j * (j + 1) // 2 + i)  # Clarabel's PSD triangle: upper triangle, column by column
            vals.append(v if i == j else v / r2)  # ... off-diagonal entries scaled by sqrt(2)
        m = self.n * (self.n + 1) // 2
        for k, v in e.lin.items():
            cols.append(m + k)
            vals.append(v)
        assert all(c < width for c in cols)
        return cols, vals

    def solve(self, objective: Expr | list[Expr], *, tol: float = 1e-10) -> GramSolution:
        r"""Maximise ``objective`` (or, given a list, the minimum of its entries, through an epigraph variable)
        subject to the constraints and :math:`G \succeq 0`."""
        require_solver("the tightest bound (verify --tightest)")
        t0 = time.perf_counter()
        many = isinstance(objective, list)
        m = self.n * (self.n + 1) // 2
        width = m + self.p + (1 if many else 0)
        rows_i: list[int] = []
        cols_j: list[int] = []
        vals: list[float] = []
        b: list[float] = []

        def add(e: Expr, sign: float = -1.0) -> None:  # row  -a.z + s = const, s in the cone
            cols, vs = self._row(e, width)
            r = len(b)
            rows_i.extend([r] * len(cols))
            cols_j.extend(cols)
            vals.extend(sign * v for v in vs)
            b.append(e.const)

        for e in self.eq:
            add(e)
        ge = list(self.ge)
        if many:  # t <= e_k for each k: e_k - t >= 0
            tvar = Expr(lin={self.p: 1.0})
            ge += [e - tvar for e in objective]  # type: ignore[union-attr]
        for e in ge:
            add(e)
        for k in range(m):  # s = svec(G) in the PSD cone
            rows_i.append(len(b))
            cols_j.append(k)
            vals.append(-1.0)
            b.append(0.0)
        A = sp.csc_matrix((vals, (rows_i, cols_j)), shape=(len(b), width))
        q = np.zeros(width)
        if many:
            q[m + self.p] = -1.0
        else:
            cols, vs = self._row(objective, width)  # type: ignore[arg-type]
            np.add.at(q, cols, -np.asarray(vs))
        sizes = (len(self.eq), len(ge), 1)
        cones = [clarabel.ZeroConeT(sizes[0]), clarabel.NonnegativeConeT(sizes[1]), clarabel.PSDTriangleConeT(self.n)]
        cones = [c for c, k in zip(cones, sizes, strict=True) if k]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        settings.tol_gap_abs = settings.tol_gap_rel = tol
        settings.tol_feas = tol
        settings.max_iter = 400
        sol = clarabel.DefaultSolver(sp.csc_matrix((width, width)), q, A, np.asarray(b), cones, settings).solve()
        x = np.asarray(sol.x)
        G = np.zeros((self.n, self.n))
        r2 = math.sqrt(2.0)
        for j in range(self.n):
            for i in range(j + 1):
                v = x[j * (j + 1) // 2 + i]
                G[i, j] = G[j, i] = v if i == j else v / r2
        const = 0.0 if many else float(objective.const)  # type: ignore[union-attr]
        return GramSolution(value=float(-sol.obj_val) + const, gram=G, scalars=x[m: m + self.p], status=str(sol.status),
                            size=self.n, constraints=len(b), seconds=time.perf_counter() - t0)  # fmt: skip
