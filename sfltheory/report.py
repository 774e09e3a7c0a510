"""Plain-text, Markdown and JSON renderings of results and their evaluations (used by the CLI and docs)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable
from typing import Any

import numpy as np
import sympy as sp

from . import lexicon
from .builtin import PAPERS, REFERENCES, paper_notation
from .evaluate import Evaluation, HypothesisCheck
from .registry import editions, reference, results
from .result import Result
from .stepsize import StepCheck


def latex(expr: sp.Expr) -> str:
    """``expr`` as LaTeX, each name written as its symbol (:func:`sfltheory.lexicon.latex_names`)."""
    return sp.latex(expr, symbol_names=lexicon.latex_names())


def jsonable(v: Any) -> Any:
    """NumPy values to JSON; non-finite numbers become None (JSON has no NaN/inf)."""
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return jsonable(v.tolist())
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        f = float(v)
        return f if math.isfinite(f) else None
    return v


def num(v: Any) -> str:
    """A value as short text: 6 significant digits, ``inf``/``-inf``/``nan`` spelled out, ``-`` for None, an array
    as its first 8 entries."""
    if v is None:
        return "-"
    a = np.asarray(v)
    if a.ndim == 0:
        f = float(a)
        return f"{f:.6g}" if math.isfinite(f) else ("inf" if f > 0 else ("-inf" if f < 0 else "nan"))
    return "[" + ", ".join(num(x) for x in a.ravel()[:8]) + (", ...]" if a.size > 8 else "]")


def limit(v: Any, beyond: Any = False) -> str:
    """A limit or a margin that may be unbounded (a largest step, a slack): +inf is ``unbounded`` -- ``unbounded
    (> 1.8e308)`` where the true value is a number beyond the float range (``beyond``) -- never ``inf``."""
    if v is None:
        return "-"
    a, out = np.asarray(v, dtype=float), np.asarray(beyond, dtype=bool)
    if a.ndim:
        flags = np.broadcast_to(out, a.shape).ravel()
        return (
            "["
            + ", ".join(limit(x, f) for x, f in zip(a.ravel()[:8], flags[:8], strict=True))
            + (", ...]" if a.size > 8 else "]")
        )
    f = float(a)
    if math.isfinite(f):
        return f"{f:.6g}"
    if math.isnan(f):
        return "undefined"
    far = f" ({'>' if f > 0 else '<'} {'-' if f < 0 else ''}1.8e308)" if bool(out) else ""
    return ("unbounded" if f > 0 else "-unbounded") + far


def count_text(v: float | int | None) -> str:
    """A count with thousands separators: ``never`` for +inf (a target never reached), ``-`` for none."""
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return "never" if v > 0 else "-"
    return f"{int(v):,}"


def _holds(v: Any) -> str:
    a = np.asarray(v)
    if a.ndim == 0:
        return "holds" if bool(a) else "FAILS"
    return f"holds at {int(a.sum())}/{a.size}"


def text_table(rows: list[list[str]], header: list[str]) -> str:
    """``rows`` under ``header`` as a plain-text table: left-aligned columns two spaces apart, a rule of dashes."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


# --- catalogue ----------------------------------------------------------------------------------------
def result_summary(r: Result) -> dict[str, Any]:
    """What ``sfltheory list --json`` gives per result: id, kind, title, rate, whether explicit and its stand-in,
    what it bounds, its assumptions, where it is printed and how many discrepancies are recorded."""
    return {
        "id": r.id,
        "kind": r.kind,
        "title": r.title,
        "rate": r.rate,
        "explicit": r.explicit,
        "see": r.see,
        "lhs": r.lhs,
        "assumptions": [a.key for a in r.assumptions],
        "provenance": {
            "seed": r.provenance.seed,
            "label": r.provenance.label,
            "equation": r.provenance.equation,
            "section": r.provenance.section,
        },
        "discrepancies": len(r.discrepancies),
    }


def clip(s: str, n: int) -> str:
    """``s`` cut to ``n`` characters, an ellipsis marking a cut."""
    return s if len(s) <= n else s[: n - 1] + "…"


def list_text(rs: Iterable[Result]) -> str:
    """The catalogue as a table that fits a 120-column terminal: id, kind, a short title and where it is printed,
    one block per paper headed by the paper's reference (the rate and the rest: ``show ID`` or ``--json``)."""
    by_paper: dict[str, list[Result]] = {}
    for r in rs:
        by_paper.setdefault(r.paper, []).append(r)
    blocks = []
    for key, group in by_paper.items():
        rows = [[r.id, r.kind + ("" if r.explicit else " (O)"), clip(r.title, 40), clip(_where(r), 22)]
                for r in group]  # fmt: skip
        head = "\n".join(textwrap.wrap(f"{key}: {reference(key)}", 118))  # a user paper: its file's reference
        blocks.append(head + "\n" + text_table(rows, ["id", "kind", "title", "where"]))
    return "\n\n".join(blocks)


