r"""MU-SplitFed Fig. 4: the client's peak memory when fine-tuning an LLM -- FedAvg, FedLoRA and MU-SplitFed.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach" (seed ``000_0fb66116fc20c956.txt``): line 207 (OPT-1.3B, "24
transformer blocks", on SST-2; the cut ``L_c = n`` "means the model is split after the n-th block"), Fig. 4's caption
(line 224), "Memory Efficiency" (line 228: OPT-1.3B on SST-2, client peak memory "FedAvg incurs a peak memory cost of
8.02 GB", FedLoRA "reduces this to 5.64 GB", "MU-SplitFed reduces the peak client-side memory footprint to just 1.05
GB ... by storing only a partial model on the client and leveraging ZO optimization, which eliminates the need to
store gradient information"), App. E (line 910 and Tables 4-5: OPT-1.3B split after layer 2, 4, 8, 12 or 16). The
paper states neither the cut of Fig. 4, nor the precision, sequence length or batch: all are stated here.

No training run: the figure is a measurement of one client update, made here on the ``meta`` device (shapes only,
no arithmetic; seconds) with :class:`verify.reproduce.client_costs.LiveBytes` (a dispatch mode that sums the live
tensor storages at every ATen operation, the backward included; the method and its limits -- no allocator rounding,
no library workspaces, no CUDA context -- are stated in :mod:`verify.reproduce.client_costs`). The model is
:mod:`verify.reproduce.opt_like`'s OPT-1.3B-shaped decoder (1,315,758,080 parameters), a prompt-style SST-2
classifier (the LM head's logits at the last position, cross-entropy on the label word), batch 16 of 64 tokens (SST-2
sentences are short: 19 words on average), in fp16 and in fp32. The updates:

* FedAvg (``llm_memory.first_order_update``): the whole model, forward, backward, an SGD step (no optimiser state: plain
  SGD; Adam would add two more model-sized buffers) -- parameters, gradients and the activations autograd keeps;
* FedLoRA (the same function on :func:`verify.reproduce.opt_like.add_lora`'s model): rank-8 adapters on every
  layer's q and v projections, the base frozen (no gradient for it; the activations are kept to reach the first
  layer's adapters);
* MU-SplitFed's client at cut ``L_c`` (embeddings and the first ``L_c`` layers; P = 1), two ways:
  (a) ``llm_memory.trainer_update``, what the trainer (:mod:`verify.train.algorithms.mu_splitfed`, the per-client path)
  does: the direction drawn as one flat Gaussian block and normalised (``zo.directions_batched``) -- a stored
  model-sized tensor for the whole update --, the perturbed points built as new parameter copies
  (:func:`verify.train.algorithms.mu_splitfed.embed`, ``zo.perturb``), the step ``x - eta_c G`` as a new copy; and
  (b) ``llm_memory.regenerated_update``, MeZO's scheme (Malladi et al., 2023): the direction regenerated from a seed one
  tensor at a time and applied in place, so only the largest parameter tensor's draw is ever extra. Both keep the
  three uploaded embeddings ``h``, ``h+``, ``h-`` (eq. (4)) alive until the step, as the trainer does.

The verdict (:func:`memory_finding`) is on (b): the paper's reason for the saving is that ZO "eliminates the need
to store gradient information" (line 228), and only (b) stores none -- (a) holds the direction ``u`` and the
estimate ``G``, two client-model-sized tensors, beside the old and the new parameters at its step, four copies of the
client part in all. (a)'s ratios are reported beside the verdict (the sentence, the figure): they say what this
package's trainer would need, not what the paper's method needs.

Measured on this CPU (meta device, small scale; GB = 1e9 bytes): fp16 FedAvg 5.67 GB, FedLoRA 3.85 GB (ratio 0.68;
the paper's 5.64 / 8.02 = 0.70); MU-SplitFed regenerated in place 0.63 / 0.84 / 1.24 / 1.64 / 2.04 GB at L_c = 2 /
4 / 8 / 12 / 16 (ratios to FedAvg 0.11 / 0.15 / 0.22 / 0.29 / 0.36), the trainer's 1.71 / 2.51 / 4.13 / 5.74 /
7.35 GB (0.30 / 0.44 / 0.73 / 1.01 / 1.30). fp32 doubles every figure (FedAvg 11.35 GB; the same ratios): fp16 is
nearer the paper's 8.02 GB, which a GPU's allocator, CUDA context and workspaces, uncounted here, would raise. The
whole small scale takes 28 CPU-s (67 s wall on a shared 2-core CPU, one process: no trainer run).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .verdicts import combine

SEED = "000_0fb66116fc20c956.txt"
PAPER_GB = {"fedavg": 8.02, "fedlora": 5.64, "mu_splitfed": 1.05}  # line 228, client peak memory (GB)
PAPER_RATIO = PAPER_GB["mu_splitfed"] / PAPER_GB["fedavg"]  # 1.05 / 8.02 = 0.131
# MU-SplitFed's peak over FedAvg's: "reduces ... to just 1.05 GB" (0.131 of 8.02); at most about twice that (0.25)
# at every judged cut reproduces, above one half (not even halving FedAvg's) does not, in between is inconclusive
RATIO_REPRODUCES, RATIO_FAILS = 0.25, 0.50
JUDGED_CUTS = (2, 4, 8)  # the cuts the verdict reads: App. E's early splits (Fig. 3 names L_c = 4)
JUDGED = "mu_regenerated"  # the variant that stores no gradient-sized tensor, the paper's stated mechanism
LORA_RANK = 8  # the adapters' rank (verify.reproduce.llm_memory builds them)
DTYPES = ("fp16", "fp32")  # the precisions measured (the paper states none)
UPDATES = ("fedavg", "fedlora", "mu_trainer", "mu_regenerated")
NAMES = {"fedavg": "FedAvg", "fedlora": "FedLoRA", "mu_splitfed": "MU-SplitFed"}
LABELS = {"fedavg": "FedAvg (whole model, first order)", "fedlora": "FedLoRA (rank 8 on q, v)",
          "mu_trainer": "MU-SplitFed client, the trainer's (direction and estimate stored)",
          "mu_regenerated": "MU-SplitFed client, direction regenerated in place"}  # fmt: skip


def _scale(name: str, shape: str, seq: int, batch: int, cuts: tuple[int, ...], substitution: str) -> Scale:
    """A scale of this experiment: no data, no training run; ``grid`` holds the shape's name, the sequence length,
    the cuts and the precisions measured."""
    return Scale(name=name, data="sst2 (shapes only: no data read)",
                 model=f"verify.reproduce.opt_like.{shape} (meta device; no trainer model)",
                 clients=1, T=1, batch=batch, seeds=(0,),
                 grid={"shape": (shape,), "seq": (seq,), "cut": cuts, "dtype": tuple(DTYPES)},
                 substitution=substitution)  # fmt: skip


SHAPES = ("OPT_1_3B", "TINY_SHAPE")  # verify.reproduce.llm_memory.SHAPES: OPT-1.3B and a 4-layer decoder of width 16
PAPER_WORDS = ("the OPT-1.3B shape (1,315,758,080 parameters) on the meta device, batch 16 of 64 tokens (the paper "
               "states neither), fp16 and fp32 (not stated), App. E's cuts (Fig. 4 names none), "
               "MU-SplitFed P = 1; tensor storages only (no allocator, CUDA context or library workspace)")  # fmt: skip
SCALES: dict[str, Scale] = {
    "tiny": _scale("tiny", "TINY_SHAPE", 8, 2, (1, 2),
                   "tests only: a 4-layer decoder of width 16; its verdict says nothing"),
    "small": _scale("small", "OPT_1_3B", 64, 16, (2, 4, 8, 12, 16),
                    PAPER_WORDS + "; no training run: the paper's own setting, measured (28 CPU-s, 67 s wall on a "
                    "shared 2-core CPU)"),
    "paper": _scale("paper", "OPT_1_3B", 64, 16, (2, 4, 8, 12, 16),
                    PAPER_WORDS + "; the same as 'small': the measurement is the paper's own setting"),
}  # fmt: skip


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """No trainer run: the figure is a measurement of one update (``llm_memory.measure_all``, in :func:`judge`)."""
    return ()


# --- the updates measured -------------------------------------------------------------------------------------

# --- the verdict ----------------------------------------------------------------------------------------------


def memory_finding(fedavg: float, fedlora: float, mu: Mapping[int, float], *, where: str = "",
                   reproduces: float = RATIO_REPRODUCES, fails: float = RATIO_FAILS) -> Finding:  # fmt: skip
    """Line 228's claim on one precision (``where``): FedAvg's and FedLoRA's peak bytes and MU-SplitFed's per cut
    (``mu``: cut -> bytes, the cuts judged). With ``r`` = the largest of MU-SplitFed / FedAvg over the cuts:

    * reproduces: ``r <= reproduces`` and MU-SplitFed below FedLoRA at every cut;
    * does not reproduce: ``r > fails`` or MU-SplitFed at or above FedLoRA at some cut;
    * inconclusive in between, or a value missing, not finite or not positive."""
    at = f" ({where})" if where else ""
    vals = [fedavg, fedlora, *mu.values()]
    if not mu or any(not math.isfinite(v) or v <= 0 for v in vals):
        return Finding(verdict="inconclusive", sentence=f"a peak is missing or not positive{at}")
    ratios = {c: v / fedavg for c, v in mu.items()}
    worst = max(ratios, key=lambda c: ratios[c])
    r = ratios[worst]
    said = (f"MU-SplitFed's client peak over FedAvg's{at}: " + ", ".join(f"{ratios[c]:.2f} at L_c = {c}"
            for c in sorted(ratios)) + f" (FedAvg {fedavg / 1e9:.3g} GB, FedLoRA {fedlora / 1e9:.3g} GB; paper "
            f"{PAPER_RATIO:.2f})")  # fmt: skip
    above = [c for c in sorted(mu) if mu[c] >= fedlora]
    if r > fails or above:
        why = f"above {fails:.2f} at L_c = {worst}" if r > fails else f"not below FedLoRA at L_c = {above[0]}"
        return Finding(verdict="does not reproduce", sentence=f"{said}: {why}")
    if r <= reproduces:
        return Finding(verdict="reproduces", sentence=f"{said}: at most {reproduces:.2f} at every cut")
    return Finding(verdict="inconclusive", sentence=f"{said}: between {reproduces:.2f} and {fails:.2f} at L_c = "
                   f"{worst}")  # fmt: skip


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """The peaks of every update in each precision (``llm_memory.measure_all``, on the meta device) and
    :func:`memory_finding` on MU-SplitFed regenerated in place (:data:`JUDGED`; the trainer's ratios added to the
    sentence) at the judged cuts (:data:`JUDGED_CUTS` present in the
    scale; all its cuts otherwise), combined over the precisions. ``rows``: none (no trainer run)."""
    # torch only here: `sfltheory reproduce --list` and `figs --list` read this module without it
    from .llm_memory import DTYPES as TORCH_DTYPES
    from .llm_memory import SHAPES as SHAPE_OF
    from .llm_memory import measure_all

    shape = SHAPE_OF[scale.grid["shape"][0]]
    cuts = tuple(int(c) for c in scale.grid["cut"])
    judged = tuple(c for c in cuts if c in JUDGED_CUTS) or cuts
    found, peaks = [], {}
    for name in scale.grid["dtype"]:
        m = measure_all(shape, seq=int(scale.grid["seq"][0]), batch=scale.batch, cuts=cuts, dtype=TORCH_DTYPES[name])
        peaks[name] = m
        f = memory_finding(float(m["fedavg"]), float(m["fedlora"]), {c: float(m[JUDGED][c]) for c in judged},
                           where=name)  # fmt: skip
        trainer = ", ".join(f"{m['mu_trainer'][c] / m['fedavg']:.2f}" for c in judged)
        found.append(Finding(verdict=f.verdict, sentence=f"{f.sentence} (the trainer's, direction and estimate "
                             f"stored: {trainer})"))  # fmt: skip
    gb = {n: {u: (round(m[u] / 1e9, 4) if isinstance(m[u], int) else {str(c): round(v / 1e9, 4)
                                                                        for c, v in m[u].items()})
              for u in UPDATES} for n, m in peaks.items()}  # fmt: skip
    ratio = {n: {u: {str(c): round(v / m["fedavg"], 4) for c, v in m[u].items()}
                 for u in ("mu_trainer", "mu_regenerated")} for n, m in peaks.items()}  # fmt: skip
    near = min(peaks, key=lambda n: abs(peaks[n]["fedavg"] / 1e9 - PAPER_GB["fedavg"]))
    numbers = {"peak_gb": gb, "ratio_to_fedavg": ratio, "paper_gb": PAPER_GB, "paper_ratio": round(PAPER_RATIO, 4),
               "judged_cuts": list(judged), "nearest_precision": near,
               "parameters": peaks[next(iter(peaks))]["parameters"],
               "lora_parameters": peaks[next(iter(peaks))]["lora_parameters"],
               "client_parameters": {str(c): v for c, v in peaks[next(iter(peaks))]["client_parameters"].items()},
               "thresholds": {"reproduces": RATIO_REPRODUCES, "fails": RATIO_FAILS}}  # fmt: skip
    return combine(found), numbers


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """One panel per precision: bars of the client's peak GB -- FedAvg, FedLoRA, then MU-SplitFed per cut (the
    trainer's, solid; regenerated in place, hatched) -- the paper's 8.02 / 5.64 / 1.05 GB as dashed lines and
    each MU-SplitFed bar labelled with its ratio to FedAvg; verdict above, numbers and substitution below."""
    gb = numbers["peak_gb"]
    with style() as plt:
        fig, axes = plt.subplots(1, len(gb), figsize=(7.6 * len(gb), 4.6), squeeze=False)
        for ax, name in zip(axes[0], gb, strict=True):
            g = gb[name]
            cuts = list(g["mu_trainer"])
            ax.bar(0, g["fedavg"], color=PALETTE[0], label=LABELS["fedavg"])
            ax.bar(1, g["fedlora"], color=PALETTE[1], label=LABELS["fedlora"])
            for j, c in enumerate(cuts):
                x = 2 + j
                for k, (u, off) in enumerate((("mu_trainer", -0.2), ("mu_regenerated", 0.2))):
                    ax.bar(x + off, g[u][c], 0.4, color=PALETTE[2 + k], hatch="//" if k else None,
                           label=LABELS[u] if j == 0 else None)  # fmt: skip
                for u, off in (("mu_trainer", -0.2), ("mu_regenerated", 0.2)):
                    ax.annotate(f"{numbers['ratio_to_fedavg'][name][u][c]:.2f}", (x + off, g[u][c]), ha="center",
                                va="bottom", fontsize=7)  # fmt: skip
            for x, v in ((0, g["fedavg"]), (1, g["fedlora"])):
                ax.annotate(f"{v:.2f}", (x, v), ha="center", va="bottom", fontsize=7)
            for u, ls in (("fedavg", "--"), ("fedlora", "-."), ("mu_splitfed", ":")):
                ax.axhline(PAPER_GB[u], color="0.35", ls=ls, lw=1, label=f"paper, {NAMES[u]}: {PAPER_GB[u]} GB")
            ax.set_xticks(range(2 + len(cuts)), ["FedAvg", "FedLoRA", *(f"MU L_c={c}" for c in cuts)],
                          fontsize=8)  # fmt: skip
            ax.set_ylabel("client peak memory (GB = 1e9 bytes)")
            ax.set_title(f"{name}: numbers over MU bars = ratio to FedAvg", loc="left", fontsize=9)
            top = max(float(g["fedavg"]), PAPER_GB["fedavg"], *(float(v) for v in g["mu_trainer"].values()))
            ax.set_ylim(0, 1.6 * top)  # head room for the legend above the bars and the paper's lines
            ax.legend(loc="upper right", fontsize=6)
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        footnote(fig, f"{finding.sentence}.\nPaper (line 228, Fig. 4, OPT-1.3B on SST-2): 'FedAvg incurs a peak memory "
                 "cost of 8.02 GB', FedLoRA 'reduces this to 5.64 GB', 'MU-SplitFed reduces the peak client-side "
                 f"memory footprint to just 1.05 GB' (ratio {PAPER_RATIO:.2f}). Rule: MU-SplitFed regenerated in "
                 f"place over FedAvg at most {RATIO_REPRODUCES} at every cut {numbers['judged_cuts']} and below "
                 f"FedLoRA reproduces, above {RATIO_FAILS} (or not below FedLoRA) does not. Precision nearest 8.02 GB: "
                 f"{numbers['nearest_precision']}. Scale '{scale.name}': {scale.substitution}.", width=170)  # fmt: skip
    return fig


EXPERIMENT = Experiment(
    id="mu_splitfed/fig4",
    paper="mu_splitfed",
    seed=SEED,
    location="Fig. 4 (Sec. 5, Memory Efficiency)",
    lines=(224, 228),
    claim="Fine-tuning OPT-1.3B on SST-2, MU-SplitFed's client peak memory (1.05 GB) is a small fraction of FedAvg's "
    "(8.02 GB) and below FedLoRA's (5.64 GB): a partial model and zeroth-order updates store no gradients.",
    quotes=(
        Quote(
            line=224,
            text="Comparison of peak memory cost for different methods for fine-tuning LLM",
            what="Fig. 4's caption",
        ),
        Quote(line=228, text="FedAvg incurs a peak memory cost of 8.02 GB on the client", what="FedAvg's peak"),
        Quote(line=228, text="reduces this to 5.64 GB", what="FedLoRA's peak"),
        Quote(line=228, text="reduces the peak client-side memory footprint to just 1.05 GB", what="MU-SplitFed's"),
        Quote(line=228, text="eliminates the need to store gradient information", what="the reason given"),
        Quote(line=207, text="which has 2424 transformer blocks", what="OPT-1.3B's depth"),
        Quote(line=910, text="using OPT-1.3B on the SST-2 dataset", what="App. E's split-layer study"),
    ),
    algorithms=("mu_splitfed",),
    settings="OPT-1.3B fine-tuned on SST-2; client peak memory of FedAvg, FedLoRA and MU-SplitFed (cut, precision, "
    "sequence length and batch not stated)",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
)

__all__ = ["DTYPES", "EXPERIMENT", "JUDGED", "JUDGED_CUTS", "LABELS", "LORA_RANK", "NAMES", "PAPER_GB", "PAPER_RATIO",
           "RATIO_FAILS", "RATIO_REPRODUCES", "SCALES", "SEED", "SHAPES", "UPDATES", "draw", "judge", "memory_finding",
           "plan"]  # fmt: skip
