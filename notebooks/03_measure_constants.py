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
# # Measure the constants on your model, and evaluate a theorem with them
#
# The theorems assume constants — the smoothness L, gradient variances σ², heterogeneity ε² (or B², G²), the
# initial gap F — and nobody knows them for a real network. `verify.constants.measure` measures them on a model
# and data, split at a cut among clients, *per part* of the split (client, server) and in the *variants* the
# papers mean by "the same" assumption (mean vs max over samples, per client vs pooled). Each estimate carries
# its uncertainty and how it was obtained. The result is a `Constants` record that evaluates any theorem.
#
# Here: a small CNN of our own on scikit-learn's digits (8×8 images, bundled with scikit-learn, so this runs
# offline), split after its second convolution among 4 clients with a Dirichlet(0.5) label skew.
#
# Settings: `SFLTHEORY_NB_SMALL=1` measures on 599 of the 1,797 images with few probes (CI); the default uses
# every image and also measures the per-client smoothness and the effective rank κ.

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
from sfltheory.constants import Constants
from sfltheory.plan.render import cuts_text
from sfltheory.plotting import style
from sfltheory.report import bound_text
from verify.constants import measure
from verify.data import digits, partition
from verify.models import model_cuts

SMALL = os.environ.get("SFLTHEORY_NB_SMALL", "0") == "1"
OUT = Path(os.environ.get("SFLTHEORY_NB_OUT") or tempfile.mkdtemp(prefix="sfltheory-nb-"))
OUT.mkdir(parents=True, exist_ok=True)  # a folder named by SFLTHEORY_NB_OUT may not exist yet
# The models here are tiny: one intra-op thread is faster than several, and far faster on a busy machine.
torch.set_num_threads(int(os.environ.get("SFLTHEORY_NB_THREADS", "1")))
EVERY = 3 if SMALL else 1  # use every EVERY-th image
WHAT = ["L", "sigma2", "eps2", "F"] + ([] if SMALL else ["L_clients", "kappa"])
print(f"SMALL = {SMALL}: every {EVERY} image(s); measuring {WHAT}; files go to {OUT}")

# %% [markdown]
# ## 1. The model, the data, the cut

# %%
class SmallCNN(nn.Module):
    """Two 3x3 convolutions (8 and 16 channels), each followed by ReLU and 2x2 max-pooling, and a linear head."""

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
net = SmallCNN()
print(cuts_text(model_cuts(net, input_shape=(1, 8, 8), name="SmallCNN")))

ds = digits()
X, y = ds.X[::EVERY], ds.y[::EVERY]
clients = partition(y, 4, "dirichlet:0.5", seed=0)
print(f"\n{len(X)} images {tuple(X.shape[1:])}; client sizes {[len(c) for c in clients]}")
print("labels per client:", [np.bincount(y[c].numpy(), minlength=10).tolist() for c in clients])

# %% [markdown]
# ## 2. Measure
#
# At the initial weights (pass `params=` or load a state for another point; `verify.constants.track` measures
# along an SGD run). The loss is the *mean* of per-sample losses, the model is in eval mode, and each client's
# variance is centred at its own gradient — the conventions of the README.

# %%
c = measure(net, nn.CrossEntropyLoss(), (X, y), split="conv2", what=WHAT, clients=clients, tol=1e-2,
            probes=9 if SMALL else 30, device="cpu", seed=0)
c.meta.update({"model": "SmallCNN", "data": f"digits[::{EVERY}]", "partition": "dirichlet:0.5"})
print(c)

# %% [markdown]
# Each entry is an `Estimate`: the value, a standard error or an interval that holds by construction (Lanczos
# residual), the sample and probe counts, and the method. Variants sit next to the canonical value:

# %%
print("L          ", c.L)
print("L[client]  ", c.get("L[client]"), "  (the client block of the Hessian)")
print("sigma_c2   ", c.sigma_c2, "  (mean over samples, worst client)")
print("  [max]    ", c.get("sigma_c2[max]"), "  (max over samples: 'for every sample', as MU-SplitFed assumes)")
print("eps2       ", c.eps2, "  (max over clients)  mean:", c.get("eps2[mean]"))
print("F          ", c.F)
print(f"split: d_c = {c.d_c.value:,.0f}, d_s = {c.d_s.value:,.0f}")

