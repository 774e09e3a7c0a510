"""The commands the torch half owns: ``sfltheory measure`` and ``sfltheory train``.

:func:`register` adds their parsers to ``sfltheory``'s; nothing here imports torch until a command runs, so
``sfltheory list`` and ``bound`` start as fast as before.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sfltheory.cli import EXIT_USAGE, count_arg, parse_assignments, parse_shape, positive_arg
from sfltheory.errors import ParameterError, SflTheoryError

EXIT_DIVERGED = 1
# measure's defaults (verify.constants.measure.PROBES/TOL, repeated here so that the parser imports no torch)
PROBES = 30
TOL = 1e-3


def register(sub: Any) -> None:
    """Add ``measure``, ``train``, ``verify`` and ``sweep`` to a subparsers object (``sfltheory.cli.build_parser``
    calls this)."""
    from verify.sweep.cli import register as register_sweep  # imports no torch

    _measure_parser(sub)
    _train_parser(sub)
    _verify_parser(sub)
    register_sweep(sub)


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
    s.set_defaults(func=_cmd_measure)


def _cmd_measure(a: argparse.Namespace) -> int:
    import os

    # Idle OpenMP threads sleep instead of spinning (unless the user chose a policy): on a busy 2-core machine the
    # spinning made the README example take 96.6 s (73.8 s of CPU) against 39.0 s (24.6 s) -- benchmarks/RESULTS.md.
    # It acts only before torch starts its thread pool, which is why it is set here, before the first import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from verify.constants.cli import run

    c = run(a)
    if a.out:
        c.to_json(a.out)
    if a.json:
        print(c.to_json(), end="")
    else:
        print(c)
    return 0


# --- a model problem's options, shared by train and verify ------------------------------------------------------

VERIFY_PARTITION = "dirichlet:0.5"  # verify's default clients are non-IID: heterogeneity is what the bounds are about
MODEL_FLAGS = ("--model", "--data", "--cut", "--input-shape", "--partition", "--loss", "--eval-samples")


def model_problem_args(s: argparse.ArgumentParser, *, partition: str) -> None:
    """The options that describe a split model problem (``verify.train.setup.model_problem``), and ``--order``."""
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


def model_flags_given(a: argparse.Namespace) -> list[str]:
    """The model-problem options given on the command line (``--clients`` aside: a quadratic has clients too)."""
    return [f for f in MODEL_FLAGS if getattr(a, f[2:].replace("-", "_")) is not None]


def model_problem_kwargs(a: argparse.Namespace, *, partition: str) -> dict[str, Any]:
    """``model_problem``'s keywords from the options, with their defaults (cnn on digits, 4 clients)."""
    return {"model": a.model or "cnn", "data": a.data or "digits", "cut": a.cut, "clients": a.clients or 4,
            "partition": a.partition or partition, "loss": a.loss or "auto",
            "input_shape": parse_shape(a.input_shape) if a.input_shape else None,
            "eval_samples": a.eval_samples}  # fmt: skip


# --- train ----------------------------------------------------------------------------------------------------


