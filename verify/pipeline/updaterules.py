r"""Each algorithm's update rules as printed, run on a quadratic at a small step (issue 28, item 2).

The trainer implements every algorithm twice where its paper's pseudocode and analysis differ: the analysed form
is the default and the printed form a named choice (``docs/ALGORITHMS.md``; e.g. MU-SplitFed's
``aggregation="printed"``, eq. (7) as printed: :math:`x^{t+1} = x^t - \eta_g \frac1M\sum_m (x_m^t - x^t)`).
The analysis of a first- or zeroth-order method shows descent at small steps. This check runs every choice of every
choice-valued parameter of every algorithm on one quadratic instance of the assumption class (L = 1, no gradient
noise, heterogeneous clients) at a small step, and measures

.. math::

    r = \log \frac{\|\nabla f(x^T)\|^2}{\|\nabla f(x^0)\|^2}

over :data:`SEEDS` seeds of the run (the draws of the zeroth-order directions and of the mini-batches; on a
first-order method without noise they agree). A choice **ascends** where the 95% interval of the mean of
:math:`r` (Student's t over the seeds) lies above 0 while the default's lies below 0: the update as printed moves
away from the stationary point the analysis converges to. Each such choice is a record of kind
``"update_rule"`` for every seed result analysing the algorithm (:data:`sfltheory.experiments.EXPERIMENTS`), written
with the quadratic as a ``--problem`` file and the ``sfltheory train`` command that replays the run;
``sfltheory audit --counterexamples DIR`` reports it (:mod:`sfltheory.audit.falsified`).

Run: ``python -m verify.pipeline.updaterules --out DIR [--T 20] [--seeds 8]`` (16 s on 2 CPU cores; a configuration
that several parameters' defaults share runs once).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from sfltheory.atomic import write_atomic
from sfltheory.audit.falsified import FILE, FORMAT, records_in
from sfltheory.errors import ParameterError, SflTheoryError
from sfltheory.experiments import EXPERIMENTS
from sfltheory.outputs import check_dir
from verify.problems import QuadraticProblem
from verify.train import ALGORITHMS
from verify.train.base import SplitAlgorithm
from verify.train.loop import run

#: Rounds per run, seeds per choice, the small step given to every local step size (``eta_*`` but the global
#: ``eta_g``, kept at its default), and the instance: L = 1, no noise, eps^2 = 0.5, d = 10, M = 4 (1 for MU-Split).
T_RUN = 20
RULES_FILE = "update_rules.json"
RULES_FORMAT = "sfltheory.update-rules/1"
SEEDS = 8
SMALL_STEP = 0.05
INSTANCE: dict[str, Any] = {"L": 1.0, "sigma2": 0.0, "eps2": 0.5, "d": 10, "F": 1.0, "seed": 0}
#: The choices that only change where numbers come from or how work is scheduled, not the update: not checked.
NOT_RULES = frozenset({"draws"})


@dataclass(frozen=True, kw_only=True)
class RuleRun:
    """One choice of one parameter of one algorithm, run from the same start over the seeds."""

    algorithm: str
    param: str
    choice: str
    default: bool
    log_ratios: tuple[float, ...]
    params: Mapping[str, Any]

    @property
    def mean(self) -> float:
        """The mean of :math:`\\log(\\|\\nabla f(x^T)\\|^2 / \\|\\nabla f(x^0)\\|^2)` over the seeds."""
        return float(np.mean(self.log_ratios))

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Student-t interval of the mean (the mean itself where the seeds agree)."""
        x = np.asarray(self.log_ratios)
        if len(x) < 2 or float(np.std(x)) == 0.0:
            return self.mean, self.mean
        half = float(stats.t.ppf(0.975, len(x) - 1) * np.std(x, ddof=1) / math.sqrt(len(x)))
        return self.mean - half, self.mean + half

    @property
    def verdict(self) -> str:
        """``"descends"``, ``"ascends"`` (the interval below or above 0) or ``"unclear"``."""
        lo, hi = self.interval
        return "descends" if hi < 0 else "ascends" if lo > 0 else "unclear"


