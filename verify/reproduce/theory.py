r"""Where theory meets experiment: the bound of the theorem that analyses a reproduced experiment's algorithm, at one
of its runs' own settings and constants, against that run's measured :math:`\|\nabla f(x^t)\|^2`.

Issue 25, item 3: "each reproduced experiment also draws the bound of the theorem that analyses it at the run's
settings and measured constants (through ``verify --run``)". For each algorithm of an experiment that a result
analyses (:data:`sfltheory.experiments.EXPERIMENTS`: ``sfl_v1_analysed`` by cut_layer Proposition 1, ``sl`` and
``fedavg`` by sl_noniid Theorems 1 and 2, ``mu_splitfed`` by MU-SplitFed Theorem 4.3), one representative run of the
experiment's plan (:data:`PREFERRED` says which) is run once more recording :math:`\|\nabla f(x^t)\|^2` at every
round (``record_every = 1``: the theorems average or minimise it over every t < T, so a sparser record would change
the quantity; the run is otherwise the plan's own, same seed and settings). The constants the result needs are
measured at that run's starting point :math:`x^0` (:meth:`verify.problems.ModelProblem.constants`' machinery,
:func:`verify.constants.measure`) -- on a random subsample of at most :data:`MEASURE_SAMPLES` training samples
(spread over the clients in proportion) when the data are larger, which keeps it to seconds and is said in each
constant's method -- and :func:`verify.pipeline.fromrun.check_run` sets the bound at the run's own settings against
the running left-hand side, as ``sfltheory verify ID --run`` does. :mod:`verify.reproduce.theoryverdict` words it.

Constants measured at :math:`x^0` only: the theorems assume bounds at every iterate, so a value at one point is a
lower estimate of the assumed constant (the bound drawn is then at most the theorem's); said in the caption.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

import sfltheory as st
from sfltheory.constants import Constants, needed_keys
from sfltheory.errors import ParameterError
from sfltheory.experiments import EXPERIMENTS as RESULT_EXPERIMENTS
from sfltheory.experiments import LHS_KINDS
from sfltheory.outputs import write_text
from verify.constants.measure import measure
from verify.pipeline.fromrun import check_run
from verify.problems.model import SPLIT, ModelProblem, measurement_plan, whole_model
from verify.runs import RunLog
from verify.spec import CheckSpec
from verify.sweep.entries import run_spec
from verify.train import get as get_algorithm
from verify.train.launch import problem_of

from .experiment import Cell, Experiment, Scale
from .theorems import theorem_of
from .theoryverdict import Failing, theory_sentence

SERIES = ("gradnorm2",)  # what a theory run records per round (the left-hand side's series)
MEASURE_SAMPLES = 2000  # training samples the constants are measured on, at most (a random subsample beyond)
TINY_MEASURE_SAMPLES = 200  # the tests' scale (its numbers say nothing): sl_noniid/table2 7.9 -> 7.3 CPU-s
# the representative run of each experiment, as labels its plan's cells carry; the first cell of the algorithm that
# matches every label given is taken (the first of the algorithm when none matches)
PREFERRED: dict[str, Mapping[str, Any]] = {
    "cut_layer/tables3-4": {"partition": "dirichlet:0.1"},  # non-IID: where eps2 (the drift term) is not ~0
    "mu_splitfed/table1": {"tau": 2},  # the paper's best tau (line 211)
    "sl_noniid/table2": {"partition": "shards:2", "E": 1},  # the claim's highly non-IID case, few local steps
    "sl_noniid/tables7-9": {"partition": "shards:2", "E": 1, "lr": 0.05},  # a rate that trains (the first cell's
    # 0.0005 hardly moves), the claim's non-IID case
    "mu_splitfed/fig3": {"cut": "fc1", "tau": 2},  # the earliest cut at the paper's tau
    "sl_noniid/fig2": {"panel": "a", "partition": "shards:2"},  # C = 2: where the heterogeneity term is not ~0
    "mu_splitfed/fig2": {"tau": 2},  # the paper's tau for Fig. 2 (line 214)
}


def theory_cells(exp: Experiment, scale: Scale, device: str) -> tuple[Cell, ...]:
    """The representative run of each analysed algorithm of ``exp`` at ``scale`` (see the module docstring): the
    plan's cell with ``record_every = 1``, its labels with ``theorem`` (the result) added."""
    cells = exp.plan(scale, device)
    prefer = PREFERRED.get(exp.id, {})
    out = []
    for alg in dict.fromkeys(str(c.labels["algorithm"]) for c in cells):
        rid = theorem_of(alg)
        if rid is None:
            continue
        mine = [c for c in cells if c.labels["algorithm"] == alg]
        pick = next((c for c in mine if all(c.labels.get(k) == v for k, v in prefer.items())), mine[0])
        out.append(Cell(labels={**pick.labels, "theorem": rid}, params={**pick.params, "record_every": 1}))
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class ConstantUsed:
    """A constant in the bound: its ``name``, ``value`` and ``how`` it was obtained (the measurement's method)."""

    name: str
    value: float
    how: str