def _where(r: Result) -> str:
    p = r.provenance
    return f"{p.label} {p.equation or ''}".strip()


def list_markdown() -> str:
    """The catalogue page (docs/CATALOGUE.md), generated from the code."""
    out = ["# Catalogue of encoded results", "", "Generated by `sfltheory list --markdown`; do not edit by hand.", ""]
    for key, (seed, title) in PAPERS.items():
        rs = results(key)
        out += [f"## `{key}` — {title}", "", f"{REFERENCES[key]}. Seed: `{seed}`", ""]
        if not rs:
            out += ["_No result encoded yet._", ""]
            continue
        out += ["| id | kind | rate | assumptions | provenance |", "|---|---|---|---|---|"]
        for r in rs:
            rate = f"${r.rate}$" if r.rate else ("O-form only" if not r.explicit else "—")
            assum = ", ".join(a.key for a in r.assumptions) or "—"
            p = r.provenance
            prov = f"{p.label} {p.equation or ''}; {p.section}".strip()
            out.append(f"| `{r.id}` | {r.kind} | {rate} | {assum} | {prov} |")
        out.append("")
    return "\n".join(out)


# --- show ---------------------------------------------------------------------------------------------
def vocabulary_of(r: Result) -> list[dict[str, str]]:
    """Each parameter of ``r``: its canonical name, the paper's symbol for it (LaTeX) and its meaning."""
    notation = {**paper_notation(r.paper), **r.notation}
    return [
        {
            "name": n,
            "paper": notation.get(n, lexicon.get(n).latex) if lexicon.is_known(n) else n,
            "meaning": lexicon.get(n).meaning if lexicon.is_known(n) else "",
        }
        for n in r.parameters()
    ]


def show_dict(r: Result) -> dict[str, Any]:
    """Everything ``sfltheory show ID --json`` gives: the summary, reference and editions, the printed statement,
    the terms and hypotheses in LaTeX, assumptions, step size, default rules, the vocabulary with the paper's
    notation, the discrepancies recorded and the notes."""
    return {
        **result_summary(r),
        "reference": r.provenance.reference or REFERENCES.get(r.paper),
        "citation": r.provenance.citation,
        "editions": [e.id for e in editions(r)],
        "statement": r.statement,
        "terms": [{"name": t.name, "latex": latex(t.expr), "meaning": t.meaning} for t in r.terms],
        "hypotheses": [
            {
                "name": h.name,
                "kind": h.kind,
                "source": h.source,
                "printed": h.printed,
                "condition": f"{latex(h.lhs)} {h.rel} {latex(h.rhs)}",
                "where": h.where,
                "note": h.note,
            }
            for h in r.hypotheses
        ],
        "assumptions": [{"key": a.key, "name": a.name, "statement": a.statement} for a in r.assumptions],
        "step": r.step,
        "defaults": {d.name: str(d.expr) for d in r.defaults},
        "default_rules": [{"name": d.name, "formula": str(d.expr), "rule": d.rule} for d in r.defaults],
        "vocabulary": vocabulary_of(r),
        "discrepancies": [
            {"where": d.where, "printed": d.printed, "expected": d.expected, "note": d.note} for d in r.discrepancies
        ],
        "notes": list(r.notes),
    }


