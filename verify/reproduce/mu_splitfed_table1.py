r"""MU-SplitFed Table 1: test accuracy after a fixed number of rounds for :math:`\tau = 1..4` server steps per round.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach" (seed ``000_0fb66116fc20c956.txt``): Table 1 (lines 198-203;
"Vanilla SplitFed/(tau=1)" and "Ours(tau=2..4)", after 100 rounds on Fashion-MNIST and 500 on the others), Sec. 5
(lines 207-211: AlexNet, 10 clients with 50 % participation, zeroth-order baselines; "Our method achieves the
highest accuracy when tau = 2 ... increasing tau over 2 leads to a noticeable drop in accuracy") and App. F, Table 6
(eta_g 0.3, eta_s 0.01, eta_c 0.005, lambda 0.005, batch 32). GAS (the first column) is not an algorithm of the
trainer and is left out.

Substitutions (in the caption). Small scale: an MLP 64-32-10 on scikit-learn's digits cut after fc1
(:mod:`verify.reproduce.models`), not AlexNet (57 M parameters, which zeroth-order training does not move in minutes
on a CPU); step sizes 10x App. F's (eta_c 0.05, eta_s 0.1) and eta_g = 1, as App. F's do not move this model in 100
rounds (measured: 6 % accuracy after 200 rounds); all 10 clients every round (the trainer has no partial
participation; Algorithm 1 and the analysis use every client too). Paper scale: VGG-11 (CIFAR layout) for AlexNet
(whose torchvision layout needs 224x224 inputs; the trainer does not resize CIFAR-10), cut after ``features.2``
(the seed does not state Table 1's cut), App. F's hyper-parameters, 500 rounds, all 10 clients.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import best_tau_finding

SEED = "000_0fb66116fc20c956.txt"
TAUS = (1, 2, 3, 4)
# Table 1's rows the figure sets beside a scale's numbers: (line, dataset, "tau=1 .. tau=4" verbatim)
ROWS = {"fashion-mnist": (201, "Fashion-MNIST", "77.50 85.45 85.28 84.47"),
        "cifar10": (200, "CIFAR-10", "69.73 77.86 73.20 69.40")}  # fmt: skip
ROW_OF_SCALE = {"tiny": "fashion-mnist", "small": "fashion-mnist", "paper": "cifar10"}
APP_F = {"eta_g": 0.3, "eta_s": 0.01, "eta_c": 0.005, "lam": 0.005}  # Table 6 (seed lines 935-939)


def paper_row(scale: str) -> tuple[str, dict[int, float]]:
    """The dataset and accuracy (%) per tau of the Table 1 row set beside ``scale``, read from the quoted text."""
    _, name, text = ROWS[ROW_OF_SCALE[scale]]
    return name, {t: float(v) for t, v in zip(TAUS, text.split(), strict=True)}


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        name="tiny", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,), clients=2, T=2,
        batch=8, seeds=(0,), params={"eta_c": 0.05, "eta_s": 0.1, "eta_g": 1.0, "lam": 0.005},
        grid={"tau": TAUS, "cut": ("fc1",)}, eval_samples=8,
        substitution="tests only: an MLP 64-32-10 on digits, 2 clients, 2 rounds; its verdict says nothing",
    ),
    "small": Scale(
        name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,), clients=10,
        T=200, batch=32, seeds=(0, 1, 2, 3, 4), params={"eta_c": 0.05, "eta_s": 0.1, "eta_g": 1.0, "lam": 0.005},
        grid={"tau": TAUS, "cut": ("fc1",)}, eval_samples=32,
        substitution="an MLP 64-32-10 on scikit-learn's digits cut after fc1 (not AlexNet on Fashion-MNIST: "
        "zeroth-order training of 57 M parameters does not move in minutes on a CPU); eta_c = 0.05, eta_s = 0.1, "
        "eta_g = 1 (App. F's 0.005, 0.01, 0.3 leave this model at 6 % after 200 rounds); all 10 clients each "
        "round (not 50 %); 200 rounds (the paper: 100 on Fashion-MNIST, 500 on the others); 5 seeds",
    ),
    "paper": Scale(
        name="paper", data="cifar10:root={root}", model="vgg11", clients=10, T=500, batch=32, seeds=(0,),
        params=APP_F, grid={"tau": TAUS, "cut": ("features.2",)}, eval_samples=64,
        substitution="CIFAR-10 for 500 rounds with App. F's hyper-parameters, 10 clients, but VGG-11 (CIFAR "
        "layout) for AlexNet (224x224 inputs; the data are not resized), cut after features.2 (the seed does not "
        "state Table 1's cut), all clients each round (not 50 %)",
    ),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """MU-SplitFed at each tau and seed; the accuracy is recorded at t = 0 and T (Table 1 reports the last round)."""
    cells = []
    for tau in scale.grid["tau"]:
        for seed in scale.seeds:
            params: dict[str, Any] = {
                "algorithm": "mu_splitfed", "model": scale.model, "data": scale.data, "cut": scale.grid["cut"][0],
                "clients": scale.clients, "T": scale.T, "batch": scale.batch, "seed": seed, "record_every": scale.T,
                "device": device, "tau": tau, **scale.params,
            }  # fmt: skip
            params.update(scale.data_params())
            cells.append(Cell(labels={"algorithm": "mu_splitfed", "tau": tau, "seed": seed}, params=params))
    return tuple(cells)


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """The mean and standard deviation over seeds of the final accuracy per tau, and
    :func:`verify.reproduce.verdicts.best_tau_finding` on the means (noise: the largest standard error of a mean)."""
    mean: dict[int, float] = {}
    std: dict[int, float] = {}
    for tau in scale.grid["tau"]:
        accs = [math.nan if r.get("acc") is None else float(r["acc"]) for r in rows if r["tau"] == tau]
        mean[tau] = float(np.mean(accs)) if accs else math.nan
        std[tau] = float(np.std(accs, ddof=1)) if len(accs) > 1 and all(map(math.isfinite, accs)) else 0.0
    # the largest standard error of a mean (the rule compares means)
    noise = max((v / math.sqrt(len(scale.seeds)) for v in std.values()), default=0.0)
    finding = best_tau_finding(mean, noise=noise)
    name, paper = paper_row(scale.name)
    numbers = {
        "tau": list(scale.grid["tau"]),
        "mean_accuracy": {str(k): (round(v, 4) if math.isfinite(v) else None) for k, v in mean.items()},
        "std_accuracy": {str(k): round(v, 4) for k, v in std.items()},
        "noise": noise,
        "paper_dataset": name,
        "paper_accuracy": {str(k): v for k, v in paper.items()},
        "paper_verdict": best_tau_finding(paper).verdict,
    }
    return finding, numbers


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Circles: the reproduced mean final accuracy per tau (error bars: the standard deviation over seeds; dots: each
    seed); hollow squares: the paper's Table 1 row (quoted); the verdict above, the scale in the caption."""
    with style() as plt:
        fig, ax = plt.subplots(figsize=(6.8, 4.0))
        taus = numbers["tau"]
        m = [math.nan if numbers["mean_accuracy"][str(t)] is None else numbers["mean_accuracy"][str(t)] for t in taus]
        s = [numbers["std_accuracy"][str(t)] for t in taus]
        ax.errorbar(taus, m, yerr=s, fmt="-o", color=PALETTE[0], capsize=4, ms=6,
                    label=f"reproduced ({scale.name}): mean ± std over {len(scale.seeds)} seed(s)")  # fmt: skip
        seeds = [(r["tau"], r["acc"]) for r in rows if r.get("acc") is not None]
        if seeds:
            ax.plot(*zip(*seeds, strict=True), ".", color="#555555", ms=4, alpha=0.6, label="each seed")
        p = [numbers["paper_accuracy"][str(t)] for t in taus]
        ax.plot(taus, p, "--s", mfc="none", color=PALETTE[1],
                label=f"paper, {numbers['paper_dataset']} (Table 1)")  # fmt: skip
        for t, v in zip(taus, p, strict=True):
            ax.annotate(f"{v:.2f}", (t, v), textcoords="offset points", xytext=(8, -12), ha="left", fontsize=7,
                        color=PALETTE[1])  # fmt: skip
        ax.set_xticks(taus)
        ax.set_xticklabels([f"tau={t}" + (" (vanilla)" if t == 1 else "") for t in taus])
        ax.set_xlabel("server steps per round tau")
        ax.set_ylabel(f"test accuracy after {scale.T} rounds (%)")
        ax.margins(x=0.12, y=0.25)
        ax.legend(loc="lower right", fontsize=7)
        ax.set_title(f"{exp.id}: {finding.verdict}", loc="left", fontsize=10, fontweight="bold")
        fig.tight_layout()
        footnote(fig, f"{finding.sentence}.\nScale '{scale.name}': {scale.substitution}. Paper: AlexNet, seed "
                 f"line {ROWS[ROW_OF_SCALE[scale.name]][0]}; the same rule on the paper's own numbers: "
                 f"{numbers['paper_verdict']}.", width=120)  # fmt: skip
    return fig


