r"""HERON-SFL Fig. 4: HERON-SFL's test accuracy against its zeroth-order hyper-parameters, two client sizes.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning" (seed ``001_e8dcbf2a405221d7.txt``): Sec. VI-A (line 203: ResNet-18 on
CIFAR-10, batch 256, Adam lr 1e-4), Fig. 4's caption (line 256: "IID setting with ten clients", a single linear
auxiliary head, "Client Size 1" = the first convolutional layer and one residual block on the client, "Client Size
2" = three residual blocks; left: the perturbation step length mu, right: the perturbation count) and Sec. VI-B6
(line 258): "stable performance across a wide range of zeroth-order hyperparameters", "using only two perturbations
per epoch is sufficient to ensure reliable convergence", "Client Size 1 consistently achieves higher accuracy than
Client Size 2". The figure prints curves only: no number to quote, so the rules state their own tolerances.

Parameters (the trainer's ``heron_sfl``): mu is ``lam`` (the smoothing radius of estimator (2)); the paper's
"perturbations per epoch" are ``P``, the directions averaged per estimate at every local step (docs/ALGORITHMS.md
records this reading: the trainer has no per-epoch count). The left panel varies ``lam`` at P = 2 (the count the
paper calls sufficient), the right panel varies ``P`` at lam = 1e-3 (the trainer's default and Fig. 2's); the cell
P = 2, lam = 1e-3 is in both (run once: the sweep keys runs by their configuration). Client sizes: an MLP
64-32-32-10 (:func:`digits_mlp_deep`) cut after ``fc1`` (size 1: 2,080 client parameters) or after ``fc2`` (size 2:
3,136), the auxiliary head one linear layer from the cut (as line 256); at the paper scale ResNet-18 cut after
``layer1.0`` and ``layer2.0`` (:func:`verify.models.zoo.resnet18` names these the paper's two sizes).

Step sizes: Fig. 2's (:mod:`verify.reproduce.heron_sfl_fig2`), SGD 0.1 on client and server, checked for the deeper
model by a probe on seed 0 (10 IID clients, 200 rounds, lam = 1e-3): ``eta_c`` 0.03 / 0.1 gave size 1: 89.1 / 91.9 %
(P = 2), 86.9 / 90.5 % (P = 10); size 2: 66.9 / 79.9 % (P = 2), 69.1 / 88.0 % (P = 10) -- 0.1 is the better of the
two for both sizes, and size 2 is still rising at 200 rounds (the comparison is at equal rounds, as the figure's).

What the small scale found (3 seeds, step 0.1): size 2 collapses at P <= 2 in some seeds (final accuracy 3.9 or
10.0 %: 1 of 3 runs at mu = 1e-3, 2 at 1e-2, 3 at 1e-1; 2 of 3 at P = 1), never at P = 5 or 10, and size 1 never.
A probe made after it (size 2, P = 2, seeds 0-2, 200 rounds) with a smaller client step: ``eta_c`` = 0.05 gave
78.0 / 69.1 / 69.9 % at mu = 1e-3 and 77.7 / 68.8 / 70.8 % at mu = 1e-1, ``eta_c`` = 0.03 66.9 / 55.4 / 57.1 % and
66.3 / 55.2 / 58.8 % -- no collapse, and no dependence on mu. So the verdict is about step 0.1, the step of Fig. 2
and Fig. 3 chosen before these runs: there the zeroth-order variance (which grows with d / P) of the larger client at
two perturbations is too large. The step is kept (not tuned until the claim reproduces); the caption says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sfltheory.plotting import PALETTE, footnote, style

from .experiment import Cell, Experiment, Finding, Quote, Scale
from .heron_sfl_fig2 import PAPER_SCALE, SEED, SMALL, TIE_POINTS
from .heron_sfl_fig3 import MAX_TOLERANCE, spread_finding
from .verdicts import COMBINED, combine, mean_se

if TYPE_CHECKING:
    from torch import nn

# the cut -> the paper's "Client Size": the digits MLP's (small) and ResNet-18's (paper scale, line 256)
SIZES = {"fc1": 1, "fc2": 2, "layer1.0": 1, "layer2.0": 2}
PANELS = {"lam": "(left) smoothing radius mu (lam), P = {P}", "P": "(right) perturbations P, mu = {lam:g}"}


def digits_mlp_deep() -> nn.Module:
    """An MLP 64-32-32-10 for scikit-learn's digits (8x8 flattened): fc1 64*32+32 = 2,080, fc2 32*32+32 = 1,056,
    fc3 32*10+10 = 330 parameters (hand count, 3,466 in all); cut after ``fc1`` is Fig. 4's Client Size 1, after
    ``fc2`` its Client Size 2 (one more layer on the client)."""
    # imported here, not at module level: the registry imports this module for ``sfltheory reproduce --list``,
    # which stays free of torch; only a sweep worker building the model needs it
    from verify.models.zoo import mlp

    return mlp(in_features=64, hidden=(32, 32), num_classes=10)


def _scale(name: str, *, data: str, model: str, T: int, batch: int, seeds: tuple[int, ...], heron: Mapping[str, Any],
           lams: tuple[float, ...], Ps: tuple[int, ...], cuts: tuple[str, ...], clients: int,
           input_shape: tuple[int, ...] | None, substitution: str) -> Scale:  # fmt: skip
    """A scale of Fig. 4: ``grid`` holds the lam values (left), the P values (right) and the two cuts (sizes 1, 2);
    ``params["fixed"]`` the P of the left panel (2) and the lam of the right one (1e-3)."""
    return Scale(name=name, data=data, model=model, clients=clients, T=T, batch=batch, seeds=seeds,
                 params={"heron_sfl": heron, "fixed": {"P": 2, "lam": 1e-3}},
                 grid={"lam": lams, "P": Ps, "cut": cuts}, input_shape=input_shape, eval_samples=32 if T < 1000 else 64,
                 substitution=substitution)  # fmt: skip


# final test accuracy (%) at or below which a run has not learnt (10 classes: chance 10 %; within 10 points of it): it
# diverged or collapsed -- "reliable convergence" (line 258) fails, whatever the mean of the seeds
COLLAPSED_PCT = 20.0
DEEP = "verify.reproduce.heron_sfl_fig4:digits_mlp_deep"
SCALES: dict[str, Scale] = {
    "tiny": _scale("tiny", data="digits", model=DEEP, T=2, batch=8, seeds=(0,), heron=SMALL["heron_sfl"],
                   lams=(1e-3, 1e-2), Ps=(1, 2), cuts=("fc1", "fc2"), clients=2, input_shape=(64,),
                   substitution="tests only: 2 clients, 2 rounds; its verdict says nothing"),
    "small": _scale("small", data="digits", model=DEEP, T=200, batch=32, seeds=(0, 1, 2), heron=SMALL["heron_sfl"],
                    lams=(1e-4, 1e-3, 1e-2, 1e-1), Ps=(1, 2, 5, 10), cuts=("fc1", "fc2"), clients=10,
                    input_shape=(64,),
                    substitution="an MLP 64-32-32-10 on scikit-learn's digits cut after fc1 (size 1) or fc2 (size 2), "
                    "a linear head (not ResNet-18 on CIFAR-10 cut after one or three residual blocks); 10 IID "
                    "clients as the paper; 200 rounds of one step of batch 32 (not 256), 3 seeds; SGD step 0.1 on "
                    "client and server (probed, module docstring; not Adam lr 1e-4); P directions per local step for "
                    "'perturbations per epoch'; mu grid 1e-4 to 1e-1 at P = 2, P grid 1, 2, 5, 10 at mu = 1e-3 (the "
                    "paper prints neither grid); at step 0.05 size 2 with P = 2 did not collapse in a later probe (3 "
                    "seeds, 69-78 %, module docstring) (48 cells, 42 runs, 139 CPU-s measured, about 70 s with "
                    "--workers 2 on an idle 2-core CPU)"),
    "paper": _scale("paper", data="cifar10:root={root}", model="resnet18", T=1000, batch=256, seeds=(0,),
                    heron=PAPER_SCALE["heron_sfl"], lams=(1e-4, 1e-3, 1e-2, 1e-1), Ps=(1, 2, 5, 10),
                    cuts=("layer1.0", "layer2.0"), clients=10, input_shape=None,
                    substitution="ResNet-18 on CIFAR-10, 10 IID clients, batch 256; size 1 cut after layer1.0, size "
                    "2 after layer2.0 (three residual blocks), as line 256; SGD for Adam lr 1e-4, eta_c = 1e-3 (not "
                    "probed); 1000 rounds; mu and P grids as the small scale; one seed"),
}  # fmt: skip


def size_of(cut: str) -> int:
    """The paper's Client Size of a cut (:data:`SIZES`; 0 for a cut that is neither)."""
    return SIZES.get(cut, 0)


