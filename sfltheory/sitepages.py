"""The catalogue half of the documentation site: one MyST page per paper and one per encoded result.

The pages are generated from the encodings -- the same :class:`sfltheory.result.Result` objects ``sfltheory show``
prints -- when the site is built (``docs/conf.py`` calls :func:`pages`), so they cannot drift from the code:

* a paper page (``catalogue/KEY/index.md``): the full reference, its BibTeX entry (:mod:`sfltheory.citations`), the
  seed file, and every result with its kind, title and where it is printed;
* a result page (``catalogue/KEY/LABEL.md``): the statement as printed, its terms, its hypotheses (statement /
  proof / implicit, each with where it is printed), the defaults filled in when a value is not given, the
  assumptions, every edition side by side term by term, the discrepancies recorded by reading, the audit's
  findings on it (the rows of ``docs/ERRATA.md``, which a test keeps equal to the audit), the package figures that
  draw it, and the commands that evaluate it.

Table cells hold LaTeX, whose ``|`` would split a Markdown table row: inside a cell, norms and absolute values are
written ``\\Vert`` and ``\\vert`` (:func:`cell_math`), which MathJax renders the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .audit.findings import CHECK_TITLES
from .audit.report import FINDINGS_HEADER
from .audit.rootcause import EVIDENCE_DIR
from .citations import bibtex
from .experiments import EXPERIMENTS, without_experiment
from .registry import editions, paper_keys, reference, results
from .report import latex, vocabulary_of
from .result import Result

KIND_TITLES = {"theorem": "Theorems", "corollary": "Corollaries", "lemma": "Lemmas", "model": "Models"}
SEED_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\.\./shared/seeds/[^)]*\)")  # link text may hold [..]


@dataclass(frozen=True, kw_only=True)
class SiteInputs:
    """What the result pages show besides the encodings: the audit's findings and the figures that draw a result.

    ``findings`` maps a result id to its rows of the errata page's findings tables (Markdown, header excluded);
    ``figures`` maps a result id to the names of the package figures (``sfltheory figs``) that draw it, each an
    image under ``figure_dir`` (relative to the catalogue pages) with its caption in ``captions``.
    ``terms_figures`` names the figure of a result's terms against T (:mod:`sfltheory.termsfigure`), an image in
    its page's folder; ``no_terms_figure`` says why a result has none."""

    findings: Mapping[str, tuple[str, ...]]
    figures: Mapping[str, tuple[str, ...]]
    captions: Mapping[str, str]
    figure_dir: str = "../../gallery"
    terms_figures: Mapping[str, str] = field(default_factory=dict)  # id -> image beside its page (termsfigure)
    no_terms_figure: Mapping[str, str] = field(default_factory=dict)  # id -> why it has none


def slug(result_id: str) -> str:
    """The page name of a result inside its paper's folder: ``thm4.3@appendix`` -> ``thm4.3-appendix``."""
    return result_id.split("/", 1)[1].replace("@", "-")


def page_path(result_id: str) -> str:
    """The document path of a result's page, relative to the site root (no suffix)."""
    return f"catalogue/{result_id.split('/', 1)[0]}/{slug(result_id)}"


def cell_math(tex: str) -> str:
    """LaTeX that can sit in a Markdown table cell: ``\\|`` -> ``\\Vert``, ``|`` -> ``\\vert`` (same rendering)."""
    return tex.replace("\\|", "\\Vert ").replace("|", "\\vert ")


def cell_text(text: str) -> str:
    """Plain text for a table cell: pipes escaped, line breaks flattened."""
    return " ".join(str(text).split()).replace("|", "\\|")


def findings_by_result(errata_markdown: str) -> dict[str, tuple[str, ...]]:
    """The audit's findings per result, read from the errata page's tables (rows ``| `ID` | check | ...``).

    Links to the seed files, which are not part of the site, become their text."""
    out: dict[str, list[str]] = {}
    for line in errata_markdown.splitlines():
        m = re.match(r"\| `([^`]+/[^`]+)` \|", line)
        if m:
            out.setdefault(m.group(1), []).append(SEED_LINK.sub(r"\1", line))
    return {k: tuple(v) for k, v in out.items()}


def evidence_option(explain_name: str) -> str:
    """`` --counterexamples docs/evidence`` for a falsified finding (read from the committed evidence), else ""."""
    return f" --counterexamples {EVIDENCE_DIR}" if ":falsified" in explain_name else ""


def explain_names(result_id: str, rows: Iterable[str]) -> list[str]:
    """The ``audit --explain`` name of each findings row of a result (``ID:CHECK``, ``ID:CHECK:N`` when the check
    has several): the rows are in the audit's order, the order ``--explain`` numbers them in."""
    keys = [next(k for k, t in CHECK_TITLES.items() if t == row.split(" | ")[1].strip()) for row in rows]
    out = []
    for i, k in enumerate(keys):
        n = keys.count(k)
        out.append(f"{result_id}:{k}" + (f":{keys[: i + 1].count(k)}" if n > 1 else ""))
    return out


