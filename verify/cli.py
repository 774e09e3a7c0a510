"""The commands the torch half owns: ``sfltheory measure``, ``train``, ``verify`` and ``sweep``.

:func:`register` adds their parsers to ``sfltheory``'s; nothing here imports torch until a command runs, so
``sfltheory list`` and ``bound`` start as fast as before.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import wraps
from typing import Any

from sfltheory.cliargs import EXIT_USAGE, count_arg, options_given, parse_assignments, positive_arg, refuse_with
from sfltheory.errors import ParameterError
from sfltheory.experiments import EXPERIMENTS, NO_EXPERIMENT, without_experiment
from sfltheory.outputs import check_dir, check_outputs, keep, write_text
from verify.measurespec import MeasureSpec
from verify.spec import TrendSpec, flag, named_by, shape

# The commands import what runs them (the trainer, the estimators, the pipeline) inside their functions: those
# import torch, and this module is imported whenever the parser is built, for `sfltheory list` too, which must
# start in well under a second without torch.

EXIT_DIVERGED = 1
# measure's defaults (verify.constants.measure.PROBES/TOL, repeated here so that the parser imports no torch;
# verify.spec.MeasureSpec states the same)
PROBES = 30
TOL = 1e-3


def register(sub: Any) -> None:
    """Add ``measure``, ``train``, ``verify``, ``sweep`` and ``reproduce`` to a subparsers object
    (``sfltheory.cli.build_parser`` calls this)."""
    from verify.reproduce.cli import register as register_reproduce  # imports no torch
    from verify.sweep.cli import register as register_sweep  # imports no torch

    _measure_parser(sub)
    _train_parser(sub)
    _verify_parser(sub)
    register_sweep(sub)
    register_reproduce(sub)


# --- measure --------------------------------------------------------------------------------------------------


def _measure_parser(sub: Any) -> None:
    s = sub.add_parser(
        "measure",
        help="measure L, sigma^2, eps^2, G^2, kappa, F of a model on data, per part of a split",
        description="Measures at the model's initialisation (or --state), or along an SGD run (--steps).",
    )
    s.add_argument("--model", required=True, help="a registered model (sized to the data) or package.module:factory")
    s.add_argument("--data", required=True, help="digits, synthetic:n=..,shape=..,classes=.., or a .pt/.npz file")
    s.add_argument("--input-shape", help="reshape each sample, e.g. 64 for an MLP on digits")
    s.add_argument(
        "--cut",
        help="split after this block: its name, or its 1-based index L_c in `sfltheory cuts`; a name wins, so on an "
        "nn.Sequential --cut 1 is the block named '1' (the second)",
    )
    s.add_argument(
        "--cuts",
        help="measure at each cut: 'all' or a comma list (names or indices); writes one record per cut, which "
        "`plan --model M --constants FILE` uses cut by cut",
    )
    s.add_argument("--state", metavar="FILE", help="a state_dict to load (measure a trained model)")
    s.add_argument("--loss", default="auto", help="ce, mse or auto (ce for integer labels)")
    s.add_argument("--what", help="comma list: L,sigma2,eps2,kappa,F,gradnorm2_f,zo,L_clients (default: all but zo)")
    s.add_argument(
        "--for",
        dest="for_id",
        metavar="ID",
        help="measure what this result needs (its assumptions' variants, e.g. L[clients] for mu_splitfed/thm4.3), "
        "with --what on top",
    )
    s.add_argument("--clients", type=count_arg("--clients"), help="number of clients (heterogeneity needs >= 2)")
    s.add_argument("--partition", default="iid", help="iid, dirichlet:ALPHA, shards:K or sorted (default iid)")
    s.add_argument("--batch", type=count_arg("--batch"), help="also report the variance of a mini-batch of this size")
    s.add_argument(
        "--probes", type=count_arg("--probes"), default=PROBES, help=f"Hessian-vector products per trace ({PROBES})"
    )
    s.add_argument(
        "--tol", type=positive_arg("--tol"), default=TOL, help=f"Lanczos relative tolerance (default {TOL:g})"
    )
    s.add_argument("--fstar", type=float, default=0.0, help="a lower bound on f* for F = f(x0) - f* (default 0)")
    s.add_argument("--lam", type=positive_arg("--lam"), help="smoothing radius for the zeroth-order error (zo)")
    s.add_argument("--P", type=count_arg("--P"), default=1, help="perturbations per zeroth-order estimate")
    s.add_argument("--zo-form", default="spsa", choices=["spsa", "forward"], help="MU-SplitFed's or HERON-SFL's")
    s.add_argument("--steps", type=int, default=0, help="train this many SGD steps, measuring along the way")
    s.add_argument("--every", type=count_arg("--every"), default=50, help="measure every this many steps")
    s.add_argument("--lr", type=positive_arg("--lr"), default=0.05, help="SGD step size for --steps")
    s.add_argument("--train-batch", type=count_arg("--train-batch"), default=32, help="SGD mini-batch for --steps")
    s.add_argument("--run-dir", help="save the run here after every checkpoint, and resume from it")
    s.add_argument("--device", default="auto", help="auto (CUDA when present), cpu or cuda")
    s.add_argument("--float64", action="store_true", help="measure in double precision")
    s.add_argument("--chunk", type=count_arg("--chunk"), default=256, help="samples per forward pass (memory)")
    s.add_argument(
        "--threads",
        type=count_arg("--threads"),
        help="CPU threads for torch (default: torch's own); 1 is often fastest for a small model on a busy machine",
    )
    s.add_argument(
        "--seed", type=int, default=0, help="seeds the model's initialisation, the partition and the random probes"
    )
    s.add_argument("--out", metavar="FILE", help="write the constants as JSON to FILE (atomically)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=flagged(_cmd_measure))


def _cmd_measure(a: argparse.Namespace) -> int:
    import os

    # Idle OpenMP threads sleep instead of spinning (unless the user chose a policy): on a busy 2-core machine the
    # spinning made the README example take 96.6 s (73.8 s of CPU) against 39.0 s (24.6 s) -- benchmarks/RESULTS.md.
    # It acts only before torch starts its thread pool, which is why it is set here, before the first import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    check_outputs(a, files=("out",), dirs=("run_dir",))  # before any work
    from verify.device import present
    from verify.pipeline.measurement import measure_spec

    spec = measure_spec_of(a)
    present("measure.device", spec.device)  # this machine has it, before any work
    c = measure_spec(spec, progress=not a.quiet)
    if a.json:  # printed first: a write that fails below loses nothing
        print(c.to_json(), end="")
    else:
        print(c)
    if a.out:
        write_text("--out", a.out, c.to_json())
    return 0


def measure_spec_of(a: argparse.Namespace) -> MeasureSpec:
    """``measure``'s flags as a :class:`verify.measurespec.MeasureSpec` (a field in an error is named by its
    flag: the command runs under :func:`flagged`)."""
    what = tuple(w for w in a.what.split(",") if w) if a.what else None
    refuse_unused_measure_options(a, what)
    cuts = tuple(c.strip() for c in a.cuts.split(",")) if a.cuts is not None else None
    sample = shape("measure.input_shape", a.input_shape) if a.input_shape else None
    return MeasureSpec(
        model=a.model, data=a.data, input_shape=sample, cut=a.cut, cuts=cuts,
        state=a.state, loss=a.loss, what=what, for_id=a.for_id, clients=a.clients, partition=a.partition,
        batch=a.batch, probes=a.probes, tol=a.tol, fstar=a.fstar, lam=a.lam, P=a.P, zo_form=a.zo_form,
        steps=a.steps, every=a.every, lr=a.lr, train_batch=a.train_batch, run_dir=a.run_dir, device=a.device,
        float64=a.float64, chunk=a.chunk, threads=a.threads, seed=a.seed,
    )  # fmt: skip


# measure's options that act only with another: given without it they would be ignored, so they are refused
STEPS_ONLY = ("--every", "--lr", "--train-batch", "--run-dir")  # the SGD run of --steps
ZO_ONLY = ("--lam", "--P", "--zo-form")  # the zeroth-order error (zo in --what)


def refuse_unused_measure_options(a: argparse.Namespace, what: tuple[str, ...] | None) -> None:
    """Refuse an option of ``measure`` that nothing would read: the SGD settings without ``--steps``, the
    zeroth-order estimator's without ``zo`` in ``--what`` (``--for`` picks its own: not judged here)."""
    given = options_given(a)
    for name in STEPS_ONLY:
        if name in given and not a.steps:
            raise ParameterError(name, "sets the SGD run of --steps N: not without --steps (it would be ignored)")
    zo = a.for_id is not None or (what is not None and "zo" in what)
    for name in ZO_ONLY:
        if name in given and not zo:
            raise ParameterError(name, "sets the zeroth-order estimator: not without zo in --what (it would be "
                                 "ignored)")  # fmt: skip