@dataclass(frozen=True, kw_only=True)
class Theory:
    """A theorem's bound against a reproduced run: the ``result``, the ``algorithm``, the run's ``labels`` and sweep
    ``key``, the ``constants`` used, the bound's other parameters (``settings``, the run's own), the left-hand side's
    ``lhs_kind`` (:data:`sfltheory.experiments.LHS_KINDS`), the measured ``lhs`` and the ``bound`` at every ``T``,
    whether the statement's hypotheses hold there (``applies``; ``failing``: those that do not), and the verdict
    (:data:`verify.reproduce.theoryverdict.THEORY_VERDICTS`) with its ``sentence``; ``notes``: each choice made."""

    result: str
    algorithm: str
    labels: Mapping[str, Any]
    key: str
    constants: tuple[ConstantUsed, ...] = ()
    settings: Mapping[str, float] = dataclasses.field(default_factory=dict)
    lhs_kind: str = ""
    T: tuple[int, ...] = ()
    lhs: tuple[float, ...] = ()
    bound: tuple[float, ...] = ()
    applies: bool = False
    failing: tuple[Failing, ...] = ()
    verdict: str = "not covered"
    sentence: str = ""
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (non-finite numbers as None: JSON has no NaN): the summary entry's ``theory`` item."""
        return {
            "result": self.result, "algorithm": self.algorithm, "run": dict(self.labels), "key": self.key,
            "constants": [dataclasses.asdict(c) for c in self.constants],
            "settings": {k: _num(v) for k, v in self.settings.items()}, "lhs_kind": self.lhs_kind,
            "T": list(self.T), "lhs": [_num(v) for v in self.lhs], "bound": [_num(v) for v in self.bound],
            "applies": self.applies, "failing": [dataclasses.asdict(f) for f in self.failing],
            "verdict": self.verdict, "sentence": self.sentence, "notes": list(self.notes),
        }  # fmt: skip


def _num(v: float) -> float | None:
    return float(v) if isinstance(v, int | float) and math.isfinite(v) else None


