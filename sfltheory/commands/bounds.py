"""Commands that evaluate one result: ``bound`` (the bound and its hypotheses) and ``check-lr`` (the step-size
conditions branch by branch), with measured constants (``--constants FILE``) and a model's cut (``--model M --cut
NAME``) filling in what is not given as ``name=value``."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from .. import report
from ..cliargs import parse_assignments
from ..errors import ParameterError, SflTheoryError
from ..evaluate import evaluate, refuse_unused
from ..plan.search import solve
from ..registry import get
from ..stepsize import max_step, step_family
from .answers import bound_answer, step_answer, tau_sweep_answer, tau_sweep_table
from .cuts import ModelCuts, cuts_of, model_args
from .measured import with_constants
from .output import print_json, shown
from .planning import parse_grid

EXIT_STEP_VIOLATES = 1  # check-lr: the given step violates a stated branch
TAU_GRID = "1:32"  # check-lr's tau sweep when the result has tau and it is not given


def _with_cut(a: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """``--model M --cut NAME``: the cut's d_c and d_s (and d) for the result, unless given as name=value (a
    conflicting value is refused, never silently replaced)."""
    if getattr(a, "cut", None) is None:
        if getattr(a, "model", None) is not None:
            raise ParameterError("--cut", "name the cut (sfltheory cuts --model M lists them) to fix d_c and d_s")
        return params
    if getattr(a, "model", None) is None:
        raise ParameterError("--cut", "needs --model: the model whose cut it is")
    point = cuts_of(a).by_name(a.cut)
    out = dict(params)
    for k, v in (("d_c", point.d_c), ("d_s", point.d_s), ("d", point.d)):
        if k in out:
            raise ParameterError(k, f"given twice: by name=value and by --cut {a.cut} ({k} = {v}); give one")
        if k in get(a.id).parameters():
            out[k] = float(v)
    return out


def _cmd_bound(a: argparse.Namespace) -> int:
    ev = evaluate(a.id, _with_cut(a, with_constants(a, parse_assignments(a.params))))
    if a.json:
        print_json({"answer": bound_answer(ev), **report.bound_dict(ev)})
    else:
        print(shown(a, f"{bound_answer(ev)}\n{report.bound_text(ev)}"))
    return 0


def _tau_grid(a: argparse.Namespace, params: dict[str, Any]) -> np.ndarray | None:
    """check-lr's tau sweep: the ``--grid`` values (default :data:`TAU_GRID`) when the result has tau and it is
    not given; None when tau is given (``--grid`` then refused) or the result has none."""
    has_tau = "tau" in get(a.id).parameters()
    if not has_tau or "tau" in params:
        if a.grid is not None:
            why = "tau is given" if has_tau else f"{a.id} has no tau"
            raise ParameterError("--grid", f"sweeps tau when it is left out; {why}")
        return None
    grid = parse_grid(a.grid if a.grid is not None else TAU_GRID)
    assert grid is not None
    if grid.size == 0 or np.any(grid < 1) or np.any(grid != np.round(grid)):
        raise ParameterError("--grid", "tau values must be integers >= 1")
    return np.unique(grid)


def _best_steps(rid: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The bound at the largest feasible step and at the bound-minimising one, when every other parameter
    of the result is given (otherwise None: check-lr needs only what the step conditions use)."""
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
    given = parse_assignments(a.params)
    refuse_unused([a.id], list(given))  # used or refused: never a silently dropped name
    params = _with_cut(a, with_constants(a, given))
    taus = _tau_grid(a, params)
    if taus is not None:
        params["tau"] = taus
    sc = max_step(a.id, params)
    best = _best_steps(a.id, params)
    if a.json:
        answer = step_answer(sc) if taus is None else tau_sweep_answer(sc, taus)
        print_json({"answer": answer, **report.step_dict(sc), "bound_at": best,
                    **({} if taus is None else {"tau": taus})})  # fmt: skip
    else:
        table = report.step_text(sc) if taus is None else tau_sweep_table(sc, taus)
        lines = [step_answer(sc) if taus is None else tau_sweep_answer(sc, taus), table]
        if best is not None:
            m, j = best["largest_feasible"], best["bound_minimising"]
            lines.append(f"bound at the largest feasible {sc.step} = {report.num(m['step'])}: {report.num(m['bound'])}")
            lines.append(f"bound-minimising {sc.step} = {report.num(j['step'])}: bound {report.num(j['bound'])}")
        print(shown(a, "\n".join(lines)))
    if taus is not None:  # over tau: the step is fine when some tau admits it
        mx = np.asarray(sc.max_step, dtype=float)
        return EXIT_STEP_VIOLATES if sc.given is not None and not bool(np.any(float(np.max(sc.given)) <= mx)) else 0
    if sc.given is not None and sc.violates():
        # a branch max_step is taken over fails: the statement's, or -- for an edition whose statement prints no
        # step-size condition (mu_splitfed/eq24) -- the proof's it rests on (issue 24)
        return EXIT_STEP_VIOLATES  # scripts can test admissibility without parsing the table
    return 0


def register(sub: Any, model_cuts: ModelCuts | None) -> None:
    """Add ``bound`` and ``check-lr`` to a subparsers object; ``model_cuts`` reads a torch model's cuts."""
    s = sub.add_parser("bound", help="evaluate a bound and check its hypotheses: bound ID name=value ...")
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    s.add_argument("--wide", action="store_true", help="tables and lines in full, not fitted to 120 columns")
    model_args(s, required=False, model_cuts=model_cuts)
    s.add_argument("--cut", help="with --model: fix d_c and d_s at this cut (a block name or its 1-based index)")
    s.set_defaults(func=_cmd_bound)
    s.add_argument("--constants", metavar="FILE", help="measured constants (sfltheory measure --out FILE)")

    s = sub.add_parser(
        "check-lr",
        help="step-size conditions branch by branch, the largest feasible step",
        description="Checks the step size (given as name=value) against every branch of the result's step-size "
        "condition and prints the largest feasible step. Exit status: 0 when the given step satisfies every "
        "stated branch (or no step is given), 1 when it violates one (for a sweep: any value), 2 on bad input. "
        "An edition whose statement prints no step-size condition (a proof display) is held to the proof's. "
        "A result with tau, run without tau, is checked over a grid of tau (--grid, default 1:32): exit 1 then "
        "when no tau admits the step.",
    )
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    s.add_argument("--wide", action="store_true", help="tables and lines in full, not fitted to 120 columns")
    s.add_argument("--constants", metavar="FILE", help="measured constants (sfltheory measure --out FILE)")
    model_args(s, required=False, model_cuts=model_cuts)
    s.add_argument("--cut", help="with --model: fix d_c and d_s at this cut (a block name or its 1-based index)")
    s.add_argument("--grid", help=f"without tau: the tau values to check, FIRST:LAST or a comma list ({TAU_GRID})")
    s.set_defaults(func=_cmd_check_lr)
