"""A statement's LaTeX source rendered offline for the HTML page: matplotlib's mathtext draws it as an SVG, embedded
as a data URI, so the page shows the formula with no network at view time.

Mathtext reads a subset of LaTeX: :func:`mathtext_source` rewrites the few constructs of the catalogue it lacks
(``\\frac1R``, ``\\bm``, ``\\big[``, ``\\nolimits``, ``\\text``); a long statement is broken at its top-level ``+``,
``\\le`` and ``,`` into lines. A statement mathtext still cannot read gives ``None``: the page shows its source.
"""

from __future__ import annotations

import base64
import io
import re
from functools import cache

# (pattern, replacement) applied in order: constructs mathtext lacks -> ones it reads
REWRITES: tuple[tuple[str, str], ...] = (
    (r"\\frac\s*([0-9A-Za-z])\s*([0-9A-Za-z])", r"\\frac{\1}{\2}"),  # \frac1R -> \frac{1}{R}
    (r"\\frac\s*([0-9A-Za-z])\s*\{", r"\\frac{\1}{"),  # \frac1{..}
    (r"\\frac\s*(\{[^{}]*\})\s*([0-9A-Za-z])(?![A-Za-z])", r"\\frac\1{\2}"),  # \frac{..}T
    (r"\\sqrt\s*([0-9A-Za-z])(?![A-Za-z])", r"\\sqrt{\1}"),  # \sqrt d -> \sqrt{d}
    (r"\\sqrt\s*(\\[A-Za-z]+)", r"\\sqrt{\1}"),  # \sqrt\tau -> \sqrt{\tau}
    (r"\\bm\s*\{", r"\\mathbf{"),
    (r"\\(big|Big|bigg|Bigg)(l|r)?\s*", ""),  # sizes mathtext does not know: the plain delimiter
    (r"\\nolimits", ""),
    (r"\\text\s*\{([^{}]*)\}", r"\\mathrm{\1}"),
    (r"\\operatorname\s*\{([^{}]*)\}", r"\\mathrm{\1}"),
    (r"\\mathbb\s+([A-Za-z])", r"\\mathbb{\1}"),
    (r"\\mathcal\s+([A-Za-z])", r"\\mathcal{\1}"),
    (r"\\mathbf\s+([A-Za-z])", r"\\mathbf{\1}"),
    (r"\\le(?![a-zA-Z])", r"\\leq"),
    (r"\\ge(?![a-zA-Z])", r"\\geq"),
    (r"\\frac(?![a-z])", r"\\dfrac"),  # display-size fractions: mathtext's inline \frac is too small to read
    (r"\\lbrace", r"\\{"),
    (r"\\rbrace", r"\\}"),
)
LINE_CHARS = 150  # the LaTeX source per rendered line, roughly: longer statements wrap at a top-level + or \le
FONT_SIZE = 13


def mathtext_source(tex: str) -> str:
    """``tex`` rewritten into the LaTeX subset mathtext reads."""
    s = tex.strip().strip("$")
    for pat, rep in REWRITES:
        s = re.sub(pat, rep, s)
    return s


def _breaks(s: str) -> list[int]:
    """Positions of the top-level (outside braces and \\left..\\right) ``+``, ``\\leq``, ``\\geq`` and ``,``."""
    out, depth, i = [], 0, 0
    while i < len(s):
        ch = s[i]
        if s.startswith(r"\left", i):
            depth += 1
            i += 5
            continue
        if s.startswith(r"\right", i):
            depth -= 1
            i += 6
            continue
        if ch == "\\" and i + 1 < len(s) and s[i + 1] in "{}":  # an escaped brace: no nesting
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and (ch in "+," or s.startswith((r"\leq", r"\geq"), i)) and i > 0:
            out.append(i)
        i += 1
    return out


def lines(s: str, width: int = LINE_CHARS) -> list[str]:
    """``s`` cut at top-level operators into lines of about ``width`` characters of source (each a whole formula;
    a continuation line starts with the operator)."""
    out: list[str] = []
    start = 0
    last = 0
    for b in [*_breaks(s), len(s)]:
        if b - start > width and last > start:
            out.append(s[start:last])
            start = last
        last = b
    out.append(s[start:])
    return [ln.rstrip(",").strip() for ln in out if ln.strip(" ,")]


def _svg(row: str) -> str | None:
    """One line of mathtext as a standalone SVG document (text drawn as paths); None when mathtext cannot read it."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(0.1, 0.1))
    fig.text(0, 0, f"${row}$", fontsize=FONT_SIZE, math_fontfamily="cm")
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.03, transparent=True,
                    metadata={"Date": None, "Creator": None})  # fmt: skip
    except ValueError:  # mathtext's parse error
        return None
    return buf.getvalue()


@cache
def svgs(tex: str) -> tuple[str, ...] | None:
    """The statement ``tex`` as SVG documents, one per line (each its own image, so a sum's limits never run into
    the line above), or ``None`` when mathtext cannot read a line of it."""
    out = tuple(_svg(r) for r in lines(mathtext_source(tex)))
    return None if any(x is None for x in out) else out  # type: ignore[return-value]


def data_uris(tex: str) -> tuple[str, ...] | None:
    """The rendered statement's lines as ``data:image/svg+xml;base64,...`` URIs, or ``None`` (see :func:`svgs`)."""
    docs = svgs(tex)
    if docs is None:
        return None
    return tuple("data:image/svg+xml;base64," + base64.b64encode(d.encode()).decode() for d in docs)


__all__ = ["FONT_SIZE", "LINE_CHARS", "REWRITES", "data_uris", "lines", "mathtext_source", "svgs"]
