r"""MU-SplitFed Fig. 2: test accuracy against wall-clock time under stragglers, tau = 2 against vanilla SplitFed.

Reference: Liang et al., "Towards Straggler-Resilient Split Federated Learning: An Unbalanced Update Approach" (seed
``000_0fb66116fc20c956.txt``): Fig. 2 (line 214, "Performance Under Stragglers, where we set tau = 2 for
MU-SplitFed") and its paragraph (line 216: "random delays following an exponential distribution ... MU-SplitFed
consistently achieves higher accuracy and in less time compared to both vanilla SplitFed and GAS"); Sec. 4.2 and
eq. (12) (lines 190-196, "Straggler resilient communication time"): the server's tau steps run while the straggler
finishes. The figure prints curves only: there are no numbers to quote, so the paper's side of the figure is its
claim in words.

Time: the trainer's straggler model (:class:`verify.spec.TimeSpec`, :mod:`sfltheory.plan.timemodel`): client m takes
``c_m f`` per round (``f``: its share of the model at the cut), the round waits for the slowest client, the server's
tau steps of ``s (1 - f)`` overlap it (MU-SplitFed, Sec. 4.2): :math:`t_{round} = \max(t_{straggler}, \tau
t_{server})`. The client times are the M quantiles of 1 + Exp(1), :math:`c_m = 1 - \ln(1 - (m + 1/2)/M)` (fixed,
not redrawn per round: the time model has no per-round draws), s = 1. GAS is not an algorithm of the trainer.

Substitutions as :mod:`verify.reproduce.mu_splitfed_table1` (small: an MLP on digits, step sizes 10x App. F's;
paper: VGG-11 on CIFAR-10 for AlexNet); the verdict is the time to reach :data:`TARGET` % accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .mu_splitfed_table1 import APP_F
from .verdicts import COMBINED

SEED = "000_0fb66116fc20c956.txt"
TAUS = (1, 2)
TARGET = {"tiny": 10.0, "small": 80.0, "paper": 60.0}  # % accuracy whose first crossing times each run
FASTER = 0.10  # tau = 2 must reach the target at least 10 % sooner (and beyond 2 combined standard errors)
SERVER_STEP = 1.0  # seconds of one server step on the whole model


def client_times(M: int) -> list[float]:
    """The M quantiles of 1 + Exp(1): :math:`1 - \\ln(1 - (m + 1/2)/M)`, m = 0..M-1 (seconds per round on the whole
    model); the largest is the straggler."""
    return [round(1.0 - math.log(1.0 - (m + 0.5) / M), 6) for m in range(M)]


SMALL_STEPS = {"eta_c": 0.05, "eta_s": 0.1, "eta_g": 1.0, "lam": 0.005}  # as mu_splitfed/table1's small scale
SCALES: dict[str, Scale] = {
    "tiny": Scale(name="tiny", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                  clients=2, T=2, batch=8, seeds=(0,), params=SMALL_STEPS, grid={"tau": TAUS, "cut": ("fc1",)},
                  eval_samples=8, substitution="tests only: 2 clients, 2 rounds; its verdict says nothing"),
    "small": Scale(name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                   clients=10, T=200, batch=32, seeds=(0, 1, 2, 3, 4), params=SMALL_STEPS,
                   grid={"tau": TAUS, "cut": ("fc1",)}, eval_samples=32,
                   substitution="an MLP 64-32-10 on digits cut after fc1 (not AlexNet on four datasets), 10 clients, "
                   "all each round (not 50 %), eta_c = 0.05, eta_s = 0.1, eta_g = 1 (10x App. F's), 200 rounds "
                   "recorded every 5, 5 seeds; client times the quantiles of 1 + Exp(1), fixed (the paper draws "
                   "random delays), server step 1 s on the whole model"),
    "paper": Scale(name="paper", data="cifar10:root={root}", model="vgg11", clients=10, T=500, batch=32, seeds=(0,),
                   params=APP_F, grid={"tau": TAUS, "cut": ("features.2",)}, eval_samples=64,
                   substitution="CIFAR-10, 500 rounds, App. F's hyper-parameters, 10 clients (all each round), "
                   "VGG-11 for AlexNet (224x224 inputs), cut after features.2, client times the quantiles of "
                   "1 + Exp(1)"),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """MU-SplitFed at tau = 1 (vanilla SplitFed) and 2 per seed, under the straggler times, the accuracy and the
    simulated time recorded every T/40 rounds (at least every round)."""
    cells = []
    for tau in scale.grid["tau"]:
        for seed in scale.seeds:
            params: dict[str, Any] = {
                "algorithm": "mu_splitfed", "model": scale.model, "data": scale.data, "cut": scale.grid["cut"][0],
                "clients": scale.clients, "T": scale.T, "batch": scale.batch, "seed": seed,
                "record_every": max(1, scale.T // 40), "device": device, "tau": tau,
                "client_time": client_times(scale.clients), "server_step": SERVER_STEP, **scale.params,
            }  # fmt: skip
            params.update(scale.data_params())
            cells.append(Cell(labels={"algorithm": "mu_splitfed", "tau": tau, "seed": seed}, params=params))
    return tuple(cells)


def time_to(row: Mapping[str, Any], target: float) -> float | None:
    """The simulated time of the first record at which the run's test accuracy reaches ``target`` % (None: never)."""
    times = dict((int(t), float(v)) for t, v in row.get("sim_time_recorded", []))
    for t, acc in row.get("test_acc_recorded", []):
        if acc >= target and int(t) in times:
            return times[int(t)]
    return None


