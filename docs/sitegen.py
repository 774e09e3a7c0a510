"""Generate the site's pages that come from the code, before Sphinx reads the sources (``docs/conf.py`` calls
:func:`generate` on ``builder-inited``).

Everything written here is git-ignored and rewritten on every build, so nothing on the site can drift from the
code:

* ``catalogue/``: a page per paper and per result (:mod:`sfltheory.sitepages`, the encodings ``sfltheory show``
  prints), with the audit's findings read from ``docs/ERRATA.md`` (kept equal to the audit by ``tests/test_docs.py``);
* ``reference/``: the errata, vocabulary, algorithms and seed-inventory pages (the committed ``docs/*.md``, which
  tests keep in sync with the code), their reStructuredText roles turned into MyST and every result id linked to
  its page;
* ``gallery/``: every package figure (``sfltheory figs``) with its caption;
* ``notebooks/``: the notebooks, converted by jupytext to ``.ipynb`` for myst-nb to execute;
* ``api/``: one autodoc page (reStructuredText) per package of ``sfltheory`` and ``verify``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
GENERATED = ("catalogue", "reference", "gallery", "notebooks", "api")
PACKAGES = ("sfltheory", "verify")
ROLE = re.compile(r":(math|class|func|mod|meth|attr|data|obj|exc):`")
ID = re.compile(r"`([a-z_]+/[A-Za-z0-9_.@-]+)`")  # a quoted id; link_ids keeps those of the catalogue


def myst(text: str) -> str:
    """reStructuredText roles and literals (from docstrings quoted in a page) as MyST: ``:math:`x``` ->
    ``{math}`x```, a double-backtick literal -> a single-backtick one."""
    return ROLE.sub(r"{\1}`", text).replace("``", "`")


def link_ids(text: str, prefix: str) -> str:
    """Every quoted result id that has a page becomes a link to it (``prefix``: the path up to the site root)."""
    from sfltheory.registry import catalogue
    from sfltheory.sitepages import page_path

    known = set(catalogue())

    def sub(m: re.Match[str]) -> str:
        rid = m.group(1)
        return f"[`{rid}`]({prefix}{page_path(rid)}.md)" if rid in known else m.group(0)

    return ID.sub(sub, text)


def reference_pages() -> dict[str, str]:
    """The errata, vocabulary, algorithms and seed-inventory pages, from their committed generated sources."""
    from sfltheory.sitepages import SEED_LINK

    errata = SEED_LINK.sub(r"\1", (DOCS / "ERRATA.md").read_text())
    algorithms = myst((DOCS / "ALGORITHMS.md").read_text())
    return {
        "reference/errata.md": link_ids(errata, "../"),
        "reference/vocabulary.md": (DOCS / "VOCABULARY.md").read_text(),
        "reference/algorithms.md": link_ids(algorithms, "../"),
        "reference/seeds.md": (DOCS / "SEEDS.md").read_text(),
    }


def figure_sources() -> dict[str, str]:
    """Each package figure's script text (``paper_figs/NAME.py``), for :func:`sfltheory.sitepages.figures_by_result`."""
    from sfltheory.figs import FIGURES
    from sfltheory.figs import ROOT as FIGS

    return {name: (FIGS / f"{name}.py").read_text() for name in FIGURES}


def gallery_page() -> str:
    """Every package figure with its one-line description and its script's docstring as caption."""
    import ast

    from sfltheory.figs import FIGURES

    out = [
        "# Gallery",
        "",
        "Every figure `sfltheory figs` draws, regenerated for this build (`sfltheory figs NAME --out DIR` writes "
        "one as PNG and PDF).",
        "",
    ]
    sources = figure_sources()
    for name, what in FIGURES.items():
        doc = ast.get_docstring(ast.parse(sources[name])) or ""
        out += [f"## `{name}`", "", what[0].upper() + what[1:] + ".", "", f"```{{figure}} {name}.png", f":alt: {what}"]
        out += ["", " ".join(doc.split()), "```", ""]
    return "\n".join(out)


def modules() -> list[str]:
    """Every module of both packages, by name (``__main__`` modules excluded)."""
    names: list[str] = []
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        names.append(pkg_name)
        names += [
            m.name
            for m in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg_name}.")
            if not m.name.endswith("__main__")
        ]
    return names


