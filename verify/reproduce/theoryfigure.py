"""The theory figure of a reproduced experiment (``<scale>_theory.png``): one panel per theorem that analyses one of
its algorithms, the bound at a representative run's own settings and constants at x^0 against that run's measured
left-hand side at every T (:mod:`verify.reproduce.theory`), the verdict in each panel's title. The paper's claim and
the reproduced curves are in the experiment's own figure (``<scale>.png``), which the caption says."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Experiment, Scale
from .theory import Theory


def run_label(t: Theory) -> str:
    """The representative run in words: its labels other than the algorithm and seed, and the seed."""
    rest = ", ".join(f"{k} = {v}" for k, v in t.labels.items() if k not in ("algorithm", "seed"))
    seed = t.labels.get("seed")
    return f"{t.algorithm} ({rest}{', ' if rest else ''}seed {seed})"


def constants_text(t: Theory) -> str:
    """The constants in the bound, ``name = value`` each, in one line."""
    return ", ".join(f"{c.name} = {c.value:.3g}" for c in t.constants) or "none measured"


def draw_theory(exp: Experiment, scale: Scale, theories: Sequence[Theory]) -> Any:
    """One panel per theory record: the measured left-hand side against T (solid) and the bound (dashed; absent
    where the theorem does not describe the run), both on a log axis; the verdict in the title; the caption names
    the run, the constants and how they were obtained, and where the claim and the reproduced curve are."""
    with style() as plt:
        n = len(theories)
        fig, axes = plt.subplots(1, n, figsize=(5.4 * n, 3.8), squeeze=False)
        for ax, t in zip(axes[0], theories, strict=True):
            if t.T:
                T = np.asarray(t.T)
                ax.plot(T, t.lhs, "-", color=PALETTE[0], label=f"measured: {t.lhs_kind}")
                if t.bound:
                    b = np.asarray([x if math.isfinite(x) and x > 0 else math.nan for x in t.bound])
                    ax.plot(T, b, "--", color=PALETTE[1], label=f"bound of {t.result} at the run's settings")
                else:  # said in the legend, clear of the curve
                    ax.plot([], [], " ", label="no bound: the theorem does not describe this run")
                ax.set_yscale("log")
                ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
                ax.set_xlabel("T (rounds averaged over)")
                ax.legend(loc="best", fontsize=7)
            else:
                ax.text(0.5, 0.5, "no bound drawn:\nthe theorem does not describe this run, or it failed", ha="center",
                        va="center", transform=ax.transAxes, fontsize=9)  # fmt: skip
                ax.set_xticks([])
                ax.set_yticks([])
            ax.set_title(f"{t.result}: {t.verdict}\nagainst {run_label(t)}", loc="left", fontsize=8.5,
                         fontweight="bold")  # fmt: skip
        fig.suptitle(f"{exp.id}: the theory at a reproduced run (scale '{scale.name}')", x=0.01, ha="left",
                     fontsize=11, fontweight="bold")  # fmt: skip
        fig.tight_layout(rect=(0, 0, 1, 0.92))
        lines = [f"{t.result} against {run_label(t)}: {t.sentence}. " + (f"Constants: {constants_text(t)}; "
                 f"{t.notes[0] if t.notes else ''}." if t.constants else "No bound, no constants.")
                 for t in theories]  # fmt: skip
        footnote(fig, "\n".join(lines) + f"\nThe paper's claim and the reproduced curves are in the experiment's own "
                 f"figure ({scale.name}.png, beside this one). Each representative run is a run of that figure, run "
                 "again recording ||grad f(x^t)||^2 every round; the constants are measured at its x^0 only (the "
                 "theorems assume them at every iterate, so the bound drawn is a lower estimate of the theorem's); "
                 "one run is one sample of the expectation the theorem bounds.", width=150)  # fmt: skip
    return fig


__all__ = ["constants_text", "draw_theory", "run_label"]
