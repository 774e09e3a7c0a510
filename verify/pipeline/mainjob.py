"""The empirical half of the main job: plan tau and the cut with the measured constants, check the step sizes,
train MU-SplitFed and split learning vs FedAvg at those choices on digits, verify the results that have
experiments (on exact problems, and on an MLP on digits for the bounded-gradient ones), and write the report.

Called by :mod:`sfltheory.mainjob` (which measures the constants first); every file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.atomic import write_atomic
from sfltheory.constants import Constants

PLAN_RESULT = "mu_splitfed/thm4.3"
TAU_GRID = np.arange(1, 5)  # a small grid: the runs stay short (tau server steps per round)
# MU-SplitFed's perturbations and radius for the run; P = 1 because Theorem 4.3, which plans it, is stated at
# P = 1 only (its bound has no P: evaluating it at P = 2 is refused)
ZO = {"P": 1, "lam": 1e-3, "eta_g": 1.0}
PRACTICAL = {"mu_splitfed": 0.005, "sl": 0.05, "fedavg": 0.05}  # steps that train the digits CNN in 20 rounds


def plan_for_digits(c: Constants, T: int) -> dict[str, Any]:
    """The cut and tau that minimise Theorem 4.3's bound at T rounds with the measured constants, and the
    largest step the theorem admits there."""
    from sfltheory.plan import plan
    from verify.models import build, model_cuts

    cuts = model_cuts(build("cnn", input_size=8), (1, 8, 8))
    measured, notes = c.params_for(PLAN_RESULT)
    params = {k: v for k, v in measured.items() if k not in ("d_c", "d_s")}
    params.update({"T": T, "M": 4, "eta_g": 1.0, "lam": ZO["lam"], "P": ZO["P"]})
    p = plan(PLAN_RESULT, params, cuts=cuts, grid=TAU_GRID, step="max")
    best = p.best
    if best is None or best.best is None or best.cut is None:
        raise st.ParameterError("plan", f"no feasible plan for the digits CNN: {p.reason}")
    choice = best.best
    return {"cut": best.cut.name, "tau": int(choice.value), "eta_max": float(choice.step or 0.0),
            "bound": float(choice.bound), "binding": str(choice.binding), "notes": notes}  # fmt: skip


def train_digits(planned: dict[str, Any], T: int, out: Path) -> dict[str, Any]:
    """MU-SplitFed at the planned cut and tau, and SL and FedAvg at the same cut, on digits with 4 Dirichlet
    clients; the runs' JSON under ``out/runs/``."""
    from verify.train import get, run
    from verify.train.setup import model_problem

    problem = model_problem(model="cnn", data="digits", cut=planned["cut"], clients=4, partition="dirichlet:0.5")
    runs = {}
    algos = {
        "mu_splitfed": {"tau": planned["tau"], "eta_c": PRACTICAL["mu_splitfed"], "eta_s": PRACTICAL["mu_splitfed"],
                        **ZO},
        "sl": {"eta_l": PRACTICAL["sl"], "K": 2},
        "fedavg": {"eta_l": PRACTICAL["fedavg"], "K": 2},
    }  # fmt: skip
    for name, params in algos.items():
        runs[name] = run(get(name)(**params), problem, T=T, batch=32, out=out / "runs" / name, progress=False)
    return runs


def figure(runs: dict[str, Any], path: Path) -> None:
    from sfltheory.plotting import save, style

    with style() as plt:
        fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
        for name, r in runs.items():
            axes[0].plot(r.series("t"), r.series("gradnorm2"), label=name)
            axes[1].plot(r.series("t"), r.series("loss"), label=name)
        axes[0].set_yscale("log")
        axes[0].set_ylabel(r"$\|\nabla f(x^t)\|^2$ (whole training set)")
        axes[1].set_ylabel("training loss f(x^t)")
        for ax in axes:
            ax.set_xlabel("round t")
        axes[1].legend()
        fig.suptitle("digits, FedAvg CNN split at the planned cut, 4 Dirichlet(0.5) clients")
        save(fig, path)


def run_pipeline(
    out_dir: Path,
    constants: Constants,
    *,
    T: int = 20,
    verify_T: int = 30,
    seeds: int = 8,
    results: Sequence[str] | None = None,
) -> list[Path]:
    """Plan, check, train, verify (``results``, default every one with an experiment); returns the files written."""
    from verify.pipeline import report
    from verify.pipeline.experiments import EXPERIMENTS
    from verify.pipeline.verification import cached_verify

    out_dir.mkdir(parents=True, exist_ok=True)
    planned = plan_for_digits(constants, T)
    runs = train_digits(planned, T, out_dir)
    figure(runs, out_dir / "train_digits.png")
    vdir = out_dir / "verify"
    ids = list(EXPERIMENTS) if results is None else list(results)
    done = []
    for rid in ids:  # exact quadratics at mini-batch 4; the results that need a model on the default MLP
        on_model = EXPERIMENTS[rid].problem == "model" if rid in EXPERIMENTS else False
        kw = {"seeds": 3, "batch": 32} if on_model else {"seeds": seeds, "batch": 4}
        done.append(cached_verify(rid, vdir / "cache", T=verify_T, **kw))
    written = report.write(done, vdir)
    lines = [
        f"plan ({PLAN_RESULT}, measured constants, T = {T}, tau in 1..{TAU_GRID[-1]}): cut '{planned['cut']}', "
        f"tau = {planned['tau']}, largest admissible step {planned['eta_max']:.3g} ({planned['binding']})",
        f"  the admissible step is impractically small; the runs use {PRACTICAL}",
        "",
        f"training on digits ({T} rounds): final ||grad f||^2, loss, test accuracy",
    ]
    for name, r in runs.items():
        last = r.records[-1]
        acc = "-" if last.test_acc is None else f"{last.test_acc:.3f}"
        lines.append(f"  {name:12s} {last.gradnorm2:10.4g} {last.loss:8.4f} {acc}  ({r.status})")
    lines += [
        "",
        "verification on exact problems and, for bounded-gradient results, a model (verdict at the admissible step):",
    ]
    lines += [f"  {v.result:28s} {v.verdict:12s} {v.method}" for v in done]
    lines += ["", f"report: {written[0]}"]
    write_atomic(out_dir / "pipeline.txt", "\n".join(lines) + "\n")
    write_atomic(out_dir / "plan_digits.json", json.dumps(planned, indent=2) + "\n")
    return [out_dir / "pipeline.txt", out_dir / "plan_digits.json", out_dir / "train_digits.png", *written]


__all__ = ["run_pipeline", "st"]
