"""Every figure and table the package makes, listed (``sfltheory figs --list [--json]``) and shown on one page
(``gallery.html``, written by ``sfltheory figs --out DIR``).

An :class:`Entry` says what one figure or table is: its kind -- a figure of the package's own (terms against T,
plans, errata), a seed's theory figure or table regenerated from the encodings (:mod:`sfltheory.seedtables`,
``paper_figs/seed_*.py``), or a seed's experiment reproduced by the trainer (``sfltheory reproduce``, the torch
half, which passes its entries in: this package never imports it) -- where the seed prints it and the command that
makes it. :func:`write_gallery` lays out whatever of them ``DIR`` holds: each figure with its caption, each seed
table's link, each reproduced experiment with the verdict on its claim, and for anything missing the command that
makes it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .atomic import write_atomic
from .figs import FIGURES
from .seedtables.catalogue import TABLES

KINDS = ("package figure", "seed theory figure", "seed theory table", "seed experiment")
GALLERY = "gallery.html"

# where each seed theory figure's source is printed (paper_figs/seed_*.py draw what these passages state)
SEED_FIGURES: dict[str, str] = {
    "seed_mu_table2": "MU-SplitFed (seed 000) Table 2, App. A, and footnote 3, Sec. 4.1",
    "seed_sl_table4": "SL non-IID (seed 002) Table 4, App. A",
    "seed_heron_remark2": "HERON-SFL (seed 001) Remark 2 and Theorem 1, Sec. V-A",
    "seed_sl_K_eta_g": "SL non-IID (seed 002) Theorem 1 (5), Corollary 1 and Sec. 4.2-4.3 (optimal K, effect of eta_g)",
    "seed_sfl_aux_window": "sfl_aux (seed 004) Theorems 1 and 3: the bound against the window l",
    "seed_sl_fig1": "SL non-IID (seed 002) Fig. 1, Sec. 1 (line 19), from Table 5's update rules",
}


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One figure or table: ``name``, ``kind`` (one of :data:`KINDS`), what it ``shows``, the ``seed`` location
    ("" for the package's own figures), the ``command`` that makes it and the ``files`` it writes (relative to the
    output folder; the first that exists is shown)."""

    name: str
    kind: str
    shows: str
    seed: str
    command: str
    files: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON-ready data."""
        return {**asdict(self), "files": list(self.files)}


def theory_entries() -> list[Entry]:
    """The figures of ``paper_figs/`` and the seed tables, in that order."""
    out = [Entry(name=n, kind="seed theory figure" if n in SEED_FIGURES else "package figure", shows=shows,
                 seed=SEED_FIGURES.get(n, ""), command=f"sfltheory figs {n}", files=(f"{n}.png", f"{n}.pdf"))
           for n, shows in FIGURES.items()]  # fmt: skip
    out += [Entry(name=t, kind="seed theory table", shows=where.split(": ", 1)[-1], seed=where.split(": ", 1)[0],
                  command=f"sfltheory tables {t}", files=(f"tables/{t}.md", f"tables/{t}.csv", f"tables/{t}.tex"))
            for t, (where, _) in TABLES.items()]  # fmt: skip
    return out


def listing(entries: Sequence[Entry]) -> list[str]:
    """One line per entry: name, kind, seed location and what it shows."""
    return [f"{e.name:<22} {e.kind:<19} {e.seed or '(the package)'}: {e.shows}" for e in entries]


def listing_json(entries: Sequence[Entry]) -> str:
    """The entries as a JSON document (format ``sfltheory.figures/1``)."""
    return json.dumps({"format": "sfltheory.figures/1", "entries": [e.to_dict() for e in entries]}, indent=1)


STYLE = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}
figure{margin:2em 0;border-top:1px solid #ccc;padding-top:1em}img{max-width:100%}
figcaption{font-size:.95em}.kind{color:#666;font-size:.85em}.verdict{font-weight:bold}code{background:#f4f4f4}
.missing{color:#a33}"""


def _item(e: Entry, out: Path, verdicts: Mapping[str, str]) -> str:
    head = (f'<figure id="{html.escape(e.name)}"><div class="kind">{html.escape(e.kind)}'
            f"{' &middot; ' + html.escape(e.seed) if e.seed else ''}</div>")  # fmt: skip
    first = next((f for f in e.files if (out / f).is_file()), e.files[0] if e.files else "")
    if first and (out / first).is_file():
        if first.endswith(".png"):
            body = f'<img src="{html.escape(first)}" alt="{html.escape(e.name)}">'
        else:
            links = ", ".join(f'<a href="{html.escape(f)}">{html.escape(Path(f).suffix[1:])}</a>' for f in e.files
                              if (out / f).is_file())  # fmt: skip
            body = f"<p>{html.escape(e.name)}: {links}</p>"
    else:
        run = e.command if "--out" in e.command else f"{e.command} --out DIR"
        body = f'<p class="missing">not made yet: run <code>{html.escape(run)}</code></p>'
    verdict = verdicts.get(e.name, "")
    verdict_html = f'<p class="verdict">{html.escape(verdict)}</p>' if verdict else ""
    cap = f"<figcaption><b>{html.escape(e.name)}</b>: {html.escape(e.shows)} (<code>{html.escape(e.command)}</code>)"
    return f"{head}{body}{cap}{verdict_html}</figcaption></figure>"


def write_gallery(out: str | Path, entries: Iterable[Entry], verdicts: Mapping[str, str] | None = None) -> Path:
    """``out/gallery.html``: every entry, grouped by kind, with what ``out`` holds of it (``verdicts``: an
    experiment's verdict on its claim, by name). Written atomically; the images are linked, not copied."""
    d = Path(out)
    chosen = list(entries)
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>sfltheory gallery</title>",
             f"<style>{STYLE}</style></head><body><h1>sfltheory: every figure and table</h1>",
             f"<p>{len(chosen)} entries; made by <code>sfltheory figs --out DIR</code>, <code>sfltheory tables --out "
             "DIR/tables</code> and <code>sfltheory reproduce --out DIR/reproduce</code>.</p>"]  # fmt: skip
    toc = [f'<li>{html.escape(k)}s: ' + ", ".join(f'<a href="#{html.escape(e.name)}">{html.escape(e.name)}</a>'
                                                   for e in chosen if e.kind == k) + "</li>"
           for k in KINDS if any(e.kind == k for e in chosen)]  # fmt: skip
    parts.append("<ul>" + "".join(toc) + "</ul>")
    for kind in KINDS:
        group = [e for e in chosen if e.kind == kind]
        if group:
            parts.append(f"<h2>{html.escape(kind)}s ({len(group)})</h2>")
            parts += [_item(e, d, verdicts or {}) for e in group]
    parts.append("</body></html>")
    path = d / GALLERY
    write_atomic(path, "\n".join(parts) + "\n")
    return path
