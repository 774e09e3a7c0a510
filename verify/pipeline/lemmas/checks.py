r"""Which lemma is checked on which algorithm, and the search for its worst instance.

A :class:`LemmaCheck` names a seed result (a lemma or one-round inequality the proofs chain), the algorithm whose
left-hand side it bounds (:mod:`verify.pipeline.lemmas.algorithms`), the structural integers to draw (K, M, ...)
and which exact constant each of the result's parameters reads (its assumptions' picks: SL's dissimilarity
:math:`(B^2,G^2)`, the maximum or the mean heterogeneity). :func:`search` draws instances inside the assumption
class -- every f_i L-smooth (:math:`|h_j|\le L`, convex or not), the variance, heterogeneity and gradient at the
start exact -- at steps where every hypothesis of the result (statement, proof and implicit) holds, evaluates the
left-hand side exactly and the bound at the instance's exact constants, and climbs from the worst instances drawn.
The score is :math:`(\text{lhs}-\text{bound})/\sum_t|\text{term}_t|` (:math:`\text{lhs}/\text{bound}-1` for a
bound of positive terms); a score above :math:`10^{-9}` is a violation for certain: both sides are exact up to
float64 rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.errors import ParameterError
from sfltheory.evaluate import evaluate
from sfltheory.result import Result

from . import algorithms as alg
from . import zo
from .affine import Draws, Sampled
from .instance import Instance

TOLERANCE = 1e-9  # float64 rounding of both sides is ~1e-15 relative; anything above this is no rounding
# Assumptions a proof uses without stating them, which additive gradient noise breaks: inside the class the
# noise is off; the class as printed (noise on) is searched too, and a violation only there is an unstated
# condition of the lemma, not an invalid bound (cut_layer Lemma 2 needs stochastic gradients S-Lipschitz across
# mini-batches, which no noisy oracle is).
NOISELESS_ONLY = ("lipschitz_stochastic_gradients_implicit",)


# Smoothness printed as a quadratic upper bound only (cut_layer Assumption 2): a concave quadratic satisfies it for
# any S, so the class as printed has eigenvalues in [-ONE_SIDED_DEPTH * S, S]; the proofs use |h| <= S.
ONE_SIDED = ("smoothness_upper_quadratic_per_client",)
ONE_SIDED_DEPTH = 100.0


def noise_allowed(r: Result) -> bool:
    """Whether the result's assumption class admits gradient noise (no assumption of :data:`NOISELESS_ONLY`)."""
    return not any(a.key in NOISELESS_ONLY for a in r.assumptions)


@dataclass(frozen=True, kw_only=True)
class Variant:
    """Which class is searched. ``as assumed``: every assumption and condition the encoding holds the result to
    (the implicit ones the proofs use included); ``as printed``: only what the paper prints -- the statement's and
    the proof's conditions, gradient noise on, smoothness as stated (one-sided where it is printed so). A violation
    only as printed is a condition the result needs and does not state."""

    name: str
    noise: bool
    implicit: bool
    one_sided: bool
    shared_sample: bool = False  # zeroth order: one mini-batch for all perturbations and server steps


def variants(r: Result) -> list[Variant]:
    """The classes to search for ``r``: as assumed, and as printed where that class is larger."""
    zo_check = BY_RESULT.get(r.id)
    shared = bool(zo_check and zo_check.monte_carlo and r.id != "mu_splitfed/lemmaB.1")
    assumed = Variant(name="as assumed", noise=noise_allowed(r), implicit=True, one_sided=False)
    printed = Variant(name="as printed", noise=True, implicit=False, shared_sample=shared,
                      one_sided=any(a.key in ONE_SIDED for a in r.assumptions))  # fmt: skip
    larger = (printed.noise != assumed.noise or printed.one_sided or shared
              or any(h.source == "implicit" for h in r.hypotheses))  # fmt: skip
    return [assumed, printed] if larger else [assumed]


def differences(r: Result) -> list[str]:
    """How the class as printed is larger than the class as assumed, in words (for the finding)."""
    out = []
    if not noise_allowed(r):
        names = ", ".join(a.name for a in r.assumptions if a.key in NOISELESS_ONLY)
        out.append(f"gradient noise on: the proof needs {names}, which no noisy oracle satisfies")
    if any(a.key in ONE_SIDED for a in r.assumptions):
        out.append("smoothness as printed, an upper quadratic bound only (eigenvalues down to "
                   f"-{ONE_SIDED_DEPTH:g}L): the proof bounds gradient differences by L||x - y||")  # fmt: skip
    check = BY_RESULT.get(r.id)
    if check and check.monte_carlo and r.id != "mu_splitfed/lemmaB.1":
        out.append("one mini-batch xi^t for all P perturbations and all tau server steps, as G(x; xi^t) and "
                   "Algorithm 1 write it: the proof drops the cross terms between them (26), (31)")  # fmt: skip
    implicit = [h.name for h in r.hypotheses if h.source == "implicit" and h.kind != "validity"]
    if implicit:
        out.append("without the conditions the proof uses and no display prints: " + ", ".join(implicit))
    return out