def plan(scale: Scale, device: str) -> tuple[Cell, ...]:
    """Left panel: each lam at the fixed P; right panel: each P at the fixed lam; each at both cuts and every seed,
    10 IID clients, HERON-SFL only (the figure is its ablation)."""
    fixed = scale.params["fixed"]
    settings = [("lam", v, {"lam": v, "P": fixed["P"]}) for v in scale.grid["lam"]]
    settings += [("P", v, {"lam": fixed["lam"], "P": v}) for v in scale.grid["P"]]
    cells = []
    for panel, x, zo in settings:
        for cut in scale.grid["cut"]:
            for seed in scale.seeds:
                params: dict[str, Any] = {
                    "algorithm": "heron_sfl", "model": scale.model, "data": scale.data, "cut": cut,
                    "clients": scale.clients, "partition": "iid", "T": scale.T, "batch": scale.batch, "seed": seed,
                    "record_every": scale.T, "device": device, "eval_samples": scale.eval_samples,
                    **scale.params["heron_sfl"], **zo,
                }  # fmt: skip
                params.update(scale.data_params())
                labels = {"panel": panel, "x": x, "algorithm": "heron_sfl", "cut": cut, "size": size_of(cut),
                          "lam": zo["lam"], "P": zo["P"], "seed": seed}  # fmt: skip
                cells.append(Cell(labels=labels, params=params))
    return tuple(cells)