# --- the time limit, shared by train and verify ---------------------------------------------------------------------

MAX_HOURS = 24.0  # verify.train.loop.MAX_HOURS, repeated so that the parser imports no torch


def max_hours_arg(s: argparse.ArgumentParser) -> None:
    """``--max-hours H``: a run estimated (from its first round) to take longer is stopped before its second."""
    s.add_argument(
        "--max-hours",
        type=positive_arg("--max-hours"),
        default=MAX_HOURS,
        metavar="H",
        help=f"stop before round 2 when T rounds would take longer than H hours at round 1's pace (default "
        f"{MAX_HOURS:g})",
    )


def within_hours(a: argparse.Namespace) -> Any:
    """The time budget of ``--max-hours`` (:func:`verify.train.loop.time_budget`) as a context."""
    from verify.train.loop import time_budget

    return time_budget(getattr(a, "max_hours", MAX_HOURS))


# --- a model problem's options, shared by train and verify ------------------------------------------------------

VERIFY_PARTITION = "dirichlet:0.5"  # verify's default clients are non-IID: heterogeneity is what the bounds are about


def model_problem_args(s: argparse.ArgumentParser, *, partition: str) -> None:
    """The options that describe a split model problem (``verify.problems.model_problem``), and ``--order``."""
    s.add_argument("--model", help="a registered model (sized to the data) or package.module:factory (default cnn)")
    s.add_argument("--data", help="digits (default), fashion-mnist, mnist1d, cifar10:root=.., a .pt/.npz file")
    s.add_argument("--cut", help="split after this block (name or 1-based index; default: the middle cut)")
    s.add_argument("--input-shape", help="reshape each sample, e.g. 64 for an MLP on digits")
    s.add_argument("--clients", type=count_arg("--clients"), help="number of clients M (default 4)")
    s.add_argument("--partition", help=f"iid, dirichlet:ALPHA, shards:K or sorted (default {partition})")
    s.add_argument("--loss", help="ce, mse or auto (ce for integer labels)")
    s.add_argument(
        "--eval-samples",
        type=count_arg("--eval-samples"),
        help="record ||grad f||^2 on a fixed subsample of this many per client (default: all)",
    )
    s.add_argument("--order", choices=["fixed", "random"], help="client order of the sequential algorithms")