def counted(h: Any, v: Variant) -> bool:
    """Whether hypothesis ``h`` restricts the search in variant ``v`` (validity conditions always do: a void bound
    is no bound)."""
    return v.implicit or h.source != "implicit" or h.kind == "validity"


@dataclass(frozen=True, kw_only=True)
class LemmaCheck:
    """One seed result checked on exact instances."""

    result: str
    quantity: Callable[..., list[alg.Expectation]]  # (pool, instance) or, Monte Carlo, (pool, instance, sharing)
    algorithm: str  # one line: what is run, for reports
    integers: Mapping[str, tuple[int, int]]  # structural settings drawn uniformly (inclusive)
    clients: str | tuple[int, int]  # the setting that is the number of clients, or a range of it
    picks: Mapping[str, str] = field(default_factory=dict)  # parameter -> Instance.constants() key
    logs: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # settings drawn log-uniformly
    weights: str = "uniform"  # or "dirichlet": the aggregation weights alpha
    monte_carlo: bool = False  # zeroth order: the quantity takes (pool, instance, zo.Sharing) and is sampled
    pointwise: bool = False  # the lemma is at a point y = x0 + delta of the round (drift_xs = ||y - x0||^2)


CHECKS: tuple[LemmaCheck, ...] = (
    LemmaCheck(result="sl_noniid/lem4", quantity=alg.sl_relay_drift, clients="M",
               algorithm="split learning's relay, N clients x K local SGD steps", integers={"K": (1, 16), "M": (1, 8)}),
    LemmaCheck(result="sl_noniid/eq67", quantity=alg.one_client_drift, clients=(1, 3),
               algorithm="one client's K local SGD steps", integers={"K": (1, 32)}),
    LemmaCheck(result="sl_noniid/eq43", quantity=alg.sl_round_progress, clients="M", logs={"eta_g": (0.1, 10.0)},
               algorithm="split learning's relay with the global step (4)", integers={"K": (1, 5), "M": (1, 5)}),
    LemmaCheck(result="sl_noniid/eq69", quantity=alg.sl_client_progress, clients=(1, 4),
               algorithm="one client's K local steps in the relay, each client", integers={"K": (1, 6)}),
    LemmaCheck(result="cut_layer/lem1", quantity=alg.parallel_drift, clients=(1, 4),
               algorithm="SFL-V1 as analysed: each client's tau local steps", integers={"K": (1, 32)}),
    LemmaCheck(result="cut_layer/lem2", quantity=alg.gradient_drift, clients=(1, 2),
               algorithm="SFL-V1 as analysed: client 0's stochastic gradients", integers={"K": (1, 32)}),
    LemmaCheck(result="cut_layer/prop1@proof", quantity=alg.sfl_v1_progress, clients="M", weights="dirichlet",
               algorithm="SFL-V1 as analysed: one round, alpha-weighted", integers={"K": (1, 5), "M": (1, 5)}),
    LemmaCheck(result="sfl_aux/eqA11", quantity=alg.fedavg_drift_per_step, clients=(1, 5),
               picks={"eps2": "eps2[mean]"}, algorithm="the clients' K local steps from the aggregate",
               integers={"K": (1, 32)}),
    LemmaCheck(result="sfl_aux/eqA44", quantity=alg.server_sequential_drift, clients="M", picks={"eps2": "eps2[mean]"},
               algorithm="the server's m sequential steps, one per client", integers={"M": (2, 256)}),
    LemmaCheck(result="sfl_aux/eqA57", quantity=alg.server_sequential_drift, clients="M", picks={"eps2": "eps2[mean]"},
               algorithm="the server's m sequential steps, one per client", integers={"M": (2, 256)}),
    LemmaCheck(result="mu_splitfed/lemmaB.1", quantity=lambda p, i, s: zo.second_moment(p, i), clients=(1, 1),
               monte_carlo=True, logs={"lam": (1e-6, 1e-3)}, integers={},
               algorithm="the two-point estimator (3) on the sphere of radius sqrt(d)"),
    LemmaCheck(result="mu_splitfed/lemmaC.2", quantity=zo.variance, clients=(1, 1), monte_carlo=True, pointwise=True,
               picks={"sigma_s2": "sigma2"}, logs={"lam": (1e-6, 1e-3)}, integers={"P": (1, 64)},
               algorithm="the server's P-perturbation estimator of App. C.2 at x_s^{t,i}"),
    LemmaCheck(result="mu_splitfed/lemmaC.3", quantity=zo.second, clients=(1, 1), monte_carlo=True, pointwise=True,
               picks={"sigma_s2": "sigma2"}, logs={"lam": (1e-6, 1e-3)}, integers={"P": (1, 64)},
               algorithm="the server's P-perturbation estimator of App. C.2 at x_s^{t,i}"),
    LemmaCheck(result="mu_splitfed/lemmaC.4", quantity=zo.server_drift, clients=(1, 1), monte_carlo=True,
               picks={"sigma_s2": "sigma2", "gradnorm2_xs": "gradnorm2_f"}, logs={"lam": (1e-6, 1e-3)},
               integers={"P": (1, 32), "tau": (1, 16)}, algorithm="the server's tau zeroth-order steps of a round"),
    LemmaCheck(result="mu_splitfed/lemmaD.3", quantity=lambda p, i, s: zo.server_drift(p, i, s, client=0),
               clients=(2, 4), monte_carlo=True, picks={"sigma_s2": "sigma2", "gradnorm2_xs": "gradnorm2_f"},
               logs={"lam": (1e-6, 1e-3)}, integers={"P": (1, 32), "tau": (1, 16)},
               algorithm="client 0's server copy: tau zeroth-order steps on its own objective"),
)  # fmt: skip
# Every other lemma and one-round inequality of the catalogue, and why it has no check (yet).
NOT_CHECKED: dict[str, str] = {
    "mu_splitfed/eq24": "the one-round descent of MU-Split chains the client's and the server's zeroth-order steps and "
    "the proof's K1-K3 split of one round; not encoded yet (its lemmas C.2-C.4 are checked)",
    "mu_splitfed/lemmaB.1.bias": "vacuous on quadratics: the smoothed gradient equals the gradient (f_lambda = f + a "
    "constant), so the bias is 0; it needs a non-quadratic instance",
    "mu_splitfed/lemmaD.2": "the printed display does not fix whose smoothed gradient is subtracted (client m's "
    "f_m or the global f); the readings differ by the heterogeneity its 6 d_s eps^2/P term divides by P",
    **{f"heron_sfl/{x}": "assumes bounded gradients (G_c^2, G_s^2 for every point), which no quadratic satisfies on "
       "all of R^d: it needs a bounded domain or non-quadratic losses" for x in ("lemma2", "lemma3", "lemma4",
                                                                              "lemma5", "eq45")},
}  # fmt: skip
Z_CONFIDENCE = 3.09  # one-sided 99.9%: a Monte-Carlo violation is filed only if the lower limit exceeds the bound
SAMPLES_SEARCH = 2_000  # runs per instance while searching (zeroth order)
SAMPLES_CONFIRM = 100_000  # runs re-drawn at the worst instance before anything is reported
BY_RESULT = {c.result: c for c in CHECKS}