def stable_finding(acc: Mapping[float, float], *, noise: float = 0.0, where: str = "", tie: float = TIE_POINTS,
                   collapsed: Mapping[float, int] | None = None) -> Finding:  # fmt: skip
    """Line 258's "stable performance across a wide range" of mu, at one client size (``where``): the mean final
    accuracy (%) per lam ``acc``, ``noise`` the largest standard error of one mean, ``collapsed`` the number of runs
    per lam that ended at or below :data:`COLLAPSED_PCT`. With ``t = max(tie, 2 sqrt(2) noise)`` and ``s`` the
    spread (largest minus smallest mean):

    * does not reproduce: runs collapsed at some lam but not at every one, or ``s > 2 t``;
    * reproduces: no run collapsed, ``s <= t`` and ``t <= MAX_TOLERANCE``;
    * inconclusive otherwise: runs collapsed at every lam, ``t < s <= 2 t``, seeds too far apart, fewer than two
      values, or an accuracy not finite.
    """
    if len(acc) < 2 or any(not math.isfinite(v) for v in acc.values()):
        return Finding(verdict="inconclusive", sentence=f"a run did not finish with a finite accuracy ({where})")
    bad = {k: n for k, n in (collapsed or {}).items() if n > 0}
    if bad:
        at = ", ".join(f"{n} at mu = {k:g}" for k, n in bad.items())
        said = f"{where}: runs ended at or below {COLLAPSED_PCT:g}% accuracy ({at})"
        if len(bad) == len(acc):
            return Finding(verdict="inconclusive", sentence=f"{said}: at every mu, nothing to compare")
        return Finding(verdict="does not reproduce", sentence=f"{said}, not at the other mu: not stable in mu")
    t = max(tie, COMBINED * noise)
    s = max(acc.values()) - min(acc.values())
    said = (f"{where}: {', '.join(f'{v:.1f}%' for v in acc.values())} at mu = {', '.join(f'{k:g}' for k in acc)}, "
            f"spread {s:.1f} points (tolerance {t:.1f})")  # fmt: skip
    return spread_finding(s, t, said, ok="stable in mu", bad="not stable in mu")


