"""``docs/ERRATA.md``: the audit's findings grouped by root cause, then the discrepancies recorded by reading.

Per paper, each root cause (:mod:`sfltheory.audit.rootcause`) is one entry: the cause in the paper's terms, where
the seed prints it, its severity and what a reader loses there, the evidence a reader re-checks it by, and its
consequences (the other findings it causes, one line each). Every finding then appears once more, with its witness
and re-check commands, in the tables of the audit's order (the rows the site's result pages show).

The falsified check reads the counterexamples the torch half found (``verify --worst-case``, ``verify --tightest``,
``python -m verify.pipeline.updaterules``) from the committed :data:`EVIDENCE` file when there is one, so that they
show here with their replay commands (their problem files sit beside it).

Run ``python -m sfltheory.audit.errata docs/ERRATA.md`` to regenerate it; a test keeps it in sync. To refresh the
evidence: ``python -m verify.pipeline.updaterules --out A``, ``python -m verify.pipeline.lemmas --out B``, then
``python -m sfltheory.audit.errata --collect A B`` (it replaces ``docs/evidence``'s records with theirs).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..builtin import PAPERS
from ..errors import ParameterError, SflTheoryError
from ..registry import paper_keys, results
from ..report import errata
from .falsified import FILE, FORMAT, records_in
from .findings import CHECK_TITLES, CHECKS, SEVERITIES
from .report import SEEDS, markdown_findings, summary
from .rootcause import EVIDENCE_DIR, LOSSES, RootCause, explain_command, group
from .runner import Audit, audit

SEED = 0
CHECKOUT = Path(__file__).resolve().parents[2]
EVIDENCE = Path(EVIDENCE_DIR) / FILE  # relative to the checkout: the replay commands run from its root
RULES_FILE = "update_rules.json"  # every update-rule run, beside the counterexamples
CLIP = 180  # characters of a consequence's finding on its line (the tables below and --explain print it whole)


@cache
def catalogue_audit(seed: int = SEED) -> Audit:
    """The audit of the whole catalogue (computed once per process: docs, tests and the main job share it)."""
    return audit(seed=seed)


def evidence_records(path: Path | None = None) -> list[dict[str, Any]]:
    """The records of the committed counterexamples file (default :data:`EVIDENCE` in the checkout; none when it
    does not exist), each problem file named relative to the checkout's root, as the replay commands use it."""
    f = path if path is not None else CHECKOUT / EVIDENCE
    if not f.is_file():
        return []
    out = []
    for rec in records_in(f, "evidence", f" (the committed evidence, {EVIDENCE})"):
        rec = dict(rec)
        if rec.get("problem_file"):
            rec["problem_file"] = (Path(EVIDENCE_DIR) / str(rec["problem_file"])).as_posix()
        out.append(rec)
    return out