def _train_parser(sub: Any) -> None:
    s = sub.add_parser(
        "train",
        help="run a seed's algorithm on a split model or an exact quadratic: train ALGO name=value ...",
        description=(
            "Runs ALGO for T rounds and records, per round, ||grad f||^2 at the global model (with its client and "
            "server parts, running average and minimum), the loss, test accuracy, drift, bytes each way, passes "
            "per side and the simulated time. name=value: T, batch, seed; the algorithm's parameters (train "
            "--list); with --problem quadratic, its target constants L, mu, sigma2, eps2, d, d_c, M, F."
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
    s.add_argument("--device", default="auto", help="auto (default: CUDA when present, else the CPU), cpu or cuda")
    s.add_argument("--float64", action="store_true", help="train in double precision (quadratics always are)")
    s.add_argument("--client-time", help="seconds per client round on the whole model, one per client (time model)")
    s.add_argument("--server-step", type=positive_arg("--server-step"), help="seconds per server step, whole model")
    s.add_argument("--bandwidth", type=positive_arg("--bandwidth"), help="bytes/s per client link")
    s.add_argument("--json", action="store_true", help="print the run (configuration and records) as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_train)


def _list_text() -> str:
    from verify.train import ALGORITHMS

    rows = [("name", "paper", "algorithm", "results")]
    for cls in ALGORITHMS.values():
        rows.append((cls.name, cls.paper, f"{cls.title} ({cls.source})", ", ".join(cls.results) or "-"))
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]}" for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w) + "  -------")
    return "\n".join(lines)


def _as_int(name: str, v: Any) -> int:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise ParameterError(name, f"must be an integer (got {v!r})")


def _cmd_train(a: argparse.Namespace) -> int:
    import numpy as np

    if a.list:
        if a.json:
            from verify.train import ALGORITHMS

            print(json.dumps([c.describe() for c in ALGORITHMS.values()], indent=2))
        else:
            print(_list_text())
        return 0
    if not a.algorithm:
        raise ParameterError("algorithm", "name one (sfltheory train --list shows them)")
    if "=" in a.algorithm:
        raise ParameterError("algorithm", f"expected an algorithm name before name=value (got {a.algorithm!r})")
    params = parse_assignments(a.assignments)
    for k, v in params.items():
        if isinstance(v, np.ndarray):
            raise ParameterError(k, "train takes one value per parameter (a sweep is `sfltheory sweep`)")

    import torch

    from sfltheory.plan.timemodel import TimeModel
    from verify.train import get, run
    from verify.train.loop import default_time_model
    from verify.train.setup import QUADRATIC_TARGETS, problem_from

    cls = get(a.algorithm)
    T = _as_int("T", params.pop("T", 100.0))
    batch = _as_int("batch", params.pop("batch", 32.0))
    seed = _as_int("seed", params.pop("seed", 0.0))
    if T < 1:
        raise ParameterError("T", f"must be an integer >= 1 (got {T})")
    if a.order is not None:
        params["order"] = a.order
    quadratic = a.problem is not None
    if quadratic:
        given = model_flags_given(a)
        if given:
            raise ParameterError(given[0], "describes a model problem; not with --problem")
    targets = {k: params.pop(k) for k in QUADRATIC_TARGETS if k in params} if a.problem == "quadratic" else {}
    if "M" in params and not quadratic:
        raise ParameterError("M", "the number of clients of a model problem is --clients")
    if a.clients is not None and quadratic:
        if a.problem != "quadratic":
            raise ParameterError("--clients", "the problem file fixes the clients (one row of shifts each)")
        targets["M"] = float(a.clients)
    algorithm = cls(**params)  # unknown parameters and domains are checked here, before any work
    dtype = torch.float64 if (a.float64 or quadratic) else torch.float32
    kw = {} if quadratic else model_problem_kwargs(a, partition="iid")
    device = "cuda" if a.device == "auto" and torch.cuda.is_available() else ("cpu" if a.device == "auto" else a.device)
    problem = problem_from(a.problem, targets=targets, seed=seed, dtype=dtype, device=device, **kw)
    tm = default_time_model(problem.M)
    if a.client_time or a.server_step or a.bandwidth:
        times = tuple(float(x) for x in a.client_time.split(",")) if a.client_time else (1.0,) * problem.M
        if len(times) == 1:
            times = times * problem.M
        tm = TimeModel(server_step=a.server_step or 0.01, client_time=times, bandwidth=a.bandwidth)
    r = run(algorithm, problem, T=T, seed=seed, batch=batch, batched=not a.loop, out=a.out,
            checkpoint_every=a.checkpoint_every, time_model=tm, progress=not (a.quiet or a.json))  # fmt: skip
    if a.json:
        print(json.dumps(r.to_dict(), indent=1, allow_nan=False))
    else:
        print(run_text(r))
        if a.out:
            print(f"run written to {a.out}/run.json")
    if r.status == "diverged":
        print(f"sfltheory: {r.message}", file=sys.stderr)
        return EXIT_DIVERGED
    return 0


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
    s.add_argument("--T", type=count_arg("--T"), default=40, help="rounds (default 40)")
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
        default=3,
        help="rounds of the trajectory where a model's constants are measured (default 3: x^0, x^T/2, x^T)",
    )
    s.add_argument("--batch", type=count_arg("--batch"), help="mini-batch (default 4 on a quadratic, 32 on a model)")
    s.add_argument("--out", metavar="DIR", help="write report.html, report.md, report.json and figures here")
    s.add_argument(
        "--worst-case",
        type=count_arg("--worst-case"),
        metavar="N",
        help="also search N quadratics in the result's assumption class for the largest measured/bound "
        "ratio (first-order results); a counterexample is saved as a --problem file with --out",
    )
    s.add_argument("--trends", action="store_true", help="run every trend check (claims about how convergence changes)")
    s.add_argument(
        "--trend",
        action="append",
        metavar="NAME",
        help="run this trend check (repeatable): tau_sweep, cut_sweep, cut_invariance, sl_vs_fedavg, client_speedup; "
        "with --out each writes trend_NAME.png and the report gets a Trends section",
    )
    s.add_argument("--json", action="store_true", help="print the verifications as JSON")
    s.set_defaults(func=_cmd_verify)