def instance(algorithm: type[SplitAlgorithm]) -> QuadraticProblem:
    """The quadratic every choice of ``algorithm`` runs on (:data:`INSTANCE`; one client for MU-Split)."""
    return QuadraticProblem.from_targets(**INSTANCE, M=1 if algorithm.name == "mu_split" else 4)


def small_steps(algorithm: type[SplitAlgorithm]) -> dict[str, float]:
    """Every local step size of ``algorithm`` at :data:`SMALL_STEP` (or its default where that is smaller)."""
    return {
        s.name: min(float(s.default), SMALL_STEP)
        for s in algorithm.takes
        if s.name.startswith("eta") and s.name != "eta_g" and s.kind == "float"
    }


def run_choice(algorithm: type[SplitAlgorithm], param: str, choice: str, *, T: int = T_RUN, seeds: int = SEEDS,
               done: dict[Any, tuple[float, ...]] | None = None) -> RuleRun:  # fmt: skip
    """``algorithm`` with ``param = choice`` and small steps on :func:`instance`, once per seed. ``done``: the
    log-ratios of configurations already run (keyed by the algorithm's full parameters), reused: every
    parameter's default choice is one and the same configuration."""
    params = {**small_steps(algorithm), param: choice}
    key = (algorithm.name, T, seeds, tuple(sorted(algorithm(**params).p.items())))
    ratios = None if done is None else done.get(key)
    if ratios is None:
        problem = instance(algorithm)
        runs = (run(algorithm(**params), problem, T=T, seed=seed, batch=8, progress=False) for seed in range(seeds))
        ratios = tuple(float(np.log(g[-1] / g[0])) for g in (r.series("gradnorm2") for r in runs))
        if done is not None:
            done[key] = ratios
    default = next(s.default for s in algorithm.takes if s.name == param) == choice
    return RuleRun(algorithm=algorithm.name, param=param, choice=choice, default=default,
                   log_ratios=ratios, params=params)  # fmt: skip


def check_rules(algorithms: Sequence[str] | None = None, *, T: int = T_RUN, seeds: int = SEEDS) -> list[RuleRun]:
    """Every choice of every choice-valued parameter (but :data:`NOT_RULES`) of ``algorithms`` (default: all)."""
    names = list(ALGORITHMS) if algorithms is None else list(algorithms)
    for n in names:
        if n not in ALGORITHMS:
            raise ParameterError("algorithm", f"'{n}' is not a trainer algorithm (one of: {', '.join(ALGORITHMS)})")
    out = []
    done: dict[Any, tuple[float, ...]] = {}
    for n in names:
        cls = ALGORITHMS[n]
        for spec in cls.takes:
            if spec.kind != "choice" or spec.name in NOT_RULES:
                continue
            for choice in spec.choices:
                try:
                    out.append(run_choice(cls, spec.name, choice, T=T, seeds=seeds, done=done))
                except SflTheoryError:  # a choice the instance does not admit (e.g. a one-client algorithm)
                    continue
    return out


def ascending(runs: Sequence[RuleRun]) -> list[tuple[RuleRun, RuleRun]]:
    """(choice, default) pairs where the choice ascends and the default of the same parameter descends."""
    defaults = {(r.algorithm, r.param): r for r in runs if r.default}
    pairs = []
    for r in runs:
        d = defaults.get((r.algorithm, r.param))
        if not r.default and d is not None and r.verdict == "ascends" and d.verdict == "descends":
            pairs.append((r, d))
    return pairs


def analysing(algorithm: str) -> list[str]:
    """The seed results whose experiment runs ``algorithm`` (what its printed rules are audited under)."""
    return sorted(rid for rid, e in EXPERIMENTS.items() if e.algorithm == algorithm)


def replay_command(r: RuleRun, problem_file: str, T: int) -> str:
    """The ``sfltheory train`` command that runs the choice on the instance (seed 0)."""
    words = " ".join(f"{k}={v}" for k, v in r.params.items())
    return f"sfltheory train {r.algorithm} --problem {problem_file} T={T} {words} batch=8 seed=0"


