"""The main job (``bash scripts/main.sh``, ``python -m verify.pipeline.main OUT``): the theory half's pages, then
the empirical half, into OUT (default ``out/``); every file is written atomically (temporary file + rename).

* the theory half (:mod:`sfltheory.mainjob`): ``CATALOGUE.md``, ``ERRATA.md``, ``VOCABULARY.md`` and
  ``example.json`` (MU-SplitFed Theorem 4.3 on an AlexNet-sized split);
* ``cuts_resnet18.json``, ``plan_resnet18.json``/``.txt``/``.png``: the cuts of ResNet-18 (CIFAR-10) and
  the plan over every cut and tau = 1..1000 under Theorem 4.3, with Corollary 4.4's rule beside it;
* ``constants_digits_cnn.json``, ``thm43_digits_cnn.txt``: the constants of the FedAvg CNN on scikit-learn's
  digits (real data), split after ``conv2`` among 4 clients (Dirichlet 0.5 label skew), measured at
  initialisation (L[clients] among them), and MU-SplitFed Theorem 4.3 evaluated with them at its largest feasible step;
* the plan-train-verify loop (:func:`run_pipeline`): plan tau and the cut with the measured constants, check the
  step sizes, train MU-SplitFed and split learning vs FedAvg at those choices on digits, verify the results that
  have experiments (on exact problems, and on an MLP on digits for the bounded-gradient ones), and write the report.

Then ``README.md`` (:mod:`verify.pipeline.outreadme`): every file written, what it shows, and the settings.
The command line prints each stage as it starts (:mod:`verify.pipeline.stages`) and runs the theory pages' symbolic
audit in a second process alongside the rest, torch on one thread: about two and a half minutes on two CPU cores.

Everything but the theory pages needs torch: without it they are written alone, with a message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractContextManager, ExitStack, nullcontext
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from sfltheory import mainjob
from sfltheory.atomic import write_atomic
from sfltheory.constants import Constants
from sfltheory.errors import ParameterError
from sfltheory.evaluate import evaluate
from sfltheory.experiments import EXPERIMENTS
from sfltheory.plan import plan
from sfltheory.plan.render import cuts_dict, plan_dict
from sfltheory.plotting import plot_plan, save, style
from sfltheory.report import bound_text, num
from sfltheory.stepsize import max_step

from . import outreadme
from .stages import Progress, Stage

# The worked example of the README: ResNet-18 on CIFAR-10 split among 10 clients.
RESNET_RESULT = "mu_splitfed/thm4.3"
RESNET_PARAMS: dict[str, float] = {
    "L": 1.0,
    "F": 2.3,
    "T": 1000,
    "M": 10,
    "eta_g": 1.0,
    "sigma_c2": 1.0,
    "sigma_s2": 1.0,
    "eps2": 0.5,
    "lam": 1e-10,
}


def plan_example(out_dir: Path) -> dict[str, str] | None:
    """The ResNet-18 plan; None when torch is missing (the theory pages are written without it)."""
    try:
        from verify.models import model_cuts  # torch: imported only when the job gets this far
    except ImportError:
        return None
    cuts = model_cuts("resnet18")
    p = plan(RESNET_RESULT, RESNET_PARAMS, cuts=cuts)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_plan(p, out_dir / "plan_resnet18.png")  # written atomically by plotting.save
    return {
        "cuts_resnet18.json": json.dumps(cuts_dict(cuts), indent=2) + "\n",
        "plan_resnet18.json": json.dumps(plan_dict(p), indent=2, allow_nan=False) + "\n",
        "plan_resnet18.txt": str(p) + "\n",
    }


MEASURE_RESULT = "mu_splitfed/thm4.3"
MEASURED = ("L", "L_clients", "sigma2", "eps2", "F")  # every constant Theorem 4.3 reads that a model has
MEASURE_PARAMS: dict[str, float] = {"T": 1000, "tau": 4, "M": 4, "eta_g": 1.0, "lam": 1e-6, "P": 1}


def measure_example(every: int = 3) -> dict[str, str] | None:
    """Measure the digits CNN on every ``every``-th image and evaluate Theorem 4.3 with it; None without torch."""
    try:  # torch, as above
        from torch import nn

        from verify.constants import measure
        from verify.data import digits, partition
        from verify.models import build
    except ImportError:
        return None
    ds = digits()
    X, y = ds.X[::every], ds.y[::every]  # every 3rd: 599 of the 1797 images, a minute on two CPU cores
    clients = partition(y, 4, "dirichlet:0.5", seed=0)
    # L_clients: Theorem 4.3 (Assumption 3.2) needs L[clients], each client's own smoothness, not the global L
    c = measure(build("cnn", input_size=8), nn.CrossEntropyLoss(), (X, y), "conv2", what=MEASURED,
                clients=clients, tol=1e-2, chunk=600, device="cpu")  # fmt: skip
    c.meta.update({"model": "cnn (FedAvg, 1x8x8)", "data": f"digits[::{every}]", "partition": "dirichlet:0.5"})
    measured, notes = c.params_for(MEASURE_RESULT)
    params = {**measured, **MEASURE_PARAMS}
    sc = max_step(MEASURE_RESULT, params)
    ev = evaluate(MEASURE_RESULT, {**params, sc.step: sc.max_step})
    text = "\n".join(
        [
            f"{MEASURE_RESULT}, constants measured on the FedAvg CNN / digits (1 image in {every}),",
            "cut after conv2, 4 clients (Dirichlet 0.5):",
            *(f"  {n}" for n in notes),
            f"largest feasible {sc.step}: {num(sc.max_step)} ({sc.binding})",
            "",
            bound_text(ev),
        ]
    )
    return {"constants_digits_cnn.json": c.to_json(), "thm43_digits_cnn.txt": text + "\n"}


PLAN_RESULT = "mu_splitfed/thm4.3"
TAU_GRID = np.arange(1, 5)  # a small grid: the runs stay short (tau server steps per round)
# MU-SplitFed's perturbations and radius for the run; P = 1 because Theorem 4.3, which plans it, is stated at
# P = 1 only (its bound has no P: evaluating it at P = 2 is refused)
ZO = {"P": 1, "lam": 1e-3, "eta_g": 1.0}
PRACTICAL = {"mu_splitfed": 0.005, "sl": 0.05, "fedavg": 0.05}  # steps that train the digits CNN in 20 rounds
# The job's settings, chosen to finish in about three minutes on two CPU cores (out/README.md states them):
TRAIN_T = 20  # training rounds on digits
EVAL_SAMPLES = 120  # ||grad f||^2 recorded each round on a fixed 120 training samples per client, not all 1438
VERIFY_T = 20  # rounds of each verification run (the exact corollaries re-run every T of the grid: cost ~ T^2)
SEEDS = 8  # Monte-Carlo seeds on an exact quadratic (first-order results are exact moments: no seeds)
MODEL_SEEDS = 3  # runs on a model (the bounded-gradient results)
# torch on one thread for the whole job (the audit has the other core first): on two shared cores a second torch
# thread mostly spin-waits; True gives torch both cores back once the measured example is done
SHARE_AFTER_AUDIT = False


def plan_for_digits(c: Constants, T: int) -> dict[str, Any]:
    """The cut and tau that minimise Theorem 4.3's bound at T rounds with the measured constants, and the
    largest step the theorem admits there."""
    # imported here, not at the top: they import torch, and the job without torch writes the theory pages alone
    from verify.models import build, model_cuts

    cuts = model_cuts(build("cnn", input_size=8), (1, 8, 8))
    measured, notes = c.params_for(PLAN_RESULT)
    params = {k: v for k, v in measured.items() if k not in ("d_c", "d_s")}
    params.update({"T": T, "M": 4, "eta_g": 1.0, "lam": ZO["lam"], "P": ZO["P"]})
    p = plan(PLAN_RESULT, params, cuts=cuts, grid=TAU_GRID, step="max")
    best = p.best
    if best is None or best.best is None or best.cut is None:
        raise ParameterError("plan", f"no feasible plan for the digits CNN: {p.reason}")
    choice = best.best
    return {"cut": best.cut.name, "tau": int(choice.value), "eta_max": float(choice.step or 0.0),
            "bound": float(choice.bound), "binding": str(choice.binding), "notes": notes}  # fmt: skip


def train_digits(planned: dict[str, Any], T: int, out: Path) -> dict[str, Any]:
    """MU-SplitFed at the planned cut and tau, and SL and FedAvg at the same cut, on digits with 4 Dirichlet
    clients; the runs' JSON under ``out/runs/`` (a rerun with the same settings resumes from there: no work)."""
    from verify.problems import model_problem  # torch, as above
    from verify.train import get, run

    problem = model_problem(model="cnn", data="digits", cut=planned["cut"], clients=4, partition="dirichlet:0.5",
                            eval_samples=EVAL_SAMPLES)  # fmt: skip
    runs = {}
    for name, params in algorithms(planned).items():
        runs[name] = run(get(name)(**params), problem, T=T, batch=32, out=out / "runs" / name, progress=False)
    return runs


