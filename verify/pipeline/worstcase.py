r"""The worst case of a first-order result over its assumption class, on quadratics (PEPit's question for SFL).

Within the class a result assumes -- every f_m L-smooth and bounded below (H's spectrum in [0, L]), the
heterogeneity, noise and initial gap as measured exactly -- draw problem instances and step sizes the
hypotheses admit, compute the left-hand side exactly (:mod:`verify.pipeline.exact`) and the bound with the
instance's exact constants, and keep the largest ratio measured / bound over T. A ratio above 1 is a
counterexample: the instance (as a ``--problem`` file), the step and T reproduce it.

Instances are drawn in a seeded random search biased to the extremes a bound is usually loose or tight at:
eigenvalues at L and near 0, noise or heterogeneity switched off, steps at the largest admissible value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.atomic import write_atomic
from sfltheory.audit.falsified import FILE, FORMAT, records_in
from sfltheory.errors import ParameterError
from sfltheory.experiments import experiment, lhs_quantity
from verify.problems import QuadraticProblem
from verify.train import get

from .exact import exact_moments
from .report.document import result_stem
from .theoryparams import theory_params
from .verdicts import exact_applies, lhs_series


@dataclass(frozen=True, kw_only=True)
class WorstCase:
    """The largest measured / bound ratio found, where, and how many instances were tried."""

    result: str
    ratio: float
    T: int
    step: float
    problem: dict[str, Any]
    tried: int
    ratios: list[float]

    @property
    def counterexample(self) -> bool:
        """Whether the worst ratio exceeds 1 (beyond a relative 1e-9 of rounding): the bound fails on this instance."""
        return self.ratio > 1.0 + 1e-9

    def to_dict(self) -> dict[str, Any]:
        """The search as JSON-ready data (the list of every ratio tried is left out)."""
        return {
            "result": self.result,
            "worst_ratio": self.ratio,
            "at_T": self.T,
            "step": self.step,
            "counterexample": self.counterexample,
            "instances": self.tried,
            "problem": self.problem,
        }

    def save_problem(self, path: str | Path) -> None:
        """Write the worst instance as a quadratic JSON file, which ``--problem`` reads back to reproduce it."""
        write_atomic(Path(path), json.dumps(self.problem) + "\n")


def _instance(rng: np.random.Generator, M: int, d: int, d_c: int, noise: str) -> QuadraticProblem:
    kind = rng.integers(4)
    eig = rng.uniform(0.0, 1.0, d)
    eig[rng.integers(d)] = 1.0  # L = 1 (bounds are scale-covariant)
    if kind == 1:
        eig[: d // 2] = rng.uniform(0.0, 1e-3, d // 2)  # nearly flat directions
    if kind == 2:
        eig[:] = 1.0  # isotropic
    rng.shuffle(eig)
    while eig.max() < 1.0:
        eig[rng.integers(d)] = 1.0
    bbar = rng.standard_normal(d)
    dirs = rng.standard_normal((M, d))
    dirs = dirs - dirs.mean(0) if M > 1 else dirs * 0
    het = 0.0 if kind == 3 else rng.uniform(0.0, 2.0)
    shifts = bbar + het * dirs
    sigma2 = 0.0 if rng.random() < 0.2 else rng.uniform(0.0, 2.0)
    x0 = bbar + rng.standard_normal(d) * rng.uniform(0.3, 3.0)
    return QuadraticProblem(eig.tolist(), shifts.tolist(), x0.tolist(), d_c, sigma2, noise=noise)


def worst_case(result: str, *, instances: int = 20, T: int = 20, batch: int = 2, seed: int = 0) -> WorstCase:
    """Search ``instances`` problems and steps for the largest measured / bound ratio (see the module docstring)."""
    exp = experiment(result)
    if not exact_applies(exp.algorithm, exp.sampled):
        raise ParameterError(result, "the worst-case search needs exact moments: a first-order algorithm")
    r = st.get(result)
    assert r.step is not None
    rng = np.random.default_rng(seed)
    best: WorstCase | None = None
    ratios: list[float] = []
    for i in range(instances):
        p = _instance(rng, exp.M, 6, 3, exp.noise)
        params, _ = theory_params(exp, r, p, batch)
        if not (params.get("F", 1.0) > 0):
            continue
        admissible = float(np.asarray(st.max_step(result, {**params, "T": T}).max_step))
        step = admissible * (1.0 if rng.random() < 0.6 else rng.uniform(0.1, 1.0))
        algo = {**{k: v for k, v in exp.params.items() if k in {s.name for s in get(exp.algorithm).takes}},
                **exp.algorithm_only, **dict.fromkeys(exp.step_to, step)}  # fmt: skip
        g = exact_moments(get(exp.algorithm)(**algo), p, T=T, batch=batch).series(lhs_quantity(exp.lhs))[:T]
        lhs, _ = lhs_series(exp.lhs, g[None, :], step)
        Ts = np.arange(1, T + 1, dtype=float)
        bound = np.asarray(st.bound_value(r, {**params, r.step: step, "T": Ts}), dtype=float) * np.ones(T)
        ratio = lhs / bound
        k = int(np.argmax(ratio))
        ratios.append(float(ratio[k]))
        if best is None or ratio[k] > best.ratio:
            best = WorstCase(result=result, ratio=float(ratio[k]), T=k + 1, step=step, problem=p.to_dict(),
                             tried=i + 1, ratios=[])  # fmt: skip
    if best is None:
        raise ParameterError(result, "no admissible instance was drawn")
    return WorstCase(**{**best.__dict__, "tried": instances, "ratios": ratios})


def save_worst_cases(found: list[WorstCase], out: str | Path, refutations: Sequence[Mapping[str, Any]] = ()) -> Path:
    """Write ``out/counterexamples.json`` (every search, its worst ratio and, for a counterexample, the name of
    its ``--problem`` file, written beside it) atomically, keeping the records of other kinds already there
    (:mod:`verify.pipeline.updaterules`, :mod:`verify.pipeline.lemmas`); ``sfltheory audit --counterexamples out``
    reads it.
    ``refutations`` (:func:`verify.pep.replay.refutation_record`, from ``verify --tightest``) are written as
    ``refutation_ID_T.json`` files, each a record of kind ``tightest`` that ``python -m verify.pep FILE`` replays."""
    d = Path(out)
    records = []
    for ref in refutations:
        name = f"refutation_{result_stem(str(ref['result']))}_T{ref['T']}.json"
        write_atomic(d / name, json.dumps(dict(ref), indent=1) + "\n")
        ratio = ref["measured"] / ref["bound"]
        records.append({"result": ref["result"], "kind": "tightest", "counterexample": True, "at_T": ref["T"],
                        "step": ref["step"], "worst_ratio": ratio, "problem_file": name})  # fmt: skip
    for w in found:
        rec = w.to_dict()
        if w.counterexample:
            name = f"counterexample_{result_stem(w.result)}.json"
            w.save_problem(d / name)
            rec["problem_file"] = name
        records.append({k: v for k, v in rec.items() if k not in ("problem", "ratios")})
    path = d / FILE
    # the records other checks wrote here (update rules, lemmas) are kept; this run's kinds are replaced
    mine = ("worst_case", "tightest")
    old = records_in(path, "--out", ": not overwritten") if path.exists() else []
    kept = [r for r in old if r.get("kind", "worst_case") not in mine]
    write_atomic(path, json.dumps({"format": FORMAT, "results": [*kept, *records]}, indent=1) + "\n")
    return path