def two_enough_finding(acc: Mapping[int, float], *, noise: float = 0.0, where: str = "", tie: float = TIE_POINTS,
                       collapsed: Mapping[int, int] | None = None) -> Finding:  # fmt: skip
    """Line 258's "using only two perturbations per epoch is sufficient to ensure reliable convergence", at one
    client size (``where``): the mean final accuracy (%) per P ``acc`` (P = 2 among them), ``noise`` the larger
    standard error of P = 2's and the best P's means, ``collapsed`` the runs per P that ended at or below
    :data:`COLLAPSED_PCT`. One-sided: ``g`` = the best accuracy over P minus P = 2's;
    with ``t`` as :func:`stable_finding`'s:

    * does not reproduce: a run at P = 2 collapsed and none at the best P, or ``g > 2 t``;
    * reproduces: no run at P = 2 collapsed, ``g <= t`` and ``t <= MAX_TOLERANCE``;
    * inconclusive otherwise, without P = 2, or with an accuracy not finite.
    """
    if 2 not in acc or any(not math.isfinite(v) for v in acc.values()):
        return Finding(verdict="inconclusive", sentence=f"no finite accuracy at P = 2 or another P ({where})")
    t = max(tie, COMBINED * noise)
    best = max(acc, key=lambda k: acc[k])
    g = acc[best] - acc[2]
    n2, nb = (collapsed or {}).get(2, 0), (collapsed or {}).get(best, 0)
    if n2 > 0 and nb == 0:
        return Finding(verdict="does not reproduce",
                       sentence=f"{where}: {n2} run(s) at P = 2 ended at or below {COLLAPSED_PCT:g}% accuracy, none "
                       f"at the best P (= {best}, {acc[best]:.1f}%): two perturbations are not reliable")  # fmt: skip
    said = (f"{where}: P = 2 reaches {acc[2]:.1f}%, the best P (= {best}) {acc[best]:.1f}%, {g:.1f} points more "
            f"(tolerance {t:.1f})")  # fmt: skip
    if g > 2.0 * t:
        return Finding(verdict="does not reproduce", sentence=f"{said}: two perturbations are not enough")
    if g <= t <= MAX_TOLERANCE and n2 == 0:
        return Finding(verdict="reproduces", sentence=f"{said}: two perturbations suffice")
    if g <= t:
        return Finding(verdict="inconclusive", sentence=f"{said}: the seeds disagree by more than {MAX_TOLERANCE:g}, "
                       "or a run at P = 2 collapsed as at the best P")  # fmt: skip
    return Finding(verdict="inconclusive", sentence=f"{said}: behind by more than the tolerance, not clearly")


def size_finding(gap: Mapping[str, float], *, tie: float = TIE_POINTS, noise: float = 0.0) -> Finding:
    """Line 258's "Client Size 1 consistently achieves higher accuracy than Client Size 2": ``gap`` the mean final
    accuracy of size 1 minus size 2 (points) per setting (``"mu=0.001"``, ``"P=2"``). One-sided, a sign test with
    ``t`` as :func:`stable_finding`'s:

    * reproduces: every gap > 0 (all k settings; by chance, with no difference, at most 2^-k);
    * does not reproduce: some gap < -t (size 2 clearly better somewhere) or more than half the gaps < 0;
    * inconclusive otherwise, or with a gap not finite.
    """
    if not gap or any(not math.isfinite(v) for v in gap.values()):
        return Finding(verdict="inconclusive", sentence="a run did not finish with a finite accuracy (client sizes)")
    t = max(tie, COMBINED * noise)
    above = sum(1 for v in gap.values() if v > 0)
    below = sum(1 for v in gap.values() if v < 0)
    said = (f"size 1 above size 2 in {above} of {len(gap)} settings (gaps {min(gap.values()):+.1f} to "
            f"{max(gap.values()):+.1f} points, tolerance {t:.1f})")  # fmt: skip
    if min(gap.values()) < -t or below > len(gap) / 2:
        return Finding(verdict="does not reproduce", sentence=f"{said}: size 1 is not consistently higher")
    if above == len(gap):
        return Finding(verdict="reproduces", sentence=f"{said}: size 1 consistently higher")
    return Finding(verdict="inconclusive", sentence=f"{said}: not in every setting")