def lemma_check(result_id: str) -> LemmaCheck:
    """The check of ``result_id``; a ParameterError naming ``results`` for a result without one."""
    if result_id not in BY_RESULT:
        raise ParameterError("results", f"no lemma check for '{result_id}'; checked: {', '.join(BY_RESULT)}")
    return BY_RESULT[result_id]


def exact_lhs(check: LemmaCheck, inst: Instance) -> float:
    """The left-hand side on ``inst``, exactly (the largest where the lemma holds for each of several)."""
    pool = Draws(inst.d, alg.draws_needed(inst))
    return max(e.exact() for e in check.quantity(pool, inst))


def sampled_lhs(check: LemmaCheck, inst: Instance, v: Variant, n: int, seed: int) -> tuple[float, float]:
    """A zeroth-order left-hand side from ``n`` sampled runs: the estimate and its one-sided lower confidence
    limit (:data:`Z_CONFIDENCE` standard errors below; the largest of several quantities)."""
    share = zo.Sharing(perturbations=v.shared_sample, steps=v.shared_sample)
    vals = [e.samples() for e in check.quantity(Sampled(inst.d, n, seed), inst, share)]
    best = max(vals, key=lambda x: float(x.mean()))
    return float(best.mean()), float(best.mean() - Z_CONFIDENCE * best.std(ddof=1) / np.sqrt(n))