# --- train ----------------------------------------------------------------------------------------------------


def _train_parser(sub: Any) -> None:
    s = sub.add_parser(
        "train",
        help="run a seed's algorithm on a split model or an exact quadratic: train ALGO name=value ...",
        description=(
            "Runs ALGO for T rounds and records, at t = 0, T and every --record-every rounds, ||grad f||^2 at the "
            "global model (with its client and server parts, running average and minimum over the recorded t), the "
            "loss, test accuracy, drift, bytes each way, passes per side and the simulated time. name=value: T, "
            "batch, seed; the algorithm's parameters (train --list); with --problem quadratic, its target constants "
            "L, mu, sigma2, eps2, d, d_c, M, F."
        ),
    )
    s.add_argument("algorithm", nargs="?", metavar="ALGO", help="an algorithm (see --list)")
    s.add_argument("assignments", nargs="*", metavar="name=value")
    s.add_argument("--list", action="store_true", help="list the algorithms, their papers and the results")
    s.add_argument("--problem", metavar="FILE|quadratic", help="a quadratic problem file (JSON), or 'quadratic'")
    model_problem_args(s, partition="iid")
    s.add_argument("--loop", action="store_true", help="run clients one by one (the reference), not batched")
    s.add_argument("--out", metavar="DIR", help="save run.json and a checkpoint here; an interrupted run resumes")
    s.add_argument("--checkpoint-every", type=count_arg("--checkpoint-every"), default=10, help="rounds")
    s.add_argument("--record-every", type=count_arg("--record-every"), metavar="K", help="record ||grad f||^2 on the "
                   "training set and the test accuracy at t = 0, every K rounds and T (default: auto, the smallest K "
                   "keeping recording within 25%% of the run; said before round 2)")  # fmt: skip
    s.add_argument("--truncate", action="store_true", help="with a T below the run in --out: write rounds 0..T to "
                   "OUT/truncated-T<T> (the run is kept)")  # fmt: skip
    s.add_argument("--device", default="auto", help="auto (default: CUDA when present, else the CPU), cpu or cuda")
    s.add_argument("--float64", action="store_true", help="train in double precision (quadratics always are)")
    s.add_argument("--client-time", help="seconds per client round on the whole model, one per client (time model)")
    s.add_argument("--server-step", type=positive_arg("--server-step"), help="seconds per server step, whole model")
    s.add_argument("--bandwidth", type=positive_arg("--bandwidth"), help="bytes/s per client link")
    s.add_argument("--json", action="store_true", help="print the run (configuration and records) as JSON")
    s.add_argument(
        "--tensorboard", metavar="DIR", help="also write the records as TensorBoard scalars here (extra: tensorboard)"
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    max_hours_arg(s)
    s.set_defaults(func=flagged(_cmd_train))


def _list_text() -> str:
    from verify.train import ALGORITHMS

    rows = [("name", "paper", "algorithm", "results")]
    for cls in ALGORITHMS.values():
        rows.append((cls.name, cls.paper, f"{cls.title} ({cls.source})", ", ".join(cls.results) or "-"))
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]}" for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w) + "  -------")
    return "\n".join(lines)


