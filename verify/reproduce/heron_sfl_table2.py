r"""HERON-SFL Table II: the client's costs -- communication until a target accuracy, peak memory and FLOPs per update.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning" (seed ``001_e8dcbf2a405221d7.txt``): Sec. V-B3 (line 195: first order costs
about :math:`3F_c` (SFLV1/V2) or :math:`3(F_c+F_a)` (CSE-FSL, FSL-SAGE) per update, HERON-SFL's two-point estimator
:math:`2(F_c+F_a)`), Sec. VI-A (lines 201-203: ResNet-18 on CIFAR-10, 5 clients, split after the second 2-D
BatchNorm, one fully connected auxiliary head, batch 256), Table II (lines 218-224: Comm. (GB) "until the test
accuracy first reaches 80%", Peak FP (MB), FLOPS (G) per local update) and Sec. VI-B2 (line 228: HERON-SFL "among
the most communication-efficient methods ... improving over the remaining baselines", peak memory "a reduction of
approximately 64%", FLOPs "a reduction of over 33%"). Table III (GPT-2 on E2E with LoRA) is out of reach: the
trainer has no language models.

Three columns, three measurements:

* FLOPs and peak memory of one client update (:mod:`verify.reproduce.client_costs`: FlopCounterMode, and a dispatch
  mode that tracks live tensor storages, the method stated there), with no training run: at the paper's setting --
  the zoo's ResNet-18 (CIFAR variant) cut exactly after its second BatchNorm (the stem, then ``layer1.0``'s first
  conv and BN: not a chain cut of the trainer, but a client module for measuring is built directly), a Linear head
  on the flattened 64x32x32 smashed data, batch 256 -- on the ``meta`` device (shapes only; a few seconds), and
  at the scale's own model for the record. HERON-SFL is counted two-point (P = 1, 2 forwards), the paper's count;
  the trainer's P directions share the base point, P + 1 forwards (the small runs' P = 10 cost 11 forwards).
* Communication until the test accuracy first reaches :data:`TARGET` (%): trainer runs of ``heron_sfl``,
  ``sfl_aux`` (CSE-FSL, decoupled, as :mod:`verify.reproduce.heron_sfl_fig2`), ``sfl_v2`` and ``sfl_v1``, IID,
  recording ``test_acc``, ``bytes_up`` and ``bytes_down`` (cumulative, all clients) every few rounds; each run's
  cost is the bytes up plus down at its first record at or above the target (the record's resolution: a few
  rounds). FSL-SAGE is not in the trainer (CSE-FSL stands for it, as in fig2).

Step sizes: :data:`verify.reproduce.heron_sfl_fig2.SMALL` (one SGD step 0.1 for every update, probed there on seed
0 over 300 rounds; SFLV1 gets SFLV2's step). The target: the small scale's own runs (5 seeds, IID) end at 92.8 %
(HERON-SFL), 93.5 % (CSE-FSL), 95.2 % (SFLV2) and 92.9 % (SFLV1) mean test accuracy, and every run crosses 80 %
within its first 100 rounds, so the paper's 80 % is kept.

Regime (why the communication column may differ): at the paper's split the smashed data of one batch, 256 x 64 x
32 x 32 floats = 67 MB, dwarfs the client's model (stem and one conv, about 38.7 K parameters; the head 655 K), so
SFLV2, which also downloads the gradient of every batch, sends about twice what the decoupled methods send per step.
On digits the smashed batch (32 x 32 floats, 4 KB) is smaller than the client model and head synchronised each
round (2,410 parameters, 9.6 KB each way), so the bytes per round are nearly equal and the bytes to the target
follow the rounds to the target: SFLV2's faster first-order progress counts for more than its extra downloads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .heron_sfl_fig2 import SMALL
from .verdicts import COMBINED, combine, mean_se

SEED = "001_e8dcbf2a405221d7.txt"
ALGORITHMS = ("heron_sfl", "sfl_aux", "sfl_v2", "sfl_v1")
LABELS = {"heron_sfl": "HERON-SFL", "sfl_aux": "CSE-FSL", "sfl_v2": "SFLV2", "sfl_v1": "SFLV1"}
# Table II as printed (lines 220-224): Comm. (GB), Peak FP (MB), FLOPS (G); None where the table leaves it blank
PAPER = {"sfl_v1": (1216.00, 709.93, 59.51), "sfl_v2": (390.67, None, None), "sfl_aux": (258.55, 726.46, 59.85),
         "fsl_sage": (244.24, None, None), "heron_sfl": (244.19, 259.44, 39.90)}  # fmt: skip
TARGET = 80.0  # % test accuracy, the paper's criterion (line 228), reachable on digits (module docstring: probe)
# comm: "essentially matching" CSE-FSL read as within 10 % of its bytes (the paper's HERON-SFL is 5.6 % below it)
REL_TOL = 0.10
# memory: the paper's reduction is 64 % (line 228); "drastically" read as at least half, and under a quarter is none
MEM_REPRODUCES, MEM_FAILS = 0.50, 0.25
# FLOPs: the paper's 33 % (line 228) is the 2/3 rule of line 195; 5 points of tolerance below it (autograd skips
# the first layer's input gradient, so first order measures under 3F), and under 15 % (half the claim) is none
FLOPS_REPRODUCES, FLOPS_FAILS = 0.28, 0.15
UPDATE_OF = {"sfl_v1": "sflv", "sfl_v2": "sflv", "sfl_aux": "cse", "heron_sfl": "heron"}
SMALL4: dict[str, dict[str, Any]] = {**SMALL, "sfl_v1": {"eta": SMALL["sfl_v2"]["eta"]}}  # sfl_v1 takes no K
PAPER_SCALE: dict[str, dict[str, Any]] = {  # SGD 0.01 for Adam lr 1e-4, as fig2's paper scale; P = 1: two-point
    "heron_sfl": {"eta_c": 1e-3, "eta_s": 0.01, "P": 1, "K": 1, "lam": 1e-3, "direction": "unit_sphere"},
    "sfl_aux": {"eta_l": 0.01, "eta": 0.01, "K": 1, "server_round_step": "aux", "n": 0, "l": 1},
    "sfl_v2": {"eta": 0.01, "K": 1},
    "sfl_v1": {"eta": 0.01},
}
SCALES: dict[str, Scale] = {
    "tiny": Scale(name="tiny", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                  clients=2, T=2, batch=8, seeds=(0,),
                  params={**SMALL4, "heron_sfl": {**SMALL4["heron_sfl"], "P": 2}},
                  grid={"partition": ("iid",), "cut": ("fc1",), "record_every": (1,)}, eval_samples=8,
                  substitution="tests only: 2 clients, 2 rounds, P = 2; its verdict says nothing"),
    "small": Scale(name="small", data="digits", model="verify.reproduce.models:digits_mlp", input_shape=(64,),
                   clients=5, T=300, batch=32, seeds=(0, 1, 2, 3, 4), params=SMALL4,
                   grid={"partition": ("iid",), "cut": ("fc1",), "record_every": (5,)}, eval_samples=32,
                   substitution="communication: an MLP 64-32-10 on scikit-learn's digits cut after fc1 with a linear "
                   "head (not ResNet-18 on CIFAR-10), 5 clients as the paper, IID, 300 rounds of one step of batch "
                   "32, SGD 0.1 for every update (fig2's probe; not Adam 1e-4), HERON-SFL with P = 10, the test "
                   "accuracy every 5 rounds, 5 seeds; CSE-FSL stands for "
                   "FSL-SAGE (20 runs: 68 CPU-s, 198 s wall with --workers 2 on a shared 2-core CPU). Here the "
                   "model and head synchronised each round (9.6 KB each way per client) outweigh a smashed batch "
                   "(4 KB), so the bytes follow the rounds to 80%; at the paper's split a smashed batch (67 MB) "
                   "dominates. FLOPs and memory at the paper's ResNet-18 setting on the meta device"),
    "paper": Scale(name="paper", data="cifar10:root={root}", model="resnet18", clients=5, T=2000, batch=256,
                   seeds=(0,), params=PAPER_SCALE,
                   grid={"partition": ("iid",), "cut": ("layer1.0",), "record_every": (10,)}, eval_samples=64,
                   substitution="ResNet-18 on CIFAR-10, 5 clients, batch 256 as Sec. VI-A; the runs cut after "
                   "layer1.0 (the paper's split after the second BatchNorm is inside that block, no chain cut; the "
                   "FLOPs and memory use the exact split); SGD 0.01 for Adam lr 1e-4, HERON-SFL two-point (P = 1); "
                   "2000 rounds (the text gives none); one seed"),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """Each algorithm at each seed (IID), its own step sizes, the test accuracy and the bytes recorded every
    ``grid['record_every']`` rounds: the communication column needs the first record at the target."""
    cells = []
    for algorithm in ALGORITHMS:
        for partition in scale.grid["partition"]:
            for seed in scale.seeds:
                params: dict[str, Any] = {
                    "algorithm": algorithm, "model": scale.model, "data": scale.data, "cut": scale.grid["cut"][0],
                    "clients": scale.clients, "partition": partition, "T": scale.T, "batch": scale.batch,
                    "seed": seed, "record_every": scale.grid["record_every"][0], "device": device,
                    **scale.params[algorithm],
                }  # fmt: skip
                params.update(scale.data_params())
                cells.append(Cell(labels={"algorithm": algorithm, "partition": partition, "seed": seed},
                                  params=params))  # fmt: skip
    return tuple(cells)


# --- the FLOPs and memory columns: no training run ------------------------------------------------------------------


def reduction_finding(what: str, heron: float, fo: Mapping[str, float], *, reproduces: float, fails: float,
                      paper: str) -> Finding:  # fmt: skip
    """HERON-SFL's reduction of ``what`` (FLOPs or memory) against each first-order method ``fo`` (name ->
    value): ``r`` = min over them of 1 - heron / value (the least favourable comparison).

    * reproduces: ``r >= reproduces``;
    * does not reproduce: ``r < fails``;
    * inconclusive in between, or a value not finite or not positive."""
    vals = [heron, *fo.values()]
    if not fo or any(not math.isfinite(v) or v <= 0 for v in vals):
        return Finding(verdict="inconclusive", sentence=f"{what}: a value is missing or not positive")
    red = {a: 1.0 - heron / v for a, v in fo.items()}
    worst = min(red, key=lambda a: red[a])
    r = red[worst]
    said = (f"{what}: HERON-SFL {r:.0%} below {LABELS.get(worst, worst)} (the least reduction; "
            + ", ".join(f"{LABELS.get(a, a)} {v:.0%}" for a, v in red.items()) + f"; paper {paper})")  # fmt: skip
    if r >= reproduces:
        return Finding(verdict="reproduces", sentence=f"{said}: at least {reproduces:.0%}")
    if r < fails:
        return Finding(verdict="does not reproduce", sentence=f"{said}: under {fails:.0%}")
    return Finding(verdict="inconclusive", sentence=f"{said}: between {fails:.0%} and {reproduces:.0%}")


# --- the communication column: trainer runs ------------------------------------------------------------------------


def bytes_to_target(row: Mapping[str, Any], target: float = TARGET) -> float:
    """Bytes up plus down (all clients, cumulative) at the first record whose test accuracy (%) is at least
    ``target``; NaN when the run never reaches it or has no records."""
    acc = {int(t): v for t, v in row.get("test_acc_recorded") or []}
    up = {int(t): v for t, v in row.get("bytes_up_recorded") or []}
    down = {int(t): v for t, v in row.get("bytes_down_recorded") or []}
    for t in sorted(acc):
        if acc[t] >= target and t in up and t in down:
            return float(up[t] + down[t])
    return math.nan


def comm_finding(comm: Mapping[str, float], *, noise: float = 0.0, rel: float = REL_TOL) -> Finding:
    """Line 228's claim on the mean bytes until the target (name -> bytes; NaN: some run never reached it) of
    ``heron_sfl``, ``sfl_aux`` (CSE-FSL), ``sfl_v2`` and ``sfl_v1`` (optional); ``noise``: the largest standard error
    over seeds of one such mean. With ``t(ref) = max(rel * ref, 2 sqrt(2) noise)`` (2 combined standard errors):

    * reproduces: HERON-SFL at most CSE-FSL + ``t(CSE-FSL)`` ("essentially matching", or better) and below SFLV2
      (and SFLV1) by more than 2 combined standard errors ("improving over the remaining baselines");
    * does not reproduce: HERON-SFL above CSE-FSL by more than ``2 t(CSE-FSL)``, or above SFLV2 (or SFLV1) by more
      than ``t`` of it (clearly not among the most efficient);
    * inconclusive otherwise, or when HERON-SFL, CSE-FSL or SFLV2 has a run that never reached the target.
    """
    need = ("heron_sfl", "sfl_aux", "sfl_v2")
    if any(a not in comm or not math.isfinite(comm[a]) for a in need):
        missing = [LABELS[a] for a in need if a not in comm or not math.isfinite(comm[a])]
        return Finding(verdict="inconclusive", sentence=f"communication: {', '.join(missing)} did not reach "
                       f"{TARGET:g}% in every run")  # fmt: skip
    h = comm["heron_sfl"]
    se = COMBINED * noise
    others = [a for a in ("sfl_v2", "sfl_v1") if a in comm and math.isfinite(comm[a])]
    said = ("communication to the target: " + ", ".join(f"{LABELS[a]} {comm[a] / 1e6:.2f} MB" for a in comm
            if math.isfinite(comm[a])) + f" (noise {se / 1e6:.2f} MB)")  # fmt: skip
    t_cse = max(rel * comm["sfl_aux"], se)
    c = h - comm["sfl_aux"]
    above = [LABELS[a] for a in others if h - comm[a] > max(rel * comm[a], se)]
    if c > 2.0 * t_cse or above:
        why = "clearly above " + " and ".join((["CSE-FSL"] if c > 2.0 * t_cse else []) + above)
        return Finding(verdict="does not reproduce", sentence=f"{said}: HERON-SFL {why}")
    if c <= t_cse and all(comm[a] - h > se for a in others):
        return Finding(verdict="reproduces", sentence=f"{said}: HERON-SFL matches CSE-FSL and is below SFLV1/V2")
    return Finding(verdict="inconclusive", sentence=f"{said}: not clearly among the most efficient, nor clearly not")


def comm_curve(runs: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Mean over ``runs`` of test accuracy (%) and bytes (MB, up + down) record by record (the shortest's length)."""
    done = [r for r in runs if r.get("test_acc_recorded") and r.get("bytes_up_recorded")]
    if not done:
        return {"mb": [], "accuracy": []}
    n = min(len(r["test_acc_recorded"]) for r in done)
    acc = np.mean([[v for _, v in r["test_acc_recorded"][:n]] for r in done], axis=0)
    mb = np.mean([[(u + d) / 1e6 for (_, u), (_, d) in zip(r["bytes_up_recorded"][:n], r["bytes_down_recorded"][:n],
                                                               strict=True)] for r in done], axis=0)  # fmt: skip
    return {"mb": [round(float(b), 6) for b in mb], "accuracy": [round(float(a), 4) for a in acc]}


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """The three columns' findings (memory and FLOPs at the paper's setting, measured here; communication from the
    rows), combined; the numbers: each algorithm's measured cost at the paper's setting and at the scale's model,
    the bytes until the target per algorithm (mean, standard error, runs that reached it) and the mean curves."""
    # torch only here: `sfltheory reproduce --list` and `figs --list` read this module without it
    from .heron_costs import costs, paper_client, scale_client

    paper_cost = costs(paper_client(), UPDATE_OF)
    mine = scale_client(scale)
    scale_cost = costs(mine, UPDATE_OF) if mine is not None else {}
    fo = [a for a in ALGORITHMS if a != "heron_sfl"]
    mem = reduction_finding(
        "peak memory",
        paper_cost["heron_sfl"].peak_bytes,
        {a: paper_cost[a].peak_bytes for a in ("sfl_v1", "sfl_aux")},
        reproduces=MEM_REPRODUCES,
        fails=MEM_FAILS,
        paper="64%: 259.44 MB against 709.93",
    )
    flops = reduction_finding(
        "FLOPs",
        paper_cost["heron_sfl"].flops,
        {a: paper_cost[a].flops for a in ("sfl_v1", "sfl_aux")},
        reproduces=FLOPS_REPRODUCES,
        fails=FLOPS_FAILS,
        paper="33%: 39.90 G against 59.51",
    )
    comm, reached, curves, ses = {}, {}, {}, {}
    for a in ALGORITHMS:
        runs = [r for r in rows if r["algorithm"] == a]
        b = [bytes_to_target(r) for r in runs]
        comm[a], ses[a] = mean_se(b)
        reached[a] = sum(1 for v in b if math.isfinite(v))
        curves[a] = comm_curve(runs)
    noise = max(ses.values()) if ses else 0.0
    com = comm_finding(comm, noise=noise)
    table = {a: {"paper_comm_gb": PAPER[a][0], "paper_peak_mb": PAPER[a][1], "paper_gflops": PAPER[a][2],
                 "comm_mb": round(comm[a] / 1e6, 6) if math.isfinite(comm[a]) else None,
                 "comm_se_mb": round(ses[a] / 1e6, 6), "runs_reached": reached[a],
                 "runs": sum(1 for r in rows if r["algorithm"] == a),
                 "paper_setting_peak_mib": round(paper_cost[a].peak_bytes / 2**20, 3),
                 "paper_setting_gflops": round(paper_cost[a].flops / 1e9, 4),
                 "scale_peak_kib": round(scale_cost[a].peak_bytes / 2**10, 3) if scale_cost else None,
                 "scale_mflops": round(scale_cost[a].flops / 1e6, 4) if scale_cost else None}
             for a in ALGORITHMS}  # fmt: skip
    numbers = {"table": table, "target": TARGET, "fo": fo, "noise_mb": round(noise / 1e6, 6),
               "findings": {"memory": mem.verdict, "flops": flops.verdict, "comm": com.verdict},
               "comm_curve": curves}  # fmt: skip
    return combine([mem, flops, com]), numbers


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Three panels: test accuracy against megabytes sent (mean over seeds; the target dashed), the bytes until the
    target per algorithm (error bars: standard errors), and the peak memory and FLOPs measured at the paper's
    setting beside Table II's printed values; the verdict above, the numbers and the substitution below."""
    tab = numbers["table"]
    with style() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(15.5, 4.2))
        ax = axes[0]
        for i, a in enumerate(ALGORITHMS):
            c = numbers["comm_curve"][a]
            if c["mb"]:
                ax.plot(c["mb"], c["accuracy"], color=PALETTE[i], lw=2, label=LABELS[a])
        ax.axhline(numbers["target"], color="0.4", ls="--", lw=1, label=f"target {numbers['target']:g}%")
        ax.set_xlabel("megabytes sent, up + down, all clients")
        ax.set_ylabel("test accuracy (%), mean over seeds")
        ax.set_title("(a) accuracy against communication", loc="left", fontsize=9)
        ax.legend(loc="lower right", fontsize=7)
        ax = axes[1]
        for i, a in enumerate(ALGORITHMS):
            v = tab[a]["comm_mb"]
            ax.bar(i, v if v is not None else 0.0, yerr=tab[a]["comm_se_mb"], color=PALETTE[i], capsize=3)
            txt = f"{v:.2f} MB" if v is not None else f"not reached\n({tab[a]['runs_reached']}/{tab[a]['runs']})"
            ax.annotate(f"{txt}\npaper {tab[a]['paper_comm_gb']:.2f} GB", (i, (v or 0.0) + tab[a]["comm_se_mb"]),
                        ha="center",
                        va="bottom", fontsize=7, xytext=(0, 4), textcoords="offset points")  # fmt: skip
        ax.set_xticks(range(len(ALGORITHMS)), [LABELS[a] for a in ALGORITHMS])
        ax.set_ylabel(f"MB until {numbers['target']:g}% (mean over seeds)")
        ax.margins(y=0.25)
        ax.set_title("(b) communication until the target (Table II, Comm.)", loc="left", fontsize=9)
        ax = axes[2]
        shown = ("sfl_v1", "sfl_aux", "heron_sfl")
        xs = np.arange(len(shown))
        for j, (key, pkey, name) in enumerate((("paper_setting_peak_mib", "paper_peak_mb", "peak memory"),
                                               ("paper_setting_gflops", "paper_gflops", "FLOPs"))):  # fmt: skip
            meas = [tab[a][key] / tab["sfl_v1"][key] for a in shown]
            printed = [tab[a][pkey] / tab["sfl_v1"][pkey] for a in shown]
            ax.bar(xs + (2 * j - 1.5) * 0.2, meas, 0.2, color=PALETTE[4 + j], label=f"{name}, measured")
            ax.bar(xs + (2 * j - 0.5) * 0.2, printed, 0.2, color=PALETTE[4 + j], alpha=0.4, hatch="//",
                   label=f"{name}, Table II")  # fmt: skip
            for x, a, m in zip(xs, shown, meas, strict=True):
                unit = "MiB" if j == 0 else "G"
                ax.annotate(f"{tab[a][key]:.1f}{unit}\n({tab[a][pkey]:.1f})", (x + (2 * j - 1.5) * 0.2, m),
                            ha="center", va="bottom", fontsize=6)  # fmt: skip
        ax.set_xticks(xs, ["SFLV1/V2" if a == "sfl_v1" else LABELS[a] for a in shown])
        ax.set_ylabel("relative to SFLV1 (= 1)\nlabels: measured (Table II)")
        ax.set_ylim(0, 1.45)
        ax.legend(loc="upper right", fontsize=6, ncol=2)
        ax.set_title("(c) one client update, ResNet-18 split after BN 2, batch 256", loc="left", fontsize=9)
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        footnote(fig, f"{finding.sentence}.\nPaper (Table II, lines 220-224; line 228): Comm. (GB) until 80%: SFLV1 "
                 "1216.00, SFLV2 390.67, CSE-FSL 258.55, FSL-SAGE 244.24, HERON-SFL 244.19; Peak FP (MB): SFLV1 "
                 "709.93, CSE-FSL 726.46, HERON-SFL 259.44 ('a reduction of approximately 64%'); FLOPS (G): 59.51, "
                 "59.85, 39.90 ('a reduction of over 33%'). Rule: memory reduction >= 50% and FLOPs reduction >= 28% "
                 "against every first-order method, HERON-SFL's bytes within 10% (or 2 combined s.e.) of CSE-FSL's "
                 "and below SFLV1/V2's. Panel (c): measured on the meta device with FlopCounterMode and a tracker of "
                 f"live tensor storages (no allocator or cuDNN workspace), HERON-SFL two-point. Scale '{scale.name}': "
                 f"{scale.substitution}.", width=190)  # fmt: skip
    return fig