def _json(v: float) -> float | None:
    return round(v, 4) if math.isfinite(v) else None


def judge(scale: Scale, rows: tuple[Mapping[str, Any], ...]) -> tuple[Finding, dict[str, Any]]:
    """Per panel, value and size the mean final accuracy and standard error over seeds; per size
    :func:`stable_finding` (left panel) and :func:`two_enough_finding` (right panel); :func:`size_finding` on the
    gaps size 1 minus size 2 over every setting; all combined."""
    findings: list[Finding] = []
    numbers: dict[str, Any] = {"tie_points": TIE_POINTS, "fixed": dict(scale.params["fixed"])}
    stats: dict[tuple[str, Any, int], tuple[float, float]] = {}
    down: dict[tuple[str, Any, int], int] = {}  # runs at or below COLLAPSED_PCT
    for panel in PANELS:
        numbers[panel] = {}
        for x in scale.grid[panel]:
            numbers[panel][f"{x:g}"] = {}
            for cut in scale.grid["cut"]:
                size = size_of(cut)
                accs = [r.get("acc") for r in rows if r["panel"] == panel and r["x"] == x and r["cut"] == cut]
                ms = mean_se(accs)
                stats[(panel, x, size)] = ms
                down[(panel, x, size)] = sum(1 for a in accs if a is not None and a <= COLLAPSED_PCT)
                numbers[panel][f"{x:g}"][str(size)] = [_json(ms[0]), round(ms[1], 4)]
    sizes = [size_of(c) for c in scale.grid["cut"]]
    for size in sizes:
        lam = {x: stats[("lam", x, size)] for x in scale.grid["lam"]}
        findings.append(stable_finding({x: m for x, (m, _) in lam.items()}, noise=max(se for _, se in lam.values()),
                                       where=f"size {size}",
                                       collapsed={x: down[("lam", x, size)] for x in lam}))  # fmt: skip
        ps = {int(x): stats[("P", x, size)] for x in scale.grid["P"]}
        best = max(ps, key=lambda k: ps[k][0] if math.isfinite(ps[k][0]) else -math.inf)
        # the noise of the two means compared (P = 2 and the best P), not of every P
        findings.append(two_enough_finding({x: m for x, (m, _) in ps.items()},
                                           noise=max(ps[best][1], ps.get(2, (0.0, 0.0))[1]), where=f"size {size}",
                                           collapsed={int(x): down[("P", x, size)] for x in ps}))  # fmt: skip
    gaps = {f"{'mu' if p == 'lam' else p}={x:g}": stats[(p, x, 1)][0] - stats[(p, x, 2)][0]
            for p in PANELS for x in scale.grid[p]}  # fmt: skip
    numbers["size_gap"] = {k: _json(v) for k, v in gaps.items()}
    numbers["collapsed"] = {f"{p}={x:g}, size {z}": n for (p, x, z), n in down.items() if n}
    numbers["collapsed_pct"] = COLLAPSED_PCT
    findings.append(size_finding(gaps, noise=max(se for _, se in stats.values())))
    return combine(findings), numbers