def measure_start(problem: ModelProblem, result: str, *, batch: int, lam: float | None, seed: int = 0,
                  samples: int = MEASURE_SAMPLES) -> Constants:  # fmt: skip
    """The constants ``result`` needs at the run's starting point (``problem.init()``), as
    :meth:`ModelProblem.constants` measures them, on every training sample when there are at most ``samples``, else
    on a random subsample of each client's data (seeded by ``seed``) of ``samples`` in all, in proportion to the
    clients' sizes; ``meta["source"]`` says which."""
    groups, kw = measurement_plan(needed_keys(result), problem.M, lam=lam, batch=batch)
    total = sum(len(i) for i in problem.indices)
    clients = list(problem.indices)
    where = f"all {total} training samples"
    if total > samples:
        g = torch.Generator().manual_seed(seed)
        clients = [i[torch.randperm(len(i), generator=g)[: max(batch + 1, round(samples * len(i) / total))]]
                   for i in clients]  # fmt: skip
        where = (f"a random subsample of {sum(len(i) for i in clients)} of the {total} training samples (each "
                 "client's in proportion), to keep it to seconds")  # fmt: skip
    x = problem.init()
    params = {**{f"client.{k}": v for k, v in x["client"].items()},
              **{f"server.{k}": v for k, v in x["server"].items()}}  # fmt: skip

    def go(what: list[str]) -> Constants:
        return measure(whole_model(problem), problem.lossf, (problem.X, problem.y), SPLIT, what, clients=clients,
                       params=params, device=problem.device, dtype=problem.dtype, seed=seed, **kw)  # fmt: skip

    # the results here take L from the clients' smoothness (L[clients]); the whole-f group "L" (several Lanczos
    # runs on part blocks) is the slow one, so it is measured only when a constant is missing without it
    lean = [g for g in groups if g != "L"] if "L_clients" in groups else groups
    c = go(lean)
    if lean != groups and any("not measured" in n for n in c.params_for(result)[1]):
        c = go(groups)
    c.meta["source"] = f"measured at the run's x^0 on {where}"
    return c


def run_log(spec: Any, problem: ModelProblem, series: Sequence[Any], status: str) -> RunLog:
    """The theory run's records as a :class:`RunLog` (what ``verify --run`` reads): t = 0.. up to the first value
    not recorded (a diverged run's records stop there), and its settings as ``run.json`` states them: the
    algorithm's parameters with defaults, M, d, d_c, d_s and the mini-batch."""
    g = []
    for v in series:
        if v is None or not math.isfinite(float(v)):
            break
        g.append(float(v))
    settings: dict[str, Any] = dict(get_algorithm(spec.algorithm)(**spec.params).p)
    n = problem.counts()
    settings.update(M=n.M, d=n.d, d_c=n.d_c, d_s=n.d_s, batch=spec.batch)
    return RunLog(t=np.arange(len(g)), gradnorm2=np.asarray(g, dtype=float), settings=settings,
                  algorithm=spec.algorithm, source=f"the reproduced run of {spec.algorithm} ({status})",
                  path="reproduce", status="complete" if len(g) == len(series) else "diverged")  # fmt: skip


def measured_side(kind: str, g: np.ndarray) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The left-hand side ``kind`` of the recorded ||grad f(x^t)||^2 ``g`` at T = 1..n without a step: the running
    average (``avg``) or minimum (``min``); nothing for a kind that needs the theorem's step (``eta_avg``)."""
    g = np.asarray(g, dtype=float)
    if kind not in ("avg", "min") or not len(g):
        return (), ()
    lhs = np.minimum.accumulate(g) if kind == "min" else np.cumsum(g) / np.arange(1, len(g) + 1)
    return tuple(range(1, len(g) + 1)), tuple(float(x) for x in lhs)


