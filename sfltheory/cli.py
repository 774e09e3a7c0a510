"""The ``sfltheory`` command line.

Bad input prints one line (``sfltheory: error: ...``) and exits with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from . import report
from .errors import ParameterError, SflTheoryError
from .evaluate import evaluate
from .registry import get, paper_keys, results
from .stepsize import max_step

if TYPE_CHECKING:
    from .plan.cuts import CutTable
    from .plan.timemodel import TimeModel

EXIT_USAGE = 2
EXIT_STEP_VIOLATES = 1  # check-lr: the given step violates a stated branch


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse prints usage over several lines; we want one
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def parse_assignments(items: Sequence[str]) -> dict[str, Any]:
    """``name=value`` pairs; a comma-separated value is a sweep (an array)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise ParameterError(item, "expected name=value")
        if name in out:
            raise ParameterError(name, "given twice")
        try:
            vals = [float(x) for x in raw.split(",")]
        except ValueError:
            raise ParameterError(name, f"must be a number or a comma-separated list of numbers (got {raw!r})") from None
        out[name] = vals[0] if len(vals) == 1 else np.array(vals)
    return out


def _print_json(obj: Any) -> None:
    print(json.dumps(report.jsonable(obj), indent=2, allow_nan=False))


def _cmd_list(a: argparse.Namespace) -> int:
    if a.paper is not None and a.paper not in paper_keys():
        raise ParameterError("--paper", f"unknown paper key '{a.paper}'; known: {', '.join(paper_keys())}")
    rs = results(a.paper)
    if a.algorithm is not None:
        from .algorithms import algorithm

        keep = set(algorithm(a.algorithm).results)
        rs = [r for r in rs if r.id in keep]
    if a.markdown:
        print(report.list_markdown())
    elif a.json:
        _print_json([report.result_summary(r) for r in rs])
    else:
        print(report.list_text(rs))
    return 0


def _cmd_which(a: argparse.Namespace) -> int:
    """The algorithms that match the run described, and the results that analyse each."""
    from .algorithms import algorithm, which

    if a.algorithm is not None:
        found = [algorithm(a.algorithm)]
    else:
        found = which(client=a.client, server=a.server, clients=a.clients, local_steps=a.local_steps,
                      server_steps=a.server_steps, participation=a.participation, aux=a.aux)  # fmt: skip
    if a.json:
        _print_json([{**a_.__dict__, "results": list(a_.results)} for a_ in found])
        return 0
    if not found:
        print("no algorithm of the five papers matches; drop a condition (sfltheory which --help lists them)")
        return 0
    for alg in found:
        traits = (f"{alg.client}-order clients, {alg.server}-order server, clients {alg.clients}"
                  + (", local steps" if alg.local_steps else "") + (", tau server steps" if alg.server_steps else "")
                  + (", partial participation" if alg.participation == "partial" else "")
                  + (", auxiliary heads" if alg.aux else ""))  # fmt: skip
        print(f"{alg.name} ({alg.paper}): {alg.title}\n  {traits}")
        if alg.note:
            print(f"  note: {alg.note}")
        ids = alg.results or (algorithm(alg.covered_by).results if alg.covered_by else ())
        if not alg.results and alg.covered_by:
            print(f"  the results of {alg.covered_by}, the closest covered variant:")
        bounds = [r for r in (get(i) for i in ids) if r.kind in ("theorem", "corollary", "proposition")]
        for r in bounds:
            tag = "" if r.explicit else "  (O-form; explicit edition: " + (r.see or "-") + ")"
            print(f"  {r.id:34s} {r.kind:11s} {report.clip(r.title, 60)}{tag}")
        steps = [r for r in bounds if r.explicit and r.step]
        if steps:
            r0 = steps[0]
            print(f"  check a step: sfltheory check-lr {r0.id} {r0.step}=VALUE ... (missing constants are listed)")
    return 0


def _cmd_show(a: argparse.Namespace) -> int:
    r = get(a.id)
    if a.json:
        _print_json(report.show_dict(r))
    else:
        print(report.show_text(r))
    return 0


