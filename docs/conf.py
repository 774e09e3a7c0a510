"""Sphinx configuration of the documentation site (``bash scripts/docs.sh`` builds it into ``docs/_build/html``).

Sources are MyST Markdown. The catalogue, reference, gallery, notebook and API pages are generated from the code
on every build (``docs/sitegen.py``); the hand-written pages are ``index.md``, ``getting-started/`` and
``guide/``. Nothing is fetched at build time, and MathJax is copied into the build, so the pages need no network
either.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS)]

import sitegen  # noqa: E402  (after the path: docs/ is not a package)

project = "sfltheory"
author = "the sfltheory developers"
copyright = "2026, the sfltheory developers"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
exclude_patterns = [
    "_build",
    "CATALOGUE.md",
    "ERRATA.md",
    "VOCABULARY.md",
    "ALGORITHMS.md",
    "SEEDS.md",
    "figures/README.md",
]
html_theme = "furo"
html_title = "sfltheory"
suppress_warnings = ["myst.header"]  # generated reference pages start at a level-2 heading under their title

autodoc_typehints = "signature"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False

# Notebooks: executed on every build, on their small settings (the kernel inherits this environment); a cell
# error fails the build.
nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
os.environ["SFLTHEORY_NB_SMALL"] = "1"


# MathJax from the copy the sphinx-mathjax-offline wheel ships (copied into the build below), so a page renders its
# formulas without a network. Its own extension is not used: it does not declare itself safe for a parallel read.
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").submodule_search_locations[0]) / "static" / "mathjax"
mathjax_path = "mathjax/tex-chtml.js"


def copy_mathjax(app: Any, exc: Exception | None) -> None:
    """Put MathJax under ``_static/mathjax`` of a finished build."""
    from sphinx.util.fileutil import copy_asset

    if exc is None:
        copy_asset(str(MATHJAX), os.path.join(app.outdir, "_static", "mathjax"))


def setup(app: Any) -> dict[str, bool]:
    """Generate the pages that come from the code before Sphinx looks for sources; copy MathJax after the build."""
    figures = os.environ.get("SFLTHEORY_DOCS_FIGURES", "1") != "0"
    app.connect("builder-inited", lambda _app: sitegen.generate(figures=figures))
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