# %% [markdown]
# ## 3. Evaluate a theorem with the measured constants
#
# `params_for(result)` reads the result's assumptions and picks the variant each one needs, with a note per
# choice (MU-SplitFed's bounded variance holds *for every sample*, so it takes `sigma_c2[max]`).

# %%
RESULT = "mu_splitfed/thm4.3"
measured, notes = c.params_for(RESULT)
print("\n".join(notes))
print({k: float(f"{v:.4g}") for k, v in measured.items()})

# %% [markdown]
# The largest step the theorem allows with these constants, and the bound there after T = 1000 rounds with τ = 4
# server steps (`c.evaluate` is `sfltheory.evaluate` with the measured values filled in; what you pass wins):

# %%
RUN = dict(T=1000, tau=4, M=4, eta_g=1, lam=1e-6, P=1)
sc = st.max_step(RESULT, {**measured, **RUN})
print(f"largest feasible eta: {sc.max_step:.4g} (binding: {sc.binding})\n")
ev = c.evaluate(RESULT, RUN, eta=sc.max_step)
print(bound_text(ev))

# %% [markdown]
# Which term dominates as T grows (the step fixed at its largest feasible value)? The measured ‖∇f(x⁰)‖²
# (`gradnorm2_f`) is where the left-hand side starts: the bound says something only once it falls below that.

# %%
T = np.unique(np.geomspace(10, 1e9, 60).round())
ev_T = c.evaluate(RESULT, {**RUN, "T": T}, eta=sc.max_step)
g0 = c.gradnorm2_f.value if c.gradnorm2_f is not None else None
with style() as plt:
    fig, ax = plt.subplots()
    names = list(ev_T.terms)
    ax.stackplot(T, [np.broadcast_to(ev_T.terms[k], T.shape) for k in names], labels=names, alpha=0.85)
    if g0 is not None:
        ax.axhline(g0, color="k", ls="--", lw=1, label="measured ‖∇f(x⁰)‖²")
    ax.set(xscale="log", yscale="log", ylim=(1e-3, None), xlabel="rounds T",
           ylabel="bound on avg ‖∇f‖² (terms stacked)",
           title=f"{RESULT} with constants measured on SmallCNN / digits, η = {sc.max_step:.2g}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    display(fig)
    plt.close(fig)

# %% [markdown]
# The uncertainty of an estimate carries over: evaluate at both ends of L's Lanczos interval (a larger L also
# shrinks the largest feasible step).

# %%
for L in c.L.interval or (c.L.value,):
    q = {**measured, **RUN, "L": L}
    s = st.max_step(RESULT, q)
    print(f"L = {L:.5g}: largest eta {s.max_step:.4g}, bound {st.bound_value(RESULT, q, eta=s.max_step):.6g}")

# %% [markdown]
# ## 4. Other theorems, same constants
#
# The same record evaluates any result; each picks its own variants (split learning's Theorem 1 uses a single
# σ² for the whole model and the dissimilarity pair (B², G²)).

# %%
for rid, extra in [("sl_noniid/thm1", dict(T=1000, K=5, M=4, eta_g=1)),
                   ("cut_layer/prop1", dict(T=1000, K=5, M=4, sum_alpha2=0.25))]:
    meas, notes = c.params_for(rid)
    s = st.max_step(rid, {**meas, **extra})
    e = c.evaluate(rid, extra, **{s.step: s.max_step})
    print(f"{rid}: {s.step} = {s.max_step:.4g} ({s.binding}) -> bound {e.value:.6g}; {e.verdict()}")
    for n in notes:
        print("   ", n)

# %% [markdown]
# ## 5. Save, reload, evaluate without torch
#
# `Constants` is plain data: its JSON is what `sfltheory measure --out` writes and `sfltheory bound --constants`
# reads, and loading it needs only the theory half.

# %%
path = OUT / "constants_smallcnn_digits.json"
c.to_json(path)
again = Constants.load(path)
assert again.evaluate(RESULT, RUN, eta=sc.max_step).value == ev.value
print(f"{path.name}: {path.stat().st_size:,} bytes, {len(again.items())} estimates; the bound is reproduced")
print(f"from the shell: sfltheory bound {RESULT} --constants {path} T=1000 tau=4 M=4 eta={sc.max_step:.4g} "
      "eta_g=1 lam=1e-6 P=1")