def faster_finding(t1: list[float | None], t2: list[float | None], target: float) -> Finding:
    """Fig. 2's claim on the times to ``target`` % per seed at tau = 1 (``t1``) and tau = 2 (``t2``): reproduces when
    every tau = 2 run reaches it and its mean time is below tau = 1's by more than 10 % of tau = 1's and 2 combined
    standard errors (a tau = 1 run that never reaches it counts as slower still); does not reproduce when tau = 2 is
    no faster (or never reaches it while tau = 1 does); else inconclusive."""
    r1, r2 = [x for x in t1 if x is not None], [x for x in t2 if x is not None]
    if not r2:
        v = "does not reproduce" if r1 else "inconclusive"
        return Finding(verdict=v, sentence=f"tau = 2 never reaches {target:g}% (tau = 1: {len(r1)} of {len(t1)} runs)")
    m2 = float(np.mean(r2))
    if not r1:
        ok = len(r2) == len(t2)
        return Finding(verdict="reproduces" if ok else "inconclusive",
                       sentence=f"tau = 2 reaches {target:g}% at {m2:.0f} s (mean), tau = 1 never")  # fmt: skip
    m1 = float(np.mean(r1))
    se = max((float(np.std(r, ddof=1)) / math.sqrt(len(r)) for r in (r1, r2) if len(r) > 1), default=0.0)
    said = (f"tau = 2 reaches {target:g}% at {m2:.0f} s against {m1:.0f} s for vanilla SplitFed (tau = 1), "
            f"{100 * (1 - m2 / m1):+.0f}% sooner")  # fmt: skip
    if m2 >= m1:
        return Finding(verdict="does not reproduce", sentence=f"{said}: tau = 2 is no faster")
    if len(r2) == len(t2) and m1 - m2 > max(FASTER * m1, COMBINED * se):
        return Finding(verdict="reproduces", sentence=f"{said}: MU-SplitFed reaches it in less time")
    return Finding(verdict="inconclusive", sentence=f"{said}: within 10 % or 2 combined standard errors ({se:.0f} s)")


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """The time to :data:`TARGET` % of every run, :func:`faster_finding` on them, and the mean curve per tau."""
    target = TARGET[scale.name]
    times = {tau: [time_to(r, target) for r in rows if r["tau"] == tau] for tau in TAUS}
    curves: dict[str, dict[str, list[float]]] = {}
    for tau in TAUS:
        runs = [r for r in rows if r["tau"] == tau and r.get("test_acc_recorded")]
        if runs:  # the same rounds are recorded in every run of a tau: average accuracy record by record
            n = min(len(r["test_acc_recorded"]) for r in runs)
            acc = np.mean([[v for _, v in r["test_acc_recorded"][:n]] for r in runs], axis=0)
            sim = [v for _, v in runs[0].get("sim_time_recorded", [])[:n]]
            curves[str(tau)] = {"sim_time": sim, "accuracy": [round(float(a), 4) for a in acc]}
    numbers = {"target": target, "time_to_target": {str(k): v for k, v in times.items()}, "mean_curve": curves,
               "client_time": client_times(scale.clients), "server_step": SERVER_STEP}  # fmt: skip
    return faster_finding(times[1], times[2], target), numbers


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Accuracy against simulated time: each run faint, the mean over seeds bold, the target dashed, the mean time to
    it marked; the paper's claim (it prints no numbers) in the caption."""
    with style() as plt:
        fig, ax = plt.subplots(figsize=(6.8, 4.0))
        names = {1: "vanilla SplitFed (tau = 1)", 2: "MU-SplitFed (tau = 2)"}
        for i, tau in enumerate(TAUS):
            for r in rows:
                if r["tau"] == tau and r.get("sim_time_recorded"):
                    xs = [v for _, v in r["sim_time_recorded"]][: len(r["test_acc_recorded"])]
                    ax.plot(xs, [v for _, v in r["test_acc_recorded"]][: len(xs)], color=PALETTE[i], alpha=0.2, lw=0.8)
            c = numbers["mean_curve"].get(str(tau))
            if c:
                ax.plot(c["sim_time"], c["accuracy"], color=PALETTE[i], lw=2, label=f"{names[tau]}, mean")
            hit = [x for x in numbers["time_to_target"][str(tau)] if x is not None]
            if hit:
                ax.axvline(float(np.mean(hit)), color=PALETTE[i], ls=":", lw=1)
        ax.axhline(numbers["target"], color="#333333", ls="--", lw=1, label=f"target {numbers['target']:g}%")
        ax.set_xlabel("simulated wall-clock time (s): the slowest client sets each round")
        ax.set_ylabel("test accuracy (%)")
        ax.legend(loc="lower right", fontsize=7)
        ax.set_title(f"{exp.id}: {finding.verdict}", loc="left", fontsize=10, fontweight="bold")
        fig.tight_layout()
        footnote(fig, f"{finding.sentence}.\nPaper (Fig. 2, line 216; curves only, no numbers): 'MU-SplitFed "
                 "consistently achieves higher accuracy and in less time compared to both vanilla SplitFed and GAS'. "
                 f"Scale '{scale.name}': {scale.substitution}. Rounds overlap the server's tau steps with the "
                 "straggler (Sec. 4.2): t_round = max(t_straggler, tau t_server).", width=120)  # fmt: skip
    return fig