def show_text(r: Result) -> str:
    """The same as :func:`show_dict`, as ``sfltheory show ID`` prints it."""
    d = show_dict(r)
    p = r.provenance
    out = [
        f"{r.id}  ({r.kind}) {r.title}",
        f"  source: {p.seed}, {p.label} {p.equation or ''} — {p.section}".rstrip(),
        f"  paper: {r.provenance.reference or REFERENCES.get(r.paper, r.paper)}",
        f"  editions: {', '.join(d['editions'])}",
        f"  bounds: {r.lhs}",
    ]
    if r.rate:
        out.append(f"  rate: {r.rate}")
    if not r.explicit:
        out.append(f"  stated only up to constants; explicit edition: {r.see or 'none'}")
    if r.statement:
        out += ["", "Statement (LaTeX):", f"  {r.statement}"]
    if r.terms:
        out += ["", "Terms:"] + [f"  {t['name']}: {t['latex']}" for t in d["terms"]]
    if r.hypotheses:
        out += ["", "Hypotheses:"]
        for h in d["hypotheses"]:
            out.append(f"  [{h['source']}/{h['kind']}] {h['printed']}   ({h['where']})")
            if h["note"]:
                out.append(f"      note: {h['note']}")
    if r.defaults:
        out += ["", "Defaults (filled in when not given, in the order sfltheory/defaults.py documents):"]
        out += [f"  {x['name']} = {x['formula']}   ({x['rule']})" for x in d["default_rules"]]
    if r.assumptions:
        out += ["", "Assumptions:"] + [f"  {a.name}: {a.statement}" for a in r.assumptions]
    if d["vocabulary"]:
        out += ["", "Vocabulary (canonical name, paper symbol, meaning):"]
        out += [f"  {v['name']:<12} {v['paper']:<18} {v['meaning']}" for v in d["vocabulary"]]
    if r.discrepancies:
        out += ["", "Discrepancies recorded:"]
        for x in r.discrepancies:
            out.append(f"  - {x.where}: printed {x.printed}; expected {x.expected}")
            if x.note:
                out.append(f"      {x.note}")
    if r.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in r.notes]
    return "\n".join(out)


# --- bound / check-lr ---------------------------------------------------------------------------------
def _not_finite(h: HypothesisCheck) -> dict[str, str]:
    """The sides and slack of ``h`` that JSON writes as null, and why: a true value beyond the float range, or
    +-inf (a division by zero) or NaN in exact arithmetic too."""
    out = {}
    for key, v in (("lhs", h.lhs), ("rhs", h.rhs), ("slack", h.slack)):
        a = np.asarray(v, dtype=float)
        if np.all(np.isfinite(a)):
            continue
        if key in h.beyond:
            out[key] = "beyond the float range (|x| > 1.8e308): unbounded"
        elif np.any(np.isnan(a)):
            out[key] = "undefined (0/0)"
        else:
            out[key] = "infinite (a division by zero): unbounded"
    return out


def _hyp_dict(h: HypothesisCheck) -> dict[str, Any]:
    return {
        "name": h.name,
        "holds": h.holds,
        "slack": h.slack,
        "kind": h.kind,
        "source": h.source,
        "printed": h.printed,
        "lhs": h.lhs,
        "rhs": h.rhs,
        "not_finite": _not_finite(h),  # what a null lhs, rhs or slack stands for (JSON has no inf)
    }


def bound_dict(ev: Evaluation) -> dict[str, Any]:
    """An evaluation as JSON-ready data (``sfltheory bound --json``): the bound and its terms, every hypothesis,
    whether the bound applies or is void, the verdict (scalar evaluations), and the parameters used, derived,
    rounded and unused."""
    scalar = np.ndim(ev.value) == 0
    return jsonable(
        {
            "id": ev.id,
            "value": ev.value,
            "terms": ev.terms,
            "hypotheses": [_hyp_dict(h) for h in ev.hypotheses],
            "applies": ev.applies,
            "statement_holds": ev.statement_holds,
            "rests_on_proof": ev.rests_on_proof,
            "proof_conditions_hold": ev.proof_conditions_hold,
            "void": ev.void,
            "verdict": ev.verdict() if scalar else None,
            "parameters": ev.params,
            "derived": ev.derived,
            "rounded": _rounded(ev),
            "unused": ev.unused,
        }
    )


def _rounded(ev: Evaluation) -> dict[str, dict[str, Any]]:
    """The derived counts made whole: the value derived, the one used, and how it was rounded."""
    return {
        k: {"derived": raw, "value": ev.params[k], "how": ev.rounded_how.get(k, "")} for k, raw in ev.rounded.items()
    }


def value_text(v: Any) -> str:
    """A reported bound: a number, or -- where it is not finite (a void bound: x/0) -- ``void``, never ``inf``."""
    a = np.asarray(v, dtype=float)
    if a.ndim == 0 and not math.isfinite(float(a)):
        return "void (no finite bound)"
    return num(v)


def derived_text(ev: Evaluation) -> str:
    """The parameters a default filled in, each with its formula and value; a count made whole shows the value
    derived and how it was rounded (``T = 1 ((d_aux + d_c)/(K*M*batch*eps_target**2) = 0.375, rounded up ...)``)."""
    parts = []
    for k, formula in ev.derived.items():
        if k in ev.rounded:
            how = ev.rounded_how.get(k, "made whole")
            parts.append(f"{k} = {num(ev.params[k])} ({formula} = {num(ev.rounded[k])}, {how})")
        else:
            parts.append(f"{k} = {formula} = {num(ev.params[k])}")
    return "derived: " + ", ".join(parts)