def algorithms(planned: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The three runs' parameters: MU-SplitFed at the planned tau, SL and FedAvg at K = 2 local steps."""
    return {
        "mu_splitfed": {"tau": planned["tau"], "eta_c": PRACTICAL["mu_splitfed"], "eta_s": PRACTICAL["mu_splitfed"],
                        **ZO},
        "sl": {"eta_l": PRACTICAL["sl"], "K": 2},
        "fedavg": {"eta_l": PRACTICAL["fedavg"], "K": 2},
    }  # fmt: skip


def figure(runs: dict[str, Any], path: Path, planned: dict[str, Any] | None = None) -> None:
    """The runs' squared gradient norm and loss against the round; the title names the cut, tau and the steps."""
    with style() as plt:
        fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.9))
        for name, r in runs.items():
            axes[0].plot(r.series("t"), r.series("gradnorm2"), label=name)
            axes[1].plot(r.series("t"), r.series("loss"), label=name)
        axes[0].set_yscale("log")
        axes[0].set_ylabel(r"$\|\nabla f(x^t)\|^2$" + f" ({EVAL_SAMPLES} samples per client)")
        axes[1].set_ylabel("training loss f(x^t)")
        for ax in axes:
            ax.set_xlabel("round t")
        axes[1].legend()
        title = "digits, FedAvg CNN, 4 Dirichlet(0.5) clients"
        if planned is not None:
            steps = ", ".join(f"{k} {v:g}" for k, v in PRACTICAL.items())
            title += (f": cut after '{planned['cut']}', tau = {planned['tau']} (both planned)\n"
                      f"steps: {steps}; SL and FedAvg K = 2, batch 32")  # fmt: skip
        fig.suptitle(title)
        save(fig, path)


