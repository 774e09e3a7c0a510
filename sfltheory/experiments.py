"""One experiment per result (PEPit style): the algorithm a result analyses, on an exact quadratic, with the
left-hand side the result bounds -- or the stated reason why a result has no experiment yet.

An :class:`Experiment` says which algorithm runs, which of its parameters the theorem's step size sets (e.g.
MU-SplitFed's single ``eta`` is both ``eta_c`` and ``eta_s``), the other parameters (shared by the theorem and
the algorithm under their canonical names), which quantity of the run is the theorem's left-hand side, and the
noise law the theorem's assumptions need. :data:`EXPERIMENTS` is the explicit list; :data:`NO_EXPERIMENT`
says, for each other explicit result of an algorithm, why it is not verified (yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .algorithms import ALGORITHMS
from .errors import ParameterError
from .registry import get
from .registry import user_experiment as user_experiment_table

LHS_KINDS = {
    "avg": "(1/T) sum_{t<T} E||grad f(x^t)||^2",
    "min": "min_{t<T} E||grad f(x^t)||^2",
    "eta_avg": "eta (1/T) sum_{t<T} E||grad f(x^t)||^2",
}


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """How to check one result on an exact quadratic.

    ``step_to``: the algorithm parameters the theorem's step (``Result.step``) sets; ``params``: the other
    parameters, canonical names shared by the theorem and the algorithm (``K``, ``tau``, ``P``, ``lam``, ...);
    ``algorithm_only``: algorithm options the theorem does not name (``order``); ``lhs``: which series of the run
    the theorem bounds (:data:`LHS_KINDS`); ``note``: what a reader needs to know (e.g. Jensen for an averaged
    model)."""

    result: str
    algorithm: str
    step_to: tuple[str, ...]
    lhs: str = "avg"
    params: Mapping[str, float] = field(default_factory=dict)
    algorithm_only: Mapping[str, Any] = field(default_factory=dict)
    noise: str = "gaussian"
    M: int = 4
    at_choice: bool = False  # the result fixes the step as a function of T (a corollary's own choice)
    note: str = ""
    # Where it runs: "quadratic" (exact constants; the default) or "model" (a split torch model whose constants
    # are measured along the trajectory -- for results no quadratic satisfies, e.g. bounded gradients).
    problem: str = "quadratic"
    # Constants no run can measure (HERON-SFL's output drift delta), the value the default run uses and why.
    given: Mapping[str, float] = field(default_factory=dict)
    given_note: str = ""
    # Parameters set from the measured constants at x^0 (SymPy expressions in the result's names), e.g. a
    # server step inside its own hypothesis: {"eta_s": "1/(2*M*L)"}.
    derive: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.lhs not in LHS_KINDS:
            raise ParameterError("lhs", f"must be one of {', '.join(LHS_KINDS)} (got {self.lhs!r})")
        if self.problem not in ("quadratic", "model"):
            raise ParameterError("problem", f"must be 'quadratic' or 'model' (got {self.problem!r})")


_JENSEN = (
    "the statement bounds E||grad f(xbar)||^2 at the averaged model; on a quadratic ||grad f||^2 is convex in x, "
    "so by Jensen it is at most the average over rounds measured here: 'holds' carries over, a violation may not"
)
_HERON = (
    "bounded gradients (G_c2, G_s2) hold on no quadratic, so this runs on a split model (an MLP on digits, "
    "4 clients) with every constant measured along the trajectory (sup over the measured rounds); the "
    "statement bounds the minimum over rounds, which is at most the average its proof bounds"
)
_DELTA = (
    "delta (the client output drift, an L1 distance between output distributions, Assumption 4) cannot be "
    "measured from a run: the default run takes delta = 0, the smallest value, so the bound is the least the "
    "theorem allows -- 'holds' then holds for every delta >= 0; give delta=VALUE to use another"
)

_MU = (
    "Rademacher noise: ||xi_c||^2 = sigma2 d_c/d for every sample, so Assumption 4.2's bound for every sample holds "
    "with equality; one step eta for client and server (eta_c = eta_s = eta)"
)

EXPERIMENTS: dict[str, Experiment] = {
    e.result: e
    for e in (
        Experiment(result="sl_noniid/thm1@proof", algorithm="sl", step_to=("eta_l",), params={"K": 2, "eta_g": 1.0},
                   algorithm_only={"order": "fixed"},
                   note="clients visited in a fixed order (the proof holds for any order), so the moments are exact"),
        Experiment(result="sl_noniid/thm1", algorithm="sl", step_to=("eta_l",), params={"K": 2, "eta_g": 1.0},
                   algorithm_only={"order": "fixed"}, note=_JENSEN),
        Experiment(result="sl_noniid/thm2", algorithm="fedavg", step_to=("eta_l",), params={"K": 2, "eta_g": 1.0},
                   note=_JENSEN),
        Experiment(result="sl_noniid/cor1@explicit", algorithm="sl", step_to=("eta_l",), params={"K": 2, "eta_g": 1.0},
                   algorithm_only={"order": "fixed"}, at_choice=True,
                   note="the corollary's step eta_g eta_l = 1/(L sqrt(NKR)) at every R of the grid"),
        Experiment(result="sl_noniid/cor2@explicit", algorithm="sl", step_to=("eta_l",), params={"K": 2, "eta_g": 1.0},
                   algorithm_only={"order": "fixed"}, at_choice=True,
                   note="the corollary's step N K eta_g eta_l = 1/sqrt(R) at every R of the grid"),
        Experiment(result="sl_noniid/sec4.2.eta_g1@explicit", algorithm="sl", step_to=("eta_l",),
                   params={"K": 2, "eta_g": 1.0}, algorithm_only={"order": "fixed"}, at_choice=True,
                   note="Sec. 4.2 at eta_g = 1: the step eta_l = 1/(L sqrt(NKR)) at every R of the grid"),
        Experiment(result="sl_noniid/sec4.2.eta_gN@explicit", algorithm="sl", step_to=("eta_l",),
                   params={"K": 2, "eta_g": 4.0}, algorithm_only={"order": "fixed"}, at_choice=True,
                   note="Sec. 4.2 at eta_g = N = 4: eta_l = 1/(4 L sqrt(NKR)) at every R of the grid"),
        Experiment(result="sl_noniid/sec4.3.speedup@explicit", algorithm="fedavg", step_to=("eta_l",),
                   params={"K": 2, "eta_g": 1.0}, at_choice=True,
                   note="the printed step eta_l = sqrt(N)/(L sqrt(KR)) at every R of the grid"),
        Experiment(result="mu_splitfed/cor4.2@proof", algorithm="mu_split", step_to=("eta_c", "eta_s"), M=1,
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", at_choice=True,
                   note=_MU + "; the corollary's step at every T of the grid, radius lambda = 1e-3 in run and bound"),
        Experiment(result="mu_splitfed/cor4.4@proof", algorithm="mu_splitfed", step_to=("eta_c", "eta_s", "eta_g"),
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", at_choice=True,
                   note=_MU + "; the corollary's step and eta_g = sqrt(tau M) at every T of the grid, radius "
                   "lambda = 1e-3 in run and bound"),
        Experiment(result="cut_layer/prop1", algorithm="sfl_v1_analysed", step_to=("eta",), lhs="eta_avg",
                   params={"K": 2}, note="equal aggregation weights: sum_alpha2 = 1/M"),
        Experiment(result="heron_sfl/thm1@sum", algorithm="heron_sfl", step_to=("eta_c",), lhs="min",
                   params={"K": 1, "lam": 1e-3}, algorithm_only={"direction": "unit_sphere", "server": "sum"},
                   problem="model", given={"delta": 0.0}, given_note=_DELTA, derive={"eta_s": "1/(2*M*L)"},
                   note=_HERON + "; eta_s = 1/(2 M L) at the constants of x^0, inside (45)(a)"),
        Experiment(result="heron_sfl/thm2@sum", algorithm="heron_sfl", step_to=("eta_c",), lhs="min",
                   params={"K": 1, "lam": 1e-3}, algorithm_only={"direction": "sqrt_d_sphere", "server": "sum"},
                   problem="model", given={"delta": 0.0}, given_note=_DELTA, derive={"eta_s": "1/(2*M*L)"},
                   note=_HERON + "; directions on the sqrt(d)-sphere (Lemma 5, the law of Theorem 2); "
                   "eta_s = 1/(2 M L) at x^0"),
        Experiment(result="heron_sfl/thm2@proof", algorithm="heron_sfl", step_to=("eta_c", "eta_s"), lhs="min",
                   params={"K": 1, "lam": 1e-3}, algorithm_only={"direction": "sqrt_d_sphere", "server": "sum"},
                   problem="model", given={"delta": 0.0}, given_note=_DELTA,
                   note=_HERON + "; one step eta with the proof's coupling (62): eta_c = 4 eta, eta_s = 4 eta/(2N-1)"),
        Experiment(result="mu_splitfed/thm4.1", algorithm="mu_split", step_to=("eta_c", "eta_s"), M=1,
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", note=_MU),
        Experiment(result="mu_splitfed/thm4.1@proof", algorithm="mu_split", step_to=("eta_c", "eta_s"), M=1,
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", note=_MU),
        Experiment(result="mu_splitfed/thm4.3", algorithm="mu_splitfed", step_to=("eta_c", "eta_s"),
                   params={"tau": 2, "P": 1, "lam": 1e-3, "eta_g": 1.0}, noise="rademacher", note=_MU),
        Experiment(result="mu_splitfed/thm4.3@appendix", algorithm="mu_splitfed", step_to=("eta_c", "eta_s"),
                   params={"tau": 2, "P": 1, "lam": 1e-3, "eta_g": 1.0}, noise="rademacher", note=_MU),
        Experiment(result="mu_splitfed/thm4.3@proof", algorithm="mu_splitfed", step_to=("eta_c", "eta_s"),
                   params={"tau": 2, "P": 1, "lam": 1e-3, "eta_g": 1.0}, noise="rademacher", note=_MU),
    )
}  # fmt: skip

NO_EXPERIMENT: dict[str, str] = {
    "sl_noniid/thm3": "its left-hand side averages every client's starting model within a round; the trainer "
    "records the global model only (to come)",
    "sl_noniid/lem4": "a per-round drift lemma: to come with the per-round checks",
    "cut_layer/lem1": "a per-round drift lemma: to come with the per-round checks",
    "cut_layer/lem2": "a per-round lemma on stochastic-gradient differences: to come",
    "cut_layer/prop1@proof": "a one-round inequality: to come with the per-round checks",
    "sfl_aux/thm1": "bounds the gradient of the client-side auxiliary loss F^c; the trainer records f: to come",
    "sfl_aux/thm2": "bounds the gradient of the client-side auxiliary loss F^c; the trainer records f: to come",
    "sfl_aux/thm3": "bounds the server-side loss F^s at the aggregated server model: to come",
    "sfl_aux/thm4": "bounds the server-side loss F^s at the aggregated server model: to come",
    "mu_splitfed/cor4.2": "its split d_c = sqrt(d/tau) leaves no integer d_c on a small problem; the proof's "
    "edition (cor4.2@proof) is verified at the corollary's step and radius",
    "mu_splitfed/cor4.4": "its split d_c = sqrt(d/tau) leaves no integer d_c on a small problem; the proof's "
    "edition (cor4.4@proof) is verified",
    "sl_noniid/cor3@explicit": "its step is 'there exists eta_l' (Lemma 2 of Karimireddy et al.): no step to run",
    "heron_sfl/thm1@round": "a per-round inequality in gap and drift terms the trainer does not record: to come",
    "heron_sfl/thm2@round": "a per-round inequality in gap and drift terms the trainer does not record: to come",
    "heron_sfl/thm2@floor": "the error floor alone, not a bound on a run's left-hand side",
    "heron_sfl/lemma3": "a per-round drift lemma with bounded gradients: to come with the per-round checks",
    "heron_sfl/lemma4": "a per-round descent lemma: to come with the per-round checks",
    "heron_sfl/lemma5": "a per-round descent lemma: to come with the per-round checks",
    "heron_sfl/eq45": "a per-round server-side inequality: to come with the per-round checks",
    "mu_splitfed/eq24": "a one-round inequality: to come with the per-round checks",
    "mu_splitfed/lemmaB.1": "a property of the two-point ZO estimator at one point, not of a run: to come with "
    "the estimator checks",
    "mu_splitfed/lemmaB.1.bias": "a property of the smoothed gradient at one point, not of a run: to come with the "
    "estimator checks",
    "mu_splitfed/lemmaC.2": "a property of the server's P-perturbation estimator at one point: to come",
    "mu_splitfed/lemmaC.3": "a property of the server's P-perturbation estimator at one point: to come",
    "mu_splitfed/lemmaC.4": "a per-round drift lemma: to come with the per-round checks",
    "mu_splitfed/lemmaD.2": "a property of client m's server-side estimator at one point: to come",
    "mu_splitfed/lemmaD.3": "a per-round drift lemma: to come with the per-round checks",
    "heron_sfl/lemma2": "a per-step lemma in the local model's distance from the round's start, which the trainer "
    "does not record: to come",
    "sl_noniid/eq43": "a one-round inequality: to come with the per-round checks",
    "sl_noniid/eq69": "a per-client one-round inequality: to come with the per-round checks",
    "sl_noniid/eq67": "a per-round drift lemma: to come with the per-round checks",
    "cut_layer/prop1@round": "a one-round inequality: to come with the per-round checks",
    "sfl_aux/eqA11": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/eqA44": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/eqA57": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/thm2@proof": "bounds the client-side auxiliary loss F^c: to come (as sfl_aux/thm2)",
    "sfl_aux/thm3@appendix": "bounds the server-side loss F^s: to come (as sfl_aux/thm3)",
    "sfl_aux/thm4@appendix": "bounds the server-side loss F^s: to come (as sfl_aux/thm4)",
}


def user_experiment(result: str, d: Mapping[str, Any]) -> Experiment:
    """The experiment a user declares with a result of their own (``[results.experiment]`` in the file that
    ``sfltheory --results FILE`` loads): checked here, each bad field one line naming ``experiment.<field>``."""
    names = [a.name for a in ALGORITHMS]

    def bad(name: str, rule: str) -> ParameterError:
        return ParameterError(f"{result}: experiment.{name}", rule)

    alg = d["algorithm"]
    if alg not in names:
        raise bad("algorithm", f"unknown algorithm {alg!r} (one of {', '.join(names)}: sfltheory which)")
    step_to = d.get("step_to", ())
    if isinstance(step_to, str):
        step_to = (step_to,)
    if not isinstance(step_to, (list, tuple)) or not step_to or not all(isinstance(x, str) for x in step_to):
        raise bad("step_to", "must name the algorithm's step parameters the theorem's step sets, e.g. ['eta_l']")
    for table in ("params", "algorithm_only"):
        v = d.get(table, {})
        if not isinstance(v, Mapping):
            raise bad(table, f"must be a table of name = value (got {type(v).__name__})")
    for k, v in d.get("params", {}).items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad(f"params.{k}", f"must be a number (got {v!r})")
    M = d.get("M", 4)
    if isinstance(M, bool) or not isinstance(M, int) or M < 1:
        raise bad("M", f"must be an integer >= 1 (clients of the quadratic) (got {M!r})")
    at_choice = d.get("at_choice", False)
    if not isinstance(at_choice, bool):
        raise bad("at_choice", f"must be true or false (got {at_choice!r})")
    try:
        return Experiment(
            result=result, algorithm=alg, step_to=tuple(step_to), lhs=str(d.get("lhs", "avg")),
            params={k: float(v) for k, v in d.get("params", {}).items()},
            algorithm_only=dict(d.get("algorithm_only", {})), noise=str(d.get("noise", "gaussian")), M=M,
            at_choice=at_choice, note=str(d.get("note", "declared with the result in the user's file")),
        )  # fmt: skip
    except ParameterError as e:
        raise bad(e.name, e.rule) from None


def experiment(result: str) -> Experiment:
    """The experiment of ``result``, or a one-line error saying why it has none."""
    if result in EXPERIMENTS:
        return EXPERIMENTS[result]
    d = user_experiment_table(result)
    if d is not None:
        return user_experiment(result, d)

    r = get(result)  # an unknown id raises UnknownResultError with suggestions
    if result in NO_EXPERIMENT:
        raise ParameterError(result, f"no experiment: {NO_EXPERIMENT[result]}")
    if not r.explicit:
        raise ParameterError(result, f"is stated only up to constants; verify its explicit edition ({r.see})")
    if r.kind == "model":
        raise ParameterError(result, "is a cost or time model, not a convergence bound: nothing to run")
    raise ParameterError(result, "has no experiment yet (no algorithm of the trainer is mapped to it)")