def bound_text(ev: Evaluation) -> str:
    """An evaluation as ``sfltheory bound`` prints it: the bound, a table of its terms, a table of the hypotheses
    with their status and slack, the derived parameters, the unused names and the verdict."""
    out = [f"{ev.id}: bound = {value_text(ev.value)}", ""]
    out.append(text_table([[k, value_text(v)] for k, v in ev.terms.items()], ["term", "value"]))
    if ev.hypotheses:
        out += [
            "",
            text_table(
                [[h.name, h.source, _holds(h.holds), limit(h.slack, "slack" in h.beyond)] for h in ev.hypotheses],
                ["hypothesis", "source", "status", "slack (margin, in the condition's units)"],
            ),
        ]
    if ev.derived:
        out += ["", derived_text(ev)]
    if ev.unused:
        out.append("unused: " + ", ".join(ev.unused))
    out += ["", ev.verdict() if np.ndim(ev.value) == 0 else _array_verdict(ev)]
    return "\n".join(out)


def _array_verdict(ev: Evaluation) -> str:
    a = np.asarray(ev.applies)
    return f"the bound applies at {int(a.sum())} of {a.size} points"


def step_dict(sc: StepCheck) -> dict[str, Any]:
    """A step check as JSON-ready data (``sfltheory check-lr --json``): the largest step over the statement's branches
    and with the proof's conditions, the binding branches, each branch (its bound, how it was found, whether the
    given step meets it), the couplings and the advice."""
    return jsonable(
        {
            "id": sc.id,
            "step": sc.step,
            "given": sc.given,
            f"max_{sc.step}": sc.max_step,
            "max_step": sc.max_step,  # null where no branch bounds the step (max_step_unbounded)
            "max_step_unbounded": np.isinf(np.asarray(sc.max_step, dtype=float)),
            "max_step_basis": sc.basis,  # the sources max_step is taken over ("statement", or "proof" ... where none)
            "binding": sc.binding,
            "max_step_with_proof_conditions": sc.max_step_all,
            "binding_with_proof_conditions": sc.binding_all,
            "branches": [
                {
                    "name": b.name,
                    "source": b.source,
                    "printed": b.printed,
                    "canonical": b.canonical,
                    "max": b.bound,  # null: unbounded by this branch (max_beyond_float_range, or path unconstrained)
                    "max_beyond_float_range": b.beyond,
                    "holds": b.holds,
                    "slack": b.slack,
                    "path": b.path,  # how "max" was found: closed form, bisection, unconstrained, infeasible
                }
                for b in sc.branches
            ],
            "couplings": [_hyp_dict(h) for h in sc.other],
            "advice": sc.advice(),
        }
    )


def step_text(sc: StepCheck) -> str:
    """A step check as ``sfltheory check-lr`` prints it: a table of the branches, the largest step with and without
    the proof's conditions and what binds, the binding branches in canonical names, the couplings and the advice
    (per point for a sweep)."""
    rows = [
        [b.name, b.source, limit(b.bound, b.beyond), _path(b.path), "-" if b.holds is None else _holds(b.holds),
         limit(b.slack, b.beyond)]
        for b in sc.branches
    ]  # fmt: skip
    source = {b.name: b.source for b in sc.branches}
    basis = sc.basis if sc.basis == "statement" else f"{sc.basis}: the statement prints no step-size condition"
    out = [
        f"{sc.id}: step size {sc.step}",
        "",
        text_table(
            rows, ["branch", "source", f"max {sc.step}", "path", "status", f"slack (max {sc.step} - {sc.step})"]
        ),
        "",
        f"max {sc.step} ({basis}): {limit(sc.max_step)}  binding: {_binding(sc.binding, source)}",
        f"max {sc.step} (with the proof's conditions): {limit(sc.max_step_all)}  "
        f"binding: {_binding(sc.binding_all, source)}",
    ]
    # the branch names keep the paper's notation (cut_layer's K counts clients, its tau local steps); the binding
    # ones once more in canonical names, where K is always local steps and M clients
    canon = {b.name: b.canonical for b in sc.branches if b.canonical}
    binding = [str(x) for x in dict.fromkeys(np.ravel(np.asarray(sc.binding, dtype=object)))]
    for name in binding:
        if name in canon:
            out.append(f"{name} in canonical names: {canon[name]}")
    for h in sc.other:
        out.append(f"{h.name}: {_holds(h.holds)}")
    if np.ndim(sc.max_step) == 0:
        out += ["", sc.advice()]
    else:  # a sweep: the binding branch and the advice per point, not one line of arrays
        out += ["", *step_points(sc)]
    return "\n".join(out)