def collect_evidence(sources: Sequence[str | Path], target: Path | None = None) -> Path:
    """Gather the counterexamples of ``sources`` (each a ``counterexamples.json`` or the folder holding it, as the
    torch half writes them) into the evidence folder (default :data:`EVIDENCE`'s, in the checkout): one
    ``counterexamples.json`` with every record that is a counterexample, and each record's problem file beside it.
    Returns the file written. A source that is missing or not a counterexamples file is a one-line error, before
    anything is written."""
    target = target if target is not None else CHECKOUT / EVIDENCE
    found: list[tuple[dict[str, Any], Path | None]] = []
    for raw in sources:
        p = Path(raw)
        f = p / FILE if p.is_dir() else p
        if not f.is_file():
            raise ParameterError("sources", f"no {FILE} at {p}")
        for rec in records_in(f, "sources"):
            if rec.get("counterexample"):
                problem = f.parent / str(rec["problem_file"]) if rec.get("problem_file") else None
                if problem is not None and not problem.is_file():
                    raise ParameterError("sources", f"{f} names the problem file {problem}, which does not exist")
                found.append((dict(rec), problem))
    for _, problem in found:
        if problem is not None:
            write_atomic(target.parent / problem.name, problem.read_text())
    for raw in sources:  # every update-rule run (verify.pipeline.updaterules), ascending or not
        rules = (Path(raw) if Path(raw).is_dir() else Path(raw).parent) / RULES_FILE
        if rules.is_file():
            write_atomic(target.parent / RULES_FILE, rules.read_text())
    records = [{**rec, **({"problem_file": problem.name} if problem else {})} for rec, problem in found]
    doc = {"format": FORMAT, "results": records}
    write_atomic(target, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    return target


def with_evidence(a: Audit, records: Sequence[Mapping[str, Any]]) -> Audit:
    """``a`` with the falsified check's findings on ``records`` added, in the audit's order (paper, result, check)."""
    if not records:
        return a
    extra = audit(seed=a.seed, checks=["falsified"], counterexamples=records).findings
    order = {k: n for n, k in enumerate(PAPERS)}
    position = {r.id: n for n, r in enumerate(results())}
    found = sorted(
        [*a.findings, *extra],
        key=lambda f: (order.get(f.paper, 99), position.get(f.result, 0), CHECKS.index(f.check)),
    )
    return dataclasses.replace(a, findings=tuple(found))


def _text(s: str) -> str:
    # found texts hold SymPy products (L**2*eta): escaped so that Markdown does not read them as emphasis
    return " ".join(s.split()).replace("*", "\\*")


def _clip(s: str) -> str:
    return s if len(s) <= CLIP else s[: CLIP - 1] + "…"


def root_cause_markdown(n: int, rc: RootCause) -> list[str]:
    """One root cause as a Markdown entry: cause, seed, severity and loss, evidence, consequences."""
    seed = f"[{rc.seed}](../{SEEDS}/{rc.seed_file})"
    out = [
        f"#### {n}. {_text(rc.title)} — {rc.severity}",
        "",
        f"- **Cause** (`{rc.key}`): {_text(rc.statement)}",
        f"- **Seed**: {seed}",
        "- **Results**: " + ", ".join(f"`{r}`" for r in rc.results),
        f"- **Severity**: {rc.severity} — {rc.loses}",
    ]
    if len(rc.evidence) == 1:
        out.append(f"- **Evidence**: {_text(rc.evidence[0])}")
    else:
        out += ["- **Evidence**:", *[f"  - {_text(e)}" for e in rc.evidence]]
    if rc.consequences:
        out.append(f"- **Consequences** ({len(rc.consequences)}):")
        for m in rc.consequences:
            f = m.finding
            out.append(
                f"  - `{f.result}` · {CHECK_TITLES[f.check]} · {f.severity}: {_text(_clip(f.found))} "
                f"(`{explain_command(m)}`)"
            )
    else:
        out.append("- **Consequences**: none (this finding only)")
    return [*out, ""]


def update_rules_markdown(path: Path | None = None) -> list[str]:
    """The section on every printed and analysed variant of the trainer's algorithms (docs/ALGORITHMS.md), from the
    committed ``update_rules.json`` (none where it does not exist)."""
    f = path if path is not None else CHECKOUT / EVIDENCE.parent / RULES_FILE
    if not f.is_file():
        return []
    doc = json.loads(f.read_text())
    setting = ", ".join(f"{k} = {v:g}" for k, v in doc["instance"].items())
    out = ["## Update rules as printed and as analysed", "",
           f"Every choice of every choice-valued parameter of the trainer's algorithms (the printed and analysed "
           f"variants `docs/ALGORITHMS.md` describes), run on one quadratic ({setting}) at step "
           f"{doc['step']} for T = {doc['T']} rounds by `python -m verify.pipeline.updaterules --out DIR` "
           f"(`{EVIDENCE.parent / RULES_FILE}`): the mean over seeds of log(|grad f(x^T)|^2 / |grad f(x^0)|^2) with "
           "its 95% t-interval. A choice that ascends where the default descends is a counterexample above. Without "
           "gradient noise, choices that differ only in how samples are drawn coincide.", "",
           "| algorithm | parameter | choice | log-ratio | 95% interval | verdict |",
           "|---|---|---|---|---|---|"]  # fmt: skip
    for r in doc["runs"]:
        lo, hi = r["interval"]
        mark = " (default)" if r["default"] else ""
        out.append(f"| `{r['algorithm']}` | {r['param']} | {r['choice']}{mark} | {r['mean']:.3f} | "
                   f"[{lo:.3f}, {hi:.3f}] | {r['verdict']} |")  # fmt: skip
    return [*out, ""]


def errata_markdown(a: Audit | None = None, evidence: Sequence[Mapping[str, Any]] | None = None) -> str:
    """The page: a summary per paper, the root causes per paper, every finding in the audit's order, then every
    discrepancy recorded by reading. ``evidence``: counterexample records (default :func:`evidence_records`)."""
    a = with_evidence(a if a is not None else catalogue_audit(), evidence_records() if evidence is None else evidence)
    causes = group(a.findings)
    s = summary(a)
    count = {k: sum(rc.paper == k for rc in causes) for k in s}
    out = [
        "# Errata: where the papers do not hold together",
        "",
        f"Generated by `python -m sfltheory.audit.errata docs/ERRATA.md` (the audit with seed {a.seed}, the "
        f"counterexamples in `{EVIDENCE}`, then `sfltheory errata`); do not edit by hand. Findings *found by the "
        "audit* come from generic checks (`sfltheory audit`), grouped by root cause: one error in a paper, with the "
        "findings it causes in other editions, proofs and corollaries listed under it. Every finding is also listed "
        "in the audit's order with its witness, which re-evaluates through `sfltheory bound` to the numbers shown. "
        "Entries marked *recorded by reading* are the discrepancies noted while encoding the papers.",
        "",
        "## Found by the audit",
        "",
        f"{len(causes)} root causes over {len(a.findings)} findings.",
        "",
        "| paper | " + " | ".join(CHECK_TITLES[c] for c in CHECKS) + " | root causes | total |",
        "|---|" + "---|" * (len(CHECKS) + 2),
    ]
    out += [
        f"| `{k}` | " + " | ".join(str(v[c]) for c in CHECKS) + f" | {count[k]} | {v['total']} |" for k, v in s.items()
    ]
    out += ["", "A root cause's severity is the most severe of its findings:", ""]
    out += ["| severity | what a reader loses |", "|---|---|", *[f"| {k} | {LOSSES[k]} |" for k in SEVERITIES], ""]
    for key in paper_keys():
        mine = [rc for rc in causes if rc.paper == key]
        if not mine:
            continue
        n = sum(len(rc.members) for rc in mine)
        out += [f"### `{key}`: {len(mine)} root causes of {n} findings", ""]
        for i, rc in enumerate(mine, 1):
            out += root_cause_markdown(i, rc)
    out += [
        "## Every finding, in the audit's order",
        "",
        "Each finding with its witness and re-check commands (the rows the site's result pages show).",
        "",
        *markdown_findings(a),
        *update_rules_markdown(),
        "## Recorded by reading",
        "",
    ]
    rs = results()
    by_id = {r.id: r for r in rs}
    for e in errata(rs):
        p = by_id[e["result"]].provenance
        out.append(
            f"- *recorded by reading* — **{e['paper']}** — {e['where']} (`{e['result']}`, seed "
            f"[{p.seed}](../shared/seeds/{p.seed})): printed ${e['printed']}$; expected ${e['expected']}$. {e['note']}"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m sfltheory.audit.errata [FILE]``: write the errata page (:func:`errata_markdown`) to ``FILE``
    (default ``docs/ERRATA.md``) atomically; ``--collect DIR ...``: gather the counterexamples the torch half wrote
    into ``docs/evidence`` instead (:func:`collect_evidence`). Returns the exit status (2 for bad input, one line)."""
    p = argparse.ArgumentParser(prog="python -m sfltheory.audit.errata", description="Write docs/ERRATA.md.")
    p.add_argument("file", nargs="?", default="docs/ERRATA.md", help="the page to write (default docs/ERRATA.md)")
    p.add_argument("--collect", nargs="+", metavar="DIR",
                   help="gather the counterexamples.json of these folders into docs/evidence instead")  # fmt: skip
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if a.collect:
            print(f"wrote {collect_evidence(a.collect)}")
            return 0
        target = Path(a.file)
        write_atomic(target, errata_markdown())
    except SflTheoryError as e:
        print(f"python -m sfltheory.audit.errata: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