def params_of(r: Result, check: LemmaCheck, inst: Instance) -> dict[str, Any]:
    """The result's parameters on ``inst``: its settings, else the exact constant its assumption picks."""
    c = inst.constants()
    return {p: inst.settings[p] if p in inst.settings else c[check.picks.get(p, p)] for p in r.parameters()}


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """One instance evaluated: both sides, the score and the bound's parameters."""

    instance: Instance
    lhs: float
    bound: float
    score: float
    params: dict[str, float]
    lhs_low: float  # = lhs where exact; a Monte-Carlo estimate's lower confidence limit otherwise
    samples: int = 0  # Monte-Carlo runs behind lhs (0: exact)


def evaluate_on(r: Result, check: LemmaCheck, inst: Instance, v: Variant, *, samples: int = SAMPLES_SEARCH,
                seed: int = 0) -> Outcome | None:  # fmt: skip
    """Both sides on ``inst``; None where a hypothesis fails or the bound's terms are all zero (nothing to test).
    The score of a sampled left-hand side uses its lower confidence limit."""
    params = params_of(r, check, inst)
    ev = evaluate(r, params)
    held = [np.all(c.holds) for h, c in zip(r.hypotheses, ev.hypotheses, strict=True) if counted(h, v)]
    if not bool(np.all(held)) or bool(np.any(ev.void)):
        return None
    scale = float(sum(abs(float(v)) for v in ev.terms.values()))
    if not np.isfinite(scale) or scale <= 0:
        return None
    if check.monte_carlo:
        lhs, low = sampled_lhs(check, inst, v, samples, seed)
    else:
        lhs = low = exact_lhs(check, inst)
    return Outcome(
        instance=inst,
        lhs=lhs,
        lhs_low=low,
        bound=float(ev.value),
        score=(low - float(ev.value)) / scale,
        params={k: float(x) for k, x in params.items()},
        samples=samples if check.monte_carlo else 0,
    )


def largest_step(r: Result, check: LemmaCheck, inst: Instance, v: Variant) -> float | None:
    """The largest step at which every hypothesis of ``r`` holds on ``inst`` (grid, then bisection); None if none."""
    step = r.step
    if step is None:
        return None
    base = params_of(r, check, replace(inst, settings={**inst.settings, step: 1.0}))
    L = max(inst.constants()["L"], 1e-300)
    grid = np.logspace(-10, 3, 300) / L

    def ok(eta: np.ndarray | float) -> np.ndarray:
        ev = evaluate(r, {**base, step: eta})
        pairs = zip(r.hypotheses, ev.hypotheses, strict=True)
        good = np.logical_and.reduce([np.broadcast_to(c.holds, np.shape(eta)) for h, c in pairs if counted(h, v)])
        return np.asarray(np.logical_and(good, np.logical_not(ev.void)))

    holds = ok(grid)
    if not holds.any():
        return None
    i = int(np.nonzero(holds)[0].max())
    if i == len(grid) - 1:
        return float(grid[-1])
    lo, hi = float(grid[i]), float(grid[i + 1])
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if bool(ok(mid)) else (lo, mid)
    return lo


def draw(rng: np.random.Generator, r: Result, check: LemmaCheck, v: Variant) -> Instance | None:
    """One instance inside the class of variant ``v`` at a step every counted hypothesis admits (None where none
    is). Sizes are log-uniform (the loose constants of drift bounds show only at large K)."""
    settings: dict[str, float] = {k: float(np.floor(np.exp(rng.uniform(np.log(lo), np.log(hi + 1)))))
                                  for k, (lo, hi) in check.integers.items()}  # fmt: skip
    settings.update({k: float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) for k, (lo, hi) in check.logs.items()})
    cl = check.clients
    N = int(settings[cl]) if isinstance(cl, str) else int(rng.integers(cl[0], cl[1], endpoint=True))
    if N == 1 and "M" in r.parameters() and any(h.name == "m>1" for h in r.hypotheses):
        return None
    d = int(rng.integers(2, 6))
    L = 10 ** rng.uniform(-2, 2)
    low = -ONE_SIDED_DEPTH if v.one_sided else -1.0
    h = L * (rng.uniform(low, 1, d) if rng.random() < 0.5 else rng.uniform(0, 1, d))
    h[0] = L if (rng.random() < 0.8 or v.one_sided) else -L
    scale = lambda lo, hi, p0: 0.0 if rng.random() < p0 else 10 ** rng.uniform(lo, hi)  # noqa: E731
    sigma2 = scale(-3, 3, 0.2) if v.noise else 0.0
    b = scale(-2, 2, 0.2) * rng.standard_normal((N, d))
    x0 = scale(-2, 2, 0.1) * rng.standard_normal(d)
    w = rng.dirichlet(np.ones(N)) if check.weights == "dirichlet" else np.full(N, 1.0 / N)
    y = x0 + scale(-2, 2, 0.2) * rng.standard_normal(d) if check.pointwise else None
    law = "rademacher" if check.monte_carlo else "gaussian"  # bounded surely, as MU-SplitFed assumes; exact: Gaussian
    inst = Instance(h=h, b=b, x0=x0, sigma2=sigma2, weights=w, settings=settings, one_sided=v.one_sided, y=y,
                    noise_law=law)  # fmt: skip
    if r.step is None:
        return inst
    top = largest_step(r, check, inst, v)
    if top is None:
        return None
    frac = 1.0 if rng.random() < 0.3 else 10 ** rng.uniform(-3, 0)
    return replace(inst, settings={**settings, r.step: top * frac})


