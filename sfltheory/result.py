"""The theorem model: a convergence result as a declarative object.

A :class:`Result` holds everything a paper states about one bound (and nothing computed): where it is
printed, the assumptions it uses, its hypotheses branch by branch, its bound as a sum of named terms and
its rate. Evaluation lives in :mod:`sfltheory.evaluate`.

Editions: when the appendix restates a result differently, or the proof's last display derives something
other than the statement, that is another edition of the same result (``paper/label@proof``,
``paper/label@appendix``). Differences are recorded as :class:`Discrepancy` entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import sympy as sp

from .assumptions import Assumption
from .defaults import Default

Relation = Literal["<=", "<", "==", ">=", ">"]
HypothesisKind = Literal["step_size", "smoothing", "coupling", "domain", "validity", "choice"]
# statement: printed in the result; proof: printed inside the proof only; implicit: needed by a step of
# the proof (a term dropped, two coefficients combined) but printed nowhere -- derived by us, with a note.
Source = Literal["statement", "proof", "implicit"]
Kind = Literal["theorem", "corollary", "proposition", "lemma", "model"]


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where a result is printed: the seed file, the label and equation, the section, and the paper's full
    reference (authors, title, venue and year as far as the paper states them)."""

    seed: str  # file name in shared/seeds (or the user's file for a user-declared result)
    label: str  # e.g. "Theorem 4.1"
    equation: str | None = None  # e.g. "(8)"
    section: str = ""  # e.g. "Sec. 4.1"
    reference: str = ""  # the full citation; ``sfltheory show`` prints it

    @property
    def citation(self) -> str:
        """``reference, label equation (section)``: enough to find the statement."""
        where = " ".join(x for x in (self.label, self.equation or "") if x)
        sec = f" ({self.section})" if self.section else ""
        head = f"{self.reference}, " if self.reference else ""
        return f"{head}{where}{sec}"


@dataclass(frozen=True, kw_only=True)
class Term:
    """One named summand of a bound: its SymPy expression in canonical names and what it means in the paper's
    words. The bound is the sum of a result's terms (:attr:`Result.bound_expr`)."""

    name: str
    expr: sp.Expr
    meaning: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "expr", sp.sympify(self.expr))


@dataclass(frozen=True, kw_only=True)
class Hypothesis:
    """``lhs REL rhs``. For a step-size branch ``lhs`` is the step size and ``rhs`` its bound."""

    name: str
    lhs: sp.Expr
    rel: Relation
    rhs: sp.Expr
    kind: HypothesisKind
    printed: str  # the condition as the paper prints it (LaTeX)
    source: Source = "statement"
    where: str = ""  # where in the seed it is printed or used
    group: str = ""  # branches of one min{...} share a group
    note: str = ""
    atol: float = 0.0  # equalities: |lhs - rhs| <= atol + rtol*|rhs| counts as holding
    rtol: float = 1e-9

    def __post_init__(self) -> None:  # accept plain numbers on either side
        object.__setattr__(self, "lhs", sp.sympify(self.lhs))
        object.__setattr__(self, "rhs", sp.sympify(self.rhs))


@dataclass(frozen=True, kw_only=True)
class Discrepancy:
    """A place where the paper does not hold together; recorded, never fixed silently."""

    where: str
    printed: str
    expected: str
    note: str = ""


@dataclass(frozen=True)
class PaperChoice:
    """A closed-form choice of the split a paper prints (MU-SplitFed's :math:`d_c=\\sqrt{d/\\tau}`): declared with
    the paper's results (``Result.choices``), shown by the planner next to the bound-optimal choice."""

    name: str
    where: str  # seed, result and equation
    tau_of_split: sp.Expr  # tau as a function of d and d_c
    dc_of_tau: sp.Expr  # the same rule written as the client size for a given tau
    printed: str
    note: str = ""


