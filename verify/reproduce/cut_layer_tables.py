r"""cut_layer Tables 3-4: test accuracy against the cut layer for SFL-V1 and SFL-V2, IID and non-IID.

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated Learning"
(seed ``003_60e24e21677c19f3.txt``): Sec. 5 (lines 151-171: Table 1 models, clients and rounds; Table 2 the
hyper-parameters; :math:`L_c\in\{1,2,3,4\}` the end of residual stage :math:`L_c`, K = 100 clients, E = 5 local
epochs, Dirichlet :math:`\mu = 0.1` for non-IID), Table 3 (IID, lines 173-184), Table 4 (non-IID, lines 185-196)
and Sec. 5.2 (lines 200-206: "SFL-V1: Robust Across Cut Layers", "SFL-V2: Performance Affected by Cut Layer
Selection"). Proposition 1 (Sec. 4) is why SFL-V1 is invariant: it is FedAvg on the whole model, whatever the cut.

Quoted here: the CIFAR10 column of both tables (ResNet-18; the only dataset in both), whose spreads across the
four cuts are SFL-V1 0.40 (IID: 86.34 - 85.94) and 1.87 (non-IID: 66.38 - 64.51), SFL-V2 6.19 (IID: 92.30 - 86.11)
and 9.47 (non-IID: 69.45 - 59.98); the paper's own 0.4 and 1.87 (line 202) are the first two.

Substitutions (stated in the figure's caption). Algorithms: SFL-V1 is ``sfl_v1_analysed`` (K local split-SGD steps,
then averaging: the SFL-V1 Proposition 1 analyses, and Algorithm 1 with K fresh mini-batches), SFL-V2 is ``sfl_v2``
with K steps per client, client by client (``interleave = client``, the reference code's order). The paper trains
with Adam (lr 0.001, Table 2); the trainer has plain SGD only (its algorithms keep no optimiser state), so SGD is
used at every scale. Local epochs E = 5 are K local steps: at paper scale :math:`K=\lceil ED_k/B_k\rceil =
\lceil 5\cdot 500/64\rceil = 40` (the paper's own :math:`\tau`, line 141), with :math:`D_k` = 50,000 / 100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import combine, cut_invariance_finding, spread

SEED = "003_60e24e21677c19f3.txt"
ALGORITHMS = ("sfl_v1_analysed", "sfl_v2")
LABELS = {"sfl_v1_analysed": "SFL-V1", "sfl_v2": "SFL-V2"}
PARTITIONS = {"iid": "IID", "dirichlet:0.1": "non-IID (Dirichlet 0.1)"}
# SFL-V2's order of the clients' steps on the shared server: client by client (the reference code's; module doc)
V2_PARAMS = {"interleave": "client"}

# the CIFAR10 column, per table, algorithm and L_c = 1..4: (line, "mean ± std") verbatim from the seed
PAPER: dict[str, dict[str, tuple[tuple[int, str], ...]]] = {
    "iid": {  # Table 3, lines 177-184
        "sfl_v1_analysed": ((177, "86.34 ± 0.37"), (178, "86.12 ± 0.46"), (179, "85.94 ± 0.36"), (180, "86.01 ± 0.45")),
        "sfl_v2": ((181, "92.30 ± 0.15"), (182, "89.56 ± 0.15"), (183, "87.57 ± 0.34"), (184, "86.11 ± 0.36")),
    },
    "dirichlet:0.1": {  # Table 4, lines 189-196
        "sfl_v1_analysed": ((189, "66.38 ± 2.22"), (190, "65.64 ± 1.49"), (191, "65.36 ± 1.09"), (192, "64.51 ± 1.84")),
        "sfl_v2": ((193, "67.58 ± 6.28"), (194, "59.98 ± 11.99"), (195, "61.73 ± 4.04"), (196, "69.45 ± 0.64")),
    },
}  # fmt: skip
TABLE = {"iid": "Table 3 (IID)", "dirichlet:0.1": "Table 4 (non-IID, Dirichlet 0.1)"}


def paper_means(partition: str, algorithm: str) -> list[float]:
    """The paper's mean accuracy (%) at L_c = 1..4, read from the quoted text."""
    return [float(text.split(" ± ")[0]) for _, text in PAPER[partition][algorithm]]


