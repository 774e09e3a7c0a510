"""The canonical vocabulary: one name per quantity, shared by every paper.

Measured constants (``verify``) and user input use these names, so the same ``L`` or ``sigma2`` plugs
into every theorem. This module declares the canonical names and what every name is (:class:`Param`, its
SymPy :func:`symbol`, its physical dimension); it imports nothing of the catalogue, so the papers build on it.
The names in use -- these, the names each paper adds (its package's ``PARAMS``) and a user's -- are looked up
in :mod:`sfltheory.lexicon`, with each paper's notation (``PAPER_NOTATION``) and ASCII aliases
(``ASCII_ALIASES``).

Domains
-------
``positive``      real, > 0            ``nonneg``   real, >= 0
``count``         integer, >= 1        ``count0``   integer, >= 0
``fraction``      real, in (0, 1]      ``real``     any finite real

Scaling conventions (as the seeds use them, and as ``verify`` measures them): losses are *means* over
samples, so ``L`` is the smoothness of the mean loss and ``sigma2`` the variance of a *single-sample*
gradient unless a theorem says it is per mini-batch (then its hypotheses name ``batch``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy as sp

Domain = Literal["positive", "nonneg", "count", "count0", "fraction", "real"]
Group = Literal["constant", "count", "step", "dimension", "zo", "time", "derived"]


@dataclass(frozen=True)
class Param:
    """A canonical parameter."""

    name: str
    latex: str
    meaning: str
    domain: Domain
    group: Group = "constant"
    # physical dimension, a monomial in loss, param, time ("1": a number; "": not declared, and the audit's units
    # check skips what uses the name), read by parse_dimension
    dimension: str = ""

    @property
    def symbol(self) -> sp.Symbol:
        """The parameter's SymPy symbol (:func:`symbol`)."""
        return symbol(self.name)

    @property
    def integer(self) -> bool:
        """Whether the parameter is a count (domain ``count`` or ``count0``)."""
        return self.domain in ("count", "count0")


_P = Param

DIMENSION_BASE: dict[str, sp.Symbol] = {n: sp.Symbol(n, positive=True) for n in ("loss", "param", "time")}


def parse_dimension(text: str) -> sp.Expr:
    """``"loss**2/param**2"`` -> the monomial; ValueError unless it is a product of powers of loss, param and time
    (``"1"`` for a pure number)."""
    try:
        d = sp.sympify(text, locals=DIMENSION_BASE)
    except (sp.SympifyError, SyntaxError, TypeError) as e:
        raise ValueError(f"'{text}' is no dimension: {e}") from None
    if not isinstance(d, sp.Expr) or not d.free_symbols <= set(DIMENSION_BASE.values()) or not d.is_positive:
        raise ValueError(f"'{text}' is no dimension: a product of powers of loss, param and time, or 1")
    base, _ = d.as_coeff_Mul()
    if base != 1:
        raise ValueError(f"'{text}' is no dimension: no numeric factor (got {base})")
    return d


_PARAMS: dict[str, Param] = {}


def _register(*params: Param) -> None:
    for p in params:
        if p.name in _PARAMS and _PARAMS[p.name] != p:
            raise ValueError(f"vocabulary: '{p.name}' registered twice with different meanings")
        _PARAMS[p.name] = p


