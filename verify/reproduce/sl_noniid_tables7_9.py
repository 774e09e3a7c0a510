r"""sl_noniid Tables 7-9 with Table 2's learning-rate claims: FL (FedAvg) and split learning (SL) over the
learning-rate grid, and the "best" and "threshold" learning rates of each.

Reference: (anonymous, under double-blind review), "Convergence Analysis of Split Learning on Non-IID Data" (seed
``002_56e5daea794305d7.txt``): Sec. 5.3 (line 199: "The learning rates are selected from {0.0005, 0.001, 0.005,
0.01, 0.05, 0.1}", E = 1 and E = 10 local epochs; line 203: "We refer to the learning rate making the best test
accuracy and minimal learning rate making the training die as the best learning rate and the threshold learning
rate ... the "best" and "threshold" learning rates of SL are smaller than FL, especially on highly non-IID data ...
the "best" and "threshold" learning rate turn small as the heterogeneity of data becomes large"), Table 2 (lines
213-235: the best and threshold rates, "># means that the "threshold" learning rate is larger than #"), App. E.2
(lines 766-830: Tables 7, 8, 9, the whole grid for MNIST, Fashion-MNIST and CIFAR-10).

Quoted: Table 8 (Fashion-MNIST) rows IID, alpha = 0.2 and C = 2 at E = 1 (lines 797, 801, 803) and E = 10 (lines
804, 808, 810), every cell; and Table 2's Fashion-MNIST rows for the same partitions (lines 224, 227, 229). The rule
here, applied to the quoted Table 8 rows, gives exactly Table 2's best and threshold rates (a test checks it), and
its verdict on the paper's own numbers is drawn beside ours.

"Dies" (the paper gives no number: its dead cells read 10.0 to 11.4 %, chance on 10 classes, while a cell at 15.6 %
is not its threshold, Table 8 line 800 against Table 2 line 226): a run dies when it stops with a non-finite model
(the trainer stops it as diverged: its last record is before T) or ends below :data:`DEAD_ACC` = 15 % (chance + 5
points); a learning rate dies when more than half of its seeds die; and the threshold is the smallest dead rate
above the smallest rate that trains (a rate too small to train is not dead: Table 9, line 821, CIFAR-10 C = 5 E = 1,
FL at 0.0005 reaches 14.4 % yet its threshold is 0.1, Table 2 line 234). The judged partitions are the "very highly
non-IID" ones of line 207 (alpha = 0.2 and C = 2); IID is drawn and judged for the record only.

Substitutions (in the caption). Small scale: an MLP 64-32-10 on scikit-learn's digits split after fc1 (not LeNet-5
on Fashion-MNIST), 10 clients (not 1000), E = 1 and E = 10 as K = 2 and K = 20 local steps of batch 10 for 100 and
10 rounds (the paper's ratio 10 of epochs and of rounds, 1000 and 100), the final accuracy (not the mean over the
last 10 % rounds), 2 seeds. Nothing dies on the paper's grid at this scale (probe, seed 0, C = 2, E = 1: SL at 0.1
reaches 93.0 %, at 0.5 25.1 %; FedAvg at 0.5 91.6 %, at 2.0 9.7 %), so the grid is the paper's six rates plus 0.5,
1.0 and 2.0. Dirichlet 0.2 is ``dirichlet:0.2``; C = 2 is ``shards:2``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sfltheory.plotting import footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale

# Table 2's seed, methods and partitions; the claim is judged on "very highly non-IID data (i.e., alpha = 0.2 and
# C = 2)" (line 207)
from .sl_noniid_table2 import ALGORITHMS, JUDGED, PARTITIONS, SEED
from .verdicts import combine, standard_error

PAPER_LRS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1)  # line 199 and line 768
ADDED_LRS = (0.5, 1.0, 2.0)  # the small scale's additions: nothing dies on the paper's grid there (docstring)
CHANCE = 10.0  # % on 10 balanced classes: a diverged run's accuracy, counted in its learning rate's mean
DEAD_ACC = 15.0  # % below which a run "dies" (chance + 5 points; the paper's dead cells read 10.0-11.4, docstring)
TIE_POINTS = 1.0  # Table 2's own tie: "excluding the results whose difference is within 1%" (line 213)
# Table 8 (Fashion-MNIST): partition -> {E: (line, the row's twelve cells verbatim: FL, SL at each lr of PAPER_LRS)}
TABLE8: dict[str, dict[int, tuple[int, str]]] = {
    "iid": {1: (797, "54.4\t75.0\t68.8\t85.9\t83.7\t88.4\t86.1\t88.2\t88.1\t82.4\t87.8\t10.0"),
            10: (804, "75.6\t82.7\t78.8\t84.0\t84.0\t82.5\t85.0\t80.0\t46.4\t11.0\t10.0\t10.0")},
    "dirichlet:0.2": {1: (801, "60.8\t81.6\t71.3\t84.3\t80.8\t85.9\t83.5\t84.9\t83.4\t10.0\t10.0\t10.0"),
                      10: (808, "65.1\t79.0\t68.4\t78.6\t79.3\t70.9\t80.4\t10.0\t10.0\t10.0\t10.0\t10.0")},
    "shards:2": {1: (803, "50.9\t80.4\t62.6\t83.9\t77.5\t87.3\t76.5\t86.6\t81.1\t10.0\t83.0\t10.0"),
                 10: (810, "52.8\t72.0\t59.5\t72.3\t73.3\t10.0\t75.9\t10.0\t34.5\t10.0\t10.0\t10.0")},
}  # fmt: skip
# Table 2 (Fashion-MNIST): partition -> (line, "best acc (lr)" FL, SL, threshold FL, SL at E = 1, then at E = 10)
TABLE2: dict[str, tuple[int, str]] = {
    "iid": (224, "88.1 (0.05)\t88.4 (0.005)\t> 0.1\t0.1\t85.0 (0.01)\t84.0 (0.001)\t0.1\t0.05"),
    "dirichlet:0.2": (227, "83.5 (0.01)\t85.9 (0.005)\t0.1\t0.05\t80.4 (0.01)\t79.0 (0.0005)\t0.05\t0.01"),
    "shards:2": (229, "83.0 (0.1)\t87.3 (0.005)\t> 0.1\t0.05\t75.9 (0.01)\t72.3 (0.001)\t0.1\t0.005"),
}


@dataclass(frozen=True, kw_only=True)
class LrCell:
    """One learning rate of one method in one setting: the mean final accuracy (%) over seeds (a diverged seed
    counted at :data:`CHANCE`; NaN when a run is missing), its standard error (0 with one seed), and whether the
    rate dies (more than half of its seeds die)."""

    mean: float
    se: float = 0.0
    dead: bool = False


@dataclass(frozen=True, kw_only=True)
class LrSummary:
    """What a method's row of a learning-rate table gives: the ``best`` rate (highest mean accuracy among the rates
    that do not die; None when none lives or a run is missing), the ``near`` rates (within a tie of the best: the
    best could be any of them), and the ``threshold`` (the smallest rate that dies; inf when none does)."""

    best: float | None
    near: tuple[float, ...]
    threshold: float


def summarise(cells: Mapping[float, LrCell], *, tie: float = TIE_POINTS) -> LrSummary:
    """The best, near-best and threshold learning rates of one row (Table 2's definitions, line 203). A rate is
    near-best when the best mean exceeds its mean by at most ``max(tie, 2 sqrt(se_b^2 + se^2))`` points (Table 2's
    1 % tie, or 2 combined standard errors of the two means). The threshold is the smallest dead rate above the
    smallest live one: below that a run has not trained yet, it has not died."""
    live = {lr: c for lr, c in cells.items() if not c.dead}
    # a rate below the smallest that trains is untrained, not dead (the docstring: Table 9, line 821)
    first = min(live, default=-math.inf)
    threshold = min((lr for lr, c in cells.items() if c.dead and lr > first), default=math.inf)
    if not live or any(not math.isfinite(c.mean) for c in live.values()):
        return LrSummary(best=None, near=(), threshold=threshold)
    best = max(live, key=lambda lr: live[lr].mean)
    b = live[best]
    near = tuple(sorted(lr for lr, c in live.items()
                        if b.mean - c.mean <= max(tie, 2.0 * math.hypot(b.se, c.se)) + 1e-9))  # fmt: skip
    return LrSummary(best=best, near=near, threshold=threshold)


def lr_text(lr: float | None, top: float) -> str:
    """A learning rate as Table 2 prints it: ``> top`` for a threshold past the grid, ``-`` for none."""
    if lr is None:
        return "-"
    return f"> {top:g}" if math.isinf(lr) else f"{lr:g}"


def best_lr_finding(fl: LrSummary, sl: LrSummary, *, where: str = "") -> Finding:
    """Line 203's claim on the best rate in one setting (``where``): SL's best rate is smaller than FL's.

    * reproduces: SL's best < FL's best, and every near-best rate of SL <= every near-best rate of FL (the order
      holds whichever tied rate is taken as the best);
    * does not reproduce: every near-best rate of SL >= every near-best rate of FL (SL's best is not smaller under
      any reading of the ties; equal best rates included);
    * inconclusive otherwise (the ties let either order stand), or when a method has no best rate.
    """
    at = f" ({where})" if where else ""
    if fl.best is None or sl.best is None:
        return Finding(verdict="inconclusive", sentence=f"best rate{at}: a run is missing or every rate died")
    said = (f"best rate{at}: SL {sl.best:g} (ties {'/'.join(f'{x:g}' for x in sl.near)}), FL {fl.best:g} "
            f"(ties {'/'.join(f'{x:g}' for x in fl.near)})")  # fmt: skip
    if sl.best < fl.best and max(sl.near) <= min(fl.near):
        return Finding(verdict="reproduces", sentence=f"{said}: SL's is smaller")
    if min(sl.near) >= max(fl.near):
        return Finding(verdict="does not reproduce", sentence=f"{said}: SL's is not smaller")
    return Finding(verdict="inconclusive", sentence=f"{said}: the ties allow either order")


def threshold_finding(fl: float, sl: float, *, top: float, where: str = "") -> Finding:
    """Line 203's claim on the threshold rate in one setting: SL's (the smallest rate that dies; inf: none up to
    ``top``) is smaller than FL's. Reproduces when SL's < FL's (FL's may be past the grid); does not reproduce when
    SL's > FL's; inconclusive when they are equal (the grid does not tell them apart) or neither dies."""
    at = f" ({where})" if where else ""
    said = f"threshold{at}: SL {lr_text(sl, top)}, FL {lr_text(fl, top)}"
    if math.isinf(sl) and math.isinf(fl):
        return Finding(verdict="inconclusive", sentence=f"{said}: neither dies on the grid")
    if sl < fl:
        return Finding(verdict="reproduces", sentence=f"{said}: SL's is smaller")
    if sl > fl:
        return Finding(verdict="does not reproduce", sentence=f"{said}: SL's is larger")
    return Finding(verdict="inconclusive", sentence=f"{said}: equal on the grid")


def table8_row(partition: str, E: int) -> dict[str, dict[float, float]]:
    """Table 8's quoted row as {method: {lr: accuracy %}} (the cells alternate FL, SL at each rate)."""
    values = [float(v) for v in TABLE8[partition][E][1].split("\t")]
    return {name: {lr: values[2 * i + j] for i, lr in enumerate(PAPER_LRS)} for j, name in
            enumerate(ALGORITHMS.values())}  # fmt: skip


