"""HERON-SFL (seed 001), Theorem 2: the error floor as printed in (15) and (65),
C_err = (2/delta) [2 G_s^2 Delta / (N(2N-1)) + mu^2 L^2 (d+3)^3 / 2], against the floor the proof's eq. (62)
actually leaves, 2 G_s^2 delta / (N(2N-1)) + mu^2 L^2 (d+3)^3 / 2 (``sfltheory errata --paper heron_sfl``).

The printed floor divides by the drift bound delta, so it grows without bound as the drift vanishes -- the i.i.d.
case in which Remark 3 says the floor vanishes; the proof's floor shrinks with delta instead. The paper never
defines the drift limit Delta: it is shown as Delta = delta and as Delta = 0 (Remark 3's i.i.d. reading).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plotting import PALETTE, footnote

D_C, D_AUX = 38_848, 655_370  # the paper's ResNet-18 split and one-layer auxiliary head (see terms_heron_sfl)
KAPPA, T, L, G_S2 = 10.0, 1e4, 1.0, 1.0


def radius(n: Any) -> Any:
    """Theorem 2's smoothing condition at equality: mu = kappa^(1/4) / ((N T)^(1/4) (d+3)^(3/2))."""
    return KAPPA**0.25 / ((n * T) ** 0.25 * (D_C + D_AUX + 3) ** 1.5)


def floors(delta: Any, n: Any) -> dict[str, np.ndarray]:
    common = {"G_s2": G_S2, "L": L, "M": n, "T": T, "d_aux": float(D_AUX), "d_c": float(D_C), "kappa": KAPPA}
    lam = radius(n)
    printed = st.evaluate("heron_sfl/thm2@floor", {**common, "delta": delta, "Delta_drift": delta, "lam": lam})
    iid = st.evaluate("heron_sfl/thm2@floor", {**common, "delta": delta, "Delta_drift": 0.0, "lam": lam})
    proof = st.evaluate(
        "heron_sfl/thm2@proof",
        {**common, "delta": delta, "lam": lam, "F": 1.0, "eta": 1e-4, "sigma_c2": 1.0},
    )
    shape = np.broadcast_shapes(np.shape(delta), np.shape(n))
    return {
        "printed (15)/(65), Delta = delta": np.broadcast_to(printed.value, shape),
        "printed, Delta = 0 (i.i.d., Remark 3)": np.broadcast_to(iid.value, shape),
        "proof (62): drift + smoothing terms": np.broadcast_to(
            np.asarray(proof.terms["drift"]) + np.asarray(proof.terms["ZO bias"]), shape
        ),
    }


def draw(plt: Any, small: bool = False) -> Any:
    n_pts = 30 if small else 200
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
    delta = np.logspace(-6, 2, n_pts)
    styles = (PALETTE[0], "-"), (PALETTE[0], "--"), (PALETTE[1], "-")
    for (label, y), (c, ls) in zip(floors(delta, 5.0).items(), styles, strict=True):
        ax1.plot(delta, y, color=c, ls=ls, label=label)
    ax1.set_xlabel("drift bound delta (Assumption 4)")
    ax1.set_title("(a) against the drift bound, N = 5 clients", loc="left", fontsize=9)
    n = np.unique(np.round(np.logspace(0, 3, n_pts)))
    for d_val, ls in ((1e-3, "-"), (1.0, "--")):
        f = floors(d_val, n)
        for label, c in (
            ("printed (15)/(65), Delta = delta", PALETTE[0]),
            ("proof (62): drift + smoothing terms", PALETTE[1]),
        ):
            ax2.plot(n, f[label], color=c, ls=ls, label=f"{label}, delta = {d_val:g}")
    ax2.set_xlabel("clients N")
    ax2.set_title("(b) against the number of clients", loc="left", fontsize=9)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("error floor of min_t E||grad f||^2")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    footnote(
        fig,
        f"ResNet-18 split of the paper's experiments: d = d_c + d_aux = {D_C:,} + {D_AUX:,}; smoothing radius at "
        f"Theorem 2's condition with equality, mu = kappa^(1/4)/((N T)^(1/4)(d+3)^(3/2)) with T = {T:g}. Assumed: "
        f"kappa = {KAPPA:g}, L = {L:g}, G_s^2 = {G_S2:g}. With Delta = delta the printed floor is "
        "4 G_s^2/(N(2N-1)) + mu^2 L^2 (d+3)^3/delta: it never vanishes and blows up as delta -> 0.",
        below=ax1,
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
