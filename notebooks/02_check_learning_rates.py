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
# # Check your learning rates, and see which branch binds
#
# A theorem holds only for step sizes that satisfy its conditions, and those conditions come in branches: a
# `min{…}` printed in the statement, plus conditions the proof imposes on the way (`source="proof"`) or needs
# without printing them (`source="implicit"`). `sfltheory.max_step` solves every branch for the step size and
# reports which one binds: the Python side of `sfltheory check-lr`.
#
# The notebook checks one theorem in detail, then one learning rate against many theorems, then sweeps τ and
# d_c to see where the binding branch changes, and finally sets the largest feasible step against the one that
# minimises the bound.
#
# Settings: `SFLTHEORY_NB_SMALL=1` uses coarser grids (CI); every cell runs in well under a second either way.

# %%
# %matplotlib inline
import os

import numpy as np
from IPython.display import display

import sfltheory as st
from sfltheory.plan.search import solve
from sfltheory.plotting import OPTIMUM, PALETTE, style
from sfltheory.report import step_text

SMALL = os.environ.get("SFLTHEORY_NB_SMALL", "0") == "1"
N = 200 if SMALL else 2000  # points per sweep
print(f"SMALL = {SMALL}: {N} points per sweep")

# %% [markdown]
# ## 1. One theorem, branch by branch
#
# MU-Split's Theorem 4.1 (one client, τ server steps) at the README's example: `step_text` is exactly what
# `sfltheory check-lr mu_splitfed/thm4.1 L=1 tau=2 d_c=100 d_s=1 eta=0.001` prints.

# %%
sc = st.max_step("mu_splitfed/thm4.1", L=1, tau=2, d_c=100, d_s=1, eta=0.001)
print(step_text(sc))

# %% [markdown]
# The same as data: each `Branch` has the largest step it allows (`bound`), whether the given step satisfies it
# (`holds`), its slack and where it comes from. The statement's branches give `max_step`; adding the proof's
# own conditions gives `max_step_all`, which can only be smaller.

# %%
for b in sc.branches:
    flag = "ok  " if b.holds else "FAIL"
    print(f"{flag} {b.source:9s} {b.name:45s} eta <= {b.bound:.4g}")
print(f"\nstatement: eta <= {sc.max_step:.4g} ({sc.binding})")
print(f"with the proof's conditions: eta <= {sc.max_step_all:.4g} ({sc.binding_all})")
print("advice:", sc.advice())

# %% [markdown]
# ## 2. One learning rate, many theorems
#
# Say you train with 10 clients, K = 5 local steps (or τ = 4 server steps), a smoothness estimate L = 2 and a
# ResNet-sized split. Each paper calls the step something else (η, η_l, η_c); give each theorem your step under
# its own name. Names a theorem does not use are ignored, so one dictionary serves all of them.

# %%
SETUP = dict(L=2.0, M=10, n=5, K=5, tau=4, P=1, d_c=19_488, d_s=634_378, eta_g=1.0, B2=1.0, l=1, sum_alpha2=0.1,
             d_aux=1_000, kappa=50)
MY_STEP = 1e-3
THEOREMS = ["mu_splitfed/thm4.1", "mu_splitfed/thm4.3", "sl_noniid/thm1", "sl_noniid/thm2", "cut_layer/prop1",
            "sfl_aux/thm1", "sfl_aux/thm3", "heron_sfl/thm1@sum", "heron_sfl/thm2@sum"]

print(f"{'theorem':22s} {'step':6s} {'max (statement)':>15s} {'max (+proof)':>13s}  verdict for {MY_STEP:g}")
rows = []
for rid in THEOREMS:
    r = st.get(rid)
    c = st.max_step(rid, {**SETUP, r.step: MY_STEP})
    ok = MY_STEP <= c.max_step
    ok_all = MY_STEP <= c.max_step_all
    verdict = "ok" if ok_all else ("ok by the statement, not by the proof" if ok else "too large")
    rows.append((rid, c))
    print(f"{rid:22s} {r.step:6s} {c.max_step:15.4g} {c.max_step_all:13.4g}  {verdict}")
    if not ok_all:
        print(f"{'':22s} binding: {c.binding if not ok else c.binding_all}")

# %% [markdown]
# MU-SplitFed's conditions are the tightest by far: the first branch, η ≤ 1/(120 L (τ + 2 d_s)), scales with the
# *server's* parameter count, so at a real split it asks for steps around 10⁻⁹ (the paper's own experiments use
# η_s = 0.01, App. F). SplitFed with auxiliary networks (`sfl_aux/thm3`) shows the other trap: its statement
# allows η ≤ 1/(2L), but a coefficient in its proof needs a step 300× smaller.

# %% [markdown]
# ## 3. A sweep: where does the binding branch change?
#
# Every parameter may be a NumPy array; `max_step` then returns arrays, and `binding` names the binding branch at
# every point. MU-SplitFed's Theorem 4.3 over τ at two ResNet-18 cuts (d = 11,173,962): at `layer3.0` the first
# branch binds everywhere; at `layer3.1` (a larger client side) the client branch η ≤ M/(12 τ L d_c) takes over
# at large τ.