def table2_rates(partition: str) -> dict[str, dict[str, float]]:
    """Table 2's quoted row as {"FL E=1": {"best": lr, "threshold": lr (inf for "> 0.1")}, ...}."""
    cells = TABLE2[partition][1].split("\t")
    out = {}
    for e, E in enumerate((1, 10)):
        for j, name in enumerate(ALGORITHMS.values()):
            best = float(cells[4 * e + j].split(" (")[1].rstrip(")"))
            thr = cells[4 * e + 2 + j]
            out[f"{name} E={E}"] = {"best": best, "threshold": math.inf if thr.startswith(">") else float(thr)}
    return out


def paper_cells(partition: str, E: int) -> dict[str, dict[float, LrCell]]:
    """Table 8's row as :class:`LrCell` (one run each, so no standard error; dead below :data:`DEAD_ACC`)."""
    return {name: {lr: LrCell(mean=a, dead=a < DEAD_ACC) for lr, a in row.items()}
            for name, row in table8_row(partition, E).items()}  # fmt: skip


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        name="tiny", data="synthetic:n=200,shape=1x8x8,classes=10,seed=0", model="verify.reproduce.models:digits_mlp",
        input_shape=(64,), clients=2, T=2,
        batch=10, seeds=(0,), params={"eta_g": 1.0},
        grid={"E": (1, 10), "K": (1, 2), "T": (2, 1), "lr": (0.01, 2.0), "partition": ("shards:2",),
              "cut": ("fc1",)},
        eval_samples=8,
        substitution="tests only: 200 synthetic 8x8 samples (the theory runs' measurement at x^0 is over every "
        "sample: digits' 1797 took most of the test's time), 2 clients, 2 rounds, 2 rates; its verdict says nothing",
    ),
    "small": Scale(
        name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,), clients=10,
        T=100, batch=10, seeds=(0, 1), params={"eta_g": 1.0},
        grid={"E": (1, 10), "K": (2, 20), "T": (100, 10), "lr": (*PAPER_LRS, *ADDED_LRS),
              "partition": tuple(PARTITIONS), "cut": ("fc1",)},
        eval_samples=16,
        substitution="an MLP 64-32-10 on digits split after fc1 (not LeNet-5 on Fashion-MNIST), 10 clients (not "
        "1000), E = 1 and 10 as K = 2 and 20 local steps of batch 10 for 100 and 10 rounds (the paper's ratio 10), "
        "the paper's six rates plus 0.5, 1 and 2 (nothing dies on the paper's grid here), final accuracy (not the "
        "mean of the last 10 % rounds), 2 seeds; 200 local steps per client (the paper's ~6000), so every best "
        "rate sits higher than the paper's (216 runs and 2 theory runs: 285 CPU-s, 625 s wall with --workers 2 on a "
        "shared 2-core CPU at load ~10)",
    ),
    "paper": Scale(
        name="paper", data="fashion-mnist", model="lenet5", clients=1000, T=1000, batch=10, seeds=(0,),
        params={"eta_g": 1.0},
        grid={"E": (1, 10), "K": (6, 60), "T": (1000, 100), "lr": PAPER_LRS, "partition": tuple(PARTITIONS),
              "cut": ("conv2",)},
        eval_samples=64,
        substitution="the paper's Fashion-MNIST setting (Table 8: LeNet-5 split after the second max-pool, 1000 "
        "clients of 60 samples, batch 10, E = 1 and 10 as K = 6 and 60 steps for 1000 and 100 rounds, the six "
        "rates), the final accuracy (not the mean of the last 10 % rounds), one seed",
    ),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """FL and SL at each partition, E (as K local steps for T rounds: the grid's K and T per E), learning rate and
    seed. The accuracy is recorded at t = 0, T/2 and T: a run whose last record is before T diverged (stopped)."""
    cells = []
    for algorithm in ALGORITHMS:
        for partition in scale.grid["partition"]:
            for E, K, T in zip(scale.grid["E"], scale.grid["K"], scale.grid["T"], strict=True):
                for lr in scale.grid["lr"]:
                    for seed in scale.seeds:
                        params: dict[str, Any] = {
                            "algorithm": algorithm, "model": scale.model, "data": scale.data,
                            "cut": scale.grid["cut"][0], "clients": scale.clients, "partition": partition, "T": T,
                            "batch": scale.batch, "seed": seed, "record_every": max(1, T // 2), "device": device,
                            "K": K, "eta_l": lr, **scale.params,
                        }  # fmt: skip
                        params.update(scale.data_params())
                        labels = {"algorithm": algorithm, "partition": partition, "E": E, "K": K, "T": T, "lr": lr,
                                  "seed": seed}  # fmt: skip
                        cells.append(Cell(labels=labels, params=params))
    return tuple(cells)


def run_outcome(row: Mapping[str, Any]) -> tuple[float, bool] | None:
    """A row's (accuracy %, died): None when the run failed (an error, not a divergence); a diverged run (its last
    recorded round before T, or no accuracy) counts at :data:`CHANCE` and died; else died below :data:`DEAD_ACC`."""
    if row.get("status") != "ok":
        return None
    recorded = row.get("test_acc_recorded") or []
    if row.get("acc") is None or not recorded or recorded[-1][0] < row["T"]:
        return CHANCE, True
    acc = float(row["acc"])
    return acc, acc < DEAD_ACC


def lr_cell(rows: Sequence[Mapping[str, Any]]) -> LrCell:
    """The seeds' runs of one rate as an :class:`LrCell` (NaN mean when a run is missing or failed)."""
    outs = [run_outcome(r) for r in rows]
    if not outs or any(o is None for o in outs):
        return LrCell(mean=math.nan)
    accs = [o[0] for o in outs if o is not None]
    died = sum(1 for o in outs if o is not None and o[1])
    se = standard_error(accs)
    return LrCell(mean=float(np.mean(accs)), se=se, dead=2 * died > len(accs))


def _setting(
    cells: Mapping[str, Mapping[float, LrCell]], where: str, top: float
) -> tuple[list[Finding], dict[str, Any]]:
    """Both findings of one (partition, E) and its numbers (accuracy, s.e., dead: the rates that died above the
    smallest that trains, best, ties, threshold)."""
    s = {name: summarise(cells[name]) for name in ALGORITHMS.values()}
    # the smallest rate that trains: dead-looking rates below it are untrained (not marked dead; summarise's rule)
    first = {name: min((lr for lr, c in cells[name].items() if not c.dead), default=-math.inf) for name in s}
    found = [best_lr_finding(s["FL"], s["SL"], where=where),
             threshold_finding(s["FL"].threshold, s["SL"].threshold, top=top, where=where)]  # fmt: skip
    nums = {name: {"accuracy": [round(c.mean, 4) if math.isfinite(c.mean) else None for c in cells[name].values()],
                   "se": [round(c.se, 4) for c in cells[name].values()],
                   "dead": [c.dead and lr > first[name] for lr, c in cells[name].items()],
                   "best": s[name].best, "near_best": list(s[name].near),
                   "threshold": lr_text(s[name].threshold, top)} for name in ALGORITHMS.values()}  # fmt: skip
    return found, nums


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """Per partition and E the learning-rate table of FL and SL (mean over seeds, dead rates), the best and
    threshold rates, :func:`best_lr_finding` and :func:`threshold_finding`; the verdict combines the judged
    partitions' (:data:`JUDGED`), IID is kept for the record. The same rule on Table 8's quoted rows beside."""
    lrs = tuple(scale.grid["lr"])
    top = max(lrs)
    findings: list[Finding] = []
    record: list[Finding] = []
    paper_findings: list[Finding] = []
    tables: dict[str, dict[str, Any]] = {}
    paper: dict[str, dict[str, Any]] = {}
    for p in scale.grid["partition"]:
        tables[p], paper[p] = {}, {}
        for E in scale.grid["E"]:
            cells = {name: {lr: lr_cell([r for r in rows if r["algorithm"] == a and r["partition"] == p
                                         and r["E"] == E and r["lr"] == lr]) for lr in lrs}
                     for a, name in ALGORITHMS.items()}  # fmt: skip
            where = f"{PARTITIONS.get(p, p)}, E = {E}"
            found, tables[p][f"E={E}"] = _setting(cells, where, top)
            (findings if p in JUDGED else record).extend(found)
            if p in TABLE8 and E in TABLE8[p]:
                pf, paper[p][f"E={E}"] = _setting(paper_cells(p, E), where, max(PAPER_LRS))
                paper_findings.extend(pf if p in JUDGED else [])
    finding = combine(findings) if findings else Finding(verdict="inconclusive", sentence="no judged partition")
    numbers = {
        "lr": list(lrs), "E": list(scale.grid["E"]), "K": list(scale.grid["K"]), "T": list(scale.grid["T"]),
        "dead_acc": DEAD_ACC, "tie_points": TIE_POINTS, "table": tables,
        "verdicts": {f.sentence.split(":")[0]: f.verdict for f in findings + record},
        "trend": trend(tables, tuple(scale.grid["partition"])),
        "paper": {"lr": list(PAPER_LRS), "table": paper,
                  "verdict": combine(paper_findings).verdict if paper_findings else None},
    }  # fmt: skip
    return finding, numbers


def trend(tables: Mapping[str, Mapping[str, Any]], parts: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Line 203's second claim, for the record (not in the verdict): per method and E, the best and threshold rates
    at each partition, from IID to the most heterogeneous (the order of ``parts``)."""
    out: dict[str, dict[str, Any]] = {}
    for name in ALGORITHMS.values():
        for e in next(iter(tables.values()), {}):
            out[f"{name} {e}"] = {PARTITIONS.get(p, p): [tables[p][e][name]["best"], tables[p][e][name]["threshold"]]
                                  for p in parts}  # fmt: skip
    return out


def trend_text(numbers: Mapping[str, Any]) -> str:
    """:func:`trend`'s numbers in one line: per method and E, (best, threshold) at each partition in order."""
    return "; ".join(f"{k}: " + ", ".join(f"{p} ({lr_text(b, 0)}, {t})" for p, (b, t) in v.items())
                     for k, v in numbers["trend"].items())  # fmt: skip


def _heat(ax: Any, plt: Any, lrs: Sequence[float], nums: Mapping[str, Any], title: str) -> Any:
    """One learning-rate table as a heat map: FL and SL rows, accuracy per rate written in, the best rate
    outlined (its ties dashed), dead rates greyed with a cross, the threshold rate's cell edged in red."""
    names = list(ALGORITHMS.values())
    acc = np.array([[math.nan if v is None else v for v in nums[n]["accuracy"]] for n in names])
    im = ax.imshow(acc, vmin=0, vmax=100, cmap="viridis", aspect="auto")
    for i, n in enumerate(names):
        for j, lr in enumerate(lrs):
            v, dead = acc[i, j], nums[n]["dead"][j]
            text = "-" if not math.isfinite(v) else f"{v:.0f}" + ("\n\u2020" if dead else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if v < 60 else "black")
            if lr == nums[n]["best"]:
                ax.add_patch(plt.Rectangle((j - 0.48, i - 0.46), 0.96, 0.92, fill=False, ec="white", lw=2.5))
                ax.add_patch(plt.Rectangle((j - 0.48, i - 0.46), 0.96, 0.92, fill=False, ec="black", lw=1.2))
            elif lr in nums[n]["near_best"]:
                ax.add_patch(plt.Rectangle((j - 0.45, i - 0.43), 0.9, 0.86, fill=False, ec="black", lw=1, ls="--"))
            if lr_text(lr, 0) == nums[n]["threshold"]:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="#D55E00", lw=2.5))
    ax.set_xticks(range(len(lrs)))
    ax.set_xticklabels([f"{lr:g}" for lr in lrs], fontsize=6.5)
    ax.grid(False)  # the house grid would cross the cells
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([f"{n}\nthr {nums[n]['threshold']}" for n in names], fontsize=7)
    ax.set_title(title, loc="left", fontsize=8)
    return im


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Per E two rows of heat maps, one panel per partition: ours (this scale) above, the paper's Table 8
    (Fashion-MNIST, quoted) below; the verdict above, the scale and the paper's verdict in the caption."""
    parts, es = list(numbers["table"]), list(numbers["E"])
    with style() as plt:
        fig, axes = plt.subplots(2 * len(es), len(parts), figsize=(5.0 * len(parts), 2.1 * 2 * len(es)),
                                 squeeze=False)  # fmt: skip
        fig.subplots_adjust(left=0.07, right=0.9, top=0.93, bottom=0.06, hspace=0.55, wspace=0.18)
        im = None
        for i, E in enumerate(es):
            for j, p in enumerate(parts):
                judged = "" if p in JUDGED else " (not judged)"
                im = _heat(axes[2 * i][j], plt, numbers["lr"], numbers["table"][p][f"E={E}"],
                           f"ours ({scale.name}): {PARTITIONS.get(p, p)}, E = {E}{judged}")  # fmt: skip
                ax = axes[2 * i + 1][j]
                if f"E={E}" in numbers["paper"]["table"].get(p, {}):
                    line = TABLE8[p][E][0]
                    _heat(
                        ax,
                        plt,
                        numbers["paper"]["lr"],
                        numbers["paper"]["table"][p][f"E={E}"],
                        f"paper Table 8, Fashion-MNIST (line {line}): {PARTITIONS.get(p, p)}, E = {E}",
                    )
                else:
                    ax.set_axis_off()
        for ax in axes[-1]:
            ax.set_xlabel("learning rate")
        if im is not None:
            fig.colorbar(im, cax=fig.add_axes((0.915, 0.3, 0.01, 0.4)), label="final test accuracy (%)")
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        footnote(fig, f"{finding.sentence}.\nBest rate outlined (ties within max(1 point, 2 combined s.e.) dashed), "
                 f"\u2020 dies (diverged or final accuracy below {DEAD_ACC:g} %, in more than half the seeds, "
                 "above the smallest rate that trains: below it a run is untrained), "
                 "threshold (smallest rate that dies) edged in red. Paper (Sec. 5.3, line 203): 'the \"best\" and "
                 "\"threshold\" learning rates of SL are smaller than FL, especially on highly non-IID data'; the "
                 f"same rule on its Table 8 rows (lines 797-810): {numbers['paper']['verdict']}. Not judged, the "
                 "second claim (rates shrink with heterogeneity), (best, threshold) by partition: "
                 f"{trend_text(numbers)}. Scale "
                 f"'{scale.name}': {scale.substitution}.", width=max(120, 80 * len(parts)))  # fmt: skip
    return fig