def _cmd_train(a: argparse.Namespace) -> int:
    if a.list:
        what = [f"ALGO '{a.algorithm}'"] if a.algorithm else []
        what += ["name=value"] if a.assignments else []
        refuse_with("--list", "lists the algorithms and runs nothing", what + options_given(a, besides=("--list",
                    "--json")))  # fmt: skip
        if a.json:
            from verify.train import ALGORITHMS

            print(json.dumps([c.describe() for c in ALGORITHMS.values()], indent=2))
        else:
            print(_list_text())
        return 0
    spec = train_spec(a)
    check_outputs(a, dirs=("out",))  # before any work; its room once the model is sized (train.launch)
    from verify.runs import require_tensorboard, write_tensorboard
    from verify.train.launch import launch, tensorboard_bytes

    if a.tensorboard:  # before any work: the extra, and a folder with room for T rounds of scalars
        require_tensorboard(f"--tensorboard {a.tensorboard}")
        check_dir("--tensorboard", a.tensorboard, need=tensorboard_bytes(spec.T))
    with within_hours(a):
        # the schedule as chosen (with the seconds it was timed on) goes to stderr with the progress bar (neither
        # with --quiet): stdout holds the run's table, the same on every machine (the README shows one verbatim)
        quiet = a.quiet or a.json
        r = launch(spec, progress=not quiet, announce=None if quiet else lambda s: print(s, file=sys.stderr))
    if a.json:
        print(json.dumps(r.to_dict(), indent=1, allow_nan=False))
    else:
        print(run_text(r))
        if r.out:
            print(f"run written to {r.out}/run.json")
    if a.tensorboard:  # after the run is printed; a failed write keeps the scalars in a fallback folder (exit 1)
        keep("--tensorboard", a.tensorboard, lambda p: write_tensorboard(r.records, p), folder=True)
        if not a.json:
            print(f"TensorBoard scalars written to {a.tensorboard}")
    if r.status == "diverged":
        print(f"sfltheory: {r.message}", file=sys.stderr)
        return EXIT_DIVERGED
    return 0