@dataclass(frozen=True, eq=False, kw_only=True)  # identity hash: compiled functions are cached per object
class Result:
    """One convergence result as the paper states it: where it is printed, what it bounds, its terms, hypotheses
    (branch by branch, from the statement, the proof or implied), assumptions, printed statement and rate, the
    step size it constrains, the defaults that derive unstated parameters, and the discrepancies recorded.

    Declarative: nothing here is computed (evaluation lives in :mod:`sfltheory.evaluate`). An edition other than
    the main text (``edition``: ``proof``, ``appendix`` ...) is its own result, ``paper/label@edition``."""

    paper: str
    label: str  # e.g. "thm4.1"
    kind: Kind
    title: str
    provenance: Provenance
    lhs: str  # what is bounded, in words
    terms: tuple[Term, ...]
    hypotheses: tuple[Hypothesis, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    edition: str = ""  # "" for the main-text statement, else "proof", "appendix", ...
    statement: str = ""  # LaTeX of the bound as printed
    rate: str | None = None  # big-O rate as printed (LaTeX), None if the paper states none
    step: str | None = None  # the step size the hypotheses constrain (for check-lr / max_step)
    defaults: tuple[Default, ...] = ()  # named derivation rules, resolved as sfltheory.defaults documents
    explicit: bool = True  # False: stated only up to constants; ``bound`` refuses and names ``see``
    see: str | None = None  # the explicit edition to use instead
    discrepancies: tuple[Discrepancy, ...] = ()
    notes: tuple[str, ...] = ()
    notation: dict[str, str] = field(default_factory=dict)  # canonical -> printed, beyond the paper's
    choices: tuple[PaperChoice, ...] = ()  # the paper's closed-form split choices that apply (planner headlines [0])

    def __post_init__(self) -> None:
        for d in self.defaults:
            if not isinstance(d, Default):
                raise TypeError(f"{self.id}: defaults must be Default(name=, expr=, rule=) records (got {d!r})")

    @property
    def id(self) -> str:
        """``paper/label``, or ``paper/label@edition`` for an edition other than the main text."""
        base = f"{self.paper}/{self.label}"
        return f"{base}@{self.edition}" if self.edition else base

    @property
    def bound_expr(self) -> sp.Expr:
        """The bound as one SymPy expression: the sum of the terms."""
        return sp.Add(*(t.expr for t in self.terms))

    @property
    def rests_on_proof(self) -> bool:
        """True when the statement prints no step-size condition while the proof (or our derivation) needs some: a
        proof display such as ``mu_splitfed/eq24`` or ``thm4.1@proof``, whose only printed hypothesis is the step
        coupling. Such an edition holds only where those conditions hold, so they are the ones it rests on:
        :attr:`sfltheory.evaluate.Evaluation.applies` requires every hypothesis it carries, and ``check-lr`` /
        :func:`sfltheory.stepsize.max_step` take their largest step over them (issue 24)."""
        steps = [h for h in self.hypotheses if h.kind == "step_size"]
        return bool(steps) and all(h.source != "statement" for h in steps)

    def parameters(self) -> list[str]:
        """Canonical names the bound and hypotheses depend on (after defaults are applied)."""
        names: set[str] = set()
        for t in self.terms:
            names |= {s.name for s in t.expr.free_symbols}
        for h in self.hypotheses:
            names |= {s.name for s in (h.lhs.free_symbols | h.rhs.free_symbols)}
        return sorted(names)


def step_branch(
    name: str,
    lhs: sp.Expr,
    rhs: sp.Expr,
    printed: str,
    *,
    source: Source = "statement",
    where: str,
    group: str = "",
    note: str = "",
) -> Hypothesis:
    """One branch of a step-size condition, ``lhs <= rhs`` (``lhs`` the step size, ``rhs`` its bound)."""
    return Hypothesis(
        name=name, lhs=lhs, rel="<=", rhs=rhs, kind="step_size", printed=printed, source=source, where=where,
        group=group, note=note,
    )  # fmt: skip
