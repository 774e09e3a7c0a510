r"""The worst case of one algorithm over one function class: a :class:`WorstCaseSpec` in, a :class:`ClassWorstCase` out.

The class is the one a seed theorem assumes, in its deterministic part (full local gradients, :math:`\sigma^2 =
0`): M clients, each :math:`f_m` L-smooth (:class:`verify.pep.classes.SmoothFunction`), :math:`f(x^0) - f^* \le F`
with :math:`f = \frac1M\sum_m f_m`, and the theorem's heterogeneity assumption (``dissimilarity``: B², G²;
``deviation``: ε²; ``none``). The performance measure is the left-hand side the theorem bounds:

* ``avg``: :math:`\frac1R\sum_{t<R}\|\nabla f(x^t)\|^2`; ``eta_avg``: the step times it (cut_layer Prop. 1);
* ``min``: :math:`\min_{t<R}\|\nabla f(x^t)\|^2`; ``min_server``: the same for the server-side functions (sfl_aux);
* ``at_average``: :math:`\|\nabla f(\bar x^R)\|^2` at :math:`\bar x^R = \frac1R\sum_{t<R}x^t`, as sl_noniid's
  statements print it.

**Exact or a relaxation.** With one client the constraints are necessary and sufficient: the interpolation
conditions of the L-smooth class (Taylor, Hendrickx and Glineur 2017, Thm. 3.10), and the infimum conditions,
which :func:`verify.pep.interpolant.interpolant` meets with equality (its infimum is
:math:`\min_i f_i - \|g_i\|^2/(2L)`); sl_noniid's dissimilarity is empty at M = 1 (B ≥ 1) and so is a deviation
bound. The worst case is then **exact**, attained by a concrete function. With several clients the heterogeneity
assumption, stated for every x, is imposed only where all clients are queried (the global iterates), and the
infimum only through the average at those points: a **relaxation** -- still a valid worst case for any proof that
uses the assumptions at the iterates, so paper bound / this value is a lower bound on the paper's slack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sfltheory.errors import ParameterError

from .classes import SmoothFunction, average_at, bounded_deviation, bounded_dissimilarity, infimum
from .gram import Expr, GramProblem, GramSolution, Vec, inner
from .methods import METHODS, run_paths

__all__ = ["HETEROGENEITY", "LHS", "Built", "ClassWorstCase", "WorstCaseSpec", "build", "worst_case"]

LHS = ("avg", "eta_avg", "min", "min_server", "at_average")
HETEROGENEITY = ("none", "dissimilarity", "deviation")


@dataclass(frozen=True, kw_only=True)
class WorstCaseSpec:
    """One performance-estimation problem: the algorithm and its parameters, the rounds R, the clients M, the
    class's constants, the left-hand side, where heterogeneity is imposed (``iterates`` or ``everywhere``: at every
    point any client queries, every client queried too -- tighter, larger), and ``n``: sfl_aux's clients drawn with
    replacement per server round (0: every client in order), the worst case then of the expectation over draws."""

    algorithm: str
    R: int
    M: int
    params: Mapping[str, float]
    L: float
    F: float
    lhs: str = "avg"
    heterogeneity: str = "none"
    B2: float = 1.0
    G2: float = 0.0
    eps2: float = 0.0
    at: str = "iterates"
    n: int = 0

    def __post_init__(self) -> None:
        if self.algorithm not in METHODS:
            raise ParameterError("algorithm", f"must be one of {', '.join(METHODS)} (got {self.algorithm!r})")
        if self.lhs not in LHS:
            raise ParameterError("lhs", f"must be one of {', '.join(LHS)} (got {self.lhs!r})")
        if self.heterogeneity not in HETEROGENEITY:
            raise ParameterError("heterogeneity", f"must be one of {', '.join(HETEROGENEITY)}")
        if self.at not in ("iterates", "everywhere"):
            raise ParameterError("at", "must be 'iterates' or 'everywhere'")
        for name in ("R", "M"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(name, f"must be an integer >= 1 (got {v!r})")
        for name in ("L", "F"):
            v = getattr(self, name)
            if not v > 0 or v == float("inf"):
                raise ParameterError(name, f"must be a finite number > 0 (got {v!r})")
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 0:
            raise ParameterError("n", f"must be an integer >= 0 (got {self.n!r})")
        if self.n and (self.algorithm != "sfl_aux" or self.lhs == "at_average"):
            raise ParameterError("n", "draws clients at random in sfl_aux's server rounds only (0: every client)")
        for name in ("B2", "G2", "eps2"):
            v = getattr(self, name)
            if not 0 <= v < float("inf"):
                raise ParameterError(name, f"must be a finite number >= 0 (got {v!r})")

    @property
    def exact(self) -> bool:
        """Whether the constraints are necessary and sufficient (one client: see the module docstring)."""
        vacuous = self.heterogeneity == "none" or self.heterogeneity == "deviation" or self.B2 >= 1.0
        return self.M == 1 and vacuous

    def kind(self) -> tuple[str, str]:
        """``("exact" | "relaxation", why)`` in words."""
        if self.exact:
            return "exact", ("one client: the L-smooth interpolation and infimum conditions are necessary and "
                             "sufficient, the heterogeneity assumption is empty; a function attains it")  # fmt: skip
        what = {"dissimilarity": "bounded dissimilarity (B^2, G^2)", "deviation": "bounded deviation (eps^2)",
                "none": "the infimum of the average"}[self.heterogeneity]  # fmt: skip
        where = "the global iterates" if self.at == "iterates" else "every queried point"
        return "relaxation", f"{self.M} clients: {what} imposed at {where} only, f* through the average there"


@dataclass(frozen=True, kw_only=True)
class ClassWorstCase:
    """The worst case of a :class:`WorstCaseSpec`: the value, its kind and why, the SDP's size and time; and the
    solver's solution (``solution``, for a concrete instance) with the symbolic points it refers to."""

    value: float
    kind: str
    why: str
    status: str
    size: int
    constraints: int
    seconds: float
    solution: GramSolution = field(repr=False, compare=False)
    clients: tuple[SmoothFunction, ...] = field(repr=False, compare=False)
    x0: Vec = field(repr=False, compare=False)