# %%
D = 11_173_962
CUTS = {"layer3.0": 1_594_432, "layer3.1": 2_775_104, "layer4.0": 6_448_192}
tau = np.unique(np.geomspace(1, 1000, N).round())
with style() as plt:
    fig, axes = plt.subplots(1, len(CUTS), figsize=(12, 3.6), sharey=True)
    colours: dict[str, str] = {}
    for ax, (name, d_c) in zip(axes, CUTS.items()):
        s = st.max_step("mu_splitfed/thm4.3", L=1, tau=tau, d=D, d_c=d_c, M=10, eta_g=1, P=1)
        for b in np.unique(s.binding):
            colour = colours.setdefault(str(b), PALETTE[len(colours)])
            ax.plot(tau, np.where(s.binding == b, s.max_step, np.nan), color=colour, lw=2)
        ax.set(xscale="log", yscale="log", xlabel="server steps per round τ", title=f"cut {name} (d_c = {d_c:,})")
    axes[0].set_ylabel("largest feasible η (statement)")
    handles = [plt.Line2D([], [], color=c, lw=2) for c in colours.values()]
    axes[0].legend(handles, list(colours), title="binding branch", loc="lower left")
    display(fig)
    plt.close(fig)

# %% [markdown]
# The same question over the split, at the plan's τ = 1000. The client branch binds once
# M/(12 τ L d_c) < 1/(120 L (τ + 2 d_s)), i.e. d_c > 10 M (τ + 2 d_s)/τ; with d_s = d − d_c that is
# d_c > M (10 τ + 20 d)/(τ + 20 M), which the sweep finds too.

# %%
TAU, M = 1000, 10
d_c = np.unique(np.geomspace(1_000, D - 1_000, N).round())
s = st.max_step("mu_splitfed/thm4.3", L=1, tau=TAU, d=D, d_c=d_c, M=M, eta_g=1, P=1)
switch = d_c[np.argmax(s.binding != s.binding[0])]
by_hand = M * (10 * TAU + 20 * D) / (TAU + 20 * M)
print(f"binding at small d_c: {s.binding[0]}; at large d_c: {s.binding[-1]}")
print(f"the switch: first grid point d_c = {switch:,.0f}; by hand d_c > {by_hand:,.0f}")
with style() as plt:
    fig, ax = plt.subplots()
    for colour, b in zip(PALETTE, np.unique(s.binding)):
        where = s.binding == b
        ax.plot(d_c[where], s.max_step[where], color=colour, label=str(b))
        ax.axvspan(d_c[where].min(), d_c[where].max(), color=colour, alpha=0.08)
    ax.axvline(by_hand, color="0.4", ls="--", lw=1, label=f"d_c = {by_hand:,.0f} (by hand)")
    ax.set(xscale="log", yscale="log", xlabel="client-side parameters d_c (d = 11,173,962)",
           ylabel="largest feasible η (statement)",
           title=f"MU-SplitFed Theorem 4.3 at τ = {TAU}, M = {M}: binding branch shaded")
    ax.legend(title="binding branch")
    display(fig)
    plt.close(fig)

# %% [markdown]
# ## 4. The largest feasible step vs the bound-minimising one
#
# With every other parameter given, `check-lr` also reports the bound at the largest feasible step and the step
# that minimises the bound (the Python side is `sfltheory.plan.search.solve(result, params, "max" | "joint")`).
# The optimisation term falls as 1/η and the variance terms grow with η, so the bound-minimising step sits
# below the largest feasible one only when the variance is large enough. Sweep σ²:

# %%
BASE = dict(L=1, F=2.3, T=1000, M=10, eta_g=1, eps2=0.5, lam=1e-10, tau=8, d_c=19_488, d_s=634_378, P=1)
sigma2 = np.geomspace(1, 1e12, 13 if SMALL else 49)
largest = solve("mu_splitfed/thm4.3", {**BASE, "sigma_c2": sigma2, "sigma_s2": sigma2}, "max")
best = solve("mu_splitfed/thm4.3", {**BASE, "sigma_c2": sigma2, "sigma_s2": sigma2}, "joint")
for s2, a, b, ba, bb in list(zip(sigma2, largest.step, best.step, largest.bound, best.bound))[:: 4 if SMALL else 12]:
    print(f"sigma^2 = {s2:8.0e}: largest eta {a:.3g} (bound {ba:.4g}), bound-minimising eta {b:.3g} (bound {bb:.4g})")

# %%
eta = np.geomspace(1e-12, largest.step[0], N)
with style() as plt:
    fig, ax = plt.subplots()
    for colour, s2 in zip(PALETTE, (1.0, 1e9, 1e11)):
        q = {**BASE, "sigma_c2": s2, "sigma_s2": s2}
        ax.plot(eta, st.bound_value("mu_splitfed/thm4.3", q, eta=eta), color=colour, label=f"σ² = {s2:.0e}")
        j = solve("mu_splitfed/thm4.3", q, "joint")
        ax.scatter([j.step], [j.bound], **OPTIMUM)
    ax.axvline(largest.step[0], color="0.4", ls="--", lw=1, label="largest feasible η")
    ax.scatter([], [], **OPTIMUM, label="bound-minimising η")
    ax.set(xscale="log", yscale="log", xlabel="step size η", ylabel="bound on avg ‖∇f‖² at T = 1000",
           title="MU-SplitFed Theorem 4.3, τ = 8, M = 10")
    ax.legend()
    display(fig)
    plt.close(fig)