EXPERIMENT = Experiment(
    id="heron_sfl/table2",
    paper="heron_sfl",
    seed=SEED,
    location="Table II (Sec. VI-B2, Communication, Storage, and Computational Costs)",
    lines=(218, 228),
    claim="HERON-SFL's client needs about 64% less peak memory and over 33% fewer FLOPs per update than first-order "
    "SFL, and is among the most communication-efficient methods until 80% test accuracy (matching CSE-FSL/FSL-SAGE, "
    "below SFLV1/V2).",
    quotes=(
        Quote(line=218, text="TABLE II: Client consumptions for ResNet-18 on CIFAR-10.", what="Table II's caption"),
        Quote(line=220, text="SFLV1 1216.00 709.93 59.51", what="SFLV1: Comm. (GB), Peak FP (MB), FLOPS (G)"),
        Quote(line=221, text="SFLV2 390.67", what="SFLV2: Comm. (GB)"),
        Quote(line=222, text="CSE-FSL 258.55 726.46 59.85", what="CSE-FSL: Comm. (GB), Peak FP (MB), FLOPS (G)"),
        Quote(line=223, text="FSL-SAGE 244.24", what="FSL-SAGE: Comm. (GB)"),
        Quote(line=224, text="HERON-SFL 244.19 259.44 39.90", what="HERON-SFL: Comm. (GB), Peak FP (MB), FLOPS (G)"),
        Quote(line=228, text="until the test accuracy first reaches 80%", what="the communication criterion"),
        Quote(line=228, text="a reduction of approximately 64%", what="peak memory against SFLV1/V2"),
        Quote(line=228, text="a reduction of over 33%", what="FLOPs against the other methods"),
        Quote(
            line=195,
            text="a standard two-point ZO estimator is typically sufficient",
            what="HERON-SFL counted two-point",
        ),
        Quote(line=203, text="The model is split after the second 2-D BatchNorm layer", what="the split"),
    ),
    algorithms=ALGORITHMS,
    settings="ResNet-18 on CIFAR-10, 5 clients, split after the second BatchNorm with a one-layer auxiliary head, "
    "batch 256, Adam lr 1e-4; communication until 80% test accuracy, peak memory and FLOPs of one client update",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("test_acc", "bytes_up", "bytes_down"),
)

__all__ = ["ALGORITHMS", "EXPERIMENT", "PAPER", "SCALES", "SEED", "TARGET", "UPDATE_OF", "bytes_to_target",
           "comm_curve", "comm_finding", "draw", "judge", "plan", "reduction_finding"]  # fmt: skip