def _quotes() -> tuple[Quote, ...]:
    out = [
        Quote(line=line, text=text, what=f"{TABLE[p]}, CIFAR10, {LABELS[a]} (L_c={i + 1}), accuracy % mean ± std")
        for p, by_alg in PAPER.items()
        for a, rows in by_alg.items()
        for i, (line, text) in enumerate(rows)
    ]
    out += [
        Quote(line=202, text="minimal (0.4", what="Sec. 5.2: SFL-V1's variation across cuts, IID CIFAR10 (%)"),
        Quote(line=202, text="modest (1.87", what="Sec. 5.2: SFL-V1's variation across cuts, non-IID CIFAR10 (%)"),
        Quote(line=206, text="exhibits a strong dependency on cut layer selection", what="Sec. 5.2: SFL-V2's claim"),
    ]
    return tuple(out)


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        name="tiny", data="digits", model="mlp", input_shape=(64,), clients=2, T=2, batch=8, seeds=(0,),
        params={"eta": 0.1, "K": 1}, grid={"cut": ("fc1", "fc2"), "partition": ("iid", "dirichlet:0.1")},
        eval_samples=8,
        substitution="tests only: an MLP 64-256-128-10 on scikit-learn's digits, 2 clients, 2 rounds of one step; "
        "its verdict says nothing about the paper",
    ),
    "small": Scale(
        name="small", data="fashion-mnist", model="lenet5", clients=10, T=30, batch=32, seeds=(0,),
        params={"eta": 0.15, "K": 5}, grid={"cut": ("conv1", "conv2", "fc1", "fc2"),
                                            "partition": ("iid", "dirichlet:0.1")},
        eval_samples=32,
        substitution="LeNet-5 on Fashion-MNIST (not ResNet-18 on CIFAR10), cut after conv1, conv2, fc1, fc2 for "
        "L_c = 1..4 (not after residual stages 1-4); 10 clients (not 100), 30 rounds (not 200) of K = 5 local steps "
        "of batch 32 (not E = 5 epochs of 64); SGD eta = 0.15 (not Adam lr 0.001: the trainer has SGD only); one "
        "seed (not 3)",
    ),
    "paper": Scale(
        name="paper", data="cifar10:root={root}", model="resnet18", clients=100, T=200, batch=64, seeds=(0, 1, 2),
        params={"eta": 0.01, "K": 40},
        grid={"cut": ("layer1.1", "layer2.1", "layer3.1", "layer4.1"), "partition": ("iid", "dirichlet:0.1")},
        eval_samples=64,
        substitution="the paper's CIFAR10 setting (ResNet-18, 100 clients, 200 rounds, L_c = end of stage 1-4, "
        "3 seeds), with SGD eta = 0.01 (Table 2's FedAvg rate) for Adam lr 0.001 (the trainer has SGD only) and "
        "E = 5 epochs as K = ceil(5 * 500 / 64) = 40 local steps",
    ),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """Every run of ``scale`` on ``device``: each algorithm at each partition, cut and seed. The accuracy is recorded
    at t = 0 and T only (``record_every`` = T): the tables report the final round."""
    cells = []
    for algorithm in ALGORITHMS:
        for partition in scale.grid["partition"]:
            for cut in scale.grid["cut"]:
                for seed in scale.seeds:
                    params: dict[str, Any] = {
                        "algorithm": algorithm, "model": scale.model, "data": scale.data, "cut": cut,
                        "clients": scale.clients, "partition": partition, "T": scale.T, "batch": scale.batch,
                        "seed": seed, "record_every": scale.T, "device": device, **scale.params,
                        **(V2_PARAMS if algorithm == "sfl_v2" else {}),
                    }  # fmt: skip
                    params.update(scale.data_params())
                    labels = {"algorithm": algorithm, "partition": partition, "cut": cut, "seed": seed}
                    cells.append(Cell(labels=labels, params=params))
    return tuple(cells)


