r"""sl_noniid Table 2: FL (FedAvg) against split learning (SL) on IID and highly non-IID data, few and many local steps.

Reference: (anonymous, under double-blind review), "Convergence Analysis of Split Learning on Non-IID Data" (seed
``002_56e5daea794305d7.txt``): Sec. 5.1 (lines 177-183: LeNet-5 on Fashion-MNIST, split after the second max-pool;
Dirichlet :math:`\alpha` and "C = #" classes per client), Sec. 5.3 (lines 197-207: 1000 clients of about 60 samples,
mini-batch 10, E = 1 and E = 10 local epochs, the best learning rate of each method from a grid, the mean accuracy
over the last 10 % rounds; line 207: "the performance of SL is worse than FL when the number of local update steps is
large on highly non-IID data ... SL has a better performance than FL when E(K) is small") and Table 2 (lines 213-235;
"excluding the results whose difference is within 1%").

Quoted: the Fashion-MNIST rows IID (line 224), alpha = 0.2 (line 227) and C = 2 (line 229), FL and SL at E = 1 and
E = 10 with their best learning rates, which the runs here use (each method at its own best rate, as the paper
compares them). The claim is judged on the two highly non-IID partitions; IID is shown for the record.

Substitutions (in the caption). Small scale: an MLP 64-32-10 on scikit-learn's digits split after fc1 (LeNet-5 on
Fashion-MNIST with 1000 clients takes hours of sequential SL steps on a CPU), 20 clients, local epochs as K local
steps of batch 10 (E = 1 -> K = 2 for 600 rounds, E = 10 -> K = 20 for 60 rounds: the ratio 10 of the paper's E and
of its rounds, 1000 and 100, so both E make the same steps in all; not its epoch length), the final accuracy (not
the mean over the last 10 % rounds), 2 seeds. Dirichlet 0.2 is ``dirichlet:0.2``; C = 2 is ``shards:2`` (two
label-sorted shards per client, McMahan et al.'s mechanism the paper names).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import COMBINED, combine, standard_error

SEED = "002_56e5daea794305d7.txt"
ALGORITHMS = {"fedavg": "FL", "sl": "SL"}
PARTITIONS = {"iid": "IID", "dirichlet:0.2": "alpha = 0.2", "shards:2": "C = 2"}
JUDGED = ("dirichlet:0.2", "shards:2")  # the "highly non-IID" partitions the claim is about (line 207)
TIE_POINTS = 1.0  # Table 2's own rule: "excluding the results whose difference is within 1%" (line 213)
# Table 2 compares accuracies at the end of long training (the mean of the last 10 % rounds, line 199): a method whose
# mean accuracy still rose by more than this (points) over the second half of its rounds is not there yet, and the
# comparison is inconclusive at this scale (twice the paper's tie)
RISING_POINTS = 2.0
# Table 2, Fashion-MNIST: partition -> (line, {(algorithm, E): "accuracy (best lr)"} verbatim)
PAPER: dict[str, tuple[int, dict[tuple[str, int], str]]] = {
    "iid": (224, {("fedavg", 1): "88.1 (0.05)", ("sl", 1): "88.4 (0.005)",
                  ("fedavg", 10): "85.0 (0.01)", ("sl", 10): "84.0 (0.001)"}),
    "dirichlet:0.2": (227, {("fedavg", 1): "83.5 (0.01)", ("sl", 1): "85.9 (0.005)",
                            ("fedavg", 10): "80.4 (0.01)", ("sl", 10): "79.0 (0.0005)"}),
    "shards:2": (229, {("fedavg", 1): "83.0 (0.1)", ("sl", 1): "87.3 (0.005)",
                       ("fedavg", 10): "75.9 (0.01)", ("sl", 10): "72.3 (0.001)"}),
}  # fmt: skip


def paper_cell(partition: str, algorithm: str, E: int) -> tuple[float, float]:
    """The paper's (accuracy %, best learning rate) of Table 2's Fashion-MNIST row, read from the quoted text."""
    acc, lr = PAPER[partition][1][(algorithm, E)].split(" (")
    return float(acc), float(lr.rstrip(")"))


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        name="tiny", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,), clients=2, T=2,
        batch=10, seeds=(0,), params={"eta_g": 1.0}, grid={"E": (1, 10), "K": (1, 2), "T": (2, 1),
                                                            "partition": ("iid", "shards:2"), "cut": ("fc1",)},
        eval_samples=8, substitution="tests only: 2 clients, 2 rounds; its verdict says nothing",
    ),
    "small": Scale(
        name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,), clients=20,
        T=200, batch=10, seeds=(0, 1), params={"eta_g": 1.0},
        grid={"E": (1, 10), "K": (2, 20), "T": (600, 60), "partition": tuple(PARTITIONS), "cut": ("fc1",)},
        eval_samples=16,
        substitution="an MLP 64-32-10 on digits split after fc1 (not LeNet-5 on Fashion-MNIST), 20 clients (not "
        "1000), E = 1 and 10 as K = 2 and 20 local steps of batch 10 for 600 and 60 rounds (the paper's 1000 and "
        "100: the same steps in all at both E, as the paper's), each method at "
        "the paper's best learning rate for Fashion-MNIST (quoted), final accuracy (not the mean of the last 10 % "
        "rounds), 2 seeds",
    ),
    "paper": Scale(
        name="paper", data="fashion-mnist", model="lenet5", clients=1000, T=1000, batch=10, seeds=(0,),
        params={"eta_g": 1.0},
        grid={"E": (1, 10), "K": (6, 60), "T": (1000, 100), "partition": tuple(PARTITIONS), "cut": ("conv2",)},
        eval_samples=64,
        substitution="the paper's Fashion-MNIST setting (LeNet-5 split after the second max-pool, 1000 clients of "
        "60 samples, batch 10, E = 1 and 10 as K = 6 and 60 steps for 1000 and 100 rounds), the final accuracy "
        "(not the mean of the last 10 % rounds), one seed",
    ),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """FL and SL at each partition, E (as K local steps for T rounds: the grid's K and T per E) and seed, each at
    the paper's best learning rate for that partition and E (Table 2, Fashion-MNIST). The accuracy is recorded at
    t = 0, T/2 and T: the second half's rise tells whether a run has levelled off."""
    cells = []
    for algorithm in ALGORITHMS:
        for partition in scale.grid["partition"]:
            for E, K, T in zip(scale.grid["E"], scale.grid["K"], scale.grid["T"], strict=True):
                for seed in scale.seeds:
                    _, lr = paper_cell(partition, algorithm, E)
                    params: dict[str, Any] = {
                        "algorithm": algorithm, "model": scale.model, "data": scale.data, "cut": scale.grid["cut"][0],
                        "clients": scale.clients, "partition": partition, "T": T, "batch": scale.batch,
                        "seed": seed, "record_every": max(1, T // 2), "device": device, "K": K, "eta_l": lr,
                        **scale.params,
                    }  # fmt: skip
                    params.update(scale.data_params())
                    labels = {"algorithm": algorithm, "partition": partition, "E": E, "K": K, "seed": seed}
                    cells.append(Cell(labels=labels, params=params))
    return tuple(cells)


def sl_vs_fl_finding(d_small: float, d_large: float, *, noise: float = 0.0, where: str = "") -> Finding:
    """sl_noniid's claim (line 207) on one highly non-IID partition: ``d_small`` = SL - FL accuracy (points) with few
    local steps (E = 1), ``d_large`` with many (E = 10). With ``t = max(1, 2 sqrt(2) noise)`` (Table 2's 1 % tie, or
    2 combined standard errors): reproduces when ``d_small > t`` and ``d_large < -t``; does not reproduce when
    ``d_small < -t`` (FL better with few steps) or ``d_large > t`` (SL better with many); else inconclusive (a tie)."""
    at = f" ({where})" if where else ""
    if not (math.isfinite(d_small) and math.isfinite(d_large)):
        return Finding(verdict="inconclusive", sentence=f"a run did not finish with a finite accuracy{at}")
    t = max(TIE_POINTS, COMBINED * noise)
    said = f"SL - FL is {d_small:+.1f} points with few local steps and {d_large:+.1f} with many{at} (tie {t:.1f})"
    if d_small < -t or d_large > t:
        return Finding(verdict="does not reproduce", sentence=f"{said}: the ordering is the opposite of the claim")
    if d_small > t and d_large < -t:
        return Finding(verdict="reproduces", sentence=f"{said}: SL wins with few steps, FL with many")
    return Finding(verdict="inconclusive", sentence=f"{said}: a tie on one side")


def _mean(rows: tuple[Mapping[str, Any], ...], a: str, p: str, E: int) -> tuple[float, float]:
    accs = [math.nan if r.get("acc") is None else float(r["acc"]) for r in rows
            if r["algorithm"] == a and r["partition"] == p and r["E"] == E]  # fmt: skip
    if not accs:
        return math.nan, 0.0
    return float(np.mean(accs)), standard_error(accs)


def rise(rows: tuple[Mapping[str, Any], ...], a: str, p: str, E: int) -> float:
    """The mean over seeds of the test accuracy's rise (points) from the middle record (t = T/2) to the last."""
    gains = []
    for r in rows:
        if r["algorithm"] == a and r["partition"] == p and r["E"] == E and len(r.get("test_acc_recorded", [])) >= 3:
            *_, mid, last = r["test_acc_recorded"]
            gains.append(last[1] - mid[1])
    return float(np.mean(gains)) if gains else math.nan


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """Per partition and E the mean final accuracy of FL and SL over seeds; :func:`sl_vs_fl_finding` on each judged
    partition (noise: the largest standard error of a mean there), combined; the paper's own verdict beside. When a
    method's mean accuracy in a judged partition still rose by more than :data:`RISING_POINTS` over its second half
    of rounds, the verdict is inconclusive (Table 2 compares levelled-off accuracies), the numbers kept."""
    mean: dict[str, dict[str, dict[str, float | None]]] = {}
    findings, paper_findings = [], []
    for p in scale.grid["partition"]:
        mean[p] = {}
        se: list[float] = []
        for a, name in ALGORITHMS.items():
            vals = {E: _mean(rows, a, p, E) for E in scale.grid["E"]}
            mean[p][name] = {f"E={E}": (round(v[0], 4) if math.isfinite(v[0]) else None) for E, v in vals.items()}
            se += [v[1] for v in vals.values()]
        if p in JUDGED:
            small, large = (f"E={E}" for E in scale.grid["E"])
            d = [_diff(mean[p], e) for e in (small, large)]
            findings.append(sl_vs_fl_finding(d[0], d[1], noise=max(se), where=PARTITIONS[p]))
            pd = [paper_cell(p, "sl", E)[0] - paper_cell(p, "fedavg", E)[0] for E in (1, 10)]
            paper_findings.append(sl_vs_fl_finding(pd[0], pd[1], where=PARTITIONS[p]))
    rising = {f"{PARTITIONS[p]}, {ALGORITHMS[a]} E={E}": round(g, 2) for p in scale.grid["partition"] if p in JUDGED
              for a in ALGORITHMS for E in scale.grid["E"] if (g := rise(rows, a, p, E)) > RISING_POINTS}  # fmt: skip
    numbers = {
        "still_rising": rising,
        "E": list(scale.grid["E"]),
        "K": list(scale.grid["K"]),
        "T": list(scale.grid["T"]),
        "mean_accuracy": mean,
        "paper": {p: {f"{ALGORITHMS[a]} E={E}": paper_cell(p, a, E)[0] for (a, E) in PAPER[p][1]} for p in PAPER},
        "learning_rate": {
            p: {f"{ALGORITHMS[a]} E={E}": paper_cell(p, a, E)[1] for (a, E) in PAPER[p][1]} for p in PAPER
        },
        "paper_verdict": combine(paper_findings).verdict if paper_findings else None,
    }
    finding = combine(findings)
    if rising:
        worst = max(rising, key=lambda k: rising[k])
        finding = Finding(verdict="inconclusive", sentence=f"{finding.sentence}; but at this scale {len(rising)} "
                          f"of the judged (method, E) still rose by more than {RISING_POINTS:g} points over their last "
                          f"half of rounds (most: {worst}, +{rising[worst]:.1f}): not levelled off as Table 2's "
                          "accuracies are, so inconclusive")  # fmt: skip
    return finding, numbers


def _diff(m: Mapping[str, Mapping[str, float | None]], e: str) -> float:
    sl, fl = m["SL"][e], m["FL"][e]
    return math.nan if sl is None or fl is None else sl - fl


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """One panel per partition: FL and SL final accuracy at few and many local steps (solid, filled), the paper's
    Fashion-MNIST numbers (dashed, hollow, quoted); the verdict above, the scale in the caption."""
    with style() as plt:
        parts = list(numbers["mean_accuracy"])
        fig, axes = plt.subplots(1, len(parts), figsize=(4.2 * len(parts), 3.8), squeeze=False)
        x = np.arange(len(numbers["E"]))
        for ax, p in zip(axes[0], parts, strict=True):
            for i, name in enumerate(ALGORITHMS.values()):
                ys = [numbers["mean_accuracy"][p][name][f"E={E}"] for E in numbers["E"]]
                ax.plot(x, [math.nan if y is None else y for y in ys], "-o", color=PALETTE[i],
                        label=f"{name} reproduced ({scale.name})")  # fmt: skip
                if p in numbers["paper"]:
                    py = [numbers["paper"][p][f"{name} E={E}"] for E in (1, 10)]
                    ax.plot(x, py, "--s", mfc="none", color=PALETTE[i], alpha=0.8,
                            label=f"{name} paper, Fashion-MNIST (Table 2, quoted)")  # fmt: skip
            ax.set_xticks(x)
            ax.set_xticklabels([f"E={E}\n(K={K}, T={T})" for E, K, T in
                                zip(numbers["E"], numbers["K"], numbers["T"], strict=True)])  # fmt: skip
            ax.set_xlim(-0.4, len(x) - 0.6)
            ax.set_ylabel("final test accuracy (%)")
            judged = "" if p in JUDGED else " (not judged)"
            ax.set_title(f"{PARTITIONS.get(p, p)}{judged}", loc="left", fontsize=9)
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="upper right", ncol=2, fontsize=7)
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.88))
        footnote(fig, f"{finding.sentence}.\nScale '{scale.name}': {scale.substitution}. The same rule on the "
                 f"paper's own numbers (seed lines 224, 227, 229): {numbers['paper_verdict']}.", width=150)  # fmt: skip
    return fig


