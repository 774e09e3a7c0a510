r"""Run the lemma checks, write their witnesses and records, and replay a witness.

``python -m verify.pipeline.lemmas --out DIR [RESULT ...]`` searches every lemma of
:data:`~verify.pipeline.lemmas.checks.CHECKS` (about 10 CPU-s), prints one line per result, writes one witness
file per violation (``DIR/lemma-<result>.json``: a ``--problem`` file with the lemma's settings) and adds the
records (``kind: "lemma"``) to ``DIR/counterexamples.json``, which ``sfltheory audit --counterexamples DIR`` reads
(the falsified check). Records of other kinds already in that file are kept.

``python -m verify.pipeline.lemmas --replay FILE`` recomputes a witness: the exact left-hand side again, a
Monte-Carlo estimate of it from sampled noise (20,000 runs, a 95% interval: an independent check of the exact
algebra) and the bound at the recorded constants.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.atomic import write_atomic
from sfltheory.audit.falsified import FILE, FORMAT, records_in
from sfltheory.errors import ParameterError, SflTheoryError
from sfltheory.evaluate import evaluate
from sfltheory.result import Result

from .affine import Sampled
from .checks import (
    BY_RESULT,
    CHECKS,
    SAMPLES_CONFIRM,
    Z_CONFIDENCE,
    LemmaCheck,
    Search,
    differences,
    exact_lhs,
    lemma_check,
    params_of,
    sampled_lhs,
    search,
    variants,
)
from .instance import load

KIND = "lemma"


def witness_name(result_id: str, variant: str) -> str:
    """The witness file's name for a result and class (``/``, ``@`` and spaces made file-safe)."""
    stem = result_id.replace("/", "-").replace("@", "-at-")
    return f"lemma-{stem}-{variant.replace(' ', '-')}.json"


def searches(results: Sequence[str] | None = None, *, instances: int = 48, climb: int = 40,
             seed: int = 0) -> list[Search]:  # fmt: skip
    """Every chosen check searched in each of its classes (:func:`~verify.pipeline.lemmas.checks.variants`)."""
    return [
        search(c, instances=instances, climb=climb, seed=seed, variant=v)
        for c in ([lemma_check(x) for x in results] if results else CHECKS)
        for v in variants(st.get(c.result))
    ]


def record(s: Search, problem_file: str | None) -> dict[str, Any]:
    """The ``counterexamples.json`` record of one search."""
    w = s.worst
    rec: dict[str, Any] = {"result": s.result, "kind": KIND, "counterexample": s.violated, "score": w.score,
                           "lhs": w.lhs, "lhs_low": w.lhs_low, "samples": w.samples, "bound": w.bound,
                           "params": w.params, "instances": s.tried,
                           "class": s.variant.name,
                           "differs": differences(st.get(s.result)) if s.variant.name == "as printed" else [],
                           "algorithm": BY_RESULT[s.result].algorithm}  # fmt: skip
    if problem_file:
        rec["problem_file"] = problem_file
        rec["command"] = f"python -m verify.pipeline.lemmas --replay {problem_file}"
    return rec


def save(found: Sequence[Search], out: str | Path) -> Path:
    """The witnesses and records under ``out`` (records of other kinds in ``counterexamples.json`` kept)."""
    d = Path(out)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ParameterError("--out", f"cannot create {d} ({e.strerror})") from None
    recs = []
    for s in found:
        name = None
        if s.violated:
            name = witness_name(s.result, s.variant.name)
            s.worst.instance.save(d / name, {"result": s.result, "params": s.worst.params, "lhs": s.worst.lhs,
                                             "bound": s.worst.bound, "score": s.worst.score,
                                             "class": s.variant.name})  # fmt: skip
        recs.append(record(s, name))
    path = d / FILE
    kept = [r for r in records_in(path, "--out", ": not overwritten") if r.get("kind") != KIND] if path.exists() else []
    write_atomic(path, json.dumps({"format": FORMAT, "results": [*kept, *recs]}, indent=1) + "\n")
    return path