def _path(p: Any) -> str:
    """How a branch's largest step was found; over a sweep each path once (``closed form/bisection``)."""
    return str(p) if np.ndim(p) == 0 else "/".join(dict.fromkeys(str(x) for x in np.ravel(p)))


def _binding(b: Any, source: dict[str, str] | None = None) -> str:
    """The binding branch, with its source where it is not the statement (``(implicit)``); over a sweep each
    distinct one once, in order (per point: the lines below)."""
    src = source or {}
    tag = lambda n: n if src.get(n, "statement") == "statement" else f"{n} ({src[n]})"  # noqa: E731
    if np.ndim(b) == 0:
        return tag(str(b))
    names = [tag(n) for n in dict.fromkeys(str(x) for x in np.ravel(b))]
    return names[0] if len(names) == 1 else "; ".join(names) + " (per point below)"


def step_points(sc: StepCheck) -> list[str]:
    """One line per point of a sweep: the largest step there, the branch that binds, and the given step's
    verdict (``satisfies`` or ``violates ...: reduce to <= ...``)."""
    n = int(np.size(sc.max_step))
    at = lambda v, j: np.broadcast_to(np.asarray(v), (n,))[j]  # noqa: E731
    lines = []
    for j in range(n):
        line = f"[{j + 1}/{n}] max {sc.step} {limit(float(at(sc.max_step, j)))} (binding: {at(sc.binding, j)})"
        if sc.given is not None:
            g = float(at(sc.given, j))
            failing = [b.name for b in sc.branches
                       if sc.in_basis(b) and b.holds is not None and not bool(at(b.holds, j))]  # fmt: skip
            own = "stated" if sc.basis == "statement" else sc.basis
            verdict = (f"violates {', '.join(failing)}: reduce {sc.step} to <= {limit(float(at(sc.max_step, j)))}"
                       if failing else f"satisfies every {own} branch")  # fmt: skip
            line += f"; {sc.step} = {num(g)} {verdict}"
        lines.append(line)
    return lines


# --- vocabulary / errata ------------------------------------------------------------------------------
def vocabulary_rows() -> list[dict[str, str]]:
    """One row per name in use: name, LaTeX, meaning, domain, dimension and each paper's notation for it
    (``sfltheory vocabulary --json``)."""
    rows = []
    for p in lexicon.all_params():
        papers = {k: v[p.name] for k in PAPERS if p.name in (v := paper_notation(k))}
        rows.append({"name": p.name, "latex": p.latex, "meaning": p.meaning, "domain": p.domain,
                     "dimension": p.dimension, "papers": papers})  # fmt: skip
    return rows  # type: ignore[return-value]


def vocabulary_markdown() -> str:
    """The vocabulary as a Markdown table (``sfltheory vocabulary --markdown``; the body of docs/VOCABULARY.md)."""
    out = ["| name | symbol | meaning | domain | dimension | paper notation |", "|---|---|---|---|---|---|"]
    for r in vocabulary_rows():
        papers = "; ".join(f"${v}$ in {k}" for k, v in r["papers"].items()) or "—"  # type: ignore[attr-defined]
        dim = f"`{r['dimension']}`" if r["dimension"] else "—"
        out.append(f"| `{r['name']}` | ${r['latex']}$ | {r['meaning']} | {r['domain']} | {dim} | {papers} |")
    return "\n".join(out)


def errata(rs: Iterable[Result]) -> list[dict[str, str]]:
    """Every recorded discrepancy, once (results of one label share theirs)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in rs:
        for d in r.discrepancies:
            key = (r.paper, d.where)
            if key in seen:
                continue
            seen.add(key)
            out.append({"paper": r.paper, "result": r.id, **d.__dict__})
    return out


def errata_markdown(rs: Iterable[Result]) -> str:
    """The discrepancies recorded for ``rs`` as a Markdown list (``sfltheory errata --markdown``): paper, where,
    result, what is printed and what was expected, and the note."""
    out = ["# Errata: where the papers do not hold together", "", "Generated by `sfltheory errata --markdown`.", ""]
    for e in errata(rs):
        out += [
            f"- **{e['paper']}** — {e['where']} (`{e['result']}`): printed ${e['printed']}$; "
            f"expected ${e['expected']}$. {e['note']}"
        ]
    return "\n".join(out)
