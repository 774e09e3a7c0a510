"""A verify job: several checks, the worst cases and the trend checks asked for, one report.

``sfltheory verify`` parses its flags into a :class:`Job` (every spec checked before any work) and runs it here:
each :class:`verify.spec.CheckSpec` through :func:`verify.pipeline.check.cached_check` (one result's failure
loses nothing else: the others go on, each saved as it ends), the worst-case search over quadratics for the
first-order results, the trend checks, and one report written from all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sfltheory.errors import SflTheoryError
from sfltheory.experiments import experiment
from sfltheory.outputs import keep
from verify.spec import CheckSpec, TrendSpec

from . import report
from .check import cached_check
from .records import Verification
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
    for spec in job.checks:
        say(f"verifying {spec.result} ...")
        try:
            done.append(cached_check(spec, cache))
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
        if worst:
            save_worst_cases(worst, d)  # counterexamples.json, which `sfltheory audit --counterexamples` reads
        return files

    if job.out:
        written = keep("out", job.out, write, folder=True)  # a failed write keeps the report in a temp folder
    return Outcome(done=tuple(done), failed=tuple(failed), worst=tuple(worst), trends=tuple(checks),
                   written=tuple(Path(p) for p in written))  # fmt: skip


__all__ = ["Job", "Outcome", "run_job"]