def _quotes() -> tuple[Quote, ...]:
    out = [Quote(line=line, text=text, what=f"Table 2, Fashion-MNIST, {PARTITIONS[p]}, {ALGORITHMS[a]} E = {E}: "
                 "best accuracy % (best lr)")
           for p, (line, cells) in PAPER.items() for (a, E), text in cells.items()]  # fmt: skip
    out += [
        Quote(line=207, text="SL has a better performance than FL when E(K) is small", what="Sec. 5.3: claim (iii)"),
        Quote(line=213, text="excluding the results whose difference is within 1%", what="Table 2: its tie rule"),
        Quote(line=201, text="The mini-batch size is 10 for all setups", what="Sec. 5.3: batch"),
    ]
    return tuple(out)


EXPERIMENT = Experiment(
    id="sl_noniid/table2",
    paper="sl_noniid",
    seed=SEED,
    location="Table 2 (Sec. 5.3, Fig. 3)",
    lines=(197, 235),
    claim="On highly non-IID data split learning beats FedAvg when the local steps are few (E = 1) and FedAvg beats "
    "split learning when they are many (E = 10).",
    quotes=_quotes(),
    algorithms=tuple(ALGORITHMS),
    settings="LeNet-5 on Fashion-MNIST split after the second max-pool, 1000 clients of ~60 samples, batch 10, "
    "E = 1 (1000 rounds) and E = 10 (100 rounds), IID / Dirichlet alpha / C classes per client, each method at its "
    "best learning rate from {0.0005, ..., 0.1}",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("test_acc",),
)

__all__ = ["ALGORITHMS", "EXPERIMENT", "PAPER", "RISING_POINTS", "SCALES", "SEED", "draw", "judge", "paper_cell",
           "plan", "rise", "sl_vs_fl_finding"]  # fmt: skip
