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
# # Train: run the algorithms the theorems are about
#
# `verify.train` runs each seed paper's algorithm — as printed, and as analysed where the two differ — on a torch
# model split at a cut or on an exact quadratic, and records per round what the theorems bound: ‖∇f(xᵗ)‖² of the
# global objective f = (1/M) Σ f_m, its running average and minimum (the left-hand sides with T = t + 1), the
# loss, test accuracy, client drift, bytes each way and a simulated wall-clock time.
#
# Here MU-SplitFed (zeroth-order on both sides, τ server steps) and FedAvg, first on an exact quadratic whose
# constants are known, then on digits with a small CNN. This is the stepping stone to *measured vs predicted*:
# the last section sets one run against its theorem by hand; doing that properly — every algorithm against
# every result that analyses it, with exact constants and seeds — is what `sfltheory verify` does (section 5).
#
# Settings: `SFLTHEORY_NB_SMALL=1` runs fewer rounds (CI); the default runs longer curves (about a minute).

# %%
# %matplotlib inline
import os
import tempfile
from pathlib import Path

import numpy as np
import torch
from IPython.display import display
from torch import nn

import sfltheory as st
from sfltheory.plotting import PALETTE, style
from verify.problems import QuadraticProblem, model_problem
from verify.train import ALGORITHMS, get, run

SMALL = os.environ.get("SFLTHEORY_NB_SMALL", "0") == "1"
OUT = Path(os.environ.get("SFLTHEORY_NB_OUT") or tempfile.mkdtemp(prefix="sfltheory-nb-"))
OUT.mkdir(parents=True, exist_ok=True)  # a folder named by SFLTHEORY_NB_OUT may not exist yet
# The models here are tiny: one intra-op thread is faster than several, and far faster on a busy machine.
torch.set_num_threads(int(os.environ.get("SFLTHEORY_NB_THREADS", "1")))
T_QUAD = 50 if SMALL else 200  # rounds on the quadratic
T_FEDAVG, T_MU = (20, 10) if SMALL else (100, 100)  # rounds on digits
print(f"SMALL = {SMALL}: {T_QUAD} rounds on the quadratic, {T_FEDAVG} (FedAvg) and {T_MU} (MU-SplitFed) on digits")

# %% [markdown]
# ## 1. The algorithms
#
# Every algorithm names its paper, where it is printed, and the results that analyse it (`docs/ALGORITHMS.md`
# has the full statement of each, its parameters and variants).

# %%
for name, cls in ALGORITHMS.items():
    print(f"{name:16s} {cls.paper:12s} {cls.source[:48]:48s} analysed by {', '.join(cls.results[:2]) or '-'}")

# %% [markdown]
# ## 2. An exact quadratic
#
# f_m(x) = ½(x − b_m)ᵀH(x − b_m) with noise on every gradient: `from_targets` builds one whose constants are
# exactly the targets (L = 1, σ² = 0.1 per sample, ε² = 1 mean over clients, d = 10 split 5 + 5, M = 4).
# Rademacher noise makes ‖ξ‖² = σ² for *every* sample, which MU-SplitFed's assumption asks for.
# `constants` returns them as a `Constants` record, the same type `measure` returns.

# %%
BATCH = 8
quad = QuadraticProblem.from_targets(L=1, sigma2=0.1, eps2=1, d=10, M=4, noise="rademacher")
exact = quad.constants(batch=BATCH)
print(exact)

# %% [markdown]
# Both algorithms with steps of the same order; MU-SplitFed with τ = 2 server steps and P = 1 perturbation
# (Theorem 4.3 is stated at P = 1),
# η_c = τ η_s (the coupling its theorem assumes). `run` returns a `Run`: its configuration and one `RoundRecord`
# per round; `series(name)` gives one quantity over t.