def _quotes() -> tuple[Quote, ...]:
    out = [Quote(line=line, text=text, what=f"Table 8, Fashion-MNIST, {PARTITIONS[p]}, E = {E}: FL, SL accuracy % "
                 "at lr 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1")
           for p, rows in TABLE8.items() for E, (line, text) in rows.items()]  # fmt: skip
    out += [Quote(line=line, text=text, what=f"Table 2, Fashion-MNIST, {PARTITIONS[p]}: best accuracy (lr) FL, SL, "
                  "threshold lr FL, SL at E = 1, then at E = 10")
            for p, (line, text) in TABLE2.items()]  # fmt: skip
    out += [
        Quote(line=199, text="The learning rates are selected from {0.0005, 0.001, 0.005, 0.01, 0.05, 0.1}",
              what="Sec. 5.3: the grid"),
        Quote(line=203, text="minimal learning rate making the training die as the best learning rate and the "
              "threshold learning rate", what="Sec. 5.3: the definitions"),
        Quote(line=203, text="learning rates of SL are smaller than FL, especially on highly non-IID data",
              what="Sec. 5.3: the claim"),
        Quote(line=203, text="learning rate turn small as the heterogeneity of data becomes large",
              what="Sec. 5.3: the second claim (drawn, not judged)"),
        Quote(line=821, text="V-10\t500\tC = 5\t1\t10\t14.4\t83.7\t37.6",
              what="Table 9, CIFAR-10, C = 5, E = 1: FL at lr 0.0005 is 14.4 % (untrained, not dead)"),
        Quote(line=234, text="85.5 (0.05)\t86.5 (0.005)\t0.1\t0.05",
              what="Table 2, CIFAR-10, C = 5, E = 1: FL's threshold 0.1 (so 0.0005 is not dead)"),
        Quote(line=207, text="very highly non-IID data (i.e., $\\alpha = 0.2$ and C = 2)",
              what="Sec. 5.3: the judged partitions"),
    ]  # fmt: skip
    return tuple(out)


