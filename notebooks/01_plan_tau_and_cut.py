# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Plan τ and the cut for your model
#
# MU-SplitFed's Theorem 4.3 bounds the average squared gradient norm after T rounds in terms of the number of
# server steps τ, the split (d_c parameters on the client, d_s on the server) and the step size η. For a real
# model the split can only fall between blocks, so the question a practitioner asks is: *at which cut, with
# how many server steps, and with which step size?* The planner answers it by evaluating the theorem at every
# cut and every τ, with the largest step size the theorem allows there, and sets its answer next to the
# closed-form rule the paper prints (Corollary 4.4: d_c = √(d/τ)).
#
# This notebook plans for ResNet-18 (CIFAR-10 layout, as `sfltheory plan --model resnet18`), then for a model
# defined right here, down to the wall-clock time to an accuracy ε with a straggler.
#
# Settings: `SFLTHEORY_NB_SMALL=1` uses a coarser τ grid (CI); every cell runs in seconds either way.

# %%
# %matplotlib inline
import os
import tempfile
from pathlib import Path

import numpy as np
from IPython.display import Image, display
from torch import nn

from sfltheory.plan import TimeModel, plan
from sfltheory.plan.render import cuts_text
from sfltheory.plotting import OPTIMUM, PAPER_RULE, cut_colours, plot_plan, style
from verify.models import model_cuts

SMALL = os.environ.get("SFLTHEORY_NB_SMALL", "0") == "1"
OUT = Path(os.environ.get("SFLTHEORY_NB_OUT") or tempfile.mkdtemp(prefix="sfltheory-nb-"))
OUT.mkdir(parents=True, exist_ok=True)  # a folder named by SFLTHEORY_NB_OUT may not exist yet
TAU = np.unique(np.geomspace(1, 1000, 60).round()) if SMALL else np.arange(1, 1001)
TAU_WIDE = np.unique(np.geomspace(1, 1e5, 80 if SMALL else 400).round())  # for the wall-clock plan
print(f"SMALL = {SMALL}; tau grid: {len(TAU)} values in {TAU[0]:g}..{TAU[-1]:g}; files go to {OUT}")

# %% [markdown]
# ## 1. The cuts of ResNet-18
#
# `model_cuts` runs one forward pass on the meta device (no memory, no weights) and lists every place the model
# can be split: the parameters on each side, the activation each sample sends across the cut, and the client's
# share of the forward FLOPs.

# %%
resnet = model_cuts("resnet18")
print(cuts_text(resnet))

# %% [markdown]
# ## 2. The best τ and cut under Theorem 4.3
#
# Ten clients, T = 1000 rounds, the constants as in the README's worked example. `step="max"` takes at each
# (cut, τ) the largest step size the theorem's conditions allow. Printing a `Plan` gives the CLI's table.

# %%
PARAMS = {"L": 1, "F": 2.3, "T": 1000, "M": 10, "eta_g": 1, "sigma_c2": 1, "sigma_s2": 1, "eps2": 0.5, "lam": 1e-10}
p = plan("mu_splitfed/thm4.3", PARAMS, cuts=resnet, grid=TAU, step="max")
print(p)

# %% [markdown]
# Everything in the table is plain data. The best cut and its choice:

# %%
best = p.best
ch = best.best
print(f"best cut {best.cut.name!r} (d_c = {best.cut.d_c:,}), tau = {ch.value:g}: bound {ch.bound:.6g}")
print(f"  step {ch.step:.4g}, binding branch: {ch.binding}")
print("  terms:", {k: float(f"{v:.3g}") for k, v in ch.terms.items()})
rb = p.rule_best()
if rb is not None:
    cut_plan, rule = rb
    print(f"following {rule.choice.name} ({rule.choice.printed}): cut {cut_plan.cut.name!r}, "
          f"tau = {rule.exact:.3g} -> {rule.point.value:g}, bound {rule.point.bound:.6g} "
          f"({rule.point.bound / ch.bound:.0f}x the best)")

# %% [markdown]
# The curves behind the table are in `p.curves` (cuts × τ arrays: `bound`, `objective`, `feasible`), so any
# figure is a few lines, in the house style (`sfltheory.plotting.style()`):

