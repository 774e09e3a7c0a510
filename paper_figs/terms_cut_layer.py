"""The impact of cut layer selection in SFL (seed 003): Proposition 1 (SFL-V1, eq. (6)) against the number of
rounds T, term by term, at the paper's own settings (Tables 1 and 2, Sec. 5.1). The bound does not depend on the
cut layer (the paper's point), so one curve serves every cut.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plotting import footnote, terms_grid

RID = "cut_layer/prop1"
# (title, clients M, rounds T, samples per client D_k): Table 1; E = 5 local epochs, batch 64, eta = 0.001 (Table 2)
SETTINGS = (
    ("CIFAR-10, ResNet-18", 100, 200, 50_000 // 100),
    ("Tiny ImageNet, ResNet-50", 10, 300, 100_000 // 10),
)
COMMON = {"E_epochs": 5.0, "batch": 64.0, "eta": 1e-3}
ASSUMED = {"L": 1.0, "F": 2.3, "sigma2": 1.0, "eps2": 0.5}  # the paper gives none


def draw(plt: Any, small: bool = False) -> Any:
    T = np.unique(np.round(np.logspace(0, 8, 60 if small else 300)))
    panels = []
    marks: list[tuple[float, str, int]] = []
    notes = []
    for j, (title, m, t_paper, dk) in enumerate(SETTINGS):
        p = {**COMMON, **ASSUMED, "M": float(m), "D_k": float(dk)}
        ev = st.evaluate(RID, {**p, "T": T})
        terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T.shape) for k, v in ev.terms.items()}
        k = math.ceil(COMMON["E_epochs"] * dk / COMMON["batch"])
        failed = sorted({h.name for h in ev.hypotheses if h.source == "statement" and not np.all(h.holds)})
        status = "step conditions hold" if not failed else f"eta = 0.001 breaks {len(failed)} step conditions"
        panels.append((f"{title} (M = {m}, tau = {k}): {status}", terms, np.asarray(ev.value)))
        marks.append((float(t_paper), f"T = {t_paper} (paper, {title.split(',')[0]})", j))
        notes.append(f"{title}: M = {m} clients, D_k = {dk:,} samples each, tau = ceil(E D_k/B) = {k}")
        if failed:
            notes.append(f"at eta = 0.001 it breaks {', '.join(failed)}")
    fig = plt.figure(figsize=(11, 5.6))
    axes = terms_grid(fig, T, panels, "rounds T", "bound on avg E||grad f||^2", tuple(marks))
    footnote(
        fig,
        f"{'; '.join(notes)}; E = 5 local epochs, batch B = 64, eta = 0.001 (Table 2: SFL-V1 is run with Adam there; "
        "the proposition is for SGD), sum_k alpha_k^2 = 1/M (equal weights). Assumed, as the paper gives none: "
        "L = 1, F = 2.3, sigma^2 = 1, eps^2 = 0.5. The bound has no d_c or d_s: every cut layer gives these curves.",
        below=axes[1, 0],
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