def api_pages() -> dict[str, str]:
    """One page per package: the package and each of its modules (autodoc, members with docstrings; a package's
    re-exports are documented once, where they are defined), and an index. A page per module would make 234 pages,
    and the theme draws every page's navigation from the whole tree: the build took 185 s, most of it there."""
    mods = modules()
    packages = [m for m in mods if hasattr(importlib.import_module(m), "__path__")]
    out: dict[str, str] = {}
    for pkg in packages:
        own = [pkg] + [m for m in mods if m.rpartition(".")[0] == pkg and m not in packages]
        # reStructuredText, not MyST: autodoc's directives emit reStructuredText, which a MyST page would parse as
        # Markdown (the first build showed ".. py:function::" as text).
        title = f"``{pkg}``"
        body = [title, "=" * len(title), ""]
        for name in own:
            if name != pkg:
                head = f"``{name}``"
                body += [head, "-" * len(head), ""]
            body += [f".. automodule:: {name}", "   :members:", "   :ignore-module-all:", ""]
        out[f"api/{pkg}.rst"] = "\n".join(body)
    index = [
        "# API reference",
        "",
        "Every module of the two packages, one page per package, generated from the docstrings: `sfltheory`, the "
        "theory half (no torch), and `verify`, the trainer, the measurements and the checks (needs torch).",
        "",
    ]
    for top in PACKAGES:
        own = [p for p in packages if p == top or p.startswith(top + ".")]
        index += [f"## `{top}`", "", "```{toctree}", ":maxdepth: 1", "", *own, "```", ""]
    out["api/index.md"] = "\n".join(index)
    return out


def notebooks(dest: Path) -> list[Path]:
    """The notebooks (jupytext percent sources) as ``.ipynb`` without outputs, for myst-nb to execute."""
    import jupytext

    written = []
    for src in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        nb = jupytext.read(src)
        target = dest / f"{src.stem}.ipynb"
        jupytext.write(nb, target)
        written.append(target)
    index = [
        "# Notebooks",
        "",
        "Worked examples of the Python API, executed when this site was built, on their small settings "
        "(`SFLTHEORY_NB_SMALL=1`). The sources are jupytext percent files in `notebooks/`; `notebooks/README.md` "
        "says how to open and run them.",
        "",
        "```{toctree}",
        ":maxdepth: 1",
        "",
        *[p.stem for p in written],
        "```",
        "",
    ]
    (dest / "index.md").write_text("\n".join(index))
    return written


def terms_figures(draw: bool) -> tuple[dict[str, str], dict[str, str]]:
    """Each result's terms against T (:mod:`sfltheory.termsfigure`), drawn beside its page when ``draw``: the
    image of each result that has one (relative to its page), and why the others have none."""
    from sfltheory.registry import results
    from sfltheory.sitepages import page_path, slug
    from sfltheory.termsfigure import curves
    from sfltheory.termsfigure import draw as draw_terms

    images: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for r in results():
        c = curves(r.id)
        if isinstance(c, str):
            reasons[r.id] = c
            continue
        images[r.id] = f"{slug(r.id)}-terms.png"
        if draw:
            target = DOCS / f"{page_path(r.id)}-terms.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            draw_terms(c, target)
    return images, reasons


def package_figures() -> None:
    """Every package figure as a PNG in ``gallery/`` (the site shows the PNGs; the PDFs are removed)."""
    from sfltheory.figs import run as draw_figures

    draw_figures(out=DOCS / "gallery")
    for pdf in (DOCS / "gallery").glob("*.pdf"):
        pdf.unlink()


def generate(figures: bool = True) -> None:
    """Write every generated page under ``docs/`` (the folders of :data:`GENERATED`, emptied first). The package
    figures draw in a second process while this one draws the terms figures (37 s and 20 s on two cores)."""
    from concurrent.futures import ProcessPoolExecutor

    from sfltheory.figs import FIGURES
    from sfltheory.sitepages import SiteInputs, figures_by_result, findings_by_result, pages

    for sub in GENERATED:
        shutil.rmtree(DOCS / sub, ignore_errors=True)
    (DOCS / "gallery").mkdir(parents=True)
    with ProcessPoolExecutor(max_workers=1) as pool:
        drawing = pool.submit(package_figures) if figures else None
        images, reasons = terms_figures(figures)
        if drawing is not None:
            drawing.result()
    inputs = SiteInputs(
        findings=findings_by_result((DOCS / "ERRATA.md").read_text()),
        figures=figures_by_result(figure_sources()),
        captions=FIGURES,
        terms_figures=images,
        no_terms_figure=reasons,
    )
    files = {**pages(inputs), **reference_pages(), **api_pages(), "gallery/index.md": gallery_page()}
    for rel, text in files.items():
        path = DOCS / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (DOCS / "notebooks").mkdir(exist_ok=True)
    notebooks(DOCS / "notebooks")