def _with_constants(a: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """Measured constants (``--constants FILE``) the result needs, overridden by name=value pairs."""
    if not getattr(a, "constants", None):
        return params
    from .constants import Constants

    c = Constants.load(a.constants)
    measured, notes = c.params_for(a.id)
    # printed by main() once the command has succeeded: bad input still gets its one error line alone
    deferred = a.__dict__.setdefault("deferred_notes", [])
    deferred.extend(f"# {n}" for n in notes)
    # Another variant standing in for what an assumption needs (L for L[clients] under "every local objective is
    # L-smooth"): one warning line each, unless the value is given on the command line.
    deferred.extend(f"sfltheory: warning: {w}" for w in c.fallbacks(a.id, given=params))
    return {**measured, **params}


def _with_cut(a: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """``--model M --cut NAME``: the cut's d_c and d_s (and d) for the result, unless given as name=value (a
    conflicting value is refused, never silently replaced)."""
    if getattr(a, "cut", None) is None:
        if getattr(a, "model", None) is not None:
            raise ParameterError("--cut", "name the cut (sfltheory cuts --model M lists them) to fix d_c and d_s")
        return params
    if getattr(a, "model", None) is None:
        raise ParameterError("--cut", "needs --model: the model whose cut it is")
    point = load_cuts(a.model, a.input_shape, a.expand).by_name(a.cut)
    out = dict(params)
    for k, v in (("d_c", point.d_c), ("d_s", point.d_s), ("d", point.d)):
        if k in out:
            raise ParameterError(k, f"given twice: by name=value and by --cut {a.cut} ({k} = {v}); give one")
        if k in get(a.id).parameters():
            out[k] = float(v)
    return out


def _cmd_bound(a: argparse.Namespace) -> int:
    ev = evaluate(a.id, _with_cut(a, _with_constants(a, parse_assignments(a.params))))
    if a.json:
        _print_json(report.bound_dict(ev))
    else:
        print(report.bound_text(ev))
    return 0


def _best_steps(rid: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The bound at the largest feasible step and at the bound-minimising one, when every other parameter
    of the result is given (otherwise None: check-lr needs only what the step conditions use)."""
    from .plan.search import solve
    from .stepsize import step_family

    r = get(rid)
    if r.step is None or not r.explicit:
        return None
    fam = step_family(r)
    rest = {k: v for k, v in params.items() if k not in fam}
    try:
        at_max = solve(r, rest, "max")
        joint = solve(r, rest, "joint")
    except SflTheoryError:  # e.g. a bound beyond the float range at the largest step: the step answer still stands
        return None
    if np.ndim(at_max.bound) or np.ndim(joint.bound):
        return None
    return {
        "largest_feasible": {"step": at_max.step, "bound": at_max.bound},
        "bound_minimising": {"step": joint.step, "bound": joint.bound},
    }


def _cmd_check_lr(a: argparse.Namespace) -> int:
    params = _with_cut(a, _with_constants(a, parse_assignments(a.params)))
    sc = max_step(a.id, params)
    best = _best_steps(a.id, params)
    if a.json:
        _print_json({**report.step_dict(sc), "bound_at": best})
    else:
        print(report.step_text(sc))
        if best is not None:
            m, j = best["largest_feasible"], best["bound_minimising"]
            print(f"bound at the largest feasible {sc.step} = {report.num(m['step'])}: {report.num(m['bound'])}")
            print(f"bound-minimising {sc.step} = {report.num(j['step'])}: bound {report.num(j['bound'])}")
    if sc.given is not None and any(
        b.source == "statement" and b.holds is not None and not bool(np.all(b.holds)) for b in sc.branches
    ):
        return EXIT_STEP_VIOLATES  # scripts can test admissibility without parsing the table
    return 0


def _cmd_vocabulary(a: argparse.Namespace) -> int:
    results()  # the catalogue (and a user's loaded files) before the vocabulary they add to
    if a.markdown:
        print(report.vocabulary_markdown())
    elif a.json:
        _print_json(report.vocabulary_rows())
    else:
        for r in report.vocabulary_rows():
            papers = ", ".join(f"{k}: {v}" for k, v in r["papers"].items())  # type: ignore[attr-defined]
            print(f"{r['name']:<12} {r['domain']:<9} {r['meaning']}" + (f"  [{papers}]" if papers else ""))
    return 0


def _cmd_errata(a: argparse.Namespace) -> int:
    rs = results(a.paper)
    if a.markdown:
        print(report.errata_markdown(rs))
    elif a.json:
        _print_json(report.errata(rs))
    else:
        for e in report.errata(rs):
            print(f"{e['paper']}: {e['where']} — printed {e['printed']}; expected {e['expected']}")
    return 0


# ---------------------------------------------------------------------------------------------------
def parse_shape(raw: str | None) -> tuple[int, ...] | None:
    if raw is None:
        return None
    try:
        shape = tuple(int(x) for x in raw.split(","))
    except ValueError:
        raise ParameterError("--input-shape", f"must be comma-separated integers, e.g. 3,32,32 (got {raw!r})") from None
    if not shape or any(x < 1 for x in shape):
        raise ParameterError("--input-shape", f"every size must be >= 1 (got {raw!r})")
    return shape


def load_cuts(spec: str, input_shape: str | None = None, expand: str | None = None) -> CutTable:
    """A model's cuts from a JSON/CSV block list, a registered model name or ``package.module:factory``."""
    from .plan.cuts import load_blocks

    if ":" not in spec and (Path(spec).suffix or "/" in spec):  # a file, not a registered model name
        if input_shape or expand:
            raise ParameterError("--input-shape", "a model given as a block list has no input shape or modules")
        return load_blocks(spec)
    try:
        from verify.models import model_cuts
    except ImportError as e:  # torch is an optional dependency of the theory side
        raise ParameterError(
            "--model", f"'{spec}' is a torch model and needs torch ({e}): pip install -e .[verify]"
        ) from None
    return model_cuts(spec, parse_shape(input_shape), expand=tuple(filter(None, (expand or "").split(","))))


def _grid(raw: str | None) -> np.ndarray | None:
    if raw is None:
        return None
    lo, sep, hi = raw.partition(":")
    try:
        if sep:
            a, b = int(lo), int(hi)
            if a < 1 or b < a or b - a > 10_000_000:
                raise ValueError
            return np.arange(a, b + 1, dtype=float)
        return np.array([float(x) for x in raw.split(",")])
    except ValueError:
        raise ParameterError(
            "--grid", f"expected FIRST:LAST (1 <= FIRST <= LAST) or a comma list (got {raw!r})"
        ) from None


def _floats(name: str, raw: str) -> tuple[float, ...]:
    v = parse_assignments([f"{name}={raw}"])[name]
    return tuple(float(x) for x in np.atleast_1d(v))


def _time_model(a: argparse.Namespace, params: dict[str, Any]) -> TimeModel | None:
    from .plan.timemodel import TimeModel, parse_distribution

    given = [a.client_time, a.client_dist, a.server_step, a.bandwidth]
    if all(x is None for x in given):
        return None
    if a.server_step is None:
        raise ParameterError("--server-step", "the time model needs the time of one server step (seconds)")
    bw: Any = None
    if a.bandwidth is not None:
        b = _floats("--bandwidth", a.bandwidth)
        bw = b if len(b) > 1 else b[0]
    if a.client_dist is not None:
        m = params.get("M")
        if m is None:
            raise ParameterError("M", "a client-time distribution needs the number of clients: give M=...")
        if np.ndim(m) or not np.isfinite(m) or m < 1 or m != int(m):
            raise ParameterError("M", f"with --client-dist, one integer number of clients >= 1 (got {_shown(m)})")
        return TimeModel(
            float(a.server_step),
            client_dist=parse_distribution(a.client_dist),
            n_clients=int(m),
            bandwidth=bw,
            batch=a.batch,
            messages=a.messages,
            overlap=not a.no_overlap,
        )
    if a.client_time is None:
        raise ParameterError("--client-time", "give the clients' times (--client-time 1,1,5) or --client-dist")
    times = _floats("--client-time", a.client_time)
    m = params.get("M")
    if m is not None and (np.ndim(m) or m != len(times)):
        raise ParameterError(
            "--client-time", f"one time per client: got {len(times)} times for M = {_shown(m)} clients"
        )
    return TimeModel(
        float(a.server_step),
        client_time=times,
        bandwidth=bw,
        batch=a.batch,
        messages=a.messages,
        overlap=not a.no_overlap,
    )


def _shown(v: Any) -> str:
    return ",".join(f"{x:g}" for x in np.atleast_1d(v))


def _emit(a: argparse.Namespace, value: Any, to_dict: Any, to_text: Any, plot: str | None = None) -> None:
    """Draw ``value`` with ``sfltheory.plotting.<plot>`` if ``--plot`` was given, then print it as JSON or text."""
    if a.plot and plot:
        from . import plotting

        getattr(plotting, plot)(value, a.plot)
    if a.json:
        _print_json(to_dict(value))
    else:
        print(to_text(value))


def _cmd_cuts(a: argparse.Namespace) -> int:
    from .plan import render

    _emit(a, load_cuts(a.model, a.input_shape, a.expand), render.cuts_dict, render.cuts_text, "plot_cuts")
    return 0


def _cmd_plan(a: argparse.Namespace) -> int:
    from .plan import plan, render

    params = parse_assignments(a.params)
    if a.plot:
        from .plotting import check_path

        check_path(a.plot)
    timing = [a.client_time, a.client_dist, a.server_step, a.bandwidth]
    if a.eps is None and any(x is not None for x in timing):
        raise ParameterError("--eps", "the time model gives the time to reach bound <= eps: give eps too")
    cuts = load_cuts(a.model, a.input_shape, a.expand) if a.model else None
    if a.cut is not None:
        if cuts is None:
            raise ParameterError("--cut", "needs --model: the model whose cut it is")
        cuts = dataclasses.replace(cuts, cuts=(cuts.by_name(a.cut),))
    p = plan(
        a.id,
        params,
        cuts=cuts,
        over=a.over,
        grid=_grid(a.grid),
        step=a.step,
        require=a.require,
        eps=a.eps,
        time_model=_time_model(a, params),
    )
    _emit(a, p, render.plan_dict, render.plan_text, "plot_plan")
    return 0 if p.feasible else 1


def _cmd_compare(a: argparse.Namespace) -> int:
    from .plan import render
    from .plan.compare import compare

    ids = [x for x in a.items if "/" in x.partition("=")[0]]
    params = parse_assignments([x for x in a.items if "/" not in x.partition("=")[0]])
    if a.plot:
        from .plotting import check_path

        check_path(a.plot)
    rows = compare(ids, params, eps=a.eps, step=a.step, require=a.require)
    _emit(a, rows, render.compare_dict, render.compare_text, "plot_compare")
    if a.eps is not None and "T" not in params and not a.json:
        # without T the bound column is the bound's floor as T -> infinity: what eps is compared with
        print("bound: its limit as T -> infinity (no T given), the floor eps must lie above; give T=... for the "
              "bound after T rounds")  # fmt: skip
    return 0


def _cmd_figs(a: argparse.Namespace) -> int:
    import time

    from .figs import FIGURES, run

    if a.list:
        for name, what in FIGURES.items():
            print(f"{name:<20} {what}")
        return 0
    t0 = time.perf_counter()
    written = run(a.names or None, a.out, small=a.small)
    for path in written:
        print(f"wrote {path}")
    n = len(written) // 2
    print(f"{len(written)} files ({n} figure{'s' * (n != 1)}) in {time.perf_counter() - t0:.1f} s")
    return 0


def _register_verify(sub: Any) -> None:
    """The commands the torch half owns (measure, train, verify, sweep): ``verify.cli`` adds them. Importing it
    costs no torch import (its commands import torch when they run), so ``sfltheory list`` stays fast."""
    try:
        from verify.cli import register
    except ImportError:  # the theory half installed alone
        for name in ("measure", "train", "verify", "sweep"):
            s = sub.add_parser(name, help=f"{name} (needs the verify extra: pip install -e .[verify])")
            s.add_argument("rest", nargs="*")
            s.set_defaults(func=_needs_verify, name=name)
        return
    register(sub)


def _needs_verify(a: argparse.Namespace) -> int:
    raise ParameterError(a.name, "needs torch: pip install -e .[verify]")


def positive_arg(name: str) -> Any:
    def conv(raw: str) -> float:
        try:
            v = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {raw!r})") from None
        if not np.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a finite number > 0 (got {raw!r})")
        return v

    return conv


def count_arg(name: str) -> Any:
    def conv(raw: str) -> int:
        try:
            v = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= 1 (got {raw!r})") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= 1 (got {raw!r})")
        return v

    return conv


def _model_args(s: argparse.ArgumentParser, required: bool) -> None:
    s.add_argument(
        "--model",
        required=required,
        help="a model name (see `sfltheory cuts --help`), package.module:factory, or a .json/.csv block list",
    )
    s.add_argument("--input-shape", help="per-sample input shape, e.g. 3,32,32 (default: the model's own)")
    s.add_argument("--expand", help="comma list of submodules to split inside (e.g. a transformer's encoder)")


def _search_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--eps", type=positive_arg("--eps"), help="target accuracy: report the rounds to bound <= eps")
    s.add_argument(
        "--step", default="auto", choices=["auto", "max", "joint", "given"], help="how the step size is chosen"
    )
    s.add_argument(
        "--require",
        default="statement",
        choices=["statement", "all"],
        help="hypotheses that must hold: the statement's, or also the proof's and implicit ones",
    )
    s.add_argument("--json", action="store_true")
    s.add_argument("--plot", metavar="FILE", help="draw the figure into FILE (.png, .pdf or .svg)")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="sfltheory", description="Convergence theory of split federated learning, evaluated.")
    p.add_argument(
        "--results",
        action="append",
        metavar="FILE",
        help="also load the results declared in FILE (.toml/.yaml) or a directory of them; repeatable, before or "
        "after the command (and SFLTHEORY_RESULTS: paths separated by ':'); see examples/my_theorem.toml",
    )
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)

    s = sub.add_parser("list", help="list every encoded result")
    s.add_argument("--paper", help="only this paper's results")
    s.add_argument("--algorithm", help="only the results that analyse this algorithm (sfltheory which lists them)")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true", help="the catalogue page")
    s.set_defaults(func=_cmd_list)

    s = sub.add_parser(
        "which",
        help="which results analyse my training: describe it (first/zeroth order, clients, steps ...)",
        description="Describe your training and get the algorithms of the five papers that match it, with the "
        "results (theorems, corollaries) that analyse each. Every option narrows the match; none lists them all.",
    )
    s.add_argument("--client", choices=["first", "zeroth"], help="order of the client-side updates")
    s.add_argument("--server", choices=["first", "zeroth"], help="order of the server-side updates")
    s.add_argument(
        "--clients",
        choices=["parallel", "sequential", "one"],
        help="clients at once (SplitFed/FedAvg), one after another (split learning), or one",
    )
    s.add_argument("--local-steps", choices=["yes", "no"], help="several client steps per round (K, E > 1)")
    s.add_argument("--server-steps", choices=["yes", "no"], help="several server steps per client step (tau)")
    s.add_argument("--participation", choices=["full", "partial"], help="all clients each round, or n of M")
    s.add_argument("--aux", choices=["yes", "no"], help="clients train through an auxiliary head")
    s.add_argument("--algorithm", help="name an algorithm directly (sfl_v1, sl, fedavg, mu_splitfed ...)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_which)

    s = sub.add_parser("show", help="statement, LaTeX, provenance and vocabulary of a result")
    s.add_argument("id")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_show)

    s = sub.add_parser("bound", help="evaluate a bound and check its hypotheses: bound ID name=value ...")
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    _model_args(s, required=False)
    s.add_argument("--cut", help="with --model: fix d_c and d_s at this cut (a block name or its 1-based index)")
    s.set_defaults(func=_cmd_bound)

    s.add_argument("--constants", metavar="FILE", help="measured constants (sfltheory measure --out FILE)")

    s = sub.add_parser(
        "check-lr",
        help="step-size conditions branch by branch, the largest feasible step",
        description="Checks the step size (given as name=value) against every branch of the result's step-size "
        "condition and prints the largest feasible step. Exit status: 0 when the given step satisfies every "
        "stated branch (or no step is given), 1 when it violates one (for a sweep: any value), 2 on bad input.",
    )
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    s.add_argument("--constants", metavar="FILE", help="measured constants (sfltheory measure --out FILE)")
    _model_args(s, required=False)
    s.add_argument("--cut", help="with --model: fix d_c and d_s at this cut (a block name or its 1-based index)")
    s.set_defaults(func=_cmd_check_lr)

    s = sub.add_parser("vocabulary", help="the canonical parameter names and each paper's notation")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_vocabulary)

    s = sub.add_parser("errata", help="every discrepancy recorded in the papers")
    s.add_argument("--paper")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_errata)

    s = sub.add_parser("cuts", help="the candidate cut points of a model: d_c, d_s and activation size per cut")
    _model_args(s, required=True)
    s.add_argument("--json", action="store_true")
    s.add_argument("--plot", metavar="FILE", help="draw d_c and activation size per cut into FILE")
    s.set_defaults(func=_cmd_cuts)

    s = sub.add_parser(
        "plan",
        help="optimal tau, cut and step size, rounds to eps, wall-clock time: plan ID [--model M] name=value ...",
        description="Exit status: 0 with a plan, 1 when no choice is feasible (the reason is printed), 2 on bad input.",
    )
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    _model_args(s, required=False)
    s.add_argument("--cut", help="with --model: plan at this cut only (a block name or its 1-based index)")
    s.add_argument("--over", default="tau", help="the integer parameter to optimise (default tau)")
    s.add_argument("--grid", help="its values: FIRST:LAST or a comma list (default 1:1000)")
    _search_args(s)
    t = s.add_argument_group("wall-clock time model (with --eps)")
    t.add_argument("--server-step", type=positive_arg("--server-step"), help="seconds per server step, whole model")
    t.add_argument("--client-time", help="seconds per client round on the whole model, one per client: 1,1,5")
    t.add_argument("--client-dist", help="or a scipy.stats distribution of it, e.g. expon:loc=1,scale=2 (with M=)")
    t.add_argument("--bandwidth", help="bytes/s per client link (one value or one per client)")
    t.add_argument("--batch", type=count_arg("--batch"), default=1, help="samples per client per round (default 1)")
    t.add_argument(
        "--messages", type=count_arg("--messages"), default=1, help="activation uploads per sample per round"
    )
    t.add_argument("--no-overlap", action="store_true", help="server steps start after the slowest client, not during")
    s.set_defaults(func=_cmd_plan)

    s = sub.add_parser(
        "compare",
        help="results side by side on the same constants: compare ID[:name=value,...] ... name=value ...",
    )
    s.add_argument("items", nargs="+", metavar="ID|name=value")
    _search_args(s)
    s.set_defaults(func=_cmd_compare)

    s = sub.add_parser(
        "figs",
        help="regenerate the paper figures (paper_figs/) as PNG and PDF: figs [--out DIR] [NAME ...]",
        description="Draws every figure of paper_figs/ (or the NAMEs given) into --out as NAME.png and NAME.pdf.",
    )
    s.add_argument("names", nargs="*", metavar="NAME", help="figures to draw (default: all; see --list)")
    s.add_argument("--out", default="out/figs", help="output directory (default: out/figs)")
    s.add_argument("--small", action="store_true", help="coarse grids and low resolution: a quick check")
    s.add_argument("--list", action="store_true", help="list the figures and what each shows")
    s.set_defaults(func=_cmd_figs)

    from .audit.cli import register as register_audit

    register_audit(sub)
    _register_verify(sub)
    return p