# %%
fedavg = get("fedavg")(eta_l=0.05, K=2)
mu = get("mu_splitfed")(tau=2, P=1, eta_s=0.01, eta_c=0.02, eta_g=1, lam=1e-3)  # Thm. 4.3 is stated at P = 1
runs_q = {alg.name: run(alg, quad, T=T_QUAD, batch=BATCH, seed=0, progress=False) for alg in (fedavg, mu)}
for name, r in runs_q.items():
    last = r.records[-1]
    print(f"{name:12s} {r.status}: ‖∇f‖² {last.gradnorm2:.4g} (avg {last.gradnorm2_avg:.4g}), "
          f"{last.bytes_up / 1e3:.1f} kB up, {last.client_forward} client forwards, simulated {last.sim_time:.0f} s")

# %%
with style() as plt:
    fig, ax = plt.subplots()
    for colour, (name, r) in zip(PALETTE, runs_q.items()):
        t = np.arange(len(r.records))
        ax.plot(t, r.series("gradnorm2"), color=colour, alpha=0.35, lw=1)
        ax.plot(t, r.series("gradnorm2_avg"), color=colour, label=f"{name}: running average")
    ax.plot([], [], color="0.5", alpha=0.35, label="‖∇f(xᵗ)‖² at each round")
    ax.set(yscale="log", xlabel="round t", ylabel="‖∇f‖² (global objective, exact)",
           title="exact quadratic: L = 1, σ² = 0.1, ε² = 1, d = 10, M = 4, batch 8")
    ax.legend()
    display(fig)
    plt.close(fig)

# %% [markdown]
# Runs are reproducible and resumable: with `out=` a run checkpoints atomically, and asking the same run for more
# rounds extends it rather than starting over (every random draw derives from the seed, the round and the
# client, so the extended curve equals an uninterrupted one).

