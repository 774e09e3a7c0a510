"""What every check shares: the results under audit, the seed, and the points drawn once per result."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from .. import lexicon
from ..latex import to_sympy
from ..registry import origin
from ..result import Provenance, Result
from .findings import Check, Skip
from .lineage import parent
from .sampling import Sample, draw


def seed_location(p: Provenance) -> str:
    """Where to read a result in ``shared/seeds``: file, label, equation, section."""
    eq = f" {p.equation}" if p.equation else ""
    sec = f", {p.section}" if p.section else ""
    return f"{p.seed}: {p.label}{eq}{sec}"


@dataclass
class Context:
    """The catalogue the checks see (parents and editions are looked up in it), the seed and the budget."""

    catalogue: Sequence[Result]
    seed: int = 0
    samples: int = 256
    skips: list[Skip] = field(default_factory=list)
    counterexamples: list[dict[str, Any]] = field(default_factory=list)  # verify --worst-case records
    _cache: dict[tuple[str, tuple[str, ...]], Sample | None] = field(default_factory=dict, repr=False)

    def read(self, latex: str, r: Result) -> sp.Expr:
        """``latex``, printed in ``r``, as SymPy in canonical names (:func:`sfltheory.latex.to_sympy` with the
        names in use; a result from a user's file is read as its terms were). Raises ``LatexError``."""
        return to_sympy(latex, r, lexicon.all_params(), user=origin(r.id) is not None)

    def rng(self, *key: str) -> np.random.Generator:
        """A generator that depends only on the seed and ``key`` (a check and a result id), so one result's
        points do not change when another is added."""
        return np.random.default_rng([self.seed, zlib.crc32("\x1f".join(key).encode())])

    def sample(
        self, r: Result, extra: Sequence[str] = (), scale: int = 1, *, statement_step: bool = False
    ) -> Sample | None:
        """Points of ``r`` (drawn once per result, ``extra`` and ``scale`` x the sample budget; ``statement_step``:
        the step up to what the statement alone allows, :func:`sfltheory.audit.sampling.statement_steps`)."""
        key = (r.id, (*sorted(extra), f"x{scale}", *(("statement-step",) if statement_step else ())))
        if key not in self._cache:
            self._cache[key] = draw(r, self.rng("points", r.id, *key[1]), self.samples * scale, extra,
                                    statement_step=statement_step)  # fmt: skip
        return self._cache[key]

    def sample_for(self, r: Result, check: Check, extra: Sequence[str] = (), scale: int = 1, *,
                   statement_step: bool = False) -> Sample | None:  # fmt: skip
        """:meth:`sample`, recording a skip of ``check`` on ``r`` when no valid parameter point exists."""
        s = self.sample(r, extra, scale, statement_step=statement_step)
        if s is None:
            self.skip(r, check, "no valid parameter point")
        return s

    def parent(self, r: Result) -> Result | None:
        """The theorem ``r`` follows from, found in the catalogue (:func:`sfltheory.audit.lineage.parent`): None
        for a result that is no corollary or has no parent."""
        return parent(r, self.catalogue)

    def skip(self, r: Result, check: Check, reason: str) -> None:
        """Record that ``check`` could not run on ``r``."""
        self.skips.append(Skip(result=r.id, check=check, reason=reason))
