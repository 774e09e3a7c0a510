"""cut_layer: SFL-V1's iterates do not depend on the cut, SFL-V2's do (Proposition 1 and the paper's empirical
claim), measured on one model, data and seed split at several cuts; and its figure."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote
from verify.models.zoo import mlp
from verify.problems import model_problem
from verify.train import get, run

from .record import SEED_CUT, TrendCheck
from .runs import Progress, say
from .series import max_relative_spread, padded
from .verdicts import invariance_verdict

NAME = "cut_invariance"
CLAIM = (
    f"cut_layer (seed {SEED_CUT}): Sec. 4, Proposition 1 ('Convergence Invariability to Cut Layer Selection in "
    "SFL-V1'): 'the convergence of SFL-V1 is invariant to the choice of cut layer L_c'; Sec. 1: 'SFL-V2 exhibits "
    "significant performance variations respect to with cut layer placement'. Tested: on one model, data and seed, "
    "SFL-V1's training curves coincide across cuts (the iterates are the same function), SFL-V2's do not."
)
INV_TOL = 1e-6  # relative: float32 arithmetic, reordered
INV_MIN = 1e-3  # a V2 spread of 0.1 % is far beyond float error


@dataclass(frozen=True, kw_only=True)
class _Setting:
    """The check's keyword arguments, less the callback."""

    cuts: Sequence[str]
    hidden: Sequence[int]
    T: int
    batch: int
    clients: int
    partition: str
    eta: float
    K: int
    seed: int
    eval_samples: int | None

    def algorithms(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """label -> (algorithm, its parameters): SFL-V1 as analysed and as printed, SFL-V2, and SFL-V1 as printed
        with E_epochs = 2 (measured for the record, outside the verdict)."""
        return {
            "sfl_v1_analysed": ("sfl_v1_analysed", {"eta": self.eta, "K": self.K}),
            "sfl_v1": ("sfl_v1", {"eta": self.eta}),
            "sfl_v2": ("sfl_v2", {"eta": self.eta}),
            "sfl_v1 E_epochs=2": ("sfl_v1", {"eta": self.eta, "E_epochs": 2}),
        }


@dataclass(frozen=True, kw_only=True)
class _Curves:
    """Per algorithm label and cut, the training curves ||grad f(x^t)||^2 and f(x^t); the client size per cut."""

    gradnorm2: dict[str, dict[str, np.ndarray]]
    loss: dict[str, dict[str, np.ndarray]]
    d_c: dict[str, int]


def check(
    *,
    cuts: Sequence[str] = ("fc1", "fc2", "fc3"),
    hidden: Sequence[int] = (32, 32, 16),
    T: int = 10,
    batch: int = 16,
    clients: int = 4,
    partition: str = "dirichlet:0.5",
    eta: float = 0.1,
    K: int = 2,
    seed: int = 0,
    eval_samples: int | None = 64,
    progress: Progress = None,
) -> TrendCheck:
    """SFL-V1 (as analysed, K local steps; as printed, one client update per server step) and SFL-V2 on the same
    MLP (``verify.models`` mlp 64-hidden-10) on digits, the same Dirichlet clients and the same seed, split at each
    cut. Measured per algorithm: the relative spread across cuts of the curves ||grad f(x^t)||^2 and f(x^t) (the
    largest :math:`|y_{cut}(t) - y_{first}(t)| / |y_{first}(t)|`). Predicted: 0 for SFL-V1 (Proposition 1; SFL-V1
    is FedAvg on the whole model, whatever the cut), > 0 for SFL-V2 (an empirical claim: no result,
    ``cut_layer/sfl_v2``). SFL-V1 as printed with E_epochs = 2 (the cut-layer gradient reused) is measured too, for
    the record, outside the verdict.

    Verdict: agrees when both SFL-V1 spreads are at most 1e-6 (float error) and SFL-V2's is at least 1e-3;
    disagrees when an SFL-V1 spread exceeds 1e-6 or SFL-V2's is at most 1e-6; else inconclusive.
    """
    t0 = time.perf_counter()
    s = _Setting(cuts=cuts, hidden=hidden, T=T, batch=batch, clients=clients, partition=partition, eta=eta, K=K,
                 seed=seed, eval_samples=eval_samples)  # fmt: skip
    curves = _train(s, progress)
    return _record(s, curves, seconds=time.perf_counter() - t0)


def _train(s: _Setting, progress: Progress) -> _Curves:
    """Every algorithm at every cut, on one network initialised once from ``seed``."""
    import torch

    algos = s.algorithms()
    torch.manual_seed(s.seed)
    net = mlp(in_features=64, hidden=tuple(s.hidden), num_classes=10)
    curves: dict[str, dict[str, np.ndarray]] = {a: {} for a in algos}
    losses: dict[str, dict[str, np.ndarray]] = {a: {} for a in algos}
    d_c: dict[str, int] = {}
    for cut in s.cuts:
        problem = model_problem(model=net, data="digits", cut=cut, clients=s.clients, partition=s.partition,
                                seed=s.seed, aux=False, eval_samples=s.eval_samples)  # fmt: skip
        d_c[cut] = int(problem.d_c)
        for label, (name, kw) in algos.items():
            say(progress, f"cut_invariance: {label} at cut {cut}")
            out = run(get(name)(**kw), problem, T=s.T, batch=s.batch, seed=s.seed, progress=False)
            curves[label][cut] = padded(out.series("gradnorm2"), s.T)
            losses[label][cut] = padded(out.series("loss"), s.T)
    return _Curves(gradnorm2=curves, loss=losses, d_c=d_c)


def _record(s: _Setting, c: _Curves, *, seconds: float) -> TrendCheck:
    """The spread of each algorithm's curves across the cuts, the verdict, summary and note, as a
    :class:`TrendCheck`."""
    cuts, algos = s.cuts, s.algorithms()
    spread = {
        a: max(
            max_relative_spread([c.gradnorm2[a][k] for k in cuts]), max_relative_spread([c.loss[a][k] for k in cuts])
        )
        for a in algos
    }
    verdict = invariance_verdict([spread["sfl_v1_analysed"], spread["sfl_v1"]], spread["sfl_v2"], INV_TOL, INV_MIN)
    summary = (
        f"spread across cuts {', '.join(cuts)}: sfl_v1_analysed {spread['sfl_v1_analysed']:.2g}, sfl_v1 "
        f"{spread['sfl_v1']:.2g} (tolerance {INV_TOL:g}); sfl_v2 {spread['sfl_v2']:.2g} (needs >= {INV_MIN:g})"
    )
    model = f"mlp 64-{'-'.join(str(h) for h in s.hidden)}-10"
    return TrendCheck(
        name=NAME,
        title="cut_layer: SFL-V1 invariant to the cut, SFL-V2 not",
        claim=CLAIM,
        rule=(
            f"agrees when every SFL-V1 curve spread across cuts is <= {INV_TOL:g} and SFL-V2's is >= {INV_MIN:g}; "
            f"disagrees when an SFL-V1 spread exceeds {INV_TOL:g} or SFL-V2's is <= {INV_TOL:g}; else inconclusive"
        ),
        verdict=verdict,
        x_label="round t",
        x=np.arange(s.T + 1, dtype=float),
        measured={f"{a} @ {k}": c.gradnorm2[a][k] for a in algos for k in cuts},
        predicted={"spread sfl_v1_analysed": np.array([0.0]), "spread sfl_v1": np.array([0.0])},
        numbers={
            "spread": spread,
            "tolerance": INV_TOL,
            "min_v2_spread": INV_MIN,
            "d_c": c.d_c,
            "loss": {f"{a} @ {k}": c.loss[a][k] for a in algos for k in cuts},
        },
        summary=summary,
        note=_note(s, spread, c.d_c, verdict),
        setting={
            "model": model,
            "data": "digits",
            "cuts": list(cuts),
            "clients": s.clients,
            "partition": s.partition,
            "eta": s.eta,
            "K": s.K,
            "T": s.T,
            "batch": s.batch,
            "seed": s.seed,
            "eval_samples": s.eval_samples,
        },
        seconds=seconds,
        draw=figure,
    )


def _note(s: _Setting, spread: dict[str, float], d_c: dict[str, int], verdict: str) -> str:
    """Why SFL-V1's invariance holds by construction, what E_epochs = 2 does, and what a short curve cannot say
    about the paper's SFL-V2 claim."""
    sizes = ", ".join(f"{c}: {n:,}" for c, n in d_c.items())
    return (
        "SFL-V1's invariance holds by construction: as analysed (App. B) it is FedAvg on the whole model, and as "
        "printed with one client update per server step it is FedAvg with one local step; the check "
        f"{'confirms' if verdict != 'disagrees' else 'tests whether'} the implementation keeps it to float error. As "
        "printed with E_epochs = 2 (Algorithm 1 reusing the cut-layer gradient) SFL-V1 "
        f"{'does' if spread['sfl_v1 E_epochs=2'] > INV_TOL else 'does not'} depend on the cut: spread "
        f"{spread['sfl_v1 E_epochs=2']:.2g}. "
        "The paper's SFL-V2 claim is about accuracy after full training (Tables 3-4); here it is the spread of a "
        f"{s.T}-round training curve: it shows V2 depends on the cut, not which cut is best. MLP 64-"
        f"{'-'.join(str(h) for h in s.hidden)}-10 on digits (d_c = {sizes}), "
        f"{s.clients} clients ({s.partition}), eta = {s.eta:g}, K = {s.K} (sfl_v1_analysed), batch {s.batch}, seed "
        f"{s.seed}; "
        + ("||grad f||^2 on all training samples" if s.eval_samples is None else
           f"||grad f||^2 on a fixed subsample of {s.eval_samples} per client")
        + "."
    )  # fmt: skip


def figure(c: TrendCheck) -> Any:
    """The training curves at each cut, and the spread of each algorithm's curves against the two thresholds."""
    import matplotlib.pyplot as plt

    cuts, s = c.setting["cuts"], c.setting
    spread = c.numbers["spread"]
    algos = list(spread)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10.4, 3.8), gridspec_kw={"width_ratios": [1.6, 1]})
    styles, markers = ["-", "--", ":", "-."], ["o", "x", "+", "^"]
    for i, a in enumerate(algos):
        for j, cut in enumerate(cuts):
            ax.plot(c.x, c.measured[f"{a} @ {cut}"], color=PALETTE[i % len(PALETTE)], ls=styles[j % 4],
                    marker=markers[j % 4], markevery=max(1, len(c.x) // 6), ms=5, label=f"{a}, cut {cut}")  # fmt: skip
    ax.set_xlabel(c.x_label)
    ax.set_ylabel("||grad f(x^t)||^2")
    ax.set_title("training curves at each cut (same model, data, seed)", loc="left", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    _spread_panel(ax2, spread, c.numbers["tolerance"], c.numbers["min_v2_spread"])
    fig.suptitle(f"{c.title}: {c.verdict}", x=0.01, ha="left", fontsize=10)
    fig.tight_layout()
    footnote(
        fig,
        f"{c.summary}.\n{s['model']} on {s['data']}, {s['clients']} clients ({s['partition']}), eta = {s['eta']:g}, "
        f"K = {s['K']} for sfl_v1_analysed, batch {s['batch']}, seed {s['seed']}; spread: max over rounds and cuts of "
        "|y_cut(t) - y_first cut(t)| / |y_first cut(t)| for ||grad f||^2 and the loss.",
        width=190,
        drop=62,
    )
    return fig


def _spread_panel(ax: Any, spread: dict[str, float], tol: float, need: float) -> None:
    """One bar per algorithm (log scale), the ones outside the verdict hatched, and the two thresholds."""

    algos = list(spread)
    floor = 1e-18
    vals = [max(spread[a], floor) for a in algos]
    bars = ax.bar(range(len(algos)), vals, color=[PALETTE[i % len(PALETTE)] for i in range(len(algos))])
    for i, a in enumerate(algos):
        if a not in ("sfl_v1_analysed", "sfl_v1", "sfl_v2"):
            bars[i].set_hatch("//")
            bars[i].set_alpha(0.6)
        ax.text(i, vals[i] * 2.5, f"{spread[a]:.1g}", ha="center", fontsize=7)
    ax.axhline(tol, color="#333333", ls="--", lw=1, label=f"SFL-V1 must stay below {tol:g}")
    ax.axhline(need, color="#333333", ls=":", lw=1, label=f"SFL-V2 must reach {need:g}")
    ax.set_yscale("log")
    ax.set_ylim(floor, 10)
    ax.set_xticks(range(len(algos)))
    ax.set_xticklabels([a.replace(" ", "\n") + ("\n(not in the verdict)" if "E_epochs" in a else "")
                        for a in algos], fontsize=7)  # fmt: skip
    ax.set_ylabel("largest relative gap between cuts")
    ax.set_title("spread of the curves across cuts", loc="left", fontsize=9)
    ax.legend(fontsize=7, loc="center left")


__all__ = ["CLAIM", "INV_MIN", "INV_TOL", "NAME", "check", "figure"]