def _means(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[dict[str, dict[str, list[float]]], float]:
    """Per partition and algorithm the mean accuracy (%) over seeds at each cut (NaN where a run has none), and the
    largest standard error of one such mean (0 with one seed)."""
    means: dict[str, dict[str, list[float]]] = {}
    noise = 0.0
    for p in scale.grid["partition"]:
        means[p] = {}
        for a in ALGORITHMS:
            per_cut = []
            for cut in scale.grid["cut"]:
                accs = [float(r["acc"]) if r.get("acc") is not None else math.nan for r in rows
                        if r["algorithm"] == a and r["partition"] == p and r["cut"] == cut]  # fmt: skip
                per_cut.append(float(np.mean(accs)) if accs else math.nan)
                if len(accs) > 1 and all(math.isfinite(x) for x in accs):  # the standard error of this mean
                    noise = max(noise, float(np.std(accs, ddof=1)) / math.sqrt(len(accs)))
            means[p][a] = per_cut
    return means, noise


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """The claim on the reproduced rows (one per run: labels and ``acc``, the final test accuracy in %): per
    partition, SFL-V1's and SFL-V2's spread across the cuts of the mean over seeds
    (:func:`verify.reproduce.verdicts.cut_invariance_finding`), combined over the partitions; the paper's own
    spreads from the quoted CIFAR10 numbers beside them."""
    means, noise = _means(scale, rows)
    findings, spreads, paper = [], {}, {}
    for p in scale.grid["partition"]:
        s = {a: spread(means[p][a]) for a in ALGORITHMS}
        spreads[p] = {LABELS[a]: _finite(v) for a, v in s.items()}
        paper[p] = {LABELS[a]: round(spread(paper_means(p, a)), 2) for a in ALGORITHMS}
        findings.append(cut_invariance_finding(s["sfl_v1_analysed"], s["sfl_v2"], noise=noise,
                                               where=PARTITIONS.get(p, p)))  # fmt: skip
    numbers = {
        "cuts": list(scale.grid["cut"]),
        "mean_accuracy": {p: {LABELS[a]: [_finite(x) for x in v] for a, v in m.items()} for p, m in means.items()},
        "spread": spreads,
        "noise": noise,
        "paper_spread": paper,
        "paper_accuracy": {p: {LABELS[a]: paper_means(p, a) for a in ALGORITHMS} for p in PAPER},
    }
    return combine(findings), numbers


def _finite(x: float) -> float | None:
    return round(x, 4) if math.isfinite(x) else None


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """One panel per partition: the reproduced final accuracy against the cut (solid, filled markers) and the
    paper's CIFAR10 numbers (dashed, hollow, quoted), the spreads in each panel's title, the verdict above."""
    with style() as plt:
        parts = list(numbers["mean_accuracy"])
        fig, axes = plt.subplots(1, len(parts), figsize=(5.0 * len(parts), 3.9), squeeze=False)
        cuts = numbers["cuts"]
        x = np.arange(1, len(cuts) + 1)
        for ax, p in zip(axes[0], parts, strict=True):
            for i, a in enumerate(LABELS.values()):
                ys = [math.nan if v is None else v for v in numbers["mean_accuracy"][p][a]]
                ax.plot(x, ys, "-o", color=PALETTE[i], label=f"{a} reproduced ({scale.name})")
                if p in numbers["paper_accuracy"]:
                    px = np.arange(1, len(numbers["paper_accuracy"][p][a]) + 1)
                    ax.plot(px, numbers["paper_accuracy"][p][a], "--", marker="s", mfc="none", color=PALETTE[i],
                            alpha=0.8, label=f"{a} paper, ResNet-18 on CIFAR10 (Tables 3-4, quoted)")  # fmt: skip
            ax.set_xticks(x)
            ax.set_xticklabels([f"L_c={k}\n{c}" for k, c in zip(x, cuts, strict=True)], fontsize=8)
            ax.set_xlabel("cut layer (reproduced: cut after this block)")
            ax.set_ylabel("final test accuracy (%)")
            sp, pp = numbers["spread"][p], numbers["paper_spread"].get(p, {})
            title = (f"{PARTITIONS.get(p, p)}: spread V1 {_pts(sp['SFL-V1'])}, V2 {_pts(sp['SFL-V2'])} "
                     f"(paper {pp.get('SFL-V1', '?')}, {pp.get('SFL-V2', '?')})")  # fmt: skip
            ax.set_title(title, loc="left", fontsize=9)
        # one legend for both panels, beside the verdict, clear of the curves
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="upper right", ncol=2, fontsize=7)
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.9))
        footnote(fig, f"{finding.sentence}.\nScale '{scale.name}': {scale.substitution}. Paper: ResNet-18 on "
                 "CIFAR10, mean of 3 runs (seed lines 177-184, 189-196). Spread: largest minus smallest accuracy "
                 "across the cuts, in points.", width=160)  # fmt: skip
    return fig


def _pts(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}"


EXPERIMENT = Experiment(
    id="cut_layer/tables3-4",
    paper="cut_layer",
    seed=SEED,
    location="Tables 3-4 (Sec. 5.1-5.2)",
    lines=(151, 206),
    claim="SFL-V1's test accuracy is invariant to the cut layer (Proposition 1: it is FedAvg on the whole model), "
    "SFL-V2's is not (Sec. 5.2).",
    quotes=_quotes(),
    algorithms=ALGORITHMS,
    settings="ResNet-18 on CIFAR10, 100 clients, 200 rounds, E = 5 local epochs, batch 64, Adam lr 0.001 for SFL-V1 "
    "and SFL-V2 (Tables 1-2); L_c in {1,2,3,4} the end of residual stage L_c; IID and Dirichlet mu = 0.1; 3 runs",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
)

__all__ = ["ALGORITHMS", "EXPERIMENT", "PAPER", "SCALES", "SEED", "draw", "judge", "paper_means", "plan"]
