"""Commands that choose: ``plan`` (the best tau, cut and step size of one result, rounds to accuracy, wall-clock
time) and ``compare`` (results side by side on the same constants)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import numpy as np

from ..cliargs import count_arg, parse_assignments, positive_arg
from ..errors import ParameterError, renamed
from ..evaluate import refuse_unused
from ..plan import plan, render
from ..plan.compare import compare, parse_entry
from ..plan.timemodel import TimeModel, parse_distribution
from ..plotting import check_path
from .answers import plan_answer
from .cuts import ModelCuts, cuts_of, model_args
from .measured import cut_constants, with_constants
from .output import emit, shown


def parse_grid(raw: str | None) -> np.ndarray | None:
    """The ``--grid`` option as the values to search: ``FIRST:LAST`` is every integer from FIRST to LAST
    (``1 <= FIRST <= LAST``, at most 10^7 apart), else a comma list of numbers; None when the option is absent."""
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


def _shown(v: Any) -> str:
    return ",".join(f"{x:g}" for x in np.atleast_1d(v))


def _time_model(a: argparse.Namespace, params: dict[str, Any]) -> TimeModel | None:
    """The wall-clock model the options describe (None when none is given)."""
    given = [a.client_time, a.client_dist, a.server_step, a.bandwidth]
    if all(x is None for x in given):
        return None
    if a.server_step is None:
        raise ParameterError("--server-step", "the time model needs the time of one server step (seconds)")
    bw: Any = None
    if a.bandwidth is not None:
        b = _floats("--bandwidth", a.bandwidth)
        bw = b if len(b) > 1 else b[0]
    links = {"bandwidth": bw, "batch": a.batch, "messages": a.messages, "overlap": not a.no_overlap}
    if a.client_dist is not None:
        m = params.get("M")
        if m is None:
            raise ParameterError("M", "a client-time distribution needs the number of clients: give M=...")
        if np.ndim(m) or not np.isfinite(m) or m < 1 or m != int(m):
            raise ParameterError("M", f"with --client-dist, one integer number of clients >= 1 (got {_shown(m)})")
        with renamed({"spec": "--client-dist"}):
            dist = parse_distribution(a.client_dist)
        return TimeModel(float(a.server_step), client_dist=dist, n_clients=int(m), **links)
    if a.client_time is None:
        raise ParameterError("--client-time", "give the clients' times (--client-time 1,1,5) or --client-dist")
    times = _floats("--client-time", a.client_time)
    m = params.get("M")
    if m is not None and (np.ndim(m) or m != len(times)):
        raise ParameterError(
            "--client-time", f"one time per client: got {len(times)} times for M = {_shown(m)} clients"
        )
    return TimeModel(float(a.server_step), client_time=times, **links)


def _cmd_plan(a: argparse.Namespace) -> int:
    params = parse_assignments(a.params)
    refuse_unused([a.id], list(params))  # used or refused: never a silently dropped name
    if a.plot:
        check_path(a.plot, name="--plot")
    timing = [a.client_time, a.client_dist, a.server_step, a.bandwidth]
    if a.eps is None and any(x is not None for x in timing):
        raise ParameterError("--eps", "the time model gives the time to reach bound <= eps: give eps too")
    table = cuts_of(a) if a.model else None
    cuts = table
    if a.cut is not None:
        if table is None:
            raise ParameterError("--cut", "needs --model: the model whose cut it is")
        cuts = dataclasses.replace(table, cuts=(table.by_name(a.cut),))
    per_cut: dict[str, list[float]] = {}
    if a.constants and table is not None and cuts is not None:
        measured, per_cut = cut_constants(a, a.id, table, cuts.cuts, params)
        params = {**measured, **params}
    elif a.constants:
        params = with_constants(a, params)
    p = plan(
        a.id,
        params,
        cuts=cuts,
        over=a.over,
        grid=parse_grid(a.grid),
        step=a.step,
        require=a.require,
        eps=a.eps,
        time_model=_time_model(a, params),
        per_cut=per_cut,
    )
    # a plan prints as its answer in words, then its table (records.plan_text)
    emit(a, p, lambda x: {"answer": plan_answer(x), **render.plan_dict(x)}, lambda x: f"{plan_answer(x)}\n{x}",
         "plot_plan")  # fmt: skip
    return 0 if p.feasible else 1


def _cmd_compare(a: argparse.Namespace) -> int:
    ids = [x for x in a.items if "/" in x.partition("=")[0]]
    params = parse_assignments([x for x in a.items if "/" not in x.partition("=")[0]])
    if a.plot:
        check_path(a.plot, name="--plot")
    measured: dict[str, dict[str, Any]] = {}
    if a.constants:
        for rid in dict.fromkeys(parse_entry(x)[0] for x in ids):
            measured[rid] = {k: v for k, v in with_constants(a, params, rid).items() if k not in params}
    rows = compare(ids, params, eps=a.eps, step=a.step, require=a.require, measured=measured)
    emit(a, rows, render.compare_dict, render.compare_text, "plot_compare")
    if a.eps is not None and "T" not in params and not a.json:
        # without T the bound column is the bound's floor as T -> infinity: what eps is compared with
        floor = "bound: its limit as T -> infinity (no T given), the floor eps must lie above; give T=... for the "
        print(shown(a, floor + "bound after T rounds"))
    return 0


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
    s.add_argument("--wide", action="store_true", help="tables and lines in full, not fitted to 120 columns")
    s.add_argument("--plot", metavar="FILE", help="draw the figure into FILE (.png, .pdf or .svg)")
    s.add_argument(
        "--constants",
        metavar="FILE",
        help="measured constants (sfltheory measure --out FILE; with --model, --cuts all gives each cut its own)",
    )


def _time_args(s: argparse.ArgumentParser) -> None:
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


def register(sub: Any, model_cuts: ModelCuts | None) -> None:
    """Add ``plan`` and ``compare`` to a subparsers object; ``model_cuts`` reads a torch model's cuts."""
    s = sub.add_parser(
        "plan",
        help="optimal tau, cut and step size, rounds to eps, wall-clock time: plan ID [--model M] name=value ...",
        description="Exit status: 0 with a plan, 1 when no choice is feasible (the reason is printed), 2 on bad input.",
    )
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    model_args(s, required=False, model_cuts=model_cuts)
    s.add_argument("--cut", help="with --model: plan at this cut only (a block name or its 1-based index)")
    s.add_argument("--over", default="tau", help="the integer parameter to optimise (default tau)")
    s.add_argument("--grid", help="its values: FIRST:LAST or a comma list (default 1:1000)")
    _search_args(s)
    _time_args(s)
    s.set_defaults(func=_cmd_plan)

    s = sub.add_parser(
        "compare",
        help="results side by side on the same constants: compare ID[:name=value,...] ... name=value ...",
    )
    s.add_argument("items", nargs="+", metavar="ID|name=value")
    _search_args(s)
    s.set_defaults(func=_cmd_compare)