def _cmd_verify(a: argparse.Namespace) -> int:
    from verify.pipeline.experiments import EXPERIMENTS, NO_EXPERIMENT

    if a.list:
        for rid, e in EXPERIMENTS.items():
            print(f"{rid:30s} {e.algorithm:16s} {e.lhs:8s} {e.problem}")
        for rid, why in NO_EXPERIMENT.items():
            print(f"{rid:30s} -                no experiment: {why}")
        return 0
    ids = [x for x in a.ids if "=" not in x]
    overrides = parse_assignments([x for x in [*a.ids, *a.assignments] if "=" in x])
    if a.all:
        if ids:
            raise ParameterError("--all", "give result ids or --all, not both")
        ids = list(EXPERIMENTS)
    from verify.pipeline.trends import CHECKS

    trend_names = list(CHECKS) if a.trends else list(dict.fromkeys(a.trend or []))
    for name in trend_names:
        if name not in CHECKS:
            raise ParameterError("--trend", f"unknown trend check '{name}' (known: {', '.join(CHECKS)})")
    if not ids and not trend_names:
        raise ParameterError("ID", "name a result to verify, or --all, or --trends (sfltheory verify --list)")
    import sfltheory as st
    from verify.pipeline import report
    from verify.pipeline.experiments import experiment
    from verify.pipeline.verification import cached_verify

    spec = _verify_problem_spec(a)
    model = spec is not None and spec["kind"] == "model"
    if a.all and model:  # a corollary's step is a function of T: those run on the exact quadratics only
        skipped = [rid for rid in ids if EXPERIMENTS[rid].at_choice]
        ids = [rid for rid in ids if not EXPERIMENTS[rid].at_choice]
        if skipped and not a.json:
            print(
                f"on a model, --all leaves out the corollaries whose step depends on T: {', '.join(skipped)}",
                file=sys.stderr,
            )
    if a.problem is not None:
        for rid in ids:
            if EXPERIMENTS.get(rid) is not None and EXPERIMENTS[rid].problem == "model":
                raise ParameterError("--problem", f"{rid} assumes bounded gradients, which no quadratic has: "
                                     "verify it on a model (--model, --data)")  # fmt: skip
    batch = a.batch or (32 if model else 4)
    if a.worst_case and model:
        raise ParameterError("--worst-case", "searches exact quadratics; not with a model problem")
    if a.order is not None and not model:
        raise ParameterError("--order", "sets the client order of a run on a model (--model); not on a quadratic")
    plans: dict[str, dict[str, Any]] = {}
    from sfltheory.registry import origin, user_experiment

    for rid in ids:  # every id and assignment is checked before any work
        if origin(rid) is not None and user_experiment(rid) is None:  # the user's own result, no experiment given
            raise SflTheoryError(f"result '{rid}' (declared in {origin(rid)}) has no experiment: give it one in the "
                                 "file, [results.experiment] with algorithm, step_to and params (README, 'Your own "
                                 "theorem')")  # fmt: skip
        exp = experiment(rid)
        r = st.get(rid)
        runs_on_model = model or (spec is None and exp.problem == "model")
        plans[rid] = _verify_assignments(rid, r, exp, overrides, on_model=runs_on_model)
        if a.order is not None:
            plans[rid]["params"]["order"] = a.order
    done = []
    failed: list[str] = []
    for rid in ids:
        if not a.json:
            print(f"verifying {rid} ...", file=sys.stderr)
        cache = Path(a.out) / "cache" if a.out else None  # re-rendering a report does not recompute it
        try:
            done.append(cached_verify(rid, cache, T=a.T, seeds=a.seeds, batch=batch, problem=spec, points=a.points,
                                      **plans[rid]))  # fmt: skip
        except SflTheoryError as e:  # one result's failure loses nothing else: the others go on, saved as they end
            failed.append(f"{rid}: {e}")
            print(f"sfltheory: {rid}: {e}", file=sys.stderr)
    worst = []
    if a.worst_case:
        from verify.pipeline.verification import FIRST_ORDER
        from verify.pipeline.worstcase import worst_case

        for rid in ids:
            if experiment(rid).algorithm in FIRST_ORDER and experiment(rid).problem == "quadratic":
                worst.append(worst_case(rid, instances=a.worst_case, T=min(a.T, 20)))
    from verify.pipeline import trends

    checks = []
    for name in trend_names:
        if not a.json:
            print(f"trend {name} ...", file=sys.stderr)
        checks.append(trends.CHECKS[name]())
    if a.out:
        written = report.write(done, a.out) if done else []
        if checks:
            written = trends.write(checks, a.out, append=bool(done))  # the Trends section, after the results
        if worst:
            from verify.pipeline.worstcase import save_worst_cases

            save_worst_cases(worst, a.out)  # counterexamples.json, which `sfltheory audit --counterexamples` reads
        if not a.json:
            print(f"report written to {written[0]}")
    if a.json:
        out = report.to_json(done)
        out["worst_case"] = [w.to_dict() for w in worst]
        out["trends"] = [c.to_dict() for c in checks]
        print(json.dumps(report.clean(out), indent=1, allow_nan=False))
    else:
        for v in done:
            for leg in v.legs:
                hyp = "hypotheses hold" if leg.applies else f"{len(leg.failing)} hypotheses fail"
                print(
                    f"{v.result:28s} {leg.mode:10s} step {leg.step:<10.4g} {hyp:22s} {leg.verdict:12s} "
                    f"bound/measured {leg.tightness:8.3g}  decay {leg.slope_lhs:5.2f} vs {leg.slope_bound:5.2f}"
                )
        for w in worst:
            what = "COUNTEREXAMPLE" if w.counterexample else "no counterexample"
            print(f"{w.result:28s} worst case over {w.tried} quadratics: measured/bound {w.ratio:.3g} at T = {w.T} "
                  f"(step {w.step:.3g}): {what}")  # fmt: skip
        for c in checks:
            print(c.line())
    if failed:
        print(f"sfltheory: {len(failed)} of {len(ids)} results failed (the others are reported)", file=sys.stderr)
        return 1
    return 0


