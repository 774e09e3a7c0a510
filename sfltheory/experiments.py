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
from .registry import get, results
from .registry import user_experiment as user_experiment_table

LHS_KINDS = {
    "avg": "(1/T) sum_{t<T} E||grad f(x^t)||^2",
    "min": "min_{t<T} E||grad f(x^t)||^2",
    "eta_avg": "eta (1/T) sum_{t<T} E||grad f(x^t)||^2",
    "min_server": "min_{t<T} E||grad_{x_S} f(x^t)||^2 (the server part of the gradient)",
}
# The recorded quantity (a run record's field) and the reduction over t of each kind; a kind not listed reads
# ``gradnorm2`` and is its own reduction.
LHS_QUANTITY = {"min_server": "gradnorm2_server"}
LHS_REDUCTION = {"min_server": "min"}


def lhs_quantity(kind: str) -> str:
    """The run record's series a left-hand side kind reads: ``gradnorm2`` or ``gradnorm2_server``."""
    return LHS_QUANTITY.get(kind, "gradnorm2")


def lhs_reduction(kind: str) -> str:
    """How a kind reduces its series over t < T: ``avg``, ``min`` or ``eta_avg``."""
    return LHS_REDUCTION.get(kind, kind)


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
    # The run samples its participants (n of M, with replacement): discrete randomness, which exact moments cannot
    # propagate, so a first-order algorithm is checked by Monte Carlo over seeds too.
    sampled: bool = False
    # The quadratic's dimension and split (None: the default problem's d = 10, d_c = 5), for a result whose
    # statement fixes the split (MU-SplitFed's corollaries: d_c = sqrt(d/tau)).
    d: int | None = None
    d_c: int | None = None

    def __post_init__(self) -> None:
        if self.lhs not in LHS_KINDS:
            raise ParameterError("lhs", f"must be one of {', '.join(LHS_KINDS)} (got {self.lhs!r})")
        if self.problem not in ("quadratic", "model"):
            raise ParameterError("problem", f"must be 'quadratic' or 'model' (got {self.problem!r})")
        d = 10 if self.d is None else self.d
        if d < 2 or (self.d_c is not None and not 1 <= self.d_c < d):
            raise ParameterError("d_c", f"must split d = {d} as 1 <= d_c < d (got d = {self.d}, d_c = {self.d_c})")


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

