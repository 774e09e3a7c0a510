"""sfltheory: the convergence theory of split federated learning, as numbers you can check.

Look a result up by id, evaluate its bound, check its hypotheses branch by branch, and find the largest
step size its conditions allow::

    import sfltheory as st
    r = st.get("mu_splitfed/thm4.1")
    ev = st.evaluate(r, L=1, F=1, T=1000, tau=4, d=10_000, d_c=50, eta=1e-6, sigma_c2=1, sigma_s2=1, lam=1e-6)
    ev.value, ev.terms, ev.verdict()
    st.max_step(r, L=1, tau=4, d=10_000, d_c=50).max_step

This package never imports torch; the empirical side lives in ``verify``.
"""

from .errors import ParameterError, SflTheoryError, UnknownResultError
from .evaluate import Evaluation, bound_function, bound_value, evaluate, resolve
from .registry import catalogue, editions, get, results
from .result import Discrepancy, Hypothesis, Provenance, Result, Term
from .stepsize import StepCheck, max_step

__version__ = "0.1.0"

__all__ = [
    "Discrepancy",
    "Evaluation",
    "Hypothesis",
    "ParameterError",
    "Provenance",
    "Result",
    "SflTheoryError",
    "StepCheck",
    "Term",
    "UnknownResultError",
    "bound_function",
    "bound_value",
    "catalogue",
    "editions",
    "evaluate",
    "get",
    "max_step",
    "resolve",
    "results",
]