def cached_constants(cache: Path | None, make: Callable[[], Constants]) -> Constants:
    """The constants stored at ``cache`` (a rerun of ``reproduce`` measures nothing again), else ``make()`` written
    there atomically; ``cache`` None: ``make()`` alone."""
    if cache is not None and cache.is_file():
        try:
            return Constants.from_dict(json.loads(cache.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # unreadable: measured again and rewritten
    c = make()
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text("out", cache, json.dumps(c.to_dict(), indent=1, allow_nan=False) + "\n")
    return c


def theory_of(cell: Cell, key: str, row: Mapping[str, Any], record: Mapping[str, Any] | None, *,
              samples: int = MEASURE_SAMPLES, cache: Path | None = None) -> Theory:  # fmt: skip
    """The bound of ``cell.labels["theorem"]`` against the theory run ``cell`` (its sweep ``record``): measure the
    constants at x^0 (:func:`measure_start`), check the run (:func:`verify.pipeline.fromrun.check_run`), word the
    verdict; ``row`` is the run's row of the sweep's table (its status and error). A run that failed, or that the
    theorem does not describe (a setting it ties to its step differs), gives a record without a bound, its verdict
    saying why. ``cache``: the file the constants are kept in (:func:`cached_constants`)."""
    rid, alg = str(cell.labels["theorem"]), str(cell.labels["algorithm"])
    labels = {k: v for k, v in cell.labels.items() if k != "theorem"}
    base: dict[str, Any] = {"result": rid, "algorithm": alg, "labels": labels, "key": key,
            "lhs_kind": LHS_KINDS[RESULT_EXPERIMENTS[rid].lhs]}  # fmt: skip
    res = (record or {}).get("result") or {}
    series = (res.get("series") or {}).get("gradnorm2") or []
    if row.get("status") != "ok" or len(series) < 2:
        why = row.get("error") or "it recorded fewer than two rounds"
        return Theory(**base, verdict="not covered", sentence=f"not covered: the theory run failed ({why})")
    spec = run_spec(dict(cell.params))
    problem = problem_of(spec)
    if not isinstance(problem, ModelProblem):
        raise ParameterError(
            "model", f"the reproduced runs are on models; {rid}'s run is on a {type(problem).__name__}"
        )
    log = run_log(spec, problem, series, str(res.get("run_status", "complete")))
    lam = spec.params.get("lam")
    try:
        constants = cached_constants(cache, lambda: measure_start(
            problem, rid, batch=spec.batch, lam=None if lam is None else float(lam), samples=samples))  # fmt: skip
        v = check_run(CheckSpec(result=rid), log, constants)
    except ParameterError as e:  # the theorem does not describe this run: said, not raised; the measured side kept
        T, lhs = measured_side(RESULT_EXPERIMENTS[rid].lhs, log.gradnorm2)
        return Theory(**base, T=T, lhs=lhs, verdict="not covered", sentence=f"not covered: {e.name}: {e.rule}")
    leg = v.legs[0]
    r = st.get(rid)
    ev = st.evaluate(r, {**v.params, r.step: leg.step, "T": float(leg.T[-1])})  # type: ignore[dict-item]
    failing = tuple(Failing(name=h.name, lhs=float(np.max(h.lhs)), rhs=float(np.min(h.rhs)))
                    for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds)))  # fmt: skip
    verdict, sentence = theory_sentence(T=[int(t) for t in leg.T], lhs=[float(x) for x in leg.lhs],
                                        bound=[float(x) for x in leg.bound], failing=failing)  # fmt: skip
    # which measured key each constant is (params_for's notes: "L = L[clients]: why"), and that key's method
    how = {k: e.method for k, e in constants.items()}
    picked = {n.split(" = ")[0]: n.split(" = ")[1].split(":")[0] for n in constants.params_for(r)[1] if " = " in n}
    used = tuple(ConstantUsed(name=k, value=float(val), how=f"{picked.get(k, k)}: {how.get(picked.get(k, k), '?')}")
                 for k, val in sorted(v.constants.items()))  # fmt: skip
    return Theory(**base, constants=used, settings={k: float(x) for k, x in v.params.items()},
                  T=tuple(int(t) for t in leg.T), lhs=tuple(float(x) for x in leg.lhs),
                  bound=tuple(float(x) for x in leg.bound), applies=leg.applies, failing=failing, verdict=verdict,
                  sentence=sentence, notes=tuple(v.constant_notes))  # fmt: skip


__all__ = [
    "MEASURE_SAMPLES",
    "PREFERRED",
    "SERIES",
    "TINY_MEASURE_SAMPLES",
    "ConstantUsed",
    "Theory",
    "cached_constants",
    "measure_start",
    "measured_side",
    "run_log",
    "theorem_of",
    "theory_cells",
    "theory_of",
]  # fmt: skip