def _grad_sq(fs: list[SmoothFunction], x: Vec) -> Expr:
    g, _ = average_at(fs, x)
    return inner(g, g)


Built = tuple[GramProblem, Expr | list[Expr], list[SmoothFunction], Vec]  # the SDP, its measure, the clients, x^0


def build(spec: WorstCaseSpec) -> Built:
    """The SDP of ``spec``: the problem with its constraints, the performance measure, the clients, x^0."""
    pep = GramProblem()
    fs = [SmoothFunction(pep, spec.L) for _ in range(spec.M)]
    # x^0 = 0: the class and the methods are translation invariant (every condition involves differences of
    # points), and a column for x^0 that no constraint touches left Clarabel short of optimality on sl (2.8e-6 from
    # PEPit's value; 2.6e-7 without it, tests/verify/pep/test_against_pepit.py)
    x0 = Vec({})
    layers = run_paths(spec.algorithm, fs, x0, spec.R, dict(spec.params), spec.n)
    common = [x for layer in layers for _, x in layer]

    def expected(layer: list[tuple[float, Vec]]) -> Expr:  # E||grad f(x^t)||^2 over the paths
        out = Expr()
        for p, x in layer:
            out = out + p * _grad_sq(fs, x)
        return out

    objective: Expr | list[Expr]
    if spec.lhs == "at_average":  # one path (n = 0: checked in WorstCaseSpec)
        xbar = Vec({})
        for layer in layers[: spec.R]:
            xbar = xbar + (1.0 / spec.R) * layer[0][1]
        objective = _grad_sq(fs, xbar)
        common.append(xbar)
    elif spec.lhs in ("min", "min_server"):
        objective = [expected(layer) for layer in layers[: spec.R]]
    else:
        total = Expr()
        for layer in layers[: spec.R]:
            total = total + (1.0 / spec.R) * expected(layer)
        objective = total * float(spec.params["eta"]) if spec.lhs == "eta_avg" else total
    if spec.at == "everywhere":  # every client at every point any client queried
        for x in {p[0].key(): p[0] for f in fs for p in list(f.points)}.values():
            common.append(x)
    for x in common:
        average_at(fs, x)  # every client queried there
        if spec.heterogeneity == "dissimilarity":
            bounded_dissimilarity(pep, fs, x, spec.B2, spec.G2)
        elif spec.heterogeneity == "deviation":
            bounded_deviation(pep, fs, x, spec.eps2)
    infimum(pep, fs, common, x0, spec.F)
    for f in fs:
        pep.require_all(f.interpolation())
    return pep, objective, fs, x0


def worst_case(spec: WorstCaseSpec, built: Built | None = None) -> ClassWorstCase:
    """Solve :func:`build`'s SDP (``built``: its output, where the caller built it to check its size, ``pep.n`` Gram
    columns, first); a solver that does not reach optimality is an error, never a value."""
    pep, objective, fs, x0 = build(spec) if built is None else built
    sol = pep.solve(objective)
    if sol.status not in ("Solved", "AlmostSolved"):
        raise ParameterError("tightest", f"the SDP solver stopped with status {sol.status} (R = {spec.R}, "
                             f"M = {spec.M}): no worst case to report")  # fmt: skip
    kind, why = spec.kind()
    return ClassWorstCase(value=sol.value, kind=kind, why=why, status=sol.status, size=sol.size,
                          constraints=sol.constraints, seconds=sol.seconds, solution=sol, clients=tuple(fs),
                          x0=x0)  # fmt: skip