_SFL_AUX_SERVER = (
    "the left-hand side is the server part of the gradient, ||grad_{x_S} f(x^t)||^2 at the one server model x_S^t "
    "(sfl_aux keeps a single, non-aggregated server model); on the diagonal quadratic it is grad F^s(x_S^t), "
    "whatever x_C^t, and F^s(x_S^0) - inf F^s <= f(x^0) - f^* = F, so the encoded F makes the bound no smaller; "
    "l = 1: every round t >= 1 is a server round; K = 2 client steps of eta_l = 0.05 (the theorem does not "
    "constrain them)"
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
        Experiment(result="mu_splitfed/cor4.2", algorithm="mu_split", step_to=("eta_c", "eta_s"), M=1,
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", at_choice=True, d=8, d_c=2,
                   note=_MU + "; the statement's split d_c = sqrt(d/tau) = sqrt(8/2) = 2 on a quadratic with d = 8 "
                   "(d_s = 6); the corollary's step at every T of the grid, radius lambda = 1e-3 in run and bound"),
        Experiment(result="mu_splitfed/cor4.4", algorithm="mu_splitfed", step_to=("eta_c", "eta_s", "eta_g"),
                   params={"tau": 2, "P": 1, "lam": 1e-3}, noise="rademacher", at_choice=True, d=8, d_c=2,
                   note=_MU + "; the statement's split d_c = sqrt(d/tau) = sqrt(8/2) = 2 on a quadratic with d = 8 "
                   "(d_s = 6); the corollary's step and eta_g = sqrt(tau M) at every T of the grid, radius "
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
        Experiment(result="sfl_aux/thm3", algorithm="sfl_aux", step_to=("eta",), lhs="min_server",
                   params={"l": 1}, algorithm_only={"K": 2, "eta_l": 0.05}, note=_SFL_AUX_SERVER),
        Experiment(result="sfl_aux/thm3@appendix", algorithm="sfl_aux", step_to=("eta",), lhs="min_server",
                   params={"l": 1}, algorithm_only={"K": 2, "eta_l": 0.05}, note=_SFL_AUX_SERVER),
        Experiment(result="sfl_aux/thm4", algorithm="sfl_aux", step_to=("eta",), lhs="min_server",
                   params={"l": 1, "n": 3}, algorithm_only={"K": 2, "eta_l": 0.05}, sampled=True,
                   note=_SFL_AUX_SERVER + "; n = 3 of M = 4 clients drawn with replacement each round (Sec. 3's "
                   "second strategy; the step conditions (b_15) need n >= m - 1), Monte Carlo over seeds"),
        Experiment(result="sfl_aux/thm4@appendix", algorithm="sfl_aux", step_to=("eta",), lhs="min_server",
                   params={"l": 1}, algorithm_only={"K": 2, "eta_l": 0.05, "n": 0},
                   note=_SFL_AUX_SERVER + "; 'full participation of clients' (Theorem A4): n = m in the bound, "
                   "every client once per round in the run"),
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
    "sl_noniid/cor3@explicit": "its step is 'there exists eta_l' (Lemma 2 of Karimireddy et al.): no step to run",
    "heron_sfl/thm1@round": "a per-round inequality in gap and drift terms the trainer does not record: to come",
    "heron_sfl/thm2@round": "a per-round inequality in gap and drift terms the trainer does not record: to come",
    "heron_sfl/thm2@floor": "the error floor alone, not a bound on a run's left-hand side",
    "heron_sfl/lemma3": "bounds the client drift summed over every local step of a round; heron_sfl records the "
    "end-of-round drift only (drift_client); its formula is checked in tests/sfltheory/papers/test_heron_sfl.py "
    "(test_lemma3_*)",
    "heron_sfl/lemma4": "bounds E_t[C], the client part of one round's descent, a conditional expectation at the "
    "round's start that no recorded series estimates; its formula is checked in "
    "tests/sfltheory/papers/test_heron_sfl.py (test_lemma4_*)",
    "heron_sfl/lemma5": "bounds E[C], the client part of one round's descent (low effective rank), which no recorded "
    "series estimates; its formula is checked in tests/sfltheory/papers/test_heron_sfl.py (test_lemma5_*)",
    "heron_sfl/eq45": "bounds E_t[S], the server part of one round's descent, which no recorded series estimates; its "
    "formula is checked in tests/sfltheory/papers/test_heron_sfl.py (test_eq45_*)",
    "mu_splitfed/eq24": "the one-round descent inequality (24), one summand of Theorem 4.1's proof (verified as "
    "mu_splitfed/thm4.1@proof); its formula is checked in tests/sfltheory/papers/test_mu_splitfed.py",
    "mu_splitfed/lemmaB.1": "a bound on the two-point estimator's second moment E_u||g_lambda(x)||^2 at one point x, "
    "not on a run; `sfltheory measure --what zo` measures that estimator's error at a point; the formula is checked "
    "in tests/sfltheory/papers/test_mu_splitfed.py (test_lemma_b1)",
    "mu_splitfed/lemmaB.1.bias": "a bound on the smoothing bias ||grad f(x) - grad f_lambda(x)|| at one point x, not "
    "on a run (on a quadratic the bias is 0); the formula is checked in tests/sfltheory/papers/test_mu_splitfed.py "
    "(test_lemma_b1)",
    "mu_splitfed/lemmaC.2": "the server estimator's variance at server step i, in that step's drift E||x_s^(t,i) - "
    "x_s^t||^2, which no run records per server step; `sfltheory measure --what zo` measures its error at a point "
    "(zo_mse[server]); formula: tests/sfltheory/papers/test_mu_splitfed.py (test_lemma_c2)",
    "mu_splitfed/lemmaC.3": "the server estimator's second moment at server step i, in that step's drift, which no "
    "run records per server step; formula: tests/sfltheory/papers/test_mu_splitfed.py "
    "(test_lemma_c3_and_its_proof_from_c2)",
    "mu_splitfed/lemmaC.4": "bounds the server drift summed over the tau steps of a round; mu_split records the "
    "end-of-round drift only (drift_server); formula: tests/sfltheory/papers/test_mu_splitfed.py (test_lemma_c4)",
    "mu_splitfed/lemmaD.2": "client m's server-side estimator variance at server step i, in that step's drift, which "
    "no run records per server step; `sfltheory measure --what zo` measures its error at a point; formula: "
    "tests/sfltheory/papers/test_mu_splitfed.py (test_lemma_d2)",
    "mu_splitfed/lemmaD.3": "bounds client m's server drift summed over the tau steps of a round; mu_splitfed records "
    "the end-of-round drift only (drift_server); formula: tests/sfltheory/papers/test_mu_splitfed.py (test_lemma_d3)",
    "heron_sfl/lemma2": "a per-step bound on the client ZO estimate's second moment in the local model's distance "
    "from the round's start (dev2_local), which no run records per local step; its formula is checked in "
    "tests/sfltheory/papers/test_heron_sfl.py (test_lemma2_*)",
    "sl_noniid/eq43": "a one-round inequality: to come with the per-round checks",
    "sl_noniid/eq69": "a per-client one-round inequality: to come with the per-round checks",
    "sl_noniid/eq67": "a per-round drift lemma: to come with the per-round checks",
    "cut_layer/prop1@round": "a one-round inequality: to come with the per-round checks",
    "sfl_aux/eqA11": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/eqA44": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/eqA57": "a per-round drift lemma: to come with the per-round checks",
    "sfl_aux/thm2@proof": "bounds the client-side auxiliary loss F^c: to come (as sfl_aux/thm2)",
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
    at_choice, sampled = (d.get(name, False) for name in ("at_choice", "sampled"))
    for name, flag in (("at_choice", at_choice), ("sampled", sampled)):
        if not isinstance(flag, bool):
            raise bad(name, f"must be true or false (got {flag!r})")
    dim, dim_c = d.get("d"), d.get("d_c")
    for name, v in (("d", dim), ("d_c", dim_c)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise bad(name, f"must be an integer (the quadratic's dimensions) (got {v!r})")
    try:
        return Experiment(
            result=result, algorithm=alg, step_to=tuple(step_to), lhs=str(d.get("lhs", "avg")),
            params={k: float(v) for k, v in d.get("params", {}).items()},
            algorithm_only=dict(d.get("algorithm_only", {})), noise=str(d.get("noise", "gaussian")), M=M,
            at_choice=at_choice, sampled=sampled, d=dim, d_c=dim_c,
            note=str(d.get("note", "declared with the result in the user's file")),
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
    why = no_experiment_reason(r)
    if why is not None:
        raise ParameterError(result, why)
    raise ParameterError(result, "has no experiment yet (no algorithm of the trainer is mapped to it)")


def no_experiment_reason(r: Any) -> str | None:
    """Why ``r`` has no experiment, when it is of a kind that has none: stated only up to constants (no number
    to compare a run with; its explicit edition, when one is encoded, is what can be verified), or a cost or time
    model. None for an explicit convergence result."""
    if r.id in NO_EXPERIMENT:
        return f"no experiment: {NO_EXPERIMENT[r.id]}"
    if not r.explicit:
        see = f": verify its explicit edition ({r.see})" if r.see else "; no explicit edition is encoded"
        return f"is stated only up to constants (no number a run can be compared with){see}"
    if r.kind == "model":
        return "is a cost or time model, not a convergence bound: nothing to run"
    return None


def without_experiment() -> dict[str, str]:
    """Every built-in result without an experiment and the reason (``sfltheory verify --list``): the stated
    reasons of :data:`NO_EXPERIMENT`, results stated only up to constants, cost models."""
    out = dict(NO_EXPERIMENT)
    for r in results():
        if r.id not in EXPERIMENTS and r.id not in out:
            why = no_experiment_reason(r)
            out[r.id] = (
                why if why is not None else "has no experiment yet (no algorithm of the trainer is mapped to it)"
            )
    return out
