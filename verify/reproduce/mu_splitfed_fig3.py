r"""MU-SplitFed Fig. 3 and App. E, Tables 4-5: rounds to 85 % accuracy against the cut layer and tau (MU-Split).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach" (seed ``000_0fb66116fc20c956.txt``): Fig. 3 (line 219) and its
paragraphs (line 221: OPT-1.3B fine-tuned, rounds to 85 %, "increasing tau reduces communication round by up to
33%"; line 226: "excessive server updates eventually lead to diminishing or adverse effects", "convergence
consistently improves as L_c decreases", "the optimal value of tau shifts higher as L_c moves earlier"); App. E
(line 910: OPT-1.3B on SST-2, "a simplified MU-Split configuration with a single client"; line 912: Table 4's
reading; line 914: Table 5's) with Table 4 (lines 916-922: rounds to 85 % for split layers 2, 4, 8, 12, 16 and
tau = 1..6, tau = 1 at split layer 2 only) and Table 5 (lines 923-929: final accuracy after 1,500 steps); App. F,
Table 6 (lines 933-939). The algorithm is the trainer's ``mu_split`` (one client, zeroth-order on both sides, tau
server steps per round on the round's embedding; docs/ALGORITHMS.md).

Three sub-claims, each with its rule: (a) :func:`speedup_finding`: at the earliest cut a tau > 1 reaches the target
in clearly fewer rounds than tau = 1; (b) :func:`plateau_finding`: per cut, the largest tau tried no longer clearly
helps (diminishing or adverse); (c) :func:`cut_finding`: per tau, the earliest cut (deepest server) reaches the
target clearly sooner than the latest, with no clear reversal between neighbours. The shift of the best tau with
the cut is not judged (Table 4's minima are ties of one or two rounds). Table 5's final accuracies are shown beside
the reproduced ones, not judged. The same rules on the paper's own Table 4 (:func:`paper_verdict`) give
"inconclusive": (a) and (b) hold there, but its tau = 3 column reverses between split layers 2 and 4 (19 against 16
rounds, line 918-919), so "consistently improves as L_c decreases" (line 226) is not what the table prints at every
tau; recorded here, the rule not loosened to pass it.

Substitution: the paper FINE-TUNES a pre-trained OPT-1.3B; zeroth-order training from a random start does not move (an
earlier attempt with a random MLP diverged). So the small scale fine-tunes a pre-trained model:
:func:`verify.reproduce.pretrained.digits_mlp_pretrained` builds an MLP 64-32-32-32-10 (blocks fc1..fc4, cuts fc1, fc2,
fc3), trains it first order (full-batch Adam, lr 0.01, 150 steps) on the run's own training split of digits (the split
of the run's seed, read from :func:`torch.initial_seed`, which the problem builder sets just before it calls the
factory: no test sample is seen), then replaces the head fc4 by a fresh one (weights N(0, 0.01^2), bias 0): a
pre-trained body with a new classification head, about 10 % accuracy at round 0. MU-Split then fine-tunes every layer
zeroth-order.

Probe (seed 0, cut fc1 unless said, P = 5, lambda = 0.005, batch 32, test accuracy every 10 rounds): (1) the whole
MLP pre-trained on 100 training samples only (81 % at round 0, no new head): eta_c = eta_s = 0.01 and 0.05 diverged
within 30 rounds; 0.001 (tau 1 and 4) and 0.003 (tau 1) stayed at 79-83 % for 300 rounds: nothing to measure; (2) body
pre-trained on classes 0-4 only, new head: 26 % (tau 1) and 65 % (tau 4) after 200 rounds at 0.002: too slow for
an 85 % target; (3) the factory above: at 0.001 tau = 1 reached 85 % at round 110 (fc1, 300 rounds), tau = 4 at
40; at cut fc2 (recorded every 5) tau = 1, 2, 6 first reached 85 % at rounds 165, 55, 20 with 0.001 and 165, 85,
20 with 0.002, final 83-94 %. So eta_c = eta_s = 0.001 (App. F's eta_c is 0.005: 5x smaller here, as zeroth-order
steps scale with 1/d) and the paper's own 85 % target.

Small scale, measured (5 seeds, 200 rounds): tau = 1 at cut fc1 reaches 85 % in 129 rounds (mean), tau = 2, 4, 6 in
60, 33, 25 (fc1), 66, 31, 21 (fc2), 55, 30, 23 (fc3): (a) reproduces (81 % fewer rounds; the paper: 38 -> 16, 58 %);
(b) inconclusive (tau 4 -> 6 still saves 7-10 rounds, between one and two record intervals); (c) inconclusive (the
three cuts within the noise at every tau, no direction). Final accuracy 90.1 % (tau = 1) and 93-95 % (tau > 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import combine, standard_error

SEED = "000_0fb66116fc20c956.txt"
BLOCKS = 4  # fc1..fc4 of the pre-trained MLP (verify.reproduce.pretrained.HIDDEN has three hidden widths)
TARGET = 85.0  # % test accuracy: the paper's own target (line 221, Table 4)
SPEEDUP = 0.20  # sub-claim (a): the best tau > 1 needs at most 80 % of tau = 1's rounds (paper: "up to 33%")
REL_TIE = 0.10  # two mean round counts within 10 % (or one record interval, or 2 combined std errors) are tied
# Table 4 (rounds to 85 %) and Table 5 (final accuracy), verbatim: split layer -> (line, "tau=1 .. tau=6")
TABLE4 = {2: (918, "2 38 17 19 16 18 18"), 4: (919, "4 - 18 16 22 20 33"), 8: (920, "8 - 23 22 26 22 32"),
          12: (921, "12 - 22 32 25 29 32"), 16: (922, "16 - 21 29 28 40 36")}  # fmt: skip
TABLE5 = {2: (925, "2 88.75 88.97 90.90 87.95 87.05 88.52"), 4: (926, "4 - 89.09 89.89 87.05 86.93 89.04"),
          8: (927, "8 - 90.34 90.11 89.50 89.54 88.30"), 12: (928, "12 - 89.20 89.43 88.41 88.41 88.43"),
          16: (929, "16 - 88.98 88.75 87.95 88.41 87.99")}  # fmt: skip
PAPER_TAUS = (1, 2, 3, 4, 5, 6)


MODEL = "verify.reproduce.pretrained:digits_mlp_pretrained"  # torch: its own module, so listing needs none
STEPS = {"eta_c": 0.001, "eta_s": 0.001, "P": 5, "lam": 0.005}  # the probe's choice (module docstring)
SCALES: dict[str, Scale] = {
    "tiny": Scale(name="tiny", data="digits", model=MODEL, input_shape=(64,), clients=1, T=2, batch=8, seeds=(0,),
                  params=STEPS, grid={"cut": ("fc1", "fc3"), "tau": (1, 2)}, eval_samples=8,
                  substitution="tests only: two cuts, tau 1 and 2, 2 rounds; its verdict says nothing"),
    "small": Scale(name="small", data="digits", model=MODEL, input_shape=(64,), clients=1, T=200, batch=32,
                   seeds=(0, 1, 2, 3, 4), params=STEPS, grid={"cut": ("fc1", "fc2", "fc3"), "tau": (1, 2, 4, 6)},
                   eval_samples=64,
                   substitution="an MLP 64-32-32-32-10 on digits whose body is pre-trained first order on the run's "
                   "training split and whose head is new (not OPT-1.3B on SST-2), cuts after fc1, fc2, fc3 (the "
                   "paper: layers 2-16 of 24), tau 1, 2, 4, 6 (tau = 1 at the earliest cut only, as Table 4), one "
                   "client, eta_c = eta_s = 0.001, P = 5, lambda = 0.005, batch 32, 200 rounds recorded every 5, "
                   "5 seeds (50 runs and a theory run: 189 CPU-s measured, about 100 s with --workers 2 on an idle "
                   "2-core CPU)"),
    "paper": Scale(name="paper", data="digits", model=MODEL, input_shape=(64,), clients=1, T=1500, batch=32,
                   seeds=(0, 1, 2, 3, 4), params=STEPS,
                   grid={"cut": ("fc1", "fc2", "fc3"), "tau": PAPER_TAUS}, eval_samples=256,
                   substitution="the paper's grid (tau = 1..6, 1,500 steps as Table 5, tau = 1 at the earliest cut "
                   "only) on the pre-trained digits MLP: OPT-1.3B and SST-2 are not a model and dataset of the "
                   "trainer; 5 seeds"),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """MU-Split (one client) at each cut and tau, each seed; tau = 1 at the earliest cut only (Table 4 has tau = 1
    at split layer 2 only). The test accuracy is recorded every T/40 rounds (at least every round): the rounds to
    the target are read from it. The first cell (earliest cut, tau = 2, seed 0) is the theory run's."""
    cuts, taus = scale.grid["cut"], scale.grid["tau"]
    order = sorted(((c, t) for c in cuts for t in taus if t > 1 or c == cuts[0]),
                   key=lambda ct: (ct != (cuts[0], 2), cuts.index(ct[0]), ct[1]))  # fmt: skip
    cells = []
    for cut, tau in order:
        for seed in scale.seeds:
            params: dict[str, Any] = {
                "algorithm": "mu_split", "model": scale.model, "data": scale.data, "cut": cut, "clients": 1,
                "T": scale.T, "batch": scale.batch, "seed": seed, "record_every": max(1, scale.T // 40),
                "device": device, "tau": tau, **scale.params,
            }  # fmt: skip
            params.update(scale.data_params())
            cells.append(Cell(labels={"algorithm": "mu_split", "cut": cut, "tau": tau, "seed": seed}, params=params))
    return tuple(cells)


def rounds_to(recorded: Sequence[Sequence[float]], target: float = TARGET) -> int | None:
    """The first recorded round whose test accuracy (%) is at least ``target``; None when none is."""
    return next((int(t) for t, v in recorded if math.isfinite(v) and v >= target), None)


@dataclass(frozen=True, kw_only=True)
class Rounds:
    """The rounds to :data:`TARGET` of one cell (a cut and a tau) over its seeds: their ``mean`` (a seed that never
    reached the target counted at T, so then a lower bound), its standard error ``se`` (0 with one seed), and
    whether every seed ``reached`` the target."""

    mean: float
    se: float = 0.0
    reached: bool = True


def tie(a: Rounds, b: Rounds, *, step: float) -> float:
    """The gap under which two mean round counts are not told apart: the largest of one record interval ``step``,
    :data:`REL_TIE` of the smaller mean, and 2 standard errors of the difference, :math:`2\\sqrt{se_a^2 + se_b^2}`
    (:data:`verify.reproduce.verdicts.COMBINED` times ``se`` for equal errors)."""
    return max(step, REL_TIE * min(a.mean, b.mean), 2.0 * math.hypot(a.se, b.se))


def speedup_finding(rounds: Mapping[int, Rounds], *, step: float = 1.0, where: str = "") -> Finding:
    """Sub-claim (a), lines 221 and 912 (tau = 4 "reduces communication rounds by more than half"; "by up to 33%"),
    at the earliest cut, ``rounds`` per tau. Over the taus > 1 that every seed reached, the best ``b``; the gain
    ``g = rounds[1] - rounds[b]`` (means) and ``t`` = :func:`tie`:

    * reproduces: ``g > t`` and ``g >= SPEEDUP * rounds[1]`` (tau = 1 unreached only makes ``g`` smaller);
    * does not reproduce: ``g <= 0`` (no tau > 1 faster than tau = 1 on the mean);
    * inconclusive: in between, or no tau > 1 (or no tau = 1) to compare.
    """
    at = f" at {where}" if where else ""
    done = {k: v for k, v in rounds.items() if k > 1 and v.reached and math.isfinite(v.mean)}
    if 1 not in rounds or not math.isfinite(rounds[1].mean) or not done:
        return Finding(verdict="inconclusive", sentence=f"(a) no tau > 1 reached the target at every seed{at}")
    b = min(done, key=lambda k: done[k].mean)
    r1, rb = rounds[1], done[b]
    g, t = r1.mean - rb.mean, tie(r1, rb, step=step)
    more = "" if r1.reached else "more than "
    said = f"(a){at} tau = {b} reaches {TARGET:g}% in {rb.mean:.0f} rounds against {more}{r1.mean:.0f} for tau = 1"
    if g > t and g >= SPEEDUP * r1.mean:
        return Finding(verdict="reproduces", sentence=f"{said} ({100 * g / r1.mean:.0f}% fewer, tie {t:.0f})")
    if g <= 0:
        return Finding(verdict="does not reproduce", sentence=f"{said}: no tau > 1 is faster")
    return Finding(verdict="inconclusive", sentence=f"{said}: a gain within {t:.0f} rounds or under "
                   f"{100 * SPEEDUP:.0f}%")  # fmt: skip


def plateau_finding(rounds: Mapping[int, Rounds], *, step: float = 1.0, where: str = "") -> Finding:
    """Sub-claim (b), lines 226 and 912 ("excessive server updates eventually lead to diminishing or adverse
    effects") at one cut: ``b`` the largest tau tried, ``a`` the fastest smaller tau, ``d = rounds[a] - rounds[b]``
    (what going on to the largest tau saves, means), ``base`` = the larger of ``step`` and :data:`REL_TIE` of the
    smaller mean, ``t`` = :func:`tie` (``base`` or 2 standard errors of the difference):

    * reproduces: ``d <= base`` (a plateau, or more rounds: diminishing or adverse, on the means);
    * does not reproduce: ``d > max(2 base, t)`` (the largest tau still clearly the fastest, beyond the noise);
    * inconclusive: in between, or fewer than two taus, or a seed of ``a`` or ``b`` that never reached the target.
    """
    at = f" at {where}" if where else ""
    taus = sorted(rounds)
    if len(taus) < 2:
        return Finding(verdict="inconclusive", sentence=f"(b) fewer than two taus{at}")
    b = taus[-1]
    a = min(taus[:-1], key=lambda k: rounds[k].mean)
    ra, rb = rounds[a], rounds[b]
    if not (ra.reached and rb.reached):
        return Finding(verdict="inconclusive", sentence=f"(b){at} tau = {a} or {b} did not reach the target at "
                       "every seed")  # fmt: skip
    d, base, t = ra.mean - rb.mean, max(step, REL_TIE * min(ra.mean, rb.mean)), tie(ra, rb, step=step)
    said = f"(b){at} tau = {a} -> {b}: {ra.mean:.0f} -> {rb.mean:.0f} rounds"
    if d <= base:
        return Finding(verdict="reproduces", sentence=f"{said} (no gain beyond {base:.0f})")
    bar = max(2.0 * base, t)
    if d > bar:
        return Finding(verdict="does not reproduce", sentence=f"{said}: still clearly faster (beyond {bar:.0f})")
    return Finding(verdict="inconclusive", sentence=f"{said}: still faster, not clearly (by {base:.0f} to {bar:.0f})")


def cut_finding(rounds: Sequence[Rounds], *, step: float = 1.0, where: str = "") -> Finding:
    """Sub-claim (c), lines 226 and 912 ("convergence consistently improves as L_c decreases") at one tau:
    ``rounds`` per cut, earliest cut (deepest server) first. With ``g = rounds[-1] - rounds[0]`` (means) and ``t`` =
    :func:`tie` of the two ends:

    * reproduces: ``g > t`` and no neighbour reversed beyond its tie (``rounds[k] <= rounds[k+1] + t_k``);
    * does not reproduce: ``g < -t`` (the earliest cut clearly slower than the latest);
    * inconclusive: otherwise, or a cut with a seed that never reached the target.
    """
    at = f" at {where}" if where else ""
    if len(rounds) < 2 or not all(r.reached and math.isfinite(r.mean) for r in rounds):
        return Finding(verdict="inconclusive", sentence=f"(c){at} a cut did not reach the target at every seed")
    g, t = rounds[-1].mean - rounds[0].mean, tie(rounds[0], rounds[-1], step=step)
    said = f"(c){at} rounds from the earliest to the latest cut: {', '.join(f'{r.mean:.0f}' for r in rounds)}"
    flips = [k for k in range(len(rounds) - 1)
             if rounds[k].mean > rounds[k + 1].mean + tie(rounds[k], rounds[k + 1], step=step)]  # fmt: skip
    if g > t and not flips:
        return Finding(verdict="reproduces", sentence=f"{said} (earlier is faster)")
    if g < -t:
        return Finding(verdict="does not reproduce", sentence=f"{said}: the earliest cut is slower")
    return Finding(verdict="inconclusive", sentence=f"{said}: within {t:.0f} rounds or not monotone")


def paper_table(table: Mapping[int, tuple[int, str]]) -> dict[int, dict[int, float]]:
    """A quoted table as split layer -> tau -> value (``-``: not run, left out)."""
    out = {}
    for layer, (_, text) in table.items():
        cells = text.split()[1:]
        out[layer] = {tau: float(v) for tau, v in zip(PAPER_TAUS, cells, strict=True) if v != "-"}
    return out


def findings(rounds: Mapping[str, Mapping[int, Rounds]], cuts: Sequence[str], *, step: float) -> Finding:
    """The three sub-claims on the rounds per cut (earliest first) and tau, combined
    (:func:`verify.reproduce.verdicts.combine`: reproduces when all do)."""
    a = speedup_finding(rounds[cuts[0]], step=step, where=f"cut {cuts[0]}")
    b = combine([plateau_finding(rounds[c], step=step, where=f"cut {c}") for c in cuts])
    shared = sorted(set.intersection(*(set(rounds[c]) for c in cuts)))
    c = combine([cut_finding([rounds[c][tau] for c in cuts], step=step, where=f"tau = {tau}") for tau in shared])
    return combine([a, b, c])


def paper_verdict() -> str:
    """The same rules on the paper's own Table 4 (no standard errors, one round a record interval)."""
    t4 = paper_table(TABLE4)
    rounds = {str(k): {tau: Rounds(mean=v) for tau, v in row.items()} for k, row in t4.items()}
    return findings(rounds, [str(k) for k in sorted(t4)], step=1.0).verdict


def rounds_of(rows: Sequence[Mapping[str, Any]], T: int) -> Rounds:
    """The :class:`Rounds` of one cell's rows (one per seed): each seed's first crossing of :data:`TARGET`
    (:func:`rounds_to`; never: T), their mean and standard error; reached when every seed crossed and finished."""
    hit = [rounds_to(r.get("test_acc_recorded") or []) for r in rows]
    vals = [float(T) if h is None else float(h) for h in hit]
    se = standard_error(vals)
    ok = all(h is not None for h in hit) and all(r.get("acc") is not None for r in rows)
    return Rounds(mean=float(np.mean(vals)), se=se, reached=ok)


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """Per cut and tau the :class:`Rounds` over seeds (:func:`rounds_of`) and the final accuracy's mean (None when a
    run has none), and :func:`findings` on them."""
    cuts = list(scale.grid["cut"])
    step = float(max(1, scale.T // 40))
    rounds: dict[str, dict[int, Rounds]] = {}
    final: dict[str, dict[int, float | None]] = {}
    for cut in cuts:
        rounds[cut], final[cut] = {}, {}
        for tau in scale.grid["tau"]:
            mine = [r for r in rows if r["cut"] == cut and r["tau"] == tau]
            if not mine:
                continue
            rounds[cut][tau] = rounds_of(mine, scale.T)
            accs = [float(r["acc"]) for r in mine if r.get("acc") is not None]
            final[cut][tau] = round(float(np.mean(accs)), 4) if len(accs) == len(mine) else None
    finding = findings(rounds, cuts, step=step)
    numbers = {"target": TARGET, "cuts": cuts, "taus": list(scale.grid["tau"]), "record_every": step,
               "rounds_to_target": {c: {str(k): round(v.mean, 4) for k, v in d.items()} for c, d in rounds.items()},
               "rounds_se": {c: {str(k): round(v.se, 4) for k, v in d.items()} for c, d in rounds.items()},
               "reached": {c: {str(k): v.reached for k, v in d.items()} for c, d in rounds.items()},
               "final_accuracy": {c: {str(k): v for k, v in d.items()} for c, d in final.items()},
               "paper_verdict": paper_verdict()}  # fmt: skip
    return finding, numbers


def server_blocks(cut: str) -> str:
    """The server's blocks of the MLP cut after ``cut`` (``fc1`` -> ``fc2-fc4``; ``fc3`` -> ``fc4``)."""
    first, last = int(cut[2:]) + 1, BLOCKS
    return f"fc{last}" if first == last else f"fc{first}-fc{last}"


PAPER_COLOURS = (PALETTE[3], PALETTE[4], PALETTE[5], "#777777", PALETTE[7])  # the paper's split layers 2..16


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Left: the reproduced mean rounds to the target against tau, one line per cut (hollow: a seed never reached it,
    the value a lower bound); middle: the paper's Table 4 (quoted), one line per split layer; right: the final
    accuracy, reproduced (solid) and the paper's Table 5 (dashed, quoted). The verdict above, the sentence and the
    scale in the caption."""
    with style() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(14.5, 4.2))
        left, mid, right = axes
        for i, cut in enumerate(numbers["cuts"]):
            r, ok = numbers["rounds_to_target"][cut], numbers["reached"][cut]
            taus = [int(k) for k in r]
            se = numbers["rounds_se"][cut]
            left.errorbar(taus, [r[str(k)] for k in taus], yerr=[se[str(k)] for k in taus], fmt="none",
                          ecolor=PALETTE[i], capsize=3, lw=1)  # fmt: skip
            left.plot(taus, [r[str(k)] for k in taus], "-", color=PALETTE[i], lw=1.5,
                      label=f"cut after {cut} (server {server_blocks(cut)})")  # fmt: skip
            for k in taus:
                left.plot([k], [r[str(k)]], "o", color=PALETTE[i], mfc=PALETTE[i] if ok[str(k)] else "none", ms=6)
            f = numbers["final_accuracy"][cut]
            ft = [k for k in taus if f[str(k)] is not None]
            right.plot(ft, [f[str(k)] for k in ft], "-o", color=PALETTE[i], ms=4, label=f"reproduced, cut {cut}")
        for r in rows:
            h = rounds_to(r.get("test_acc_recorded") or [])
            if h is not None:
                left.plot([r["tau"]], [h], ".", color="#555555", ms=3, alpha=0.5)
        left.set_xlabel("server steps per round tau")
        left.set_ylabel(f"rounds to {numbers['target']:g}% test accuracy")
        left.set_title(f"reproduced ({scale.name}): mean ± s.e. over {len(scale.seeds)} seed(s), dots: each seed;\n"
                       f"hollow: a seed never reached it (counted at T = {scale.T})",
                       loc="left", fontsize=8)  # fmt: skip
        left.legend(fontsize=7)
        t4, t5 = paper_table(TABLE4), paper_table(TABLE5)
        for j, layer in enumerate(sorted(t4)):
            c = PAPER_COLOURS[j % len(PAPER_COLOURS)]
            mid.plot(list(t4[layer]), list(t4[layer].values()), "--s", mfc="none", color=c, ms=5,
                     label=f"split layer {layer}")  # fmt: skip
            right.plot(list(t5[layer]), list(t5[layer].values()), "--", color=c, lw=1, alpha=0.7,
                       label=f"paper, layer {layer}")  # fmt: skip
        mid.annotate("38 (tau = 1)", (1, 38), textcoords="offset points", xytext=(6, -4), fontsize=7)
        mid.set_xlabel("tau")
        mid.set_ylabel("rounds to 85% (paper)")
        mid.set_title(f"paper, Table 4 (lines 918-922), OPT-1.3B on SST-2; same rules: {numbers['paper_verdict']}",
                      loc="left", fontsize=8)  # fmt: skip
        mid.legend(fontsize=7)
        right.set_xlabel("tau")
        right.set_ylabel("final test accuracy (%)")
        right.set_title(f"final accuracy: reproduced after {scale.T} rounds; paper Table 5 (1,500 steps)", loc="left",
                        fontsize=8)  # fmt: skip
        right.legend(fontsize=6, ncol=2)
        for ax in axes:
            ax.set_xticks(sorted({*PAPER_TAUS}))
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        footnote(fig, f"{finding.sentence}.\nPaper (line 221): 'increasing tau reduces communication round by up to "
                 "33%'; (line 226) 'excessive server updates eventually lead to diminishing or adverse effects', "
                 "'convergence consistently improves as L_c decreases'. Rules: (a) at the earliest cut the best "
                 f"tau > 1 needs at least {100 * SPEEDUP:.0f}% fewer rounds than tau = 1, beyond the tie (the largest "
                 f"of one record interval, {100 * REL_TIE:.0f}% of the smaller mean and 2 standard errors of the "
                 "difference); (b) per cut, the largest tau saves at most one record interval (or 10%) over the best "
                 "smaller tau (saving more than twice that and beyond the noise: does not reproduce); (c) per tau, "
                 "the earliest cut is faster than the latest beyond the tie, no neighbour reversed beyond its tie. "
                 f"Paper, split layer 2, tau = 1..6: Table 4 (line 918) '{TABLE4[2][1][2:]}' rounds, Table 5 (line "
                 f"925) '{TABLE5[2][1][2:]}' %. "
                 f"Scale '{scale.name}': {scale.substitution}.", width=190)  # fmt: skip
    return fig


def _quotes() -> tuple[Quote, ...]:
    out = [Quote(line=line, text=text, what=f"Table 4, split layer {k}: rounds to 85 % for tau = 1..6")
           for k, (line, text) in TABLE4.items()]  # fmt: skip
    out += [Quote(line=line, text=text, what=f"Table 5, split layer {k}: final accuracy % for tau = 1..6")
            for k, (line, text) in TABLE5.items()]  # fmt: skip
    out += [
        Quote(line=219, text="Interaction between cut layer", what="Fig. 3's caption"),
        Quote(line=221, text="reduces communication round by up to", what="(a) the gain (33 %)"),
        Quote(
            line=226,
            text="excessive server updates eventually lead to diminishing or adverse effects",
            what="(b) the plateau",
        ),
        Quote(line=226, text="convergence consistently improves as", what="(c) earlier cuts (L_c decreases)"),
        Quote(line=226, text="shifts higher as", what="the best tau against the cut (not judged)"),
        Quote(line=910, text="a simplified MU-Split configuration with a single client", what="App. E: one client"),
        Quote(line=912, text="reduces communication rounds by more than half", what="App. E: tau = 4 at layer 2"),
        Quote(line=914, text="final accuracy after 1,500 training steps", what="Table 5's steps"),
    ]
    return tuple(out)


EXPERIMENT = Experiment(
    id="mu_splitfed/fig3",
    paper="mu_splitfed",
    seed=SEED,
    location="Fig. 3 (Sec. 5) and App. E, Tables 4-5",
    lines=(219, 929),
    claim="With one client (MU-Split), tau > 1 server steps reach 85 % accuracy in fewer rounds than tau = 1, the "
    "gain levels off or reverses for large tau, and an earlier cut (a deeper server) reaches it sooner.",
    quotes=_quotes(),
    algorithms=("mu_split",),
    settings="OPT-1.3B fine-tuned on SST-2, one client (MU-Split), split layers 2, 4, 8, 12, 16, tau = 1..6, rounds "
    "to 85 % (Table 4) and final accuracy after 1,500 steps (Table 5)",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
    series=("test_acc",),
)

__all__ = [
    "EXPERIMENT",
    "MODEL",
    "SCALES",
    "SEED",
    "SPEEDUP",
    "TABLE4",
    "TABLE5",
    "TARGET",
    "Rounds",
    "cut_finding",
    "draw",
    "findings",
    "judge",
    "paper_table",
    "paper_verdict",
    "plan",
    "plateau_finding",
    "rounds_of",
    "rounds_to",
    "server_blocks",
    "speedup_finding",
    "tie",
]  # fmt: skip