@dataclass(frozen=True, kw_only=True)
class Replay:
    """A witness recomputed: the left-hand side (exact, or for a zeroth-order lemma a Monte-Carlo estimate with its
    one-sided lower confidence limit), a Monte-Carlo estimate with its 95% half-width, and the bound."""

    result: str
    lhs: float
    lhs_low: float
    exact: bool
    mc_mean: float
    mc_halfwidth: float
    bound: float
    samples: int

    @property
    def violated(self) -> bool:
        """The left-hand side (its lower confidence limit, where sampled) exceeds the bound."""
        return self.lhs_low > self.bound


def replay(path: str | Path, *, result: Result | None = None, samples: int = 20_000, seed: int = 1) -> Replay:
    """Recompute the witness ``path`` (``result``: the statement to compare with, default the catalogue's)."""
    inst, lemma = load(path)
    rid = str(lemma.get("result", ""))
    check: LemmaCheck = lemma_check(rid)
    r = result if result is not None else st.get(rid)
    v = next((x for x in variants(r) if x.name == lemma.get("class", "as assumed")), variants(r)[0])
    bound = float(evaluate(r, params_of(r, check, inst)).value)
    if check.monte_carlo:
        n = max(samples, SAMPLES_CONFIRM)
        mean, low = sampled_lhs(check, inst, v, n, seed)
        half = (mean - low) * 1.96 / Z_CONFIDENCE
        return Replay(result=rid, lhs=mean, lhs_low=low, exact=False, mc_mean=mean, mc_halfwidth=half, bound=bound,
                      samples=n)  # fmt: skip
    exact = exact_lhs(check, inst)
    vals = [e.samples() for e in check.quantity(Sampled(inst.d, samples, seed), inst)]
    k = int(np.argmax([float(x.mean()) for x in vals]))
    half = 1.96 * float(vals[k].std(ddof=1)) / np.sqrt(samples)
    return Replay(result=rid, lhs=exact, lhs_low=exact, exact=True, mc_mean=float(vals[k].mean()), mc_halfwidth=half,
                  bound=bound, samples=samples)  # fmt: skip


def line(s: Search) -> str:
    """One line of the report."""
    w = s.worst
    where = "" if s.variant.name == "as assumed" else f" ({s.variant.name})"
    verdict = "VIOLATED" if s.violated else "holds"
    return (f"{s.result:24s} {verdict:8s} worst lhs {w.lhs:.4g} vs bound {w.bound:.4g} (score {w.score:+.3g}) "
            f"over {s.tried} instances{where}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m verify.pipeline.lemmas", description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="*", help=f"results to check (default all: {', '.join(BY_RESULT)})")
    p.add_argument("--out", help="write witnesses and counterexamples.json here")
    p.add_argument("--instances", type=int, default=48, help="random instances per result (default 48)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--replay", metavar="FILE", help="recompute a witness file instead")
    a = p.parse_args(argv)
    try:
        if a.instances < 1:
            raise ParameterError("--instances", f"must be a positive integer (got {a.instances})")
        if a.replay:
            extra = [x for x, given in (("RESULT", a.results), ("--out", a.out)) if given]
            if extra:  # a replay recomputes one witness: a search's options would be ignored
                raise ParameterError(extra[0], f"--replay recomputes one witness; drop {extra[0]} or drop --replay")
            rp = replay(a.replay)
            how = (f"exact left-hand side {rp.lhs:.10g}; Monte Carlo {rp.mc_mean:.6g} +- {rp.mc_halfwidth:.2g} "
                   f"(95%, {rp.samples} runs)") if rp.exact else (
                   f"left-hand side by Monte Carlo {rp.mc_mean:.6g} +- {rp.mc_halfwidth:.2g} (95%, {rp.samples} "
                   f"runs), lower limit {rp.lhs_low:.6g} (one-sided 99.9%)")  # fmt: skip
            print(f"{rp.result}: {how}; bound {rp.bound:.10g}: {'violated' if rp.violated else 'holds'}")
            return 0
        found = searches(a.results or None, instances=a.instances, seed=a.seed)
        for s in found:
            print(line(s))
        if a.out:
            print(f"wrote {save(found, a.out)}")
        return 0
    except SflTheoryError as e:
        print(f"python -m verify.pipeline.lemmas: error: {e}", file=sys.stderr)
        return 2
