"""A verify job: several checks, the worst cases and the trend checks asked for, one report.

``sfltheory verify`` parses its flags into a :class:`Job` (every spec checked before any work) and runs it here in
two phases. First every check is prepared (:func:`verify.pipeline.check.prepare`: its problem built, a model and
its data loaded, its parameters checked, the bound finite): a bad input of any of them raises its ParameterError
before the first check runs (the command line exits 2 with one line). Then each runs through
:func:`verify.pipeline.check.cached_check` (a failure at run time loses nothing else: the others go on, each
saved as it ends), the worst-case search over quadratics for the first-order results, the trend checks, and one
report written from all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sfltheory.errors import SflTheoryError
from sfltheory.experiments import experiment
from sfltheory.outputs import keep
from verify.spec import CheckSpec, TrendSpec
from verify.train.loop import TooLong

from . import report
from .check import cached_check, prepare
from .records import Verification
from .report.document import kind_text, leg_text, number_text, tightest_item, tightness_text
from .tightest import untightened
from .trends import CHECKS
from .trends.record import TrendCheck
from .verdicts import exact_applies
from .worstcase import WorstCase, save_worst_cases, worst_case


@dataclass(frozen=True, kw_only=True)
class Job:
    """What to verify: the checks, ``worst_case`` quadratics searched per first-order result (None: no search),
    the trend checks, and the folder of the report (None: no report written)."""

    checks: tuple[CheckSpec, ...] = ()
    worst_case: int | None = None
    trends: tuple[TrendSpec, ...] = ()
    out: str | None = None


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What a job found: the verifications, one line per failed check, the worst cases, the trend checks and the
    report files written."""

    done: tuple[Verification, ...]
    failed: tuple[str, ...]
    worst: tuple[WorstCase, ...]
    trends: tuple[TrendCheck, ...]
    written: tuple[Path, ...] = field(default_factory=tuple)


def run_job(job: Job, *, say: Callable[[str], None] = lambda s: None) -> Outcome:
    """Run ``job`` (see the module docstring); ``say`` hears what starts, and each failure in one line."""
    done: list[Verification] = []
    failed: list[str] = []
    cache = Path(job.out) / "cache" if job.out else None  # re-rendering a report does not recompute it
    ready = [prepare(spec) for spec in job.checks]  # every check's bad input refused before the first runs
    for spec, p in zip(job.checks, ready, strict=True):
        say(f"verifying {spec.result} ...")
        try:
            v = cached_check(spec, cache, prepared=p)
            if spec.tightest and v.tightest is None:  # a result checked on a model (HERON-SFL): why no worst case
                v = dataclasses.replace(v, tightest=untightened(experiment(spec.result)))
            done.append(v)
        except TooLong:  # too large to run at all: bad input, refused in one line (exit 2), not a failed check
            raise
        except SflTheoryError as e:
            failed.append(f"{spec.result}: {e}")
            say(f"sfltheory: {spec.result}: {e}")
    worst = []
    if job.worst_case:
        for spec in job.checks:
            exp = experiment(spec.result)
            if exact_applies(exp.algorithm, exp.sampled) and exp.problem == "quadratic":
                worst.append(worst_case(spec.result, instances=job.worst_case, T=min(spec.T, 20)))
    checks = []
    for t in job.trends:
        say(f"trend {t.name} ...")
        checks.append(CHECKS[t.name](**t.settings))
    written: list[Path] = []

    def write(d: Path) -> list[Path]:
        files: list[Path] = []
        if done or checks:  # one document: the results, then the worst cases and the trends asked for
            files = list(report.write(done, d, worst_cases=worst or None, trends=checks or None))
        refuted = [ref for v in done if v.tightest is not None for ref in v.tightest.refutations]
        if worst or refuted:  # counterexamples.json, which `sfltheory audit --counterexamples` reads
            save_worst_cases(worst, d, refuted)
        return files

    if job.out:
        written = keep("out", job.out, write, folder=True)  # a failed write keeps the report in a temp folder
    return Outcome(done=tuple(done), failed=tuple(failed), worst=tuple(worst), trends=tuple(checks),
                   written=tuple(Path(p) for p in written))  # fmt: skip


def outcome_text(o: Outcome) -> str:
    """A verify job's outcome in lines: one per leg, worst case and trend check."""
    lines = []
    for v in o.done:
        for leg in v.legs:
            hyp = "hypotheses hold" if leg.applies else f"{len(leg.failing)} hypotheses fail"
            decay = (f"decay {number_text(leg.slope_lhs, '5.2f', 'too few points')} vs "
                     f"{number_text(leg.slope_bound, '5.2f', 'too few points')}")  # fmt: skip
            ratio = tightness_text(leg.tightness, leg.bound[-1], leg.lhs[-1])
            lines.append(f"{v.result:28s} {leg.mode:10s} step {leg.step:<10.4g} {hyp:22s} {leg.verdict:12s} "
                         f"bound/measured {ratio:>8s}  {decay}")  # fmt: skip
        lines += tightest_lines(v)
    for w in o.worst:
        what = "COUNTEREXAMPLE" if w.counterexample else "no counterexample"
        ratio = number_text(w.ratio, why="bound 0 or not finite")
        lines.append(f"{w.result:28s} worst case over {w.tried} quadratics: measured/bound {ratio} at T = "
                     f"{w.T} (step {w.step:.3g}): {what}")  # fmt: skip
    lines += [c.line() for c in o.trends]
    return "\n".join(lines)


def tightest_lines(v: Verification) -> list[str]:
    """A result's tightest bound in a few lines (``verify --tightest``): per leg and M, paper / tightest at T = 1..R
    with the kind; or why it is not computed. None without one."""
    t = tightest_item(v.to_dict())
    if t is None:
        return []
    pad = " " * 29
    if not t.rows:
        return [f"{pad}tightest bound not computed: {t.reason}"]
    out = []
    for mode, M, rows in t.groups():
        Ts = [r.T for r in rows]
        runs = len(Ts) > 1 and Ts == list(range(Ts[0], Ts[-1] + 1))
        span = f"T={Ts[0]}..{Ts[-1]}" if runs else "T=" + ",".join(map(str, Ts))
        ratios = ", ".join(number_text(r.ratio, ".3g", "n/a") + ("!" if r.replayed is not None else "") for r in rows)
        out.append(f"{pad}tightest bound ({kind_text(rows)}) {leg_text(mode, rows)}, M = {M}: {span} paper / tightest "
                   f"= {ratios}")  # fmt: skip
        bad = [r for r in rows if r.replayed is not None]
        if bad:
            out.append(f"{pad}  ! bound invalid at T = {', '.join(str(r.T) for r in bad)}: a function of the class, "
                       f"replayed by the trainer, exceeds it ({bad[0].replayed:.4g} > {bad[0].paper:.4g} at T = "
                       f"{bad[0].T}; --out writes each, python -m verify.pep FILE replays it)")  # fmt: skip
    return out


__all__ = ["Job", "Outcome", "outcome_text", "run_job", "tightest_lines"]