# %%
bound = np.where(p.curves["feasible"], p.curves["bound"], np.nan)
with style() as plt:
    fig, ax = plt.subplots()
    for colour, c, row in zip(cut_colours(plt, len(p.cuts)), p.cuts, bound):
        ax.plot(p.grid, row, color=colour, label=f"{c.cut.name} (d_c = {c.cut.d_c:,})")
    ax.scatter([ch.value], [ch.bound], **OPTIMUM, label="optimum")
    if rb is not None:
        ax.scatter([rb[1].point.value], [rb[1].point.bound], **PAPER_RULE, label="paper's rule d_c = √(d/τ)")
    ax.set(xscale="log", yscale="log", xlabel="server steps per round τ", ylabel="bound on avg ‖∇f‖² at T = 1000",
           title="ResNet-18, MU-SplitFed Theorem 4.3, largest feasible η")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    display(fig)
    plt.close(fig)

# %% [markdown]
# The planner's own two-panel figure (`sfltheory plan ... --plot FILE`) is written to a file, atomically:

# %%
display(Image(filename=str(plot_plan(p, OUT / "plan_resnet18.png")), width=800))

# %% [markdown]
# ## 3. Your own model
#
# Any `nn.Module` works; give the per-sample input shape. Blocks are the top-level children, with plain
# `nn.Sequential` containers opened; a module of your own (here `ConvBlock`) is kept whole, so the cuts fall
# between blocks, and the activation counted at a cut is the pooled output that actually crosses it.

# %%
class ConvBlock(nn.Module):
    """conv 3x3 -> batch norm -> ReLU -> 2x2 max-pooling."""

    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(self.bn(self.conv(x)).relu())


class MyNet(nn.Module):
    def __init__(self, width: int = 32, classes: int = 10):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            ConvBlock(3, w), ConvBlock(w, 2 * w), ConvBlock(2 * w, 4 * w), ConvBlock(4 * w, 8 * w)
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(8 * w * 2 * 2, 256), nn.ReLU(), nn.Linear(256, classes))

    def forward(self, x):
        return self.head(self.features(x))


mine = model_cuts(MyNet(), input_shape=(3, 32, 32), name="MyNet")
print(cuts_text(mine))

# %% [markdown]
# ### Rounds and wall-clock time to ε, with a straggler
#
# Leave `T` out and give `eps`: the planner finds the fewest rounds with bound ≤ ε. With a `TimeModel` it turns
# rounds into seconds: five clients, one of them 8× slower than the rest (seconds per round on the whole
# model, scaled by the client's share of FLOPs at the cut), 100 Mbit/s links, batches of 32 and 2P + 1 = 3
# activation uploads per sample (P = 1). The server runs its τ steps while it waits for the straggler, so
# extra server steps are free up to the paper's eq. (12), τ = t_straggler / t_server, and cost time beyond it.
# The τ grid is widened to 10⁵ to see past that point.

# %%
tm = TimeModel(server_step=0.002, client_time=(0.5, 0.5, 0.6, 0.8, 4.0), bandwidth=1.25e7, batch=32, messages=3)
to_eps = {k: v for k, v in PARAMS.items() if k != "T"} | {"M": 5}
p2 = plan("mu_splitfed/thm4.3", to_eps, cuts=mine, grid=TAU_WIDE, step="max", eps=1e4, time_model=tm)
print(p2)

# %%
b2 = p2.best
minutes = np.where(p2.curves["feasible"], p2.curves["objective"], np.nan) / 60
with style() as plt:
    fig, ax = plt.subplots()
    for colour, c, row in zip(cut_colours(plt, len(p2.cuts)), p2.cuts, minutes):
        ax.plot(p2.grid, row, color=colour, label=f"{c.cut.name} (d_c = {c.cut.d_c:,})")
    eq12 = float(tm.eq12_tau(b2.cut.client_fraction, b2.cut.activation))
    ax.axvline(eq12, color="0.4", ls="--", lw=1, label=f"eq. (12) at {b2.cut.name}: τ = {eq12:.0f}")
    ax.scatter([b2.best.value], [b2.best.time / 60], **OPTIMUM, label=f"fastest: {b2.cut.name}, τ = {b2.best.value:g}")
    ax.set(xscale="log", yscale="log", xlabel="server steps per round τ", ylabel="wall-clock time to bound ≤ 10⁴ (min)",
           title="MyNet, five clients with one 8× straggler")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    display(fig)
    plt.close(fig)

# %% [markdown]
# Next: `02_check_learning_rates` checks a step size you already have against the theorem's conditions, branch by
# branch; `plan(..., step="joint")` plans with the bound-minimising step instead of the largest one.