def train_spec(a: argparse.Namespace) -> Any:
    """``train``'s flags and ``name=value`` as a :class:`verify.spec.RunSpec` (errors name the flags)."""
    import numpy as np

    from verify.parse import run_spec as parse_run

    if not a.algorithm:
        raise ParameterError("algorithm", "name one (sfltheory train --list shows them)")
    if "=" in a.algorithm:
        raise ParameterError("algorithm", f"expected an algorithm name before name=value (got {a.algorithm!r})")
    from verify.train import get, word_params

    takes = {p.name for p in get(a.algorithm).takes}
    params = parse_assignments(a.assignments, words=word_params(), sweeps=False)
    own: dict[str, Any] = {}  # the algorithm's parameters named like a time-model option (sfl_aux's server_step)
    for k, v in params.items():
        if isinstance(v, np.ndarray):
            raise ParameterError(k, "train takes one value per parameter (a sweep is `sfltheory sweep`)")
        if k in TIME_NAMES and k in takes:
            own[k] = v
        elif k in TRAIN_FLAG_NAMES:
            raise ParameterError(k, f"is an option: give {TRAIN_FLAG_NAMES[k]}")
        if k in ("problem_seed", "noise"):
            raise ParameterError(k, "not a name=value of train: the problem is drawn from seed, a quadratic's noise "
                                 "law is set in its problem file or a sweep file")  # fmt: skip
    flat = {**{k: v for k, v in params.items() if k not in own}, "params": own or None, "algorithm": a.algorithm,
            "problem": a.problem, **model_problem_flat(a),
            "order": a.order, "loop": a.loop or None, "float64": a.float64 or None, "device": a.device,
            "client_time": a.client_time, "server_step": a.server_step, "bandwidth": a.bandwidth, "out": a.out,
            "checkpoint_every": a.checkpoint_every, "truncate": a.truncate or None,
            "record_every": a.record_every}  # fmt: skip
    return with_flags(parse_run, flat)


# the time model's names of the flat form: an algorithm's own parameter may have one (sfl_aux's server_step, a choice
# of its server step), which train then passes as the algorithm's, not the time model's
TIME_NAMES = ("client_time", "server_step", "bandwidth")
# names of the flat form that train takes as options, not as name=value (the rest of RUN_KEYS are name=value)
TRAIN_FLAG_NAMES = {"problem": "--problem", "loop": "--loop", "float64": "--float64", "device": "--device",
                    "out": "--out", "checkpoint_every": "--checkpoint-every", "client_time": "--client-time",
                    "server_step": "--server-step", "bandwidth": "--bandwidth", "clients": "--clients",
                    "model": "--model", "data": "--data", "cut": "--cut", "partition": "--partition",
                    "loss_fn": "--loss", "input_shape": "--input-shape", "eval_samples": "--eval-samples",
                    "order": "--order", "truncate": "--truncate", "record_every": "--record-every"}  # fmt: skip


def flagged(command: Any) -> Any:
    """``command`` with a spec field in an error named by its flag (``problem.clients`` -> ``--clients``): the
    library names fields, the command line prints flags."""

    @wraps(command)
    def run(a: argparse.Namespace) -> int:
        with named_by(flag):
            out: int = command(a)
        return out

    return run


def with_flags(parse: Any, flat: dict[str, Any]) -> Any:
    """``parse(flat)``, a spec's one parser, with a field in an error named by its flag (``--clients``)."""
    with named_by(flag):
        return parse(flat)


def model_problem_flat(a: argparse.Namespace) -> dict[str, Any]:
    """The model-problem flags, by their names in a run's flat form (``verify.spec.MODEL_KEYS``)."""
    return {"model": a.model, "data": a.data, "cut": a.cut, "clients": a.clients, "partition": a.partition,
            "loss_fn": a.loss, "input_shape": a.input_shape, "eval_samples": a.eval_samples}  # fmt: skip