def _quotes() -> tuple[Quote, ...]:
    out = [Quote(line=line, text=text, what=f"Table 1, {name}, accuracy % for tau = 1, 2, 3, 4")
           for line, name, text in ROWS.values()]  # fmt: skip
    out += [
        Quote(line=211, text="Our method achieves the highest accuracy when", what="Sec. 5: the claim (tau = 2)"),
        Quote(line=211, text="leads to a noticeable drop in accuracy", what="Sec. 5: tau over 2"),
        Quote(line=198, text="100 epochs on Fashion-MNIST and 500 epochs on the others", what="Table 1's rounds"),
        Quote(line=209, text="we train 10 clients in total with 50%50\\% partial partitioning", what="Sec. 5: clients"),
    ]
    # App. F, Table 6: the hyper-parameters (the paper scale's; TeX duplicates each value: 0.30.3 is 0.3)
    out += [Quote(line=line, text=text, what=f"App. F, Table 6: {what}") for line, text, what in (
        (935, "0.30.3 Global aggregation learning rate", "eta_g = 0.3"),
        (936, "0.010.01 Server learning rate", "eta_s = 0.01"),
        (937, "0.0050.005 Client learning rate", "eta_c = 0.005"),
        (938, "0.0050.005 Scale of perturbation for ZOO", "lambda = 0.005"),
        (939, "3232 Batch size", "B = 32"))]  # fmt: skip
    return tuple(out)


EXPERIMENT = Experiment(
    id="mu_splitfed/table1",
    paper="mu_splitfed",
    seed=SEED,
    location="Table 1 (Sec. 5, Impact of tau Selection)",
    lines=(198, 211),
    claim="With the same number of rounds, MU-SplitFed is most accurate at tau = 2 server steps per round, above "
    "vanilla SplitFed (tau = 1), and larger tau lowers the accuracy again.",
    quotes=_quotes(),
    algorithms=("mu_splitfed",),
    settings="AlexNet on Fashion-MNIST (100 rounds), CIFAR-10, CINIC-10, CIFAR-100 (500 rounds); 10 clients, 50 % "
    "participation; zeroth-order on both sides; eta_g 0.3, eta_s 0.01, eta_c 0.005, lambda 0.005, batch 32 (App. F)",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
)

__all__ = ["EXPERIMENT", "ROWS", "SCALES", "SEED", "TAUS", "draw", "judge", "paper_row", "plan"]
