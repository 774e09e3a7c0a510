"""``sfltheory audit --explain FINDING``: one finding, its witness, its re-check commands and the seed text around
the printed statement, with line numbers, so that a reader can judge the finding in a minute.

A finding is named ``RESULT:CHECK`` or ``RESULT:CHECK:N`` -- the result and check ``sfltheory audit`` prints on
the finding's first line (``mu_splitfed/cor4.2  [corollary] bound invalid``), and its number among that result's
findings of that check when there are several. The seed text is read from the folder ``SFLTHEORY_SEEDS`` names,
else ``shared/seeds`` beside the checkout (where the papers sit in this project), else ``./shared/seeds``; without
it the rest is still printed, and the line says where it looked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..registry import get
from ..result import Provenance
from .findings import CHECK_TITLES, CHECKS, Finding, format_value
from .runner import audit

CHECKOUT = Path(__file__).resolve().parents[2]
EXCERPT_LINES = 8  # non-empty lines of the seed from the statement's header on: a statement and its conditions
CLIP = 600  # characters per seed line shown: the seeds hold whole paragraphs on one line


@dataclass(frozen=True, kw_only=True)
class SeedExcerpt:
    """Lines of a seed file around where a result is printed: ``lines`` as (1-based number, text)."""

    file: Path | None
    looked_in: tuple[Path, ...]
    lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True, kw_only=True)
class Explanation:
    """One finding, the name it was asked by, and its seed excerpt."""

    name: str
    finding: Finding
    excerpt: SeedExcerpt


def parse_name(name: str) -> tuple[str, str, int | None]:
    """``RESULT:CHECK[:N]`` -> (result, check, N or None); a malformed name is a one-line error."""
    parts = name.rsplit(":", 2) if name.count(":") >= 2 else name.rsplit(":", 1)
    if len(parts) < 2 or not parts[0]:
        example = "mu_splitfed/cor4.2:corollary"
        raise ParameterError("--explain", f"name a finding as RESULT:CHECK[:N], e.g. {example} (got {name!r})")
    result, check = parts[0], parts[1]
    if check not in CHECKS:
        raise ParameterError("--explain", f"the check must be one of {', '.join(CHECKS)} (got {check!r})")
    n: int | None = None
    if len(parts) == 3:
        if not parts[2].isdigit() or int(parts[2]) < 1:
            raise ParameterError("--explain", f"N must be an integer >= 1 (got {parts[2]!r})")
        n = int(parts[2])
    return result, check, n


def seed_dirs() -> tuple[Path, ...]:
    """Where the seed files are looked for, in order."""
    env = os.environ.get("SFLTHEORY_SEEDS")
    dirs = [Path(env)] if env else []
    return (*dirs, CHECKOUT.parent / "shared" / "seeds", Path.cwd() / "shared" / "seeds")


def base_label(label: str) -> str:
    """The label as the seed prints it at the statement: ``Theorem C.1, proof ...`` -> ``Theorem C.1``,
    ``Table 2, row 1 (SFL-V1 [2])`` -> ``Table 2``."""
    return re.split(r",| \(", label, maxsplit=1)[0].strip()


def excerpt(p: Provenance) -> SeedExcerpt:
    """The seed lines where ``p`` is printed: from the first line that starts with its label (the statement's
    header; else the first that mentions it, else its equation number), the next :data:`EXCERPT_LINES` non-empty
    lines, ending one line after the display that carries the equation number when one does."""
    dirs = seed_dirs()
    path = next((d / p.seed for d in dirs if (d / p.seed).is_file()), None)
    if path is None:
        return SeedExcerpt(file=None, looked_in=dirs, lines=())
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    label = base_label(p.label)
    probes: list[Callable[[str], bool]] = [lambda s: s.strip().startswith(label), lambda s: label in s]
    if p.equation:
        eq = p.equation
        probes.append(lambda s: eq in s)
    start = next((i for probe in probes for i, s in enumerate(text) if probe(s)), None)
    if start is None:
        return SeedExcerpt(file=path, looked_in=dirs, lines=())
    lines: list[tuple[int, str]] = []
    for i in range(start, len(text)):
        if text[i].strip():
            s = text[i].strip()
            lines.append((i + 1, s if len(s) <= CLIP else s[:CLIP] + " …"))
        if len(lines) == EXCERPT_LINES:
            break
    at = next((k for k, (_, s) in enumerate(lines) if p.equation and p.equation in s), None)
    if at is not None:
        lines = lines[: at + 2]  # the display that carries the equation number, and the line after it
    return SeedExcerpt(file=path, looked_in=dirs, lines=tuple(lines))


def explain(name: str, *, seed: int = 0, counterexamples: Sequence[Mapping[str, Any]] = ()) -> Explanation:
    """Audit the named finding's result and return the finding with its seed excerpt (one-line errors for a
    malformed name, an unknown result, or a finding the audit does not make)."""
    result, check, n = parse_name(name)
    r = get(result)  # an unknown id: UnknownResultError with suggestions
    a = audit([r.id], seed=seed, checks=[check], counterexamples=counterexamples)
    found = [f for f in a.findings if f.check == check]
    if not found:
        raise ParameterError("--explain", f"the audit finds no '{check}' finding on {r.id} (sfltheory audit {r.id})")
    if n is None and len(found) > 1:
        options = "; ".join(f"{r.id}:{check}:{i} ({f.found[:70]})" for i, f in enumerate(found, 1))
        raise ParameterError("--explain", f"{len(found)} '{check}' findings on {r.id}: name one, {options}")
    if n is not None and n > len(found):
        raise ParameterError("--explain", f"{r.id} has {len(found)} '{check}' finding(s) (got N = {n})")
    f = found[(n or 1) - 1]
    return Explanation(name=f"{r.id}:{check}" + (f":{n}" if n else ""), finding=f, excerpt=excerpt(r.provenance))


def text(e: Explanation) -> str:
    """The explanation as the command prints it."""
    f = e.finding
    out = [
        f"{e.name}: {CHECK_TITLES[f.check]} — {f.severity}",
        f"  found:   {f.found}",
        f"  printed: {f.printed}",
        f"  seed:    {f.seed}",
    ]
    if f.witness:
        out += ["", "witness (the point where the finding shows):"]
        out += [f"  {k} = {format_value(v)}" for k, v in f.witness.items()]
    if f.reevaluations:
        out += ["", "re-check (each command prints the value after ->):"]
        out += [f"  {r.command()}   -> {r.value:.6g}" for r in f.reevaluations]
    out.append("")
    ex = e.excerpt
    if ex.file is None:
        out.append("seed text: not found (looked in " + ", ".join(str(d) for d in ex.looked_in) + ")")
    elif not ex.lines:
        out.append(f"seed text: {ex.file.name} does not print '{base_label(get(f.result).provenance.label)}'")
    else:
        out.append(f"seed text: {ex.file}, lines {ex.lines[0][0]}-{ex.lines[-1][0]}:")
        width = len(str(ex.lines[-1][0]))
        out += [f"  {n:>{width}} | {s}" for n, s in ex.lines]
    return "\n".join(out)


def to_dict(e: Explanation) -> dict[str, Any]:
    """The explanation as JSON-ready data (``audit --explain NAME --json``)."""
    return {
        "name": e.name,
        "finding": e.finding.to_dict(),
        "seed_file": str(e.excerpt.file) if e.excerpt.file else None,
        "seed_lines": [{"line": n, "text": s} for n, s in e.excerpt.lines],
    }