def split_results_option(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``--results FILE`` / ``--results=FILE`` anywhere in ``argv`` (before or after the command): the files, and
    the arguments without them."""
    files: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        x = argv[i]
        if x == "--":
            rest += argv[i:]
            break
        if x == "--results":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise ParameterError("--results", "expected a results file (.toml, .yaml) or a directory after it")
            files.append(argv[i + 1])
            i += 2
            continue
        if x.startswith("--results="):
            files.append(x.partition("=")[2])
        else:
            rest.append(x)
        i += 1
    return files, rest


def main(argv: Sequence[str] | None = None) -> int:
    try:
        files, argv = split_results_option(sys.argv[1:] if argv is None else list(argv))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    # name=value pairs may come after options (plan ID --model m L=1 ...): argparse leaves those over
    args, extra = parser.parse_known_args(argv)
    if extra:
        dest = next((d for d in ("params", "items", "assignments") if isinstance(getattr(args, d, None), list)), None)
        bad = [x for x in extra if x.startswith("-") or dest is None]
        if bad:
            parser.error(f"unrecognized arguments: {' '.join(bad)}")
        getattr(args, dest).extend(extra)  # type: ignore[arg-type]
    try:
        from .registry import using
        from .userresults import from_environment

        paths: list[str | Path] = [*from_environment(), *files]  # results of your own (README: "Your own theorem")
        with using(paths) if paths else contextlib.nullcontext():
            rc = int(args.func(args))
        for line in getattr(args, "deferred_notes", ()):
            print(line, file=sys.stderr)
        return rc
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head`: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