EXPERIMENT = Experiment(
    id="mu_splitfed/fig2",
    paper="mu_splitfed",
    seed=SEED,
    location="Fig. 2 (Sec. 5, Performance under Straggler)",
    lines=(214, 216),
    claim="Under stragglers MU-SplitFed (tau = 2) reaches a higher accuracy in less wall-clock time than vanilla "
    "SplitFed.",
    quotes=(
        Quote(line=214, text="Figure 2: Performance Under Stragglers, where we set", what="Fig. 2's caption (tau = 2)"),
        Quote(line=216, text="random delays following an exponential distribution", what="the straggler model"),
        Quote(
            line=216,
            text="MU-SplitFed consistently achieves higher accuracy and in less time compared to both "
            "vanilla SplitFed and GAS",
            what="the claim",
        ),
    ),
    algorithms=("mu_splitfed",),
    settings="AlexNet on CIFAR-10, Fashion-MNIST, CINIC-10, CIFAR-100; 10 clients, 50 % participation; exponential "
    "random delays; tau = 2 against vanilla SplitFed and GAS, zeroth-order; App. F's hyper-parameters",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("test_acc", "sim_time"),
)

__all__ = ["EXPERIMENT", "SCALES", "SEED", "TARGET", "client_times", "draw", "faster_finding", "judge", "plan",
           "time_to"]  # fmt: skip