def figures_by_result(sources: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Which figures draw which result: a figure's script (name -> source text) names the ids it evaluates."""
    ids = [r.id for r in results()]
    out: dict[str, list[str]] = {}
    for name, text in sources.items():
        for rid in ids:
            if f'"{rid}"' in text or f"'{rid}'" in text:
                out.setdefault(rid, []).append(name)
    return {k: tuple(v) for k, v in out.items()}


def paper_page(key: str) -> str:
    """The page of one paper: reference, BibTeX, seed and its results by kind."""
    rs = results(key)
    seed = rs[0].provenance.seed if rs else ""
    out = [f"# `{key}`", "", reference(key), ""]
    if seed:
        out += [f"Seed text: `shared/seeds/{seed}` (the authority for every formula below).", ""]
    bib = bibtex(key)
    if bib:
        out += ["```bibtex", bib, "```", ""]
    out += [
        "Errata of this paper: [the errata page](../../reference/errata.md). Its notation against the package's "
        "canonical names: [vocabulary](../../reference/vocabulary.md).",
        "",
    ]
    for kind, title in KIND_TITLES.items():
        group = [r for r in rs if r.kind == kind]
        if not group:
            continue
        out += [f"## {title}", "", "| result | title | printed at |", "|---|---|---|"]
        for r in group:
            p = r.provenance
            where = cell_text(f"{p.label} {p.equation or ''}; {p.section}")
            out.append(f"| [`{r.id}`]({slug(r.id)}.md) | {cell_text(r.title)} | {where} |")
        out.append("")
    out += ["```{toctree}", ":hidden:", "", *[slug(r.id) for r in rs], "```", ""]
    return "\n".join(out)


def _hypotheses(r: Result) -> list[str]:
    if not r.hypotheses:
        return []
    out = ["## Hypotheses", "", "| source | kind | condition as printed | where | note |", "|---|---|---|---|---|"]
    for h in r.hypotheses:
        printed = f"${cell_math(h.printed)}$" if h.printed else f"${cell_math(latex(h.lhs))}$"
        out.append(f"| {h.source} | {h.kind} | {printed} | {cell_text(h.where)} | {cell_text(h.note)} |")
    return [*out, ""]


def _editions(r: Result) -> list[str]:
    eds = editions(r)
    if len(eds) < 2:
        return []
    names = list(dict.fromkeys(t.name for e in eds for t in e.terms))
    out = [
        "## Editions side by side",
        "",
        "Each edition is the same result as printed elsewhere (appendix, proof): term by term.",
        "",
        "| term | " + " | ".join(f"[`{e.id}`]({slug(e.id)}.md)" for e in eds) + " |",
        "|---|" + "---|" * len(eds),
    ]
    for n in names:
        cells = []
        for e in eds:
            t = next((t for t in e.terms if t.name == n), None)
            cells.append(f"${cell_math(latex(t.expr))}$" if t is not None else "—")
        out.append(f"| {cell_text(n)} | " + " | ".join(cells) + " |")
    where = [f"`{e.id}`: {cell_text(e.provenance.label)} {e.provenance.equation or ''}" for e in eds]
    return [*out, "", "Printed at: " + "; ".join(where) + ".", ""]


def _commands(r: Result, no_experiment: Mapping[str, str]) -> list[str]:
    given = [p for p in r.parameters() if p not in {d.name for d in r.defaults}]
    values = " ".join(f"{p}=…" for p in given)
    cmds = [f"sfltheory show {r.id}"]
    if r.explicit and r.terms:
        cmds.append(f"sfltheory bound {r.id} {values}".rstrip())
    if r.step:
        cmds.append(f"sfltheory check-lr {r.id} {values}".rstrip())
    cmds.append(f"sfltheory audit {r.id}")
    verified = r.id in EXPERIMENTS
    if verified:
        cmds.append(f"sfltheory verify {r.id}")
    out = ["## Commands", "", "```bash", *cmds, "```", ""]
    if not verified:
        why = no_experiment.get(r.id)
        out += [f"`sfltheory verify` has no experiment for it ({why}).", ""]
    return out


def result_page(r: Result, inputs: SiteInputs, no_experiment: Mapping[str, str] | None = None) -> str:
    """The page of one result (see the module docstring for its sections). ``no_experiment``: why each result
    without an experiment has none (:func:`sfltheory.experiments.without_experiment`, computed once by
    :func:`pages`)."""
    p = r.provenance
    out = [
        f"# `{r.id}`",
        "",
        f"**{r.kind}** — {r.title}",
        "",
        f"Printed in {p.label} {p.equation or ''} ({p.section}) of [{r.paper}](index.md), seed `{p.seed}`.",
        "",
        f"It bounds: {r.lhs}.",
        "",
    ]
    if r.rate:
        out += [f"Rate as printed: ${r.rate}$", ""]
    if not r.explicit:
        see = f" The explicit edition is [`{r.see}`]({slug(r.see)}.md)." if r.see else ""
        out += [f"Stated only up to constants: `sfltheory bound` refuses it.{see}", ""]
    if r.statement:
        out += ["## Statement as printed", "", "$$", r.statement, "$$", ""]
    if r.terms:
        out += ["## Terms", "", "| term | as encoded | meaning |", "|---|---|---|"]
        out += [f"| {cell_text(t.name)} | ${cell_math(latex(t.expr))}$ | {cell_text(t.meaning)} |" for t in r.terms]
        out.append("")
    out += _hypotheses(r)
    if r.defaults:
        out += ["## Defaults", "", "Filled in when not given:", "", "| name | value | rule |", "|---|---|---|"]
        out += [f"| `{d.name}` | `{d.expr}` | {cell_text(d.rule)} |" for d in r.defaults]
        out.append("")
    if r.assumptions:
        out += ["## Assumptions", ""]
        out += [f"- **{a.name}**: ${a.statement}$" for a in r.assumptions]
        out.append("")
    out += _vocabulary(r)
    out += _editions(r)
    if r.discrepancies:
        out += ["## Discrepancies recorded by reading", ""]
        for d in r.discrepancies:
            out.append(f"- **{d.where}**: printed ${d.printed}$; expected ${d.expected}$. {d.note}".rstrip())
        out.append("")
    rows = inputs.findings.get(r.id, ())
    out += ["## Audit findings", ""]
    if rows:
        out += [
            f"{len(rows)} finding(s) of `sfltheory audit` (all of them: [errata](../../reference/errata.md)).",
            "",
            *FINDINGS_HEADER,
            *rows,
            "",
            "Each in full, with its witness and the seed text around the statement:",
            "",
            "```bash",
            *[
                f"sfltheory audit --explain {name}"
                + (f" --counterexamples {EVIDENCE_DIR}" if ":falsified" in name else "")
                for name in explain_names(r.id, rows)
            ],  # a counterexample is read from the committed evidence
            "```",
            "",
        ]
    else:
        out += ["The audit finds nothing on this result.", ""]
    out += ["## The bound against T", ""]
    if r.id in inputs.terms_figures:
        out += [
            f"```{{figure}} {inputs.terms_figures[r.id]}",
            f":alt: {r.id}: the terms of the bound against T",
            "",
            "Each term and their sum against the number of rounds T, at illustrative values (the footnote gives "
            "them), over each term's share of the bound.",
            "```",
            "",
        ]
    else:
        out += [f"No figure: {inputs.no_terms_figure.get(r.id, 'none was drawn for this build')}.", ""]
    figs = inputs.figures.get(r.id, ())
    if figs:
        out += ["## Figures of the package", ""]
        for name in figs:
            out += [
                f"```{{figure}} {inputs.figure_dir}/{name}.png",
                f":alt: {name}",
                "",
                f"`{name}`: {inputs.captions.get(name, '')} (`sfltheory figs {name}`)",
                "```",
                "",
            ]
    out += _commands(r, without_experiment() if no_experiment is None else no_experiment)
    if r.notes:
        out += ["## Notes", "", *[f"- {n}" for n in r.notes], ""]
    return "\n".join(out)


def _vocabulary(r: Result) -> list[str]:
    rows = vocabulary_of(r)
    if not rows:
        return []
    out = ["## Vocabulary", "", "| name | paper's symbol | meaning |", "|---|---|---|"]
    out += [f"| `{v['name']}` | ${cell_math(v['paper'])}$ | {cell_text(v['meaning'])} |" for v in rows]
    return [*out, ""]


def catalogue_index(keys: Iterable[str]) -> str:
    """The catalogue's home: one line per paper, linking its page."""
    out = ["# The catalogue", "", "Every result the package encodes, one page each, generated from the encodings.", ""]
    for key in keys:
        n = len(results(key))
        out.append(f"- [`{key}`]({key}/index.md): {reference(key)} — {n} results")
    out += ["", "```{toctree}", ":hidden:", "", *[f"{k}/index" for k in keys], "```", ""]
    return "\n".join(out)


def pages(inputs: SiteInputs) -> dict[str, str]:
    """Every catalogue page: relative path (``catalogue/...md``) -> MyST text."""
    keys = paper_keys()
    no_experiment = without_experiment()
    out = {"catalogue/index.md": catalogue_index(keys)}
    for key in keys:
        out[f"catalogue/{key}/index.md"] = paper_page(key)
        for r in results(key):
            out[f"{page_path(r.id)}.md"] = result_page(r, inputs, no_experiment)
    return out
