"""``out/README.md``: one page that says what each file of the main job is and what it shows, and the settings the
job ran with.

Each file the job wrote is matched to one entry of :data:`ENTRIES` (a glob relative to the output folder); the page
lists the entries that matched, in their order, with the number of files where a glob stands for several. A file
no entry matches is listed under "other files", so the page never leaves one out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class Entry:
    """A file (or a glob of files) of the output folder: what it is and what it shows."""

    pattern: str
    what: str
    shows: str


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The settings the job ran with (stated on the page, so a reader knows what the numbers are of)."""

    measure_every: int
    train_T: int
    verify_T: int
    seeds: int
    model_seeds: int
    eval_samples: int
    pipeline: bool


ENTRIES: tuple[Entry, ...] = (
    Entry(pattern="README.md", what="this page", shows="what each file is and the settings the job ran with"),
    Entry(pattern="CATALOGUE.md", what="the catalogue of results (generated from the code; = docs/CATALOGUE.md)",
          shows="every encoded result per paper: its kind, rate, assumptions and where it is printed"),
    Entry(pattern="ERRATA.md", what="the errata (= docs/ERRATA.md)",
          shows="where the papers do not hold together: the symbolic audit's findings, then those recorded by "
          "reading"),
    Entry(pattern="VOCABULARY.md", what="the canonical vocabulary",
          shows="each constant: its symbol, meaning, domain, dimension and each paper's notation"),
    Entry(pattern="example.json", what="MU-SplitFed Theorem 4.3 on an AlexNet-sized split (d = 5.7e7, 10 clients)",
          shows="each edition's largest admissible step, what binds it, and the bound there"),
    Entry(pattern="cuts_resnet18.json", what="the cuts of ResNet-18 (CIFAR-10)",
          shows="per cut: d_c, d_s, the activation sent, the client's share of the FLOPs"),
    Entry(pattern="plan_resnet18.json", what="the plan of tau and the cut for ResNet-18 under Theorem 4.3",
          shows="the bound per cut and tau = 1..1000 (illustrative constants L = 1, F = 2.3), the best choice, "
          "Corollary 4.4's rule"),
    Entry(pattern="plan_resnet18.txt", what="the same plan as text", shows="the best cut and tau per cut"),
    Entry(pattern="plan_resnet18.png", what="the same plan as a figure",
          shows="the bound against tau, one line per cut"),
    Entry(pattern="constants_digits_cnn.json", what="constants measured on the FedAvg CNN / digits at initialisation",
          shows="L, L[clients] (each client's own smoothness, which Theorem 4.3 needs), sigma2 per part, eps2, F, "
          "with standard errors and methods"),
    Entry(pattern="thm43_digits_cnn.txt", what="Theorem 4.3 evaluated with those measured constants",
          shows="which measured value stands for each constant, the largest admissible step, the bound's terms"),
    Entry(pattern="plan_digits.json", what="the plan for digits with the measured constants",
          shows="the cut and tau minimising Theorem 4.3's bound, and its largest admissible step"),
    Entry(pattern="train_digits.png", what="training on digits at the planned cut and tau",
          shows="the squared gradient norm and the training loss per round: MU-SplitFed, SL and FedAvg; the title "
          "names the cut, tau and the steps"),
    Entry(pattern="runs/*/run.json", what="each training run (one folder per algorithm)",
          shows="per round: the squared gradient norm, loss, test accuracy, bytes, simulated time; the configuration"),
    Entry(pattern="runs/*/state.pt", what="each run's checkpoint", shows="nothing to read: a rerun resumes from it"),
    Entry(pattern="pipeline.txt", what="the plan-train-verify loop in one page",
          shows="the plan, the final numbers of each run, each result's verdict"),
    Entry(pattern="verify/report.html", what="the verification report (open in a browser; works offline)",
          shows="per result: its statement, the problem, the constants, the verdict per step and the figure"),
    Entry(pattern="verify/report.md", what="the same report as Markdown", shows="as report.html, figures linked"),
    Entry(pattern="verify/report.json", what="the same report as JSON", shows="every number of the report"),
    Entry(pattern="verify/*.png", what="one figure per verified result",
          shows="the measured left-hand side (solid) against the predicted bound (dashed), against T"),
    Entry(pattern="verify/cache/*.json", what="the cached verifications",
          shows="nothing to read: a rerun with the same settings reuses them (delete the folder to recompute)"),
)  # fmt: skip


def entry_for(rel: str) -> Entry | None:
    """The entry a file (relative to the output folder, with ``/``) belongs to; ``None`` when none."""
    return next((e for e in ENTRIES if fnmatch(rel, e.pattern) and rel.count("/") == e.pattern.count("/")), None)


def settings_text(s: Settings) -> list[str]:
    """The settings paragraph: what each number of the output is measured at."""
    out = [
        f"- Constants: measured on 1 image in {s.measure_every} of scikit-learn's digits (real data), FedAvg CNN cut "
        "after `conv2`, 4 clients (Dirichlet 0.5 label skew), at initialisation; Lanczos tolerance 1e-2.",
    ]
    if s.pipeline:
        out += [
            f"- Training: {s.train_T} rounds of each algorithm, mini-batch 32; the recorded squared gradient norm "
            f"and loss are on a fixed {s.eval_samples} training samples per client (the same every round), the "
            "test accuracy on the 20% holdout.",
            f"- Verification: {s.verify_T} rounds per run; first-order results on exact quadratics are exact "
            f"moments (no seeds); zeroth-order ones are Monte Carlo over {s.seeds} seeds (the mean, with an "
            "interval that holds simultaneously over every T at 95% confidence); bounded-gradient results run on "
            f"an MLP on digits, {s.model_seeds} seeds.",
        ]
    out.append(
        "- These are set to finish in about three minutes on two CPU cores; the `sfltheory verify` and "
        '`sfltheory measure` commands take larger ones (README: "Measured against predicted").'
    )
    return out


def readme(out_dir: Path, written: Sequence[Path], settings: Settings) -> str:
    """The page for the files ``written`` into ``out_dir`` (the page itself is listed whether or not it is in
    ``written``)."""
    rels = sorted({p.relative_to(out_dir).as_posix() for p in written} | {"README.md"})
    groups: dict[str, list[str]] = {}
    other: list[str] = []
    for rel in rels:
        e = entry_for(rel)
        if e is None:
            other.append(rel)
        else:
            groups.setdefault(e.pattern, []).append(rel)
    lines = [
        "# The main job's output",
        "",
        "Written by `bash scripts/main.sh` (`python -m verify.pipeline.main OUT`). Start with `verify/report.html` "
        "(measured against predicted, per result) and `pipeline.txt` (the plan, the runs, the verdicts).",
        "",
        "| file | what it is | what it shows |",
        "|---|---|---|",
    ]
    for e in ENTRIES:
        if e.pattern in groups:
            n = len(groups[e.pattern])
            name = f"`{e.pattern}`" + (f" ({n} files)" if n > 1 else "")
            lines.append(f"| {name} | {e.what} | {e.shows} |")
    lines += [f"| `{rel}` | other file | - |" for rel in other]
    lines += ["", "## Settings", "", *settings_text(settings), ""]
    return "\n".join(lines)


__all__ = ["ENTRIES", "Entry", "Settings", "entry_for", "readme", "settings_text"]