EXPERIMENT = Experiment(
    id="sl_noniid/tables7-9",
    paper="sl_noniid",
    seed=SEED,
    location="Tables 7-9 (App. E.2) with Table 2's best and threshold learning rates (Sec. 5.3)",
    lines=(197, 830),
    claim="The best and the threshold learning rates of split learning are smaller than FedAvg's, especially on "
    "highly non-IID data (and both shrink as the heterogeneity grows).",
    quotes=_quotes(),
    algorithms=tuple(ALGORITHMS),
    settings="LeNet-5 on MNIST and Fashion-MNIST (1000 clients), VGG-11 on CIFAR-10 (500 clients), batch 10, "
    "E = 1 and E = 10, IID / Dirichlet alpha / C classes per client, every learning rate of "
    "{0.0005, 0.001, 0.005, 0.01, 0.05, 0.1} for FL and SL",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("test_acc",),
)

__all__ = ["ADDED_LRS", "ALGORITHMS", "CHANCE", "DEAD_ACC", "EXPERIMENT", "JUDGED", "PAPER_LRS", "SCALES", "SEED",
           "TABLE2", "TABLE8", "LrCell", "LrSummary", "best_lr_finding", "draw", "judge", "lr_cell", "lr_text",
           "paper_cells", "plan", "run_outcome", "summarise", "table2_rates", "table8_row", "threshold_finding",
           "trend", "trend_text"]  # fmt: skip
