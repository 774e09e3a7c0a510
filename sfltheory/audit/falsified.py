"""Check 9: falsified on an exact problem -- the counterexamples ``sfltheory verify --worst-case`` found.

The verification's worst-case search (:mod:`verify.pipeline.worstcase`) runs a first-order algorithm on
quadratics inside a result's assumption class, at steps its hypotheses admit, and computes the left-hand side
exactly (mean and covariance propagated). A measured / bound ratio above 1 there is a counterexample for
certain. ``verify --worst-case N --out DIR`` writes ``DIR/counterexamples.json`` (one record per result
searched) and one ``--problem`` file per counterexample; ``verify --tightest R --out DIR`` writes the same
records (``kind: "tightest"``) for each bound below an exact worst case (:mod:`verify.pipeline.tightest`), with a
refutation file that ``python -m verify.pep FILE`` replays; ``python -m verify.pipeline.updaterules --out DIR``
adds records of kind ``update_rule`` (a printed update that ascends where the analysed one descends, run on a
quadratic) and ``python -m verify.pipeline.lemmas --out DIR`` records of kind ``lemma`` (a lemma or one-round
inequality whose exact left-hand side exceeds its bound on a quadratic: "bound invalid" inside the class the
proof assumes, "unstated condition" where it fails only in the class the paper prints). ``sfltheory audit
--counterexamples DIR`` reads them and reports each counterexample as a finding of this check, with the command
that replays it. Without that option this check finds nothing (it never re-runs
training: the theory half does not import torch).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..result import Result
from .context import Context, seed_location
from .findings import Finding, Severity

FORMAT = "sfltheory.counterexamples/1"
FILE = "counterexamples.json"


def records_in(f: Path, option: str, note: str = "") -> list[Any]:
    """The records of the ``counterexamples.json`` file ``f``, or a ParameterError naming ``option`` (the message
    ending in ``note``) where it is not JSON or not of :data:`FORMAT`."""
    try:
        doc = json.loads(f.read_text())
    except ValueError:
        raise ParameterError(option, f"{f} is not JSON{note}") from None
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise ParameterError(option, f"{f} is not a {FORMAT} record{note}")
    return list(doc.get("results", []))


def load(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The worst-case records in ``paths`` (a ``counterexamples.json`` or the folder holding it), each with the
    absolute path of its problem file."""
    out: list[dict[str, Any]] = []
    for raw in paths:
        p = Path(raw)
        f = p / FILE if p.is_dir() else p
        if not f.is_file():
            raise ParameterError("--counterexamples", f"no {FILE} at {p} (write one with verify --worst-case N --out)")
        for rec in records_in(f, "--counterexamples"):
            rec = dict(rec)
            if rec.get("problem_file"):
                rec["problem_file"] = str((f.parent / rec["problem_file"]).resolve())
            out.append(rec)
    return out


def check(r: Result, ctx: Context) -> list[Finding]:
    """The falsified check on ``r``: one ``bound invalid`` finding per counterexample record of ``r`` in
    ``ctx.counterexamples`` (the worst measured / bound ratio, its T and step, and the ``sfltheory verify``
    command that replays it). Empty without records."""
    out = []
    for rec in ctx.counterexamples:
        if rec.get("result") != r.id or not rec.get("counterexample"):
            continue
        severity: Severity = "bound invalid"
        if rec.get("kind") == "lemma":  # verify.pipeline.lemmas: a lemma's exact left-hand side above its bound
            replay = str(rec["command"]).replace(Path(rec["problem_file"]).name, rec["problem_file"])
            printed = rec.get("class") == "as printed"
            severity = "unstated condition" if printed else "bound invalid"
            differs = "; ".join(rec.get("differs", ()))
            cls = (f"in the class as printed ({differs}; inside every condition the proof uses it holds)" if printed
                   else "inside the assumption class and every condition")  # fmt: skip
            how = (f"the exact left-hand side is {rec['lhs']:.4g}" if not rec.get("samples") else
                   f"the left-hand side is {rec['lhs']:.4g} by Monte Carlo ({rec['samples']} runs; its one-sided 99.9% "
                   f"lower limit {rec['lhs_low']:.4g})")  # fmt: skip
            found = (f"on an exact quadratic {cls}, {rec['algorithm']}: {how} against the bound {rec['bound']:.4g} "
                     f"(the worst of {rec['instances']} instances); replay: {replay}")  # fmt: skip
            witness = {k: float(v) for k, v in rec["params"].items()}
        elif rec.get("kind") == "update_rule":  # verify.pipeline.updaterules: a printed update that ascends
            lo, hi = rec["interval"]
            replay = str(rec["command"]).replace(f"--problem {Path(rec['problem_file']).name}",
                                                 f"--problem {rec['problem_file']}")  # fmt: skip
            found = (f"the update as printed ({rec['param']}={rec['choice']}) ascends on a quadratic in the assumption "
                     f"class where the analysed form ({rec['param']}={rec['analysed']}) descends: "
                     f"log(|grad f(x^T)|^2 / |grad f(x^0)|^2) = {rec['log_ratio']:.3g} (95% interval [{lo:.3g}, "
                     f"{hi:.3g}] over {rec['seeds']} seeds) against {rec['analysed_log_ratio']:.3g}, T = {rec['T']}; "
                     f"the bound is about the analysed algorithm, not {rec['algorithm']} as printed; replay: "
                     f"{replay}")  # fmt: skip
            witness = {"T": float(rec["T"])}
        else:
            ratio, T, step = float(rec["worst_ratio"]), int(rec["at_T"]), float(rec["step"])
            witness = {"T": float(T), **({r.step: step} if r.step else {})}
            if rec.get("kind") == "tightest":  # verify --tightest: an exact worst case (an SDP) a function attains
                replay = f"python -m verify.pep {rec['problem_file']}"
                found = (f"the exact worst case over the assumption class (performance estimation, one client; an "
                         f"L-smooth function attains it and the trainer replays it) is {ratio:.4g}x the bound at "
                         f"T = {T}, step {step:.4g}; replay: {replay}")  # fmt: skip
            else:
                replay = f"sfltheory verify {r.id} --problem {rec['problem_file']} --T {T}"
                found = (f"on an exact quadratic in the assumption class the exact left-hand side is {ratio:.4g}x the "
                         f"bound at T = {T}, step {step:.4g} (the worst of {rec.get('instances', '?')} instances "
                         f"searched); replay: {replay}")  # fmt: skip
        out.append(Finding(result=r.id, check="falsified", printed=r.statement, found=found, severity=severity,
                           seed=seed_location(r.provenance), witness=witness))  # fmt: skip
    return out