def perturb(rng: np.random.Generator, r: Result, check: LemmaCheck, inst: Instance, v: Variant) -> Instance | None:
    """A nearby instance in the class (the climb's move): noise, shifts, start, spectrum and step moved a little."""
    L = inst.constants()["L"]
    top_j = int(np.argmax(inst.h)) if v.one_sided else int(np.argmax(np.abs(inst.h)))
    h = np.clip(inst.h + 0.1 * L * rng.standard_normal(inst.d), -(ONE_SIDED_DEPTH if v.one_sided else 1.0) * L, L)
    h[top_j] = inst.h[top_j]  # keep L itself

    def moved(x: np.ndarray) -> np.ndarray:  # rescaled and jittered by 30% and 5% of its spread
        return np.asarray(x * np.exp(0.3 * rng.standard_normal()) + 0.05 * np.std(x) * rng.standard_normal(x.shape))

    out = replace(inst, h=h, sigma2=inst.sigma2 * float(np.exp(0.3 * rng.standard_normal())), b=moved(inst.b),
                  x0=moved(inst.x0), y=None if inst.y is None else moved(inst.y))  # fmt: skip
    if r.step is None:
        return out
    top = largest_step(r, check, out, v)
    if top is None:
        return None
    frac = min(1.0, inst.settings[r.step] / max(top, 1e-300) * float(np.exp(0.3 * rng.standard_normal())))
    return replace(out, settings={**out.settings, r.step: top * frac})


@dataclass(frozen=True, kw_only=True)
class Search:
    """A lemma's search: the worst instance found, and how many were evaluated."""

    result: str
    worst: Outcome
    tried: int
    variant: Variant

    @property
    def violated(self) -> bool:
        """The exact left-hand side exceeds the bound on the worst instance."""
        return self.worst.score > TOLERANCE


def search(check: LemmaCheck, *, result: Result | None = None, instances: int = 48, climb: int = 40,
           seed: int = 0, variant: Variant | None = None) -> Search:  # fmt: skip
    """The worst instance of ``check`` (``result``: a replacement statement of the same result, e.g. a planted
    error; default the catalogue's): ``instances`` random draws, then ``climb`` moves from the worst three.
    ``variant``: the class searched (default: as assumed, :func:`variants`)."""
    r = result if result is not None else st.get(check.result)
    v = variant if variant is not None else variants(r)[0]
    rng = np.random.default_rng(seed)
    found: list[Outcome] = []
    tries = 0
    while len(found) < instances and tries < 20 * instances:
        tries += 1
        inst = draw(rng, r, check, v)
        out = evaluate_on(r, check, inst, v, seed=tries) if inst is not None else None
        if out is not None:
            found.append(out)
    if not found:
        raise ParameterError("results", f"{check.result}: no instance drawn satisfies every hypothesis")
    found.sort(key=lambda o: o.score, reverse=True)
    best = found[0]
    for start in found[:3]:
        cur = start
        for _ in range(climb):
            cand = perturb(rng, r, check, cur.instance, v)
            out = evaluate_on(r, check, cand, v, seed=tries) if cand is not None else None
            tries += 1
            if out is not None and out.score > cur.score:
                cur = out
        best = cur if cur.score > best.score else best
    if check.monte_carlo:  # re-drawn with fresh noise and many more runs before anything is reported
        confirmed = evaluate_on(r, check, best.instance, v, samples=SAMPLES_CONFIRM, seed=seed + 1)
        best = confirmed if confirmed is not None else best
    return Search(result=check.result, worst=best, tried=len(found) + climb * min(3, len(found)), variant=v)