def _stage(progress: Progress | None, name: str) -> AbstractContextManager[None]:
    return nullcontext() if progress is None else progress.stage(name)


def run_pipeline(
    out_dir: Path,
    constants: Constants,
    *,
    T: int = TRAIN_T,
    verify_T: int = VERIFY_T,
    seeds: int = SEEDS,
    results: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> list[Path]:
    """Plan, check, train, verify (``results``, default every one with an experiment); returns the files written.
    ``progress``: the job's stages (``plan``, ``train``, ``verify``, ``report``), announced as they start."""
    from verify.pipeline import report  # torch, as above
    from verify.pipeline.check import cached_check, prepare
    from verify.spec import CheckSpec

    out_dir.mkdir(parents=True, exist_ok=True)
    with _stage(progress, "plan"):
        planned = plan_for_digits(constants, T)
    with _stage(progress, "train"):
        runs = train_digits(planned, T, out_dir)
        figure(runs, out_dir / "train_digits.png", planned)
    vdir = out_dir / "verify"
    ids = list(EXPERIMENTS) if results is None else list(results)
    done = []
    with _stage(progress, "verify"):
        specs = []
        for rid in ids:  # exact quadratics at mini-batch 4; the results that need a model on the default MLP
            on_model = EXPERIMENTS[rid].problem == "model" if rid in EXPERIMENTS else False
            specs.append(CheckSpec(result=rid, T=verify_T, seeds=min(seeds, MODEL_SEEDS) if on_model else seeds,
                                   batch=32 if on_model else 4))  # fmt: skip
        ready = [prepare(spec) for spec in specs]  # every check's input checked before the first runs
        for spec, p in zip(specs, ready, strict=True):
            rid = spec.result
            done.append(cached_check(spec, vdir / "cache", prepared=p))
            if progress is not None:
                print(f"    {rid}: {done[-1].verdict} ({done[-1].method})", flush=True)
    with _stage(progress, "report"):
        written = report.write(done, vdir)
    lines = [
        f"plan ({PLAN_RESULT}, measured constants, T = {T}, tau in 1..{TAU_GRID[-1]}): cut '{planned['cut']}', "
        f"tau = {planned['tau']}, largest admissible step {planned['eta_max']:.3g} ({planned['binding']})",
        f"  the admissible step is impractically small; the runs use {PRACTICAL}",
        "",
        f"training on digits ({T} rounds): final ||grad f||^2 ({EVAL_SAMPLES} samples per client), loss, test accuracy",
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
    run_files = sorted(p for name in runs for p in (out_dir / "runs" / name).iterdir() if p.is_file())
    cache = sorted((vdir / "cache").glob("*.json"))
    return [out_dir / "pipeline.txt", out_dir / "plan_digits.json", out_dir / "train_digits.png", *written,
            *run_files, *cache]  # fmt: skip


STAGES = (
    Stage(name="start", does="starting the theory pages (catalogue, errata from a symbolic audit of every result, "
          "vocabulary, the AlexNet-sized example) in a second process, alongside the stages below", seconds=1),
    Stage(name="resnet", does="the cuts of ResNet-18 and the plan of tau and the cut under Theorem 4.3", seconds=4),
    Stage(name="measure", does="measuring L, L[clients], sigma2, eps2, F of the digits CNN (Lanczos, per-sample "
          "gradients)", seconds=8),
    Stage(name="plan", does="planning the cut and tau for digits with the measured constants", seconds=1),
    Stage(name="train", does="training MU-SplitFed, SL and FedAvg on digits at the planned cut and tau", seconds=10),
    Stage(name="verify", does="verifying each result with an experiment, measured against predicted", seconds=110),
    Stage(name="report", does="the verification report (HTML, Markdown, JSON, one figure per result)", seconds=12),
    Stage(name="pages", does="writing the theory pages (waiting for the audit if it is still running)", seconds=2),
)  # fmt: skip


def torch_threads(n: int | None) -> int | None:
    """Set torch's intra-op threads to ``n`` (None: leave them); the count before, None without torch."""
    try:
        import torch
    except ImportError:
        return None
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    return before


def run(
    out_dir: Path,
    measure_every: int = 3,
    pipeline: bool = True,
    progress: Progress | None = None,
    background: bool = False,
) -> list[Path]:
    """The whole job into ``out_dir``: the ResNet-18 plan, the measured example, (``pipeline``) the plan-train-verify
    loop and the theory pages, then ``README.md`` (what each file is); returns the files written.
    ``progress``: announce each stage (the command line passes one; a library call is silent). ``background``:
    compute the theory pages (their symbolic audit takes the better part of a minute) in a second process while
    the rest runs (the command line does; a library call computes them here, where the audit is cached)."""
    with ExitStack() as stack:
        pages: Future[dict[str, str]] | None = None
        threads = None
        if background:
            with _stage(progress, "start"):
                pool = stack.enter_context(ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")))
                pages = pool.submit(mainjob.pages)
            # one core each while the audit runs: torch's threads spin-wait on a busy core, burning CPU for nothing
            threads = torch_threads(1)
        files: dict[str, str] = {}
        with _stage(progress, "resnet"):
            planned = plan_example(out_dir)
        if planned is None:
            print("torch is not installed: skipping the ResNet-18 plan (pip install -e .[verify])")
        else:
            files.update(planned)
        with _stage(progress, "measure"):
            measured = measure_example(measure_every)
        if measured is not None:
            files.update(measured)
        torch_threads(threads if SHARE_AFTER_AUDIT else None)
        written = [out_dir / "plan_resnet18.png"] if planned is not None else []
        written += mainjob.write(out_dir, files)
        if measured is not None and pipeline:
            c = Constants.from_dict(json.loads(measured["constants_digits_cnn.json"]))
            written += run_pipeline(out_dir, c, progress=progress)
        with _stage(progress, "pages"):
            written += mainjob.write(out_dir, mainjob.pages() if pages is None else pages.result())
    settings = outreadme.Settings(measure_every=measure_every, train_T=TRAIN_T, verify_T=VERIFY_T, seeds=SEEDS,
                                  model_seeds=MODEL_SEEDS, eval_samples=EVAL_SAMPLES,
                                  pipeline=measured is not None and pipeline)  # fmt: skip
    write_atomic(out_dir / "README.md", outreadme.readme(out_dir, written, settings))
    return [*written, out_dir / "README.md"]


def main(argv: list[str] | None = None) -> int:
    """The command line: write the main job into OUT (``argv[0]``, default ``out``), showing the stages as they run,
    then print the summary and the text files worth reading; ``--docs`` writes the committed pages alone
    (:func:`sfltheory.mainjob.main`)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--docs"]:  # the committed pages alone: the theory half's job
        return mainjob.main(args)
    out = Path(args[0] if args else "out")
    progress = Progress(stages=STAGES)
    written = run(out, progress=progress, background=True)
    print(f"wrote {len(written)} files into {out}/; {out / 'README.md'} says what each one is")
    progress.finish()
    print("\n".join(mainjob.summary(out)))
    for extra in ("plan_resnet18.txt", "thm43_digits_cnn.txt", "pipeline.txt"):
        if (out / extra).exists():
            print()
            print((out / extra).read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