def draw(exp: Experiment, scale: Scale, finding: Finding, numbers: Mapping[str, Any],
         rows: tuple[Mapping[str, Any], ...]) -> Any:  # fmt: skip
    """Fig. 4's two panels: the mean final accuracy over seeds (error bars: one standard error, dots: the seeds) of
    Client Size 1 and 2 against mu (left) and P (right), log axes; the verdict above, the claims in the caption."""
    fixed = numbers["fixed"]
    with style() as plt:
        fig, axes = plt.subplots(1, 2, figsize=(10.4, 3.9), sharey=True)
        for ax, panel in zip(axes, PANELS, strict=True):
            keys = list(numbers[panel])
            xs = [float(k) for k in keys]
            for i, size in enumerate((1, 2)):
                shift = 1.0 + 0.05 * (i - 0.5)  # side by side on the log axis
                m = [numbers[panel][k].get(str(size), [None, 0.0]) for k in keys]
                ok = [j for j, v in enumerate(m) if v[0] is not None]
                ax.errorbar([xs[j] * shift for j in ok], [m[j][0] for j in ok], yerr=[m[j][1] for j in ok],
                            color=PALETTE[i], marker="o", ms=4, lw=1.5, capsize=3,
                            label=f"Client Size {size}")  # fmt: skip
                for r in rows:
                    if r["panel"] == panel and r["size"] == size and r.get("acc") is not None:
                        ax.plot(float(r["x"]) * shift, r["acc"], ".", color=PALETTE[i], alpha=0.35)
            ax.axhline(COLLAPSED_PCT, color="0.5", ls=":", lw=1, label=f"collapsed: at or below {COLLAPSED_PCT:g}%")
            ax.set_xscale("log")
            ax.set_xticks(xs, [f"{x:g}" for x in xs])
            ax.minorticks_off()
            ax.set_xlabel("perturbation step length mu (lam)" if panel == "lam" else "perturbations P per local step")
            ax.set_title(PANELS[panel].format(**fixed), loc="left", fontsize=9)
            ax.legend(loc="lower right", fontsize=7)
        axes[0].set_ylabel("final test accuracy (%), mean +- s.e.")
        fig.suptitle(f"{exp.id}: {finding.verdict}", x=0.01, ha="left", fontsize=11, fontweight="bold")
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        footnote(fig, f"{finding.sentence}.\nPaper (Fig. 4, line 258; curves only, no numbers): 'stable performance "
                 "across a wide range of zeroth-order hyperparameters' (read as a spread over mu within t = max(3 "
                 "points, 2 combined s.e.), beyond 2t: does not reproduce), 'using only two perturbations per epoch "
                 "is sufficient' (P = 2 within t of the best P); a run ending at or below "
                 f"{COLLAPSED_PCT:g}% (chance 10%) collapsed: collapses at some mu but not all, or at P = 2 and not "
                 "the best P, do not reproduce; 'Client Size 1 consistently achieves higher "
                 "accuracy than Client Size 2' (size 1 above in every setting; size 2 above by more than t "
                 f"anywhere, or in most settings: does not reproduce). Scale '{scale.name}': {scale.substitution}.",
                 width=160)  # fmt: skip
    return fig


EXPERIMENT = Experiment(
    id="heron_sfl/fig4",
    paper="heron_sfl",
    seed=SEED,
    location="Fig. 4 (Sec. VI-B6, Effect of Hyperparameters of ZO)",
    lines=(256, 258),
    claim="HERON-SFL's accuracy is stable across the perturbation step mu and count, two perturbations suffice, and "
    "Client Size 1 is consistently more accurate than Client Size 2.",
    quotes=(
        Quote(line=256, text="under an IID setting with ten clients", what="Fig. 4's setting"),
        Quote(
            line=256,
            text="Client Size 1 denotes the first convolutional layer and one residual block on the client",
            what="Client Size 1",
        ),
        Quote(line=256, text="Client Size 2 places three residual blocks on the client", what="Client Size 2"),
        Quote(
            line=258,
            text="HERON-SFL exhibits stable performance across a wide range of zeroth-order hyperparameters",
            what="the claim on mu and P",
        ),
        Quote(
            line=258,
            text="using only two perturbations per epoch is sufficient to ensure reliable convergence",
            what="the claim on P",
        ),
        Quote(
            line=258,
            text="Client Size 1 consistently achieves higher accuracy than Client Size 2",
            what="the claim on the client size",
        ),
    ),
    algorithms=("heron_sfl",),
    settings="ResNet-18 on CIFAR-10, 10 IID clients, a single linear auxiliary head; Client Size 1 (conv1 and one "
    "residual block) and 2 (three blocks); test accuracy against mu (left) and perturbations per epoch (right)",
    scales=SCALES,
    plan=plan,
    judge=judge,
    draw=draw,
)

__all__ = ["COLLAPSED_PCT", "EXPERIMENT", "PANELS", "SCALES", "SIZES", "digits_mlp_deep", "draw", "judge", "plan",
           "size_finding", "size_of", "stable_finding", "two_enough_finding"]  # fmt: skip