# %%
short = run(fedavg, quad, T=T_QUAD // 2, batch=BATCH, seed=0, out=OUT / "fedavg_quad", progress=False)
longer = run(fedavg, quad, T=T_QUAD, batch=BATCH, seed=0, out=OUT / "fedavg_quad", progress=False)
same = np.allclose(longer.series("gradnorm2"), runs_q["fedavg"].series("gradnorm2"))
print(f"{len(short.records)} then {len(longer.records)} records; equal to the uninterrupted run: {same}")
print("written:", sorted(p.name for p in (OUT / "fedavg_quad").iterdir()))

# %% [markdown]
# ## 3. A small CNN on digits
#
# `model_problem` takes a registered model name or your own module, a dataset, a cut and a partition. The
# gradient recorded each round is taken on a fixed subsample of at most `eval_samples` per client (all the
# training data without it).

# %%
class SmallCNN(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.pool1 = nn.Sequential(nn.ReLU(), nn.MaxPool2d(2))
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool2 = nn.Sequential(nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
        self.fc = nn.Linear(16 * 2 * 2, classes)

    def forward(self, x):
        return self.fc(self.pool2(self.conv2(self.pool1(self.conv1(x)))))


torch.manual_seed(0)
digits = model_problem(model=SmallCNN(), data="digits", cut="conv2", clients=4, partition="dirichlet:0.5",
                       eval_samples=100 if SMALL else None)
print(digits.describe())

# %%
runs_d = {
    "fedavg": run(get("fedavg")(eta_l=0.1, K=5), digits, T=T_FEDAVG, seed=0, progress=False),
    "mu_splitfed": run(get("mu_splitfed")(tau=2, P=2, eta_s=0.01, eta_c=0.02, eta_g=1), digits, T=T_MU, seed=0,
                       progress=False),
}
for name, r in runs_d.items():
    last = r.records[-1]
    print(f"{name:12s} {len(r.records) - 1} rounds: test accuracy {last.test_acc:.3f}, loss {last.loss:.4f}, "
          f"{last.bytes_up / 1e6:.2f} MB up, wall {last.wall_time:.1f} s")

# %%
with style() as plt:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for colour, (name, r) in zip(PALETTE, runs_d.items()):
        t = np.arange(len(r.records))
        axes[0].plot(t, r.series("test_acc"), color=colour, label=name)
        axes[1].plot(t, r.series("loss"), color=colour, label=name)
        axes[2].plot(r.series("bytes_up") / 1e6, r.series("test_acc"), color=colour, marker=".", label=name)
    axes[0].axhline(0.1, color="0.5", ls=":", lw=1, label="chance")
    axes[0].set(xlabel="round t", ylabel="test accuracy", title="SmallCNN on digits, 4 clients, Dirichlet(0.5)")
    axes[1].set(xlabel="round t", ylabel="training loss f(xᵗ)", title="cut after conv2 (d_c = 1,248, d_s = 650)")
    axes[2].set(xlabel="uploaded by the clients (MB, cumulative)", ylabel="test accuracy",
                title="accuracy against communication")
    axes[0].legend()
    display(fig)
    plt.close(fig)

# %% [markdown]
# FedAvg's clients take K = 5 first-order steps per round; MU-SplitFed's client and server each make
# zeroth-order steps from 2P + 1 forward passes, so it moves far more slowly per round, as the theory predicts
# for a zeroth-order method (its bound grows with d_c and d_s).
#
# ## 4. Toward measured vs predicted
#
# The run's configuration uses the canonical parameter names, so it evaluates the theorem that analyses the
# algorithm directly. On the quadratic the constants are exact; put the theorem's bound next to the running
# average it bounds:

# %%
predicted = {}
for alg in (fedavg, mu):
    rid, step = alg.results[0], st.get(alg.results[0]).step
    r = runs_q[alg.name]
    cfg = {k: v for k, v in alg.config().items() if k in st.get(rid).parameters()}  # what the theorem uses
    T = len(r.records)
    at_T = exact.evaluate(rid, cfg, M=quad.M, T=T)
    sc = st.max_step(rid, {**exact.params_for(rid)[0], **cfg, "M": quad.M})
    print(f"{alg.name} vs {rid}: the run's {step} = {at_T.params[step]:g}; the theorem allows {step} <= "
          f"{sc.max_step:.3g} ({sc.binding})")
    print(f"   at T = {T}: bound {at_T.value:.4g} vs observed average {r.records[-1].gradnorm2_avg:.4g}")
    print(f"   {at_T.verdict()}")
    curve = exact.evaluate(rid, cfg, M=quad.M, T=np.arange(1, T + 1)).value
    predicted[alg.name] = (r, curve, bool(at_T.applies))

with style() as plt:
    fig, ax = plt.subplots()
    for colour, (name, (r, curve, applies)) in zip(PALETTE, predicted.items()):
        t = np.arange(len(r.records))
        ax.plot(t, r.series("gradnorm2_avg"), color=colour, label=f"{name}: observed running average")
        why = "its theorem's bound" if applies else "its theorem's bound (η past its conditions: not a guarantee)"
        ax.plot(t, curve, color=colour, ls="--" if applies else ":", label=f"{name}: {why}")
    ax.set(yscale="log", xlabel="round t (T = t + 1)", ylabel="avg ‖∇f‖² over rounds 0..t",
           title="measured vs predicted on the exact quadratic, by hand")
    ax.legend(fontsize=7)
    display(fig)
    plt.close(fig)

# %% [markdown]
# FedAvg runs inside its theorem's conditions and stays below the bound, by the slack of a worst-case analysis.
# MU-SplitFed ran at a step far past what Theorem 4.3 covers (η ≤ 1/(120L(τ + 2d_s))), so its curve is no
# guarantee — the run still converges: the gap between a theorem and practice.
#
# ## 5. The same, systematically: `sfltheory verify`
#
# `verify.pipeline.check.check` does this for every result that has an experiment: the
# algorithm it analyses on an exact quadratic, exact moments for first-order algorithms (a bound below them is
# violated for certain) or a Monte-Carlo band for zeroth-order ones, at the largest admissible step and at a
# practical one (`sfltheory verify ID --out DIR` writes the HTML report).

# %%
from verify.pipeline import report
from verify.pipeline.check import check
from verify.spec import CheckSpec

v = check(CheckSpec(result="sl_noniid/thm2", T=10 if SMALL else 40))
for leg in v.legs:
    print(f"{v.result} ({v.method}): {leg.mode} step {leg.step:.3g}: {leg.verdict}, "
          f"bound / measured at T = {leg.tightness:.3g}")
fig = report.figure(v)
display(fig)
