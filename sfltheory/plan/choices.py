"""The closed-form choices the papers themselves print, so a plan can show them next to the optimum.

Each is an explicit relation between the split and tau that a corollary substitutes into its theorem; the
planner evaluates the theorem there and reports how far it is from the bound-optimal choice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from .. import vocabulary as vocab

d, d_c, tau = vocab.symbols("d d_c tau")


@dataclass(frozen=True)
class PaperChoice:
    name: str
    where: str  # seed, result and equation
    tau_of_split: sp.Expr  # tau as a function of d and d_c
    dc_of_tau: sp.Expr  # the same rule written as the client size for a given tau
    printed: str
    note: str = ""


_SEED = "000_0fb66116fc20c956.txt"

COR42 = PaperChoice(
    "Corollary 4.2 split",
    f"{_SEED}, Corollary 4.2 (9) and the Discussion after it",
    d / d_c**2,
    sp.sqrt(d / tau),
    r"d_c=\sqrt{d/\tau}\iff\tau=d/d_c^2",
)
COR42_PROOF = PaperChoice(
    "Corollary 4.2 split, as App. C.1.4 substitutes it",
    f"{_SEED}, App. C.1.4 (first display)",
    d**2 / d_c**2,
    d / sp.sqrt(tau),
    r"d_c=d/\sqrt{\tau}\iff\tau=(d/d_c)^2",
    "the proof's split differs from the statement's (recorded in the errata)",
)
# Corollary 4.4 prints the same split as Corollary 4.2's statement (and App. D.1.4 keeps it)
COR44 = replace(COR42, name="Corollary 4.4 split", where=f"{_SEED}, Corollary 4.4 (11) and App. D.1.4")

# result id -> the paper's choices that apply to it (the first is the one the planner headlines)
CHOICES: dict[str, tuple[PaperChoice, ...]] = {
    "mu_splitfed/thm4.1": (COR42, COR42_PROOF),
    "mu_splitfed/thm4.1@proof": (COR42_PROOF, COR42),
    "mu_splitfed/cor4.2": (COR42,),
    "mu_splitfed/cor4.2@proof": (COR42_PROOF,),
    "mu_splitfed/thm4.3": (COR44,),
    "mu_splitfed/thm4.3@appendix": (COR44,),
    "mu_splitfed/thm4.3@proof": (COR44,),
    "mu_splitfed/cor4.4": (COR44,),
    "mu_splitfed/cor4.4@proof": (COR44,),
}


def choices_for(result_id: str) -> tuple[PaperChoice, ...]:
    return CHOICES.get(result_id, ())
