r"""sl_noniid Fig. 2 (and Figs. 5-7): split learning's training loss under data heterogeneity and local steps K, and
its test accuracy over a grid of global and local learning rates.

Reference: (anonymous, under double-blind review), "Convergence Analysis of Split Learning on Non-IID Data" (seed
``002_56e5daea794305d7.txt``): Sec. 5.1 (lines 177-183: LeNet-5 on MNIST split after the second max-pool; "C = #"
classes per client, Dirichlet alpha), Sec. 5.2 (line 189: 10 clients; IID and C = 8, 5, 2; E = 1, 2, 4, 8, 10 over
Dir_10(1.0); K = max{E n_i / b}) and its three claims on Fig. 2 (line 187): (a) line 191, "the training loss curve
of IID distribution is the lowest and most stable. When the data heterogeneity increases (C decreases from 8 to 2),
SL shows worse performance"; (b) line 193, "SL shows the best performance when E = 2 ... optimal K exists ...
Over-large K can even harm the convergence rate (see curves E = 8 and E = 10)"; (c) line 195, "the dark green grids
with high test accuracy concentrate on the left bottom triangular regions, which shows that eta_g eta_l should avoid
being too large". Appendix E.1 (lines 752-772): Figs. 5 and 6 repeat (a) and (b) with N = 10, b = 1000,
eta_l = 0.01, eta_g = 1.0 on MNIST (line 756, 762); Fig. 7 (line 772) the eta grid over Dir_10(10.0), E = 1, "We
average test accuracy over the last 10 rounds from 30 total rounds"; line 764: "eta_g can be helpful in some
cases, especially when eta_l is small". The figure prints curves and a heat map only: no number to quote, so the
paper's side is its claims in words and its settings; each verdict rule states its own thresholds.

Algorithm: the trainer's ``sl`` (Algorithm 1: clients one after another in a random order each round, each making
K split-SGD steps of batch b from where the previous one stopped, then x^{r+1} = x^r + eta_g (x_N^{(r,K)} - x^r)),
plain SGD (the paper's momentum 0.9 and weight decay 1e-4, line 746, are not in the trainer).

Substitutions (small scale, in the caption): an MLP 64-32-10 on scikit-learn's digits (1438 training samples, about
144 per client) split after fc1 for LeNet-5 on MNIST (6000 per client); 10 clients as the paper. K from E as the
paper's K = E n_i / b (its n_i / b = 6000 / 1000 = 6 at the paper scale: K = 6 E). "C = #" as ``shards:#``
(McMahan et al.'s mechanism the paper names, line 181: label-sorted shards, # per client; on digits this gives a
client on average 2.5, 4.8 and 6.0 distinct labels for C = 2, 5, 8, counted over seeds 0-2, since a shard may
straddle two labels and two shards may share one). Training loss: the trainer's ``loss`` record, the loss of x^t
on the whole training set (the paper's figure does not say on which samples).

Substitutions, continued: K = 3 E at the small scale (b = 48, n_i / b = 3: half the paper's 6, so that E = 10, 30
steps a client, fits the CPU budget); 30 rounds (c: as Fig. 7); 3 seeds for a and b, 2 for the 20 cells of c.

Step sizes. Panels a and b: eta_l = 0.1, eta_g = 1: the paper's eta_l = 0.01 with momentum 0.9 moves as plain SGD
with 0.01 / (1 - 0.9) = 0.1 does, and the probe (seed 0, 30 rounds, K = 3 E) found the same ordering at 0.1 and 0.3:
late loss for E = 1, 2, 4, 8, 10 of 0.126, 0.071, 0.039, 0.023, 0.019 (eta_l = 0.1) and 0.052, 0.026, 0.013, 0.007,
0.007 (eta_l = 0.3); panel a at 0.1: IID 0.125, C = 8 0.137, C = 5 0.153, C = 2 0.173. Panel c's grid: eta_g in
{0.5, 1, 2, 4} (around 1; the text prints no values), eta_l in {0.01, 0.03, 0.1, 0.3, 1}; the probe (seed 0, 30 rounds,
final accuracy %, eta_l = 0.03, 0.1, 0.3, 1 across) gave eta_g = 0.5: 85.8, 90.5, 94.7, 95.8; 1: 88.9, 93.3, 95.8,
96.1; 2: 90.0, 89.4, 91.4, 95.8; 4: 22.3, 10.0, 10.0, 10.0. eta_l = 0.01 was added after it, since at 0.03 the runs
were nearly trained in 30 rounds (eta_g = 2 gave +1.1 points over eta_g = 1, within the tie): line 764 speaks of a
small eta_l, and 0.01 is the paper's own for MNIST.

At the small scale (seeds as above): (a) reproduces (late loss IID 0.131 < C = 8 0.145 < C = 5 0.161 < C = 2 0.189);
(b) does not (the loss falls with E all the way to E = 10, 0.135 at E = 1 to 0.023); (c) does not: eta_g = 4
collapses from eta_l = 0.03 on (product 0.12) while eta_g = 2 keeps 94 % at eta_l = 1 (product 2), so the accuracy
follows eta_g's range (line 195's "eta_g ... has a limited range") rather than the product; eta_g = 2 helps at
eta_l = 0.01 (+8.9 points).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import COMBINED, combine, mean_se

SEED = "002_56e5daea794305d7.txt"
ALGORITHM = "sl"
# the heterogeneity panel's partitions, least to most heterogeneous (C = # as shards:#, module docstring)
HETEROGENEITY = {"iid": "IID", "shards:8": "C = 8", "shards:5": "C = 5", "shards:2": "C = 2"}
# relative: two mean losses within this share of the smaller one (or 2 combined standard errors) are tied; the paper
# prints no number for "worse" or "best", 5 % of the loss is a gap one sees between curves on its linear axes
LOSS_TIE = 0.05
# points of accuracy: two cells of the eta grid within this (or 2 combined standard errors) are tied
ACC_TIE_POINTS = 2.0
# the eta grid's claim: the rank correlation between eta_g eta_l and accuracy over the cells whose product is at or
# above the best cell's must be at most this (accuracy falls as the product grows beyond the best's) ...
FALLOFF_RHO = -0.5
# ... over at least this many cells (fewer: the grid does not reach beyond the best, inconclusive)
FALLOFF_CELLS = 4
# a cell whose accuracy is below this share of the best's has collapsed (a diverged run scores CHANCE); one at a
# smaller product than the best's contradicts "the product should avoid being too large"
COLLAPSE = 0.5
LOSS_SHARE = 0.25  # the late loss: the mean over the last quarter of the rounds (less noisy than the last record)
ACC_SHARE = 1.0 / 3.0  # the late accuracy: Fig. 7's last 10 of 30 rounds
CHANCE = 10.0  # % test accuracy of a diverged run: one class of 10 balanced ones (digits, MNIST, Fashion-MNIST)
# the paper's K = E n_i / b with its n_i / b = 6000 / 1000 = 6 (MNIST, 10 clients, b = 1000): K = 6 E
STEPS_PER_EPOCH = 6
# the small scale halves it (b = 48: K = 3 E, up to 30 steps a client at E = 10) to fit a 2-core CPU
SMALL_STEPS_PER_EPOCH = 3
PANELS = {"a": "(a) data heterogeneity", "b": "(b) local steps K (E epochs)", "c": "(c) eta_g x eta_l"}

SMALL_A = {"eta_l": 0.1, "eta_g": 1.0, "E": 1, "T": 30}
SMALL_B = {"eta_l": 0.1, "eta_g": 1.0, "partition": "dirichlet:1.0", "T": 30, "seeds": 3}
SMALL_C = {"E": 1, "partition": "dirichlet:10.0", "T": 30, "seeds": 2}
SCALES: dict[str, Scale] = {
    "tiny": Scale(name="tiny", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                  clients=2, T=2, batch=8, seeds=(0,),
                  params={"a": {**SMALL_A, "T": 2}, "b": {**SMALL_B, "T": 2}, "c": {**SMALL_C, "T": 3},
                          "steps_per_epoch": 1},
                  grid={"partition": ("iid", "shards:2"), "E": (1,), "eta_l": (0.1,), "eta_g": (2.0,),
                        "cut": ("fc1",)},
                  eval_samples=8, substitution="tests only: 2 clients, 2-3 rounds, K = E; its verdict says nothing"),
    "small": Scale(name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                   clients=10, T=30, batch=48, seeds=(0, 1, 2),
                   params={"a": SMALL_A, "b": SMALL_B, "c": SMALL_C, "steps_per_epoch": SMALL_STEPS_PER_EPOCH},
                   grid={"partition": tuple(HETEROGENEITY), "E": (1, 2, 4, 8, 10),
                         "eta_l": (0.01, 0.03, 0.1, 0.3, 1.0), "eta_g": (0.5, 1.0, 2.0, 4.0), "cut": ("fc1",)},
                   substitution="an MLP 64-32-10 on digits split after fc1 (not LeNet-5 on MNIST), 10 clients as "
                   "the paper, b = 48 and K = 3 E (the paper's K = 6 E halved for the CPU), eta_l = 0.1 and eta_g = 1 "
                   "for a and b (the paper's 0.01 with momentum 0.9, as plain SGD), C = # as shards:#, 30 rounds, 3 "
                   "seeds for a and b and 2 for c, the eta grid's values chosen here (the text prints "
                   "none); 67 runs and one theory run: 115 CPU-s, 285 s wall with --workers 2 on a shared 2-core CPU "
                   "(load about 8)"),
    "paper": Scale(name="paper", data="fashion-mnist", model="lenet5", clients=10, T=100, batch=1000, seeds=(0,),
                   params={"a": {"eta_l": 0.01, "eta_g": 1.0, "E": 1, "T": 100},
                           "b": {"eta_l": 0.01, "eta_g": 1.0, "partition": "dirichlet:1.0", "T": 100, "seeds": 1},
                           "c": {"E": 1, "partition": "dirichlet:10.0", "T": 30, "seeds": 1},
                           "steps_per_epoch": STEPS_PER_EPOCH},
                   grid={"partition": tuple(HETEROGENEITY), "E": (1, 2, 4, 8, 10),
                         "eta_l": (0.001, 0.005, 0.01, 0.05, 0.1), "eta_g": (0.5, 1.0, 2.0, 4.0, 8.0),
                         "cut": ("conv2",)},
                   eval_samples=64,
                   substitution="the paper's Fashion-MNIST setting of Figs. 5b, 6b, 7b (MNIST is not a dataset "
                   "of the trainer; the captions give both the same settings): LeNet-5 split after the second "
                   "max-pool, 10 clients, b = 1000, eta_l = 0.01, eta_g = 1 for panels a and b, K = 6 E; 100 rounds "
                   "for a and b (the text gives none), the eta grid's values chosen here (the text prints none), "
                   "plain SGD (no momentum), "
                   "one seed"),
}  # fmt: skip


def _cell(scale: Scale, device: str, *, partition: str, E: int, eta_l: float, eta_g: float, T: int, seed: int,
          every: int) -> dict[str, Any]:  # fmt: skip
    """One ``sl`` run's flat train parameters: K = E times the scale's steps per epoch."""
    params: dict[str, Any] = {
        "algorithm": ALGORITHM, "model": scale.model, "data": scale.data, "cut": scale.grid["cut"][0],
        "clients": scale.clients, "partition": partition, "T": T, "batch": scale.batch, "seed": seed,
        "record_every": every, "device": device, "K": E * int(scale.params["steps_per_epoch"]), "eta_l": eta_l,
        "eta_g": eta_g,
    }  # fmt: skip
    params.update(scale.data_params())
    return params


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """The three panels' runs, every one ``sl``: (a) each partition of the heterogeneity grid at one E and step size
    for every seed, (b) each E over Dirichlet 1.0 for the first ``params["b"]["seeds"]`` seeds, both recording the
    loss every T/20 rounds (a curve); (c) each (eta_g, eta_l) of the grid over Dirichlet 10.0 for the first
    ``params["c"]["seeds"]`` seeds, recorded every round (the accuracy is averaged over the last third of the
    rounds, as Fig. 7's last 10 of 30)."""
    a, b, c = (scale.params[k] for k in "abc")
    cells = []
    for seed in scale.seeds:
        for p in scale.grid["partition"]:
            kw = {"partition": p, "E": a["E"], "eta_l": a["eta_l"], "eta_g": a["eta_g"], "T": a["T"], "seed": seed}
            cells.append(Cell(labels={"panel": "a", "algorithm": ALGORITHM, **kw},
                              params=_cell(scale, device, every=max(1, a["T"] // 20), **kw)))  # fmt: skip
    for seed in scale.seeds[: b.get("seeds", len(scale.seeds))]:
        for E in scale.grid["E"]:
            kw = {"partition": b["partition"], "E": E, "eta_l": b["eta_l"], "eta_g": b["eta_g"], "T": b["T"],
                  "seed": seed}  # fmt: skip
            cells.append(Cell(labels={"panel": "b", "algorithm": ALGORITHM, **kw},
                              params=_cell(scale, device, every=max(1, b["T"] // 20), **kw)))  # fmt: skip
    for seed in scale.seeds[: c.get("seeds", len(scale.seeds))]:
        for eta_g in scale.grid["eta_g"]:
            for eta_l in scale.grid["eta_l"]:
                kw = {"partition": c["partition"], "E": c["E"], "eta_l": eta_l, "eta_g": eta_g, "T": c["T"],
                      "seed": seed}  # fmt: skip
                cells.append(Cell(labels={"panel": "c", "algorithm": ALGORITHM, **kw},
                                  params=_cell(scale, device, every=1, **kw)))  # fmt: skip
    return tuple(cells)


def _tie(values: Sequence[float], noise: float) -> float:
    """The loss tie: :data:`LOSS_TIE` of the smallest loss, or 2 combined standard errors when larger."""
    return max(LOSS_TIE * min(values), COMBINED * noise)


def heterogeneity_finding(loss: Mapping[str, float], *, noise: float = 0.0) -> Finding:
    """Line 191's claim on the late training loss of each partition, ``loss`` ordered from the least heterogeneous
    (IID) to the most (C = 2); ``noise``: the largest standard error over seeds of one mean. With ``t`` =
    max(5 % of the smallest loss, 2 sqrt(2) noise):

    * does not reproduce: a more heterogeneous partition's loss below a less heterogeneous one's by more than ``t``
      (the order clearly reversed somewhere);
    * reproduces: IID the lowest, the most heterogeneous the highest, and their gap above ``t`` (with no clear
      reversal in between: a tie between neighbours, e.g. IID and C = 8, is allowed);
    * inconclusive otherwise, or when a loss is not finite (a diverged run). "Most stable" is not judged.
    """
    names, vals = list(loss), [float(v) for v in loss.values()]
    if len(vals) < 2 or any(not math.isfinite(v) for v in vals):
        return Finding(verdict="inconclusive", sentence="(a) a heterogeneity run has no finite loss")
    t = _tie(vals, noise)
    said = "(a) late training loss " + ", ".join(f"{n} {v:.3f}" for n, v in zip(names, vals, strict=True))
    said += f" (tie {t:.3f})"
    rev = [(i, j) for i in range(len(vals)) for j in range(i + 1, len(vals)) if vals[i] - vals[j] > t]
    if rev:
        i, j = max(rev, key=lambda ij: vals[ij[0]] - vals[ij[1]])
        return Finding(verdict="does not reproduce",
                       sentence=f"{said}: {names[j]} clearly below {names[i]}, the order reversed")  # fmt: skip
    if vals[0] == min(vals) and vals[-1] == max(vals) and vals[-1] - vals[0] > t:
        return Finding(verdict="reproduces", sentence=f"{said}: IID lowest, {names[-1]} highest")
    return Finding(verdict="inconclusive", sentence=f"{said}: the order is not clear at this scale")


def best_k_finding(loss: Mapping[int, float], *, noise: float = 0.0) -> Finding:
    """Line 193's claim on the late training loss per E (K = 6 E local steps) at equal rounds; ``noise`` as in
    :func:`heterogeneity_finding`, ``t`` the same tie. With ``E*`` the E of the lowest loss:

    * reproduces: ``E*`` interior to the grid, the smallest E's loss above it by more than ``t`` (suitable K
      improves) and the largest E's too (over-large K harms);
    * does not reproduce: the largest E within ``t`` of the lowest loss while the smallest E is above it by more
      than ``t`` (more local steps help up to the grid's largest E: no harm seen), or the smallest E below every
      other by more than ``t`` (local steps never help);
    * inconclusive otherwise (e.g. every E tied, or an interior best with one end tied), or when a loss is not
      finite (a diverged run) or the grid has under 3 values.
    """
    Es = sorted(loss)
    vals = [float(loss[E]) for E in Es]
    if len(vals) < 3 or any(not math.isfinite(v) for v in vals):
        return Finding(verdict="inconclusive", sentence="(b) under 3 values of E or a loss not finite")
    t = _tie(vals, noise)
    best = Es[int(np.argmin(vals))]
    said = "(b) late training loss " + ", ".join(f"E = {E} {v:.3f}" for E, v in zip(Es, vals, strict=True))
    said += f" (tie {t:.3f}): best E = {best}"
    lo, hi = vals[0], vals[-1]
    low = min(vals)
    if hi - low <= t < lo - low:
        return Finding(verdict="does not reproduce", sentence=f"{said}, the largest E within the tie of the best "
                       "and the smallest clearly worse: more local steps help, no harm seen")  # fmt: skip
    if all(lo < v - t for v in vals[1:]):
        return Finding(verdict="does not reproduce", sentence=f"{said}, the smallest E clearly best: K never helps")
    if best not in (Es[0], Es[-1]) and lo - low > t and hi - low > t:
        return Finding(verdict="reproduces", sentence=f"{said}, interior; both ends worse by more than the tie")
    return Finding(verdict="inconclusive", sentence=f"{said}; no interior optimum told apart at this scale")


def eta_grid_finding(acc: Mapping[tuple[float, float], float], *,
                     se: Mapping[tuple[float, float], float] | None = None) -> Finding:  # fmt: skip
    """Lines 195 and 764 on the late test accuracy (%) of each ``(eta_g, eta_l)`` cell; ``se`` the standard error
    over seeds of each cell's mean (none or 0 with one seed). Two cells a, b are told apart when they differ by more
    than ``t = max(2 points, 2 sqrt(se_a^2 + se_b^2))`` (2 combined standard errors of the two compared).

    The fall-off (line 195, "eta_g eta_l should avoid being too large"): over the cells whose product
    ``eta_g eta_l`` is at least the best cell's, Spearman's rank correlation ``rho`` between the product and the
    accuracy, and the ``drop`` from the best to the worst of them. Does not reproduce when a cell of smaller
    product than the best's collapses (accuracy below half the best's: the accuracy is then not ordered by the
    product, whatever happens above) or when ``rho >= 0`` (the accuracy does not fall as the product grows beyond
    the best); reproduces when ``rho <= -0.5`` and ``drop > t``; inconclusive otherwise, or with fewer than 4
    cells at or above the best's product (the grid does not reach beyond the best).

    eta_g helpful at a small eta_l (line 764): at the smallest eta_l, ``gain`` = the best accuracy over eta_g > 1
    minus that at eta_g = 1. Reproduces when ``gain > t``, does not when ``gain < -t``, else inconclusive.

    The two combined by :func:`verdicts.combine`; any accuracy not finite: inconclusive.
    """
    if not acc or any(not math.isfinite(v) for v in acc.values()):
        return Finding(verdict="inconclusive", sentence="(c) a cell of the eta grid has no finite accuracy")
    err = se or {}

    def tie(a: tuple[float, float], b: tuple[float, float]) -> float:
        return max(ACC_TIE_POINTS, 2.0 * math.hypot(err.get(a, 0.0), err.get(b, 0.0)))

    (bg, bl), best = max(acc.items(), key=lambda kv: kv[1])
    above = [(g * lr, v) for (g, lr), v in acc.items() if g * lr >= bg * bl * (1 - 1e-9)]
    worst = min((k for k in acc if k[0] * k[1] >= bg * bl * (1 - 1e-9)), key=lambda k: acc[k])
    t = tie((bg, bl), worst)
    said = f"(c) best {best:.1f}% at eta_g = {bg:g}, eta_l = {bl:g} (product {bg * bl:.3g})"
    below = {(g, lr): v for (g, lr), v in acc.items() if g * lr < bg * bl * (1 - 1e-9) and v < COLLAPSE * best}
    if below:
        (cg, cl), cv = min(below.items(), key=lambda kv: kv[0][0] * kv[0][1])
        fall = Finding(verdict="does not reproduce", sentence=f"{said}; but eta_g = {cg:g}, eta_l = {cl:g} (product "
                       f"{cg * cl:.3g}, below the best's) collapses to {cv:.1f}%: the accuracy is not ordered by "
                       "eta_g eta_l")  # fmt: skip
    elif len(above) < FALLOFF_CELLS:
        fall = Finding(verdict="inconclusive", sentence=f"{said}; only {len(above)} cells at or above its product: "
                       "the grid does not reach beyond the best")  # fmt: skip
    else:
        rho = float(spearmanr([p for p, _ in above], [v for _, v in above]).statistic)
        drop = best - min(v for _, v in above)
        said += f"; over the {len(above)} cells at or above that product rho = {rho:+.2f}, drop {drop:.1f} points"
        if not math.isfinite(rho):  # every accuracy equal: no rank order, hence no fall-off
            rho = 0.0
        if rho <= FALLOFF_RHO and drop > t:
            fall = Finding(verdict="reproduces", sentence=f"{said} (tie {t:.1f}): falls off as eta_g eta_l grows")
        elif rho >= 0.0:
            fall = Finding(verdict="does not reproduce", sentence=f"{said}: no fall-off as eta_g eta_l grows")
        else:
            fall = Finding(verdict="inconclusive", sentence=f"{said} (tie {t:.1f}): the fall-off is not clear")
    lmin = min(lr for _, lr in acc)
    at_one = acc.get((1.0, lmin))
    larger = {g: v for (g, lr), v in acc.items() if lr == lmin and g > 1.0}
    if at_one is None or not larger:
        return combine([fall, Finding(verdict="inconclusive", sentence="no eta_g = 1 and eta_g > 1 to compare")])
    g_best = max(larger, key=lambda g: larger[g])
    gain = larger[g_best] - at_one
    t = tie((g_best, lmin), (1.0, lmin))
    said = (f"at the smallest eta_l = {lmin:g}, eta_g = {g_best:g} gives {larger[g_best]:.1f}% against "
            f"{at_one:.1f}% at eta_g = 1 ({gain:+.1f} points, tie {t:.1f})")  # fmt: skip
    if gain > t:
        helpful = Finding(verdict="reproduces", sentence=f"{said}: eta_g helps when eta_l is small")
    elif gain < -t:
        helpful = Finding(verdict="does not reproduce", sentence=f"{said}: a larger eta_g hurts there")
    else:
        helpful = Finding(verdict="inconclusive", sentence=f"{said}: a tie")
    return combine([fall, helpful])


def late_mean(recorded: Sequence[Sequence[float]], share: float) -> float:
    """The mean of the recorded ``[t, value]`` pairs over the last ``share`` of the rounds (t > (1 - share) t_last;
    share 1/3 of 30 rounds: t = 21..30, Fig. 7's last 10 of 30); NaN without records or with a value not finite."""
    if not recorded:
        return math.nan
    last = max(t for t, _ in recorded)
    vals = [float(v) for t, v in recorded if t > (1.0 - share) * last or t == last]
    return float(np.mean(vals)) if all(math.isfinite(v) for v in vals) else math.nan


def diverged(row: Mapping[str, Any]) -> bool:
    """Whether a finished run stopped before its T rounds: the trainer ends a run at its first non-finite model
    (``run_status`` diverged), so its last record comes before T."""
    rec = row.get("test_acc_recorded") or row.get("loss_recorded") or []
    return row.get("status") == "ok" and bool(rec) and max(t for t, _ in rec) < int(row["T"])


def cell_accuracy(row: Mapping[str, Any]) -> float:
    """A panel-c run's late test accuracy (%, :data:`ACC_SHARE` of the rounds); :data:`CHANCE` when it diverged (a
    non-finite model predicts nothing: the step pair is "too large" in the paper's sense, and its cell is drawn
    at chance rather than left out); NaN when it failed or has no records."""
    if row.get("status") != "ok":
        return math.nan
    return CHANCE if diverged(row) else late_mean(row.get("test_acc_recorded") or [], ACC_SHARE)


def run_loss(row: Mapping[str, Any]) -> float:
    """A panel-a or -b run's late training loss (:data:`LOSS_SHARE` of the rounds); NaN when it failed, has no
    records or diverged (the rules call a panel with such a run inconclusive)."""
    if row.get("status") != "ok" or diverged(row):
        return math.nan
    return late_mean(row.get("loss_recorded") or [], LOSS_SHARE)


def _curve(runs: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """The mean recorded loss over ``runs``, record by record (cut to the shortest)."""
    done = [r["loss_recorded"] for r in runs if r.get("loss_recorded")]
    if not done:
        return {"round": [], "loss": []}
    n = min(len(c) for c in done)
    return {"round": [float(t) for t, _ in done[0][:n]],
            "loss": [round(float(v), 5) for v in np.mean([[v for _, v in c[:n]] for c in done], axis=0)]}  # fmt: skip


def _loss_stats(rows: tuple[Mapping[str, Any], ...], panel: str, key: str,
                value: Any) -> tuple[float, float, dict[str, list[float]]]:  # fmt: skip
    """The runs of ``panel`` whose ``key`` is ``value``: the mean and standard error over seeds of their late loss
    (:data:`LOSS_SHARE` of the rounds) and their mean curve."""
    runs = [r for r in rows if r["panel"] == panel and r[key] == value]
    m, se = mean_se([run_loss(r) for r in runs])
    return m, se, _curve(runs)


def _num(x: float) -> float | None:
    return round(x, 4) if math.isfinite(x) else None


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """Each panel's late means over seeds (loss for a and b, accuracy for c), its rule, the three combined."""
    numbers: dict[str, Any] = {"loss_tie": LOSS_TIE, "acc_tie_points": ACC_TIE_POINTS, "falloff_rho": FALLOFF_RHO}
    parts = {HETEROGENEITY.get(p, p): _loss_stats(rows, "a", "partition", p) for p in scale.grid["partition"]}
    Es = {int(E): _loss_stats(rows, "b", "E", E) for E in scale.grid["E"]}
    fa = heterogeneity_finding(
        {k: v[0] for k, v in parts.items()}, noise=max((v[1] for v in parts.values()), default=0.0)
    )
    fb = best_k_finding({k: v[0] for k, v in Es.items()}, noise=max((v[1] for v in Es.values()), default=0.0))
    for panel, stats, f in (("a", parts, fa), ("b", Es, fb)):
        numbers[panel] = {"late_loss": {str(k): _num(v[0]) for k, v in stats.items()},
                          "se": {str(k): round(v[1], 5) for k, v in stats.items()},
                          "noise": round(max((v[1] for v in stats.values()), default=0.0), 5),
                          "curve": {str(k): v[2] for k, v in stats.items()}, "verdict": f.verdict}  # fmt: skip
    findings = [fa, fb]
    cells: dict[tuple[float, float], float] = {}
    ses_c: dict[tuple[float, float], float] = {}
    gone: list[list[float]] = []
    for g in scale.grid["eta_g"]:
        for lr in scale.grid["eta_l"]:
            runs = [r for r in rows if r["panel"] == "c" and r["eta_g"] == g and r["eta_l"] == lr]
            m, se = mean_se([cell_accuracy(r) for r in runs])
            cells[(float(g), float(lr))] = m
            ses_c[(float(g), float(lr))] = se
            if any(diverged(r) for r in runs):
                gone.append([g, lr])
    findings.append(eta_grid_finding(cells, se=ses_c))
    numbers["c"] = {"eta_g": list(scale.grid["eta_g"]), "eta_l": list(scale.grid["eta_l"]),
                    "accuracy": [[_num(cells[(float(g), float(lr))]) for lr in scale.grid["eta_l"]]
                                 for g in scale.grid["eta_g"]],
                    "se": [[round(ses_c[(float(g), float(lr))], 4) for lr in scale.grid["eta_l"]]
                           for g in scale.grid["eta_g"]], "diverged": gone, "chance": CHANCE,
                    "verdict": findings[-1].verdict}  # fmt: skip
    return combine(findings), numbers


def _loss_panel(ax: Any, panel: str, key: str, names: Mapping[Any, str], numbers: Mapping[str, Any],
                rows: tuple[Mapping[str, Any], ...]) -> None:  # fmt: skip
    """Panel a or b: each run's loss faint, the mean over seeds bold, the late mean in the legend."""
    for i, (v, name) in enumerate(names.items()):
        for r in rows:
            if r["panel"] == panel and r[key] == v and r.get("loss_recorded"):
                ts, vs = zip(*r["loss_recorded"], strict=True)
                ax.plot(ts, vs, color=PALETTE[i % len(PALETTE)], alpha=0.2, lw=0.8)
        c = numbers[panel]["curve"][str(name if panel == "a" else v)]
        late = numbers[panel]["late_loss"][str(name if panel == "a" else v)]
        tail = f", late {late:.3f}" if late is not None else ""
        if c["round"]:
            ax.plot(c["round"], c["loss"], color=PALETTE[i % len(PALETTE)], lw=2, label=f"{name}{tail}")
    ax.set_yscale("log")
    ax.set_xlabel("communication round R")
    ax.set_ylabel("training loss (log)")
    ax.legend(loc="upper right", fontsize=7)
    ax.set_title(f"{PANELS[panel]}: {numbers[panel]['verdict']}", loc="left", fontsize=9)


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Fig. 2's three panels: (a) loss curves per partition, (b) per E (K = 6 E), (c) the accuracy heat map with
    eta_l across and eta_g up (small products lower left, as the paper's), each cell's accuracy written in it."""
    with style() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(16.5, 4.6), gridspec_kw={"width_ratios": [1, 1, 1.1]})
        a, b = scale.params["a"], scale.params["b"]
        _loss_panel(axes[0], "a", "partition", {p: HETEROGENEITY.get(p, p) for p in scale.grid["partition"]},
                    numbers, rows)  # fmt: skip
        k = int(scale.params["steps_per_epoch"])
        _loss_panel(axes[1], "b", "E", {E: f"E = {E} (K = {k * E})" for E in scale.grid["E"]}, numbers, rows)
        axes[0].text(0.02, 0.03, f"E = {a['E']}, eta_l = {a['eta_l']:g}, eta_g = {a['eta_g']:g}",
                     transform=axes[0].transAxes, fontsize=7)  # fmt: skip
        axes[1].text(0.02, 0.03, f"{b['partition']}, eta_l = {b['eta_l']:g}, eta_g = {b['eta_g']:g}",
                     transform=axes[1].transAxes, fontsize=7)  # fmt: skip
        c = numbers["c"]
        grid = np.array([[np.nan if v is None else v for v in row] for row in c["accuracy"]], dtype=float)
        grid = grid.reshape(len(c["eta_g"]), len(c["eta_l"]))
        ax = axes[2]
        im = ax.imshow(grid if grid.size else np.full((1, 1), np.nan), origin="lower", cmap="Greens", aspect="auto")
        finite = grid[np.isfinite(grid)]
        mid = float(np.mean([finite.min(), finite.max()])) if finite.size else 0.0
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                v = grid[i, j]
                div = [c["eta_g"][i], c["eta_l"][j]] in c.get("diverged", [])
                txt = "n/a" if not math.isfinite(v) else f"{v:.1f}" + ("\n(diverged)" if div else "")
                ax.text(j, i, txt, ha="center", va="center", fontsize=8,
                        color="white" if math.isfinite(v) and v > mid else "black")  # fmt: skip
        ax.set_xticks(range(len(c["eta_l"])), [f"{x:g}" for x in c["eta_l"]])
        ax.set_yticks(range(len(c["eta_g"])), [f"{x:g}" for x in c["eta_g"]])
        ax.set_xlabel("local learning rate eta_l")
        ax.set_ylabel("global learning rate eta_g")
        ax.set_title(f"{PANELS['c']}: {c['verdict']}", loc="left", fontsize=9)
        fig.colorbar(im, ax=ax, label=f"test accuracy (%), last third of {scale.params['c']['T']} rounds")
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.94))
        footnote(fig, f"{finding.sentence}.\nPaper (Fig. 2, MNIST; curves and a heat map, no numbers): (a) line 191 "
                 "'the training loss curve of IID distribution is the lowest' and worse 'as C decreases from 8 to 2'; "
                 "(b) line 193 'the best performance when E = 2 ... Over-large K can even harm' (E = 8, 10); (c) line "
                 "195 high accuracy on 'the left bottom triangular regions' (eta_g eta_l not too large), line 764 "
                 "'eta_g can be helpful ... especially when eta_l is small'. Rules: losses tied within 5 % or 2 "
                 "combined standard errors (a: IID lowest, C = 2 highest, no clear reversal; b: the best E interior "
                 "and both ends worse; the largest E tied with the best while E = 1 is worse: does not reproduce); "
                 "c: Spearman rho(product, accuracy) <= -0.5 over the cells at or above the best's product with a "
                 "drop > max(2 points, 2 combined s.e.), and no cell of smaller product below half the best's "
                 "accuracy (else does not reproduce); at the smallest eta_l some eta_g > 1 better than eta_g = 1 by "
                 "that tie; a diverged run scores 10 %. Late: the mean over the last quarter (loss) or third "
                 f"(accuracy) of the rounds. Scale '{scale.name}': {scale.substitution}.",
                 width=200)  # fmt: skip
    return fig


EXPERIMENT = Experiment(
    id="sl_noniid/fig2",
    paper="sl_noniid",
    seed=SEED,
    location="Fig. 2 (Sec. 5.2) and Figs. 5-7 (App. E.1)",
    lines=(187, 195),
    claim="Split learning's training loss is lowest on IID data and worsens as the classes per client fall from 8 "
    "to 2; an interior number of local steps (E = 2) is best and over-large K harms; high test accuracy needs "
    "eta_g eta_l not too large, and eta_g > 1 helps when eta_l is small.",
    quotes=(
        Quote(line=187, text="Figure 2: Results of SL on MNIST dataset.", what="Fig. 2's caption"),
        Quote(line=189, text="The training samples are assigned to 10 clients", what="the clients"),
        Quote(line=189, text="we use four distributions: IID, C = 8, 5, 2", what="panel a's partitions"),
        Quote(line=189, text="E = 1, 2, 4, 8, 10 over", what="panel b's local epochs (over Dir_10(1.0))"),
        Quote(
            line=191,
            text="the training loss curve of IID distribution is the lowest and most stable",
            what="claim (a), IID",
        ),
        Quote(line=191, text="(C decreases from 8 to 2), SL shows worse performance", what="claim (a), C"),
        Quote(line=193, text="SL shows the best performance when E = 2", what="claim (b), the best E"),
        Quote(
            line=193,
            text="Over-large K can even harm the convergence rate (see curves E = 8 and E = 10)",
            what="claim (b), over-large K",
        ),
        Quote(
            line=195,
            text="high test accuracy concentrate on the left bottom triangular regions",
            what="claim (c), the eta grid",
        ),
        Quote(
            line=756,
            text=r"(a) MNIST, $N = 10, b = 1000, \eta_l = 0.01, \eta_g = 1.0$",
            what="Fig. 5's MNIST setting (panel a)",
        ),
        Quote(line=762, text="Dir₁₀(1.0) is used", what="Fig. 6: panel b's partition"),
        Quote(
            line=772,
            text="We average test accuracy over the last 10 rounds from 30 total rounds",
            what="Fig. 7: panel c's accuracy",
        ),
        Quote(line=764, text="especially when η_l is small", what="eta_g helpful at a small eta_l"),
    ),
    algorithms=(ALGORITHM,),
    settings="LeNet-5 on MNIST split after the second max-pool, 10 clients, b = 1000, eta_l = 0.01, eta_g = 1 "
    "(Figs. 5a, 6a); IID and C = 8, 5, 2; E = 1, 2, 4, 8, 10 over Dir_10(1.0); an eta_g x eta_l grid over "
    "Dir_10(10.0), E = 1, the test accuracy over the last 10 of 30 rounds; SGD with momentum 0.9",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("loss", "test_acc"),
)

__all__ = [
    "ACC_TIE_POINTS",
    "CHANCE",
    "EXPERIMENT",
    "FALLOFF_CELLS",
    "FALLOFF_RHO",
    "HETEROGENEITY",
    "LOSS_TIE",
    "SCALES",
    "SEED",
    "STEPS_PER_EPOCH",
    "best_k_finding",
    "cell_accuracy",
    "diverged",
    "draw",
    "eta_grid_finding",
    "heterogeneity_finding",
    "judge",
    "late_mean",
    "plan",
]  # fmt: skip