def _verify_problem_spec(a: argparse.Namespace) -> dict[str, Any] | None:
    """The problem ``verify`` runs on, as a JSON-able spec (the cache key includes it); None for the defaults."""
    given = model_flags_given(a) + (["--clients"] if a.clients is not None else [])
    if a.problem is not None:
        if given:
            raise ParameterError(given[0], "describes a model problem; not with --problem")
        if a.problem == "quadratic":
            return None
        from verify.train import QuadraticProblem

        q = QuadraticProblem.from_file(a.problem)
        return {"kind": "quadratic", **q.to_dict()}
    if not given:
        return None
    kw = model_problem_kwargs(a, partition=VERIFY_PARTITION)
    shape = kw["input_shape"]
    return {"kind": "model", **kw, "input_shape": list(shape) if shape else None}  # JSON-able: the cache key


def _verify_assignments(rid: str, r: Any, exp: Any, assigned: dict[str, Any], *, on_model: bool) -> dict[str, Any]:
    """Sort ``name=value`` for one result: on a quadratic every name is a constant of the bound (an override);
    on a model the theorem's step sets the practical leg, the algorithm's parameters go to the run and the
    bound's other names are given constants. Unknown names are refused here, before any work."""
    import numpy as np

    from verify.train import get

    used = set(r.parameters())
    for k, v in assigned.items():
        if isinstance(v, np.ndarray):
            raise ParameterError(k, "verify takes one value per name (a grid is `sfltheory sweep`)")
    if not on_model:
        for k in assigned:
            if k not in used:
                raise ParameterError(k, f"result '{rid}' does not use it (it uses: {', '.join(sorted(used))})")
        return {"overrides": dict(assigned) or None}
    takes = {s.name for s in get(exp.algorithm).takes}
    plan: dict[str, Any] = {"step": None, "params": {}, "overrides": {}}
    for k, v in assigned.items():
        if k == r.step:
            plan["step"] = float(v)
        elif k in exp.step_to:
            raise ParameterError(k, f"the theorem's step {r.step} sets {', '.join(exp.step_to)}: give {r.step}=VALUE")
        elif k in takes:
            plan["params"][k] = v  # the algorithm checks its own domains (train passes the same floats)
        elif k in used:
            plan["overrides"][k] = float(v)
        else:
            raise ParameterError(k, f"neither a parameter of {exp.algorithm} nor a name of '{rid}' "
                                 f"({', '.join(sorted(takes | used))})")  # fmt: skip
    plan["overrides"] = plan["overrides"] or None
    return plan


__all__ = ["EXIT_DIVERGED", "EXIT_USAGE", "register", "run_text"]