def run_text(r: Any, rows: int = 11) -> str:
    """A run as a short table: a few records evenly spaced in t, and the configuration in one line."""
    c = r.config
    p = c["problem"]
    head = (
        f"{c['algorithm']} ({c['paper']}, {c['source']}) on {p.get('name', p['kind'])}: M = {p['M']}, "
        f"d_c = {p['d_c']}, T = {c['T']}, batch = {c['batch']}, seed = {c['seed']}, "
        f"{'batched' if c['batched'] else 'per-client loop'}"
    )
    params = "params: " + ", ".join(f"{k}={v}" for k, v in c["params"].items())
    recs = r.records
    idx = sorted({round(i * (len(recs) - 1) / (rows - 1)) for i in range(rows)}) if len(recs) > 1 else [0]
    acc = any(x.test_acc is not None for x in recs)
    cols = ["t", "|grad f|^2", "avg", "min", "loss"] + (["test acc"] if acc else []) + ["drift", "MB up", "MB down",
                                                                                           "sim s"]  # fmt: skip
    table = [cols]
    for i in idx:
        x = recs[i]
        row = [str(x.t), f"{x.gradnorm2:.4g}", f"{x.gradnorm2_avg:.4g}", f"{x.gradnorm2_min:.4g}", f"{x.loss:.4g}"]
        if acc:
            row.append("-" if x.test_acc is None else f"{x.test_acc:.3f}")
        row += ["-" if x.drift is None else f"{x.drift:.3g}", f"{x.bytes_up / 1e6:.3g}", f"{x.bytes_down / 1e6:.3g}",
                f"{x.sim_time:.4g}"]  # fmt: skip
        table.append(row)
    w = [max(len(t[i]) for t in table) for i in range(len(cols))]
    lines = [head, params] + ["  ".join(v.rjust(w[j]) for j, v in enumerate(t)) for t in table]
    if c.get("record_every", {}).get("k", 1) > 1:  # the rows skip rounds; avg and min are over the recorded ones
        lines.insert(2, c["recording"])
    lines.append(f"status: {r.status}" + (f" ({r.message})" if r.message else ""))
    return "\n".join(lines)


# --- verify ---------------------------------------------------------------------------------------------------


def _verify_parser(sub: Any) -> None:
    s = sub.add_parser(
        "verify",
        help="measured against predicted: run the algorithm a result analyses on an exact problem",
        description=(
            "Runs the algorithm each result analyses on an exact quadratic (first-order: exact moments; "
            "zeroth-order: Monte Carlo over seeds), evaluates the bound with the problem's exact constants at every "
            "T, and reports whether it holds, its tightness and the decay exponents, at the largest admissible step "
            "and at a practical one. name=value overrides a constant in the bound. On a model (--model, --data, "
            "--cut, --clients, --partition ...) the algorithm runs over seeds, the constants the result assumes are "
            "measured along the trajectory (sup over --points rounds) and the bound uses them; name=value then sets "
            "the theorem's step (the practical leg), the algorithm's parameters, or a constant no run measures "
            "(HERON-SFL's delta)."
        ),
    )
    s.add_argument("ids", nargs="*", metavar="ID", help="result ids (see `sfltheory verify --list`)")
    s.add_argument("assignments", nargs="*", metavar="name=value", help=argparse.SUPPRESS)
    s.add_argument("--all", action="store_true", help="every result that has an experiment")
    s.add_argument("--list", action="store_true", help="the results with an experiment, and why the others have none")
    s.add_argument("--T", type=count_arg("--T"), help="rounds (default 40; T=VALUE is the same)")
    s.add_argument(
        "--seeds",
        type=count_arg("--seeds"),
        help="seeds: Monte Carlo of zeroth-order algorithms (default 24), runs on a model (default 3)",
    )
    s.add_argument(
        "--problem",
        metavar="FILE|quadratic",
        help="a quadratic problem file (JSON, e.g. a saved counterexample) instead of the default one",
    )
    model_problem_args(s, partition=VERIFY_PARTITION)
    s.add_argument(
        "--points",
        type=count_arg("--points"),
        help="rounds of the trajectory where a model's constants are measured (default 3: x^0, x^T/2, x^T)",
    )
    s.add_argument("--batch", type=count_arg("--batch"), help="mini-batch (default 4 on a quadratic, 32 on a model)")
    s.add_argument("--device", help="where a model problem trains and is measured: cpu (default), cuda, cuda:N, auto")
    s.add_argument("--out", metavar="DIR", help="write report.html, report.md, report.json and figures here")
    s.add_argument("--worst-case", type=count_arg("--worst-case"), metavar="N",
                   help="also search N quadratics in the result's assumption class for the largest measured/bound "
                   "ratio (first-order results); a counterexample is saved as a --problem file with --out")  # fmt: skip
    s.add_argument("--tightest", nargs="?", const=3, type=count_arg("--tightest"), metavar="R",
                   help="also the worst case over the class the result assumes (an SDP, R rounds)")  # fmt: skip
    s.add_argument("--trends", action="store_true", help="run every trend check (claims about how convergence changes)")
    s.add_argument(
        "--trend",
        action="append",
        metavar="NAME",
        help="run this trend check (repeatable): tau_sweep, cut_sweep, cut_invariance, sl_vs_fedavg, client_speedup; "
        "with --out each writes trend_NAME.png and the report gets a Trends section",
    )
    s.add_argument("--json", action="store_true", help="print the verifications as JSON")
    s.add_argument(
        "--run",
        metavar="PATH",
        help="check a run that already exists: a run.json of `train --out` (or its folder), a CSV or JSON Lines log "
        "with columns t and gradnorm2 (settings as name=value or '# name=value' lines), or a TensorBoard folder",
    )
    s.add_argument(
        "--constants",
        metavar="FILE",
        action="extend",
        nargs="+",
        help="with --run: `sfltheory measure --out` records; several (e.g. measured at several rounds): their sup",
    )
    s.add_argument("--tags", metavar="Q=TAG,...", help="with --run on TensorBoard: gradnorm2=TAG[,loss=TAG]")
    max_hours_arg(s)
    s.set_defaults(func=flagged(_cmd_verify))


