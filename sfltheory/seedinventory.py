"""Every figure and table of the five seeds, and what regenerates each: ``docs/SEEDS.md``.

Issue 25 asks for every table and figure of the seeds regenerated: the theory ones from the encodings
(``sfltheory tables``, ``sfltheory figs seed_*``), the experiments by the trainer (``sfltheory reproduce``). This is
the explicit list, caption by caption (the seed line of each ``Figure N:`` / ``Table N:`` caption; a test finds
every caption in the seed files and checks that it is here), each with what makes it (the names of
``sfltheory figs --list``: a seed theory table or figure, or a reproduced experiment's id) or why nothing does
(a diagram, a notation table, an experiment the trainer does not cover). The package cannot import the torch half,
so the experiments are named here by id; a test of the torch half checks that each is registered.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("experiment", "theory", "diagram", "notation", "settings")
STATUSES = ("regenerated", "in part", "not regenerated", "not a result")
SEEDS = {
    "mu_splitfed": "000_0fb66116fc20c956.txt",
    "heron_sfl": "001_e8dcbf2a405221d7.txt",
    "sl_noniid": "002_56e5daea794305d7.txt",
    "cut_layer": "003_60e24e21677c19f3.txt",
    "sfl_aux": "004_1446912755864da9.txt",
}


@dataclass(frozen=True, kw_only=True)
class Item:
    """One figure or table of a seed: the paper's key, its ``label`` as the caption starts (``Figure 2``,
    ``Table 4``, ``TABLE II``) on seed line ``line`` (1-based), its kind (one of :data:`KINDS`), what it holds in a
    few words, the gallery names that regenerate it (``made_by``) and, when nothing regenerates it or only in part,
    ``note`` saying why or what is missing."""

    paper: str
    label: str
    line: int
    kind: str
    holds: str
    made_by: tuple[str, ...] = ()
    note: str = ""

    @property
    def status(self) -> str:
        """One of :data:`STATUSES`: ``regenerated``, ``in part`` (made, with a note on what is missing), ``not
        regenerated`` (a result nothing makes) or ``not a result`` (a diagram, notation or settings table)."""
        if not self.made_by:
            return "not a result" if self.kind in ("diagram", "notation", "settings") else "not regenerated"
        return "in part" if self.note else "regenerated"


ONE_DATA = "one data set (Fashion-MNIST at the paper scale, digits at the small) for the paper's three"
LLM = "language-model fine-tuning (OPT / GPT-2 with LoRA) is not in the trainer"
INVENTORY: tuple[Item, ...] = (
    Item(paper="mu_splitfed", label="Figure 1", line=63, kind="diagram", holds="overview of MU-SplitFed"),
    Item(paper="mu_splitfed", label="Table 1", line=198, kind="experiment", holds="accuracy for tau = 1..4",
         made_by=("mu_splitfed/table1",)),
    Item(paper="mu_splitfed", label="Figure 2", line=214, kind="experiment",
         holds="accuracy against wall-clock time under stragglers", made_by=("mu_splitfed/fig2",)),
    Item(paper="mu_splitfed", label="Figure 3", line=219, kind="experiment",
         holds="rounds to 85 % against tau and the cut layer (OPT-1.3B)", made_by=("mu_splitfed/fig3",)),
    Item(paper="mu_splitfed", label="Figure 4", line=224, kind="experiment",
         holds="client peak memory of FedAvg, FedLoRA and MU-SplitFed (OPT-1.3B)", made_by=("mu_splitfed/fig4",)),
    Item(paper="mu_splitfed", label="Table 2", line=306, kind="theory", holds="communication complexity",
         made_by=("mu_table2", "seed_mu_table2")),
    Item(paper="mu_splitfed", label="Table 3", line=326, kind="notation", holds="notations"),
    Item(paper="mu_splitfed", label="Table 4", line=916, kind="experiment",
         holds="rounds to 85 % for 5 cuts x tau = 1..6 (MU-Split)", made_by=("mu_splitfed/fig3",)),
    Item(paper="mu_splitfed", label="Table 5", line=923, kind="experiment",
         holds="final accuracy for 5 cuts x tau = 1..6 (MU-Split)", made_by=("mu_splitfed/fig3",)),
    Item(paper="mu_splitfed", label="Table 6", line=933, kind="settings",
         holds="hyper-parameters (the trainer's defaults for mu_splitfed)"),
    Item(paper="heron_sfl", label="Figure 1", line=80, kind="diagram", holds="the HERON-SFL algorithm"),
    Item(paper="heron_sfl", label="TABLE I", line=171, kind="theory",
         holds="client-side resource costs per local update", made_by=("heron_table1",)),
    Item(paper="heron_sfl", label="Figure 2", line=212, kind="experiment",
         holds="accuracy against rounds, IID and non-IID", made_by=("heron_sfl/fig2",)),
    Item(paper="heron_sfl", label="TABLE II", line=218, kind="experiment",
         holds="client communication, peak memory and FLOPs (ResNet-18)", made_by=("heron_sfl/table2",)),
    Item(paper="heron_sfl", label="Figure 3", line=236, kind="experiment",
         holds="accuracy against Dirichlet alpha, the number of clients, participation",
         made_by=("heron_sfl/fig3",)),
    Item(paper="heron_sfl", label="Figure 4", line=256, kind="experiment",
         holds="accuracy against the ZO radius mu, the perturbations, the client size", made_by=("heron_sfl/fig4",)),
    Item(paper="heron_sfl", label="Figure 5", line=267, kind="experiment",
         holds="GPT-2 perplexity against communication", note=LLM),
    Item(paper="heron_sfl", label="TABLE III", line=268, kind="experiment",
         holds="client peak memory and FLOPs (GPT-2 Medium)", note=LLM),
    Item(paper="heron_sfl", label="Figure 6", line=284, kind="experiment",
         holds="GPT-2 Medium: final loss against the auxiliary model's size", note=LLM),
    Item(paper="heron_sfl", label="Figure 7", line=606, kind="experiment",
         holds="Hessian eigenvalue spectrum of a custom ResNet (the low effective rank assumed)",
         made_by=("heron_sfl/fig7",)),
    Item(paper="sl_noniid", label="Figure 1", line=19, kind="theory",
         holds="one round of FL and SL, 2 clients, 2 steps, IID and non-IID", made_by=("seed_sl_fig1",)),
    Item(paper="sl_noniid", label="Table 1", line=154, kind="theory", holds="FL against SL bounds and R_eps",
         made_by=("sl_table1",)),
    Item(paper="sl_noniid", label="Figure 2", line=187, kind="experiment",
         holds="SL on MNIST: heterogeneity, K, eta_g x eta_l", made_by=("sl_noniid/fig2",)),
    Item(paper="sl_noniid", label="Figure 3", line=211, kind="experiment",
         holds="FL and SL accuracy against rounds on non-IID data", made_by=("sl_noniid/table2",),
         note="Table 2's runs; its figure draws the accuracy at half and at the end of the rounds, not each round"),
    Item(paper="sl_noniid", label="Table 2", line=213, kind="experiment",
         holds="FL against SL, IID and non-IID, E = 1 and 10", made_by=("sl_noniid/table2",)),
    Item(paper="sl_noniid", label="Table 3", line=350, kind="notation", holds="notations"),
    Item(paper="sl_noniid", label="Figure 4", line=361, kind="diagram", holds="the two modes of SL"),
    Item(paper="sl_noniid", label="Table 4", line=363, kind="theory", holds="communication cost of FL and SL",
         made_by=("sl_table4", "seed_sl_table4")),
    Item(paper="sl_noniid", label="Table 5", line=379, kind="settings",
         holds="update rules of minibatch SGD, FL and SL (the trainer's fedavg and sl)", made_by=("seed_sl_fig1",)),
    Item(paper="sl_noniid", label="Table 6", line=390, kind="theory", holds="summary of the SL theories",
         made_by=("sl_table6",)),
    Item(paper="sl_noniid", label="Figure 5", line=756, kind="experiment", holds="effect of heterogeneity (3 data)",
         made_by=("sl_noniid/fig2",), note=ONE_DATA),
    Item(paper="sl_noniid", label="Figure 6", line=762, kind="experiment", holds="effect of K (3 data)",
         made_by=("sl_noniid/fig2",), note=ONE_DATA),
    Item(paper="sl_noniid", label="Figure 7", line=772, kind="experiment", holds="eta_g x eta_l grid (3 data)",
         made_by=("sl_noniid/fig2",), note=ONE_DATA),
    Item(paper="sl_noniid", label="Table 7", line=774, kind="experiment", holds="FL and SL per learning rate, MNIST",
         made_by=("sl_noniid/tables7-9",),
         note="MNIST is not a data set of the trainer: Table 8's setting (Fashion-MNIST) stands for it"),
    Item(paper="sl_noniid", label="Table 8", line=793, kind="experiment",
         holds="FL and SL per learning rate, Fashion-MNIST", made_by=("sl_noniid/tables7-9",)),
    Item(paper="sl_noniid", label="Table 9", line=812, kind="experiment",
         holds="FL and SL per learning rate, CIFAR-10", made_by=("sl_noniid/tables7-9",),
         note="VGG-11 on CIFAR-10 is not among the experiment's scales: Table 8's setting stands for it"),
    Item(paper="cut_layer", label="Figure 1", line=17, kind="diagram", holds="distributed learning architectures"),
    Item(paper="cut_layer", label="Table 1", line=151, kind="settings",
         holds="data sets, models, clients, rounds (cut_layer/tables3-4's paper scale)"),
    Item(paper="cut_layer", label="Table 2", line=157, kind="settings",
         holds="training hyper-parameters (cut_layer/tables3-4's paper scale)"),
    Item(paper="cut_layer", label="Table 3", line=173, kind="experiment", holds="accuracy against the cut, IID",
         made_by=("cut_layer/tables3-4",)),
    Item(paper="cut_layer", label="Table 4", line=185, kind="experiment",
         holds="accuracy against the cut, non-IID", made_by=("cut_layer/tables3-4",)),
    Item(paper="sfl_aux", label="Figure 1", line=162, kind="diagram", holds="the CSE-FSL pipeline"),
)  # fmt: skip
# the theory passages with no caption of their own that the seeds discuss and the package draws or tabulates
PASSAGES: tuple[Item, ...] = (
    Item(paper="mu_splitfed", label="footnote 3", line=0, kind="theory", holds="rounds to accuracy eps",
         made_by=("mu_fn3", "seed_mu_table2")),
    Item(paper="heron_sfl", label="Remark 2", line=0, kind="theory", holds="T_eps against d, h, N, B",
         made_by=("heron_remark2", "seed_heron_remark2")),
    Item(paper="sl_noniid", label="Sec. 4.2", line=0, kind="theory", holds="an optimal K exists; the effect of eta_g",
         made_by=("seed_sl_K_eta_g",)),
    Item(paper="sfl_aux", label="Theorems 1 and 3", line=0, kind="theory", holds="the bound against the window l",
         made_by=("seed_sfl_aux_window",)),
)  # fmt: skip


def markdown() -> str:
    """``docs/SEEDS.md``: a table per seed (caption, line, kind, what it holds, what makes it or why not), then the
    counts."""
    out = [
        "# The seeds' figures and tables, and what regenerates each",
        "",
        "Generated from `sfltheory/seedinventory.py` by `python -m sfltheory.mainjob --docs docs`; do not edit by "
        "hand. *Made by* names an entry of `sfltheory figs --list`: a seed theory table (`sfltheory tables NAME`), "
        "a seed theory figure (`sfltheory figs NAME`) or a reproduced experiment (`sfltheory reproduce ID`). An "
        "experiment is *regenerated* when it is re-run at a scale this CPU affords, with the substitutions its "
        "caption states, and at the paper's own setting for a GPU (`--scale paper`); *in part* when part of what "
        "the paper shows is not made, said in the note.",
    ]
    for key, seed in SEEDS.items():
        out += ["", f"## `{key}` (seed `{seed}`)", "", "| item | line | kind | holds | made by | status |",
                "|---|---|---|---|---|---|"]  # fmt: skip
        for it in (*(i for i in INVENTORY if i.paper == key), *(i for i in PASSAGES if i.paper == key)):
            made = ", ".join(f"`{m}`" for m in it.made_by) or "-"
            status = it.status + (f": {it.note}" if it.note else "")
            out.append(f"| {it.label} | {it.line or '-'} | {it.kind} | {it.holds} | {made} | {status} |")
    figures = [i for i in INVENTORY if i.label.lower().startswith("figure")]
    tables = [i for i in INVENTORY if not i.label.lower().startswith("figure")]
    out += ["", "## Counts", "", "| | captions | " + " | ".join(STATUSES) + " |", "|---|---|---|---|---|---|"]
    for name, group in (("figures", figures), ("tables", tables)):
        counts = [sum(i.status == s for i in group) for s in STATUSES]
        out.append(f"| {name} | {len(group)} | " + " | ".join(str(c) for c in counts) + " |")
    for kind in ("experiment", "theory"):
        group = [i for i in INVENTORY if i.kind == kind]
        left = [f"{i.paper} {i.label}" for i in group if not i.made_by]
        out.append("")
        out.append(f"Of the {len(group)} {kind} captions, {len(group) - len(left)} are made by the package"
                   + (f"; not: {', '.join(left)}." if left else "."))  # fmt: skip
    return "\n".join(out) + "\n"


__all__ = ["INVENTORY", "KINDS", "PASSAGES", "SEEDS", "STATUSES", "Item", "markdown"]