def records(runs: Sequence[RuleRun], T: int = T_RUN) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The ``update_rule`` records of every ascending choice, one per result analysing its algorithm, and the
    problem files they name (file name -> the quadratic as JSON)."""
    out, files = [], {}
    for r, d in ascending(runs):
        name = f"update_rule_{r.algorithm}_{r.param}_{r.choice}.json"
        files[name] = instance(ALGORITHMS[r.algorithm]).to_dict()
        lo, hi = r.interval
        for rid in analysing(r.algorithm):
            out.append({"result": rid, "kind": "update_rule", "counterexample": True, "algorithm": r.algorithm,
                        "param": r.param, "choice": r.choice, "analysed": d.choice, "T": T, "seeds": len(r.log_ratios),
                        "log_ratio": r.mean, "interval": [lo, hi], "analysed_log_ratio": d.mean,
                        "problem_file": name, "command": replay_command(r, name, T)})  # fmt: skip
    return out, files


def every_run(runs: Sequence[RuleRun], T: int = T_RUN) -> dict[str, Any]:
    """Every choice run, ascending or not (``update_rules.json``, format :data:`RULES_FORMAT`): the errata page
    lists each printed and analysed variant with its measured log-ratio."""
    rows = [{"algorithm": r.algorithm, "param": r.param, "choice": r.choice, "default": r.default, "mean": r.mean,
             "interval": list(r.interval), "verdict": r.verdict, "seeds": len(r.log_ratios)} for r in runs]  # fmt: skip
    return {"format": RULES_FORMAT, "T": T, "instance": INSTANCE, "step": SMALL_STEP, "runs": rows}


def save(runs: Sequence[RuleRun], out: str | Path, T: int = T_RUN) -> Path:
    """Add the update-rule records to ``out/counterexamples.json`` (kept: the records of other kinds there, from
    ``verify --worst-case``/``--tightest``; replaced: earlier update-rule records), with their problem files, and
    every run to ``out/update_rules.json`` (:func:`every_run`)."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    path = d / FILE
    kept: list[Any] = []
    if path.exists():
        kept = [rec for rec in records_in(path, "--out", ": not overwritten") if rec.get("kind") != "update_rule"]
    recs, files = records(runs, T)
    for name, problem in files.items():
        write_atomic(d / name, json.dumps(problem) + "\n")
    write_atomic(d / RULES_FILE, json.dumps(every_run(runs, T), indent=1, allow_nan=False) + "\n")
    write_atomic(path, json.dumps({"format": FORMAT, "results": kept + recs}, indent=1) + "\n")
    return path


def table(runs: Sequence[RuleRun]) -> str:
    """The runs as a Markdown table: algorithm, parameter, choice, mean log-ratio, its interval and verdict."""
    lines = [
        "| algorithm | parameter | choice | log(g_T / g_0) | 95% interval | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for r in runs:
        lo, hi = r.interval
        mark = " (default)" if r.default else ""
        lines.append(f"| {r.algorithm} | {r.param} | {r.choice}{mark} | {r.mean:.3f} | [{lo:.3f}, {hi:.3f}] | "
                     f"{r.verdict} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m verify.pipeline.updaterules --out DIR``: run the check, print the table, save the records."""
    ap = argparse.ArgumentParser(prog="python -m verify.pipeline.updaterules", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for counterexamples.json (sfltheory audit --counterexamples)")
    ap.add_argument("--T", type=int, default=T_RUN, help=f"rounds per run (default {T_RUN})")
    ap.add_argument("--seeds", type=int, default=SEEDS, help=f"seeds per choice (default {SEEDS})")
    ap.add_argument("--algorithm", action="append", help="only this algorithm (repeatable)")
    a = ap.parse_args(argv)
    try:
        if a.T < 1:
            raise ParameterError("--T", f"must be an integer >= 1 (got {a.T})")
        if a.seeds < 2:
            raise ParameterError("--seeds", f"must be an integer >= 2 for an interval (got {a.seeds})")
        check_dir("--out", a.out)
        runs = check_rules(a.algorithm, T=a.T, seeds=a.seeds)
        print(table(runs))
        path = save(runs, a.out, a.T)
    except SflTheoryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    found = ascending(runs)
    print(f"\n{len(found)} printed choice(s) ascend where the analysed one descends; records in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