_register(
    # problem constants
    _P("L", "L", "smoothness constant (Lipschitz constant of the gradient)", "positive", dimension="loss/param**2"),
    _P("F", r"\mathcal{F}", "initial optimality gap f(x^0) - f^*", "nonneg", dimension="loss"),
    _P("sigma2", r"\sigma^2", "stochastic-gradient variance bound", "nonneg", dimension="loss**2/param**2"),
    _P("sigma_c2", r"\sigma_c^2", "variance bound of the client-side gradient", "nonneg", dimension="loss**2/param**2"),
    _P("sigma_s2", r"\sigma_s^2", "variance bound of the server-side gradient", "nonneg", dimension="loss**2/param**2"),
    _P(
        "eps2",
        r"\epsilon^2",
        "heterogeneity bound ||grad f_m - grad f||^2 <= eps^2",
        "nonneg",
        dimension="loss**2/param**2",
    ),
    _P("B2", "B^2", "bounded dissimilarity, multiplicative part", "nonneg", dimension="1"),
    _P(
        "G2",
        "G^2",
        "bounded dissimilarity, additive part (or gradient-norm bound)",
        "nonneg",
        dimension="loss**2/param**2",
    ),
    _P("G_c2", "G_c^2", "bound on the client-side gradient norm", "nonneg", dimension="loss**2/param**2"),
    _P("G_s2", "G_s^2", "bound on the server-side gradient norm", "nonneg", dimension="loss**2/param**2"),
    _P("kappa", r"\kappa", "effective-rank bound tr(H)/||H||_2", "positive", dimension="1"),
    _P("delta", r"\delta", "client-output (smashed data) drift bound", "nonneg", dimension="1"),
    # counts
    _P("T", "T", "number of communication rounds", "count", "count", dimension="1"),
    _P("M", "M", "number of clients", "count", "count", dimension="1"),
    _P("n", "n", "clients sampled per round", "count", "count", dimension="1"),
    _P("tau", r"\tau", "server steps per round", "count", "count", dimension="1"),
    _P("K", "K", "local steps per client per round", "count", "count", dimension="1"),
    _P("l", "l", "server update period", "count", "count", dimension="1"),
    _P("P", "P", "zeroth-order perturbations per estimate", "count", "count", dimension="1"),
    _P("batch", "b", "mini-batch size", "count", "count", dimension="1"),
    # dimensions
    _P("d", "d", "number of model parameters", "count", "dimension", dimension="1"),
    _P("d_c", "d_c", "number of client-side parameters", "count", "dimension", dimension="1"),
    _P("d_s", "d_s", "number of server-side parameters", "count", "dimension", dimension="1"),
    # zeroth order
    _P("lam", r"\lambda", "zeroth-order smoothing radius", "positive", "zo", dimension="param"),
    # step sizes
    _P("eta", r"\eta", "unified step size", "positive", "step", dimension="param**2/loss"),
    _P("eta_c", r"\eta_c", "client step size", "positive", "step", dimension="param**2/loss"),
    _P("eta_s", r"\eta_s", "server step size", "positive", "step", dimension="param**2/loss"),
    _P("eta_g", r"\eta_g", "global (aggregation) step size", "positive", "step", dimension="1"),
    _P("eta_l", r"\eta_l", "local step size", "positive", "step", dimension="param**2/loss"),
    # quantities several papers share (merged from per-paper names)
    _P(
        "gradnorm2_f",
        r"\|\nabla f(x^t)\|^2",
        "squared global gradient norm at the start of the round",
        "nonneg",
        dimension="loss**2/param**2",
    ),
    _P(
        "gradnorm2_Fk",
        r"\|\nabla f_m(x^t)\|^2",
        "squared local gradient norm of one client at the start of the round",
        "nonneg",
        dimension="loss**2/param**2",
    ),
    _P(
        "gap_round",
        r"f(x^t)-f^*",
        "optimality gap at the start of round t (per-round bounds)",
        "nonneg",
        "derived",
        dimension="loss",
    ),
    _P(
        "gap_next",
        r"\mathbb E f(x^{t+1})-f^*",
        "expected optimality gap after round t (per-round bounds)",
        "nonneg",
        "derived",
        dimension="loss",
    ),
    _P(
        "eps_target",
        r"\epsilon",
        "target accuracy: rounds to reach a bound <= epsilon (rounds-to-accuracy results)",
        "positive",
        dimension="loss**2/param**2",
    ),
    _P("E_epochs", "E", "local epochs per round", "count", "count", dimension="1"),
    _P("D_k", "D_k", "size of one client's local dataset", "count", "count", dimension="1"),
    _P(
        "q_smash",
        "q",
        "size of the smashed (cut-layer) activation of one sample",
        "positive",
        "dimension",
        dimension="1",
    ),
    # wall-clock model (MU-SplitFed eq. 12)
    _P("T0", "T_0", "rounds to converge without unbalanced updates (tau = 1)", "positive", "count", dimension="1"),
    _P(
        "t_straggler",
        r"t_{\mathrm{straggler}}",
        "per-round delay of the slowest client (s)",
        "positive",
        "time",
        dimension="time",
    ),
    _P("t_server", r"t_{\mathrm{server}}", "time of one server-side update (s)", "positive", "time", dimension="time"),
)


_SYMBOLS: dict[str, sp.Symbol] = {}


def symbol(name: str) -> sp.Symbol:
    """The SymPy symbol of a canonical name (positive, so SymPy simplifies square roots sensibly)."""
    s = _SYMBOLS.get(name)
    if s is None:
        s = _SYMBOLS[name] = sp.Symbol(name, positive=True)
    return s


def symbols(names: str) -> tuple[sp.Symbol, ...]:
    """The symbols of several space-separated names: ``symbols("L T eta")``."""
    return tuple(symbol(n) for n in names.split())


def canonical_params() -> tuple[Param, ...]:
    """The canonical names this module declares (the papers' own names and a user's are added by
    :mod:`sfltheory.builtin` and :mod:`sfltheory.lexicon`)."""
    return tuple(_PARAMS.values())