def _cmd_verify(a: argparse.Namespace) -> int:
    if a.list:
        what = ["result ids or name=value"] if a.ids or a.assignments else []
        refuse_with("--list", "lists the results with an experiment and runs nothing",
                    what + options_given(a, besides=("--list",)))  # fmt: skip
        for rid, e in EXPERIMENTS.items():
            print(f"{rid:30s} {e.algorithm:16s} {e.lhs:8s} {e.problem}")
        for rid, why in without_experiment().items():  # every other result, with its reason
            print(f"{rid:30s} -                {why if rid not in NO_EXPERIMENT else 'no experiment: ' + why}")
        return 0
    job = verify_job(a)
    check_outputs(a, dirs=("out",))  # before any work
    from verify.pipeline.job import outcome_text, run_job

    say = (lambda s: None) if a.json else (lambda s: print(s, file=sys.stderr))
    with within_hours(a):
        o = run_job(job, say=say)
    if a.run is not None and not a.json:  # the answer first, one line per result
        from verify.pipeline.fromrun import answer

        for v in o.done:
            print(answer(v))
    if a.out and o.written and not a.json:
        print(f"report written to {o.written[0]}")
    if a.json:
        from verify.pipeline import report

        out = report.to_json(list(o.done), worst_cases=list(o.worst), trends=list(o.trends))
        print(json.dumps(out, indent=1, allow_nan=False))
    else:
        print(outcome_text(o))
    if o.failed:
        print(f"sfltheory: {len(o.failed)} of {len(job.checks)} results failed (the others are reported)",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def verify_job(a: argparse.Namespace) -> Any:
    """``verify``'s flags and ``name=value`` as a :class:`verify.pipeline.job.Job`: one
    :class:`verify.spec.CheckSpec` per result (errors name the flags), every one checked before any work."""
    from verify.parse import check_spec
    from verify.pipeline.job import Job
    from verify.pipeline.trends import CHECKS

    ids = [x for x in a.ids if "=" not in x]
    from verify.train import word_params

    names = parse_assignments([x for x in [*a.ids, *a.assignments] if "=" in x], words=word_params(), sweeps=False)
    if a.all:
        if ids:
            raise ParameterError("--all", "give result ids or --all, not both")
        ids = list(EXPERIMENTS)
    if a.trends and a.trend:
        raise ParameterError("--trends", f"runs every trend check: not with --trend {a.trend[0]} (give one or the "
                             "other)")  # fmt: skip
    trend_names = list(CHECKS) if a.trends else list(dict.fromkeys(a.trend or []))
    for name in trend_names:
        if name not in CHECKS:
            raise ParameterError("--trend", f"unknown trend check '{name}' (known: {', '.join(CHECKS)})")
    if not ids and not trend_names:
        raise ParameterError("ID", "name a result to verify, or --all, or --trends (sfltheory verify --list)")
    if a.run is not None or a.constants or a.tags:
        return run_verify_job(a, ids, names, bool(trend_names))
    flags = {"T": a.T, "seeds": a.seeds, "batch": a.batch, "points": a.points, "problem": a.problem,
             "order": a.order, "device": a.device, "tightest": a.tightest, **model_problem_flat(a)}  # fmt: skip
    for k, v in flags.items():  # a name given as name=value and as its flag is one thing: once, or equal
        if k in names and v is not None and names[k] != v:
            shown = f"{names[k]:g}" if isinstance(names[k], float) else names[k]
            raise ParameterError(k, f"given as {k}={shown} and as --{k.replace('_', '-')} {v}: give it once")
    flat = {**names, **{k: v for k, v in flags.items() if v is not None}}
    on_model = any(v is not None for v in model_problem_flat(a).values()) and a.problem is None
    if a.all and on_model:  # a corollary's step is a function of T: those run on the exact quadratics only
        skipped = [rid for rid in ids if EXPERIMENTS[rid].at_choice]
        ids = [rid for rid in ids if not EXPERIMENTS[rid].at_choice]
        if skipped and not a.json:
            print(f"on a model, --all leaves out the corollaries whose step depends on T: {', '.join(skipped)}",
                  file=sys.stderr)  # fmt: skip
    if a.worst_case and on_model:
        raise ParameterError("--worst-case", "searches exact quadratics; not with a model problem")
    checks = tuple(with_flags(lambda m: check_spec(m, partition=VERIFY_PARTITION), {**flat, "result": r})
                   for r in ids)  # fmt: skip
    return Job(checks=checks, worst_case=a.worst_case, trends=tuple(TrendSpec(name=n) for n in trend_names),
               out=a.out)  # fmt: skip


def run_verify_job(a: argparse.Namespace, ids: list[str], names: dict[str, Any], trends: bool) -> Any:
    """``verify ID --run PATH``: one :class:`verify.spec.CheckSpec` per result against the run on disk; the flags
    that run the algorithm (--T, --seeds, --points, a problem, --worst-case, trends, --all) are refused, since the
    run fixes its rounds, problem and settings."""
    from verify.parse import check_spec
    from verify.pipeline.job import Job

    if a.run is None:
        raise ParameterError("--constants" if a.constants else "--tags", "reads a run from disk: add --run PATH")
    refused = {"--all": a.all, "--trends/--trend": trends, "--worst-case": a.worst_case, "--problem": a.problem,
               "--tightest": a.tightest,
               "--seeds": a.seeds, "--T": a.T is not None or "T" in names,
               "--points": a.points not in (None, 3), "--device": a.device is not None,
               **{flag(f"problem.{k}"): v for k, v in model_problem_flat(a).items() if k not in ("loss_fn",)},
               "--loss": a.loss}  # fmt: skip
    for name, given in refused.items():
        if given:
            raise ParameterError(name, "runs the algorithm; --run checks a run that exists (its rounds, problem "
                                 "and settings are the run's)")  # fmt: skip
    flat = {**names, "run": a.run, "constants": a.constants, "tags": a.tags, "batch": a.batch, "order": a.order}
    checks = tuple(with_flags(check_spec, {**flat, "result": r}) for r in ids)
    return Job(checks=checks, out=a.out)


__all__ = ["EXIT_DIVERGED", "EXIT_USAGE", "register", "run_text"]
