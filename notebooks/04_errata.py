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
# # Read the errata, and re-check one by hand
#
# Every place a paper does not hold together — a statement that differs from its appendix restatement or from
# what its proof derives, a condition the proof needs but never prints, a constant that is off — is recorded as
# a `Discrepancy` on the result it concerns, never silently fixed. Where the difference changes a number, the
# other reading is its own *edition* of the result (`paper/label@proof`, `@appendix`), so both can be evaluated
# side by side. `sfltheory errata` lists them all; this notebook reads them from Python, grouped by paper, and
# re-checks one with `sfltheory.evaluate` on two editions against the formulas typed in by hand.
#
# The generic checks of the whole catalogue are `sfltheory audit` (`sfltheory.audit`): its findings open
# `docs/ERRATA.md` ("Found by the audit"), before the discrepancies recorded by reading that this notebook reads.

# %%
# %matplotlib inline
import os
import textwrap
from collections import Counter, defaultdict

import numpy as np
from IPython.display import Markdown, display

import sfltheory as st
from sfltheory.plotting import PALETTE, style
from sfltheory.report import errata

SMALL = os.environ.get("SFLTHEORY_NB_SMALL", "0") == "1"
N = 200 if SMALL else 2000  # points per curve

# %% [markdown]
# ## 1. The errata, grouped by paper
#
# `sfltheory.report.errata(results)` gives each discrepancy once, as a dict: the paper, the result it is recorded
# on, where, what is printed and what is expected (LaTeX), and a note.

# %%
entries = errata(st.results())
by_paper: dict[str, list[dict[str, str]]] = defaultdict(list)
for e in entries:
    by_paper[e["paper"]].append(e)
print(f"{len(entries)} discrepancies in {len(by_paper)} papers:")
for paper, n in Counter(e["paper"] for e in entries).most_common():
    results = sorted({e["result"].split("@")[0] for e in by_paper[paper]})
    more = ", ..." if len(results) > 6 else ""
    print(f"  {paper:12s} {n:3d}  on {len(results)} results: {', '.join(results[:6])}{more}")

# %% [markdown]
# Where each one is, paper by paper (the first few of each; `sfltheory errata --markdown` prints them all):

# %%
SHOW = 3 if SMALL else 100
for paper, es in by_paper.items():
    print(f"\n{paper}")
    for e in es[:SHOW]:
        print(textwrap.fill(f"- {e['where']} [{e['result']}]", 110, subsequent_indent="    "))
    if len(es) > SHOW:
        print(f"  ... and {len(es) - SHOW} more")

# %% [markdown]
# The printed and the expected formula are LaTeX, so a notebook can render them. MU-SplitFed's Theorem 4.1:

# %%
d = st.get("mu_splitfed/thm4.1").discrepancies[0]
display(Markdown(f"**{d.where}**\n\n- printed: ${d.printed}$\n- expected: ${d.expected}$\n\n{d.note}"))

# %% [markdown]
# ## 2. Re-check it by hand
#
# The statement (eq. (8)) and the proof's last display (App. C.1.3) are the editions `mu_splitfed/thm4.1` and
# `mu_splitfed/thm4.1@proof`; the editions of a result are listed by `st.editions`:

# %%
print([r.id for r in st.editions(st.get("mu_splitfed/thm4.1"))])
for rid in ("mu_splitfed/thm4.1", "mu_splitfed/thm4.1@proof"):
    print(f"\n{rid}")
    for t in st.get(rid).terms:
        print(f"  {t.name:16s} {t.expr}")

# %% [markdown]
# Evaluate both at the same point, then type the two server terms in from the discrepancy —
# 16ηL(ητL + 1)d_sσ_s² and 4L²(η²τ²L² + 1/4)λ²d_s³ as printed, 16ηL(2ητL + 1)d_sσ_s²/P and
# 4L²(2η²τ²L² + 1/4)λ²d_s³ as derived — and check that the editions differ by exactly those terms.

# %%
P = dict(L=1.0, F=1.0, T=100, tau=4, d_c=10, d_s=1, eta=1e-3, sigma_c2=1.0, sigma_s2=1.0, lam=0.1, P=1)
stated = st.evaluate("mu_splitfed/thm4.1", P)
proved = st.evaluate("mu_splitfed/thm4.1@proof", P)

L, eta, tau, d_s, s2, lam, Pn = P["L"], P["eta"], P["tau"], P["d_s"], P["sigma_s2"], P["lam"], P["P"]
by_hand = {
    "server variance": (16 * eta * L * (eta * tau * L + 1) * d_s * s2,
                        16 * eta * L * (2 * eta * tau * L + 1) * d_s * s2 / Pn),
    "ZO bias server": (4 * L**2 * (eta**2 * tau**2 * L**2 + 0.25) * lam**2 * d_s**3,
                       4 * L**2 * (2 * eta**2 * tau**2 * L**2 + 0.25) * lam**2 * d_s**3),
}
print(f"{'term':16s} {'statement':>12s} {'by hand':>12s} {'proof':>12s} {'by hand':>12s}")
for name, (h_stated, h_proved) in by_hand.items():
    print(f"{name:16s} {stated.terms[name]:12.6g} {h_stated:12.6g} {proved.terms[name]:12.6g} {h_proved:12.6g}")
    assert np.isclose(stated.terms[name], h_stated) and np.isclose(proved.terms[name], h_proved)
gap = proved.value - stated.value
gap_by_hand = sum(p - s for s, p in by_hand.values())
print(f"\nbound: statement {stated.value:.8g}, proof {proved.value:.8g}")
print(f"difference {gap:.6g}, by hand {gap_by_hand:.6g}")
assert np.isclose(gap, gap_by_hand)  # every other term agrees between the editions (at P = 1)
print("statement:", stated.verdict())
print("proof:    ", proved.verdict())

# %% [markdown]
# The statement is the smaller bound, so it claims more than its proof shows; the gap is second order in ητL,
# so at steps the conditions allow it is small. Other discrepancies change the numbers a lot more.

# %% [markdown]
# ## 3. Every edition of a result, side by side
#
# MU-SplitFed's Theorem 4.3 has three editions: the main text, its appendix restatement (Theorem D.1) and the
# proof's eq. (33). They differ in the terms *and* in the step-size conditions, so compare them each at its own
# largest feasible step:

# %%
Q = dict(L=1, F=2.3, T=1000, M=10, eta_g=1, sigma_c2=1, sigma_s2=1, eps2=0.5, lam=1e-10, d_c=19_488, d_s=634_378, P=1)
for r in st.editions(st.get("mu_splitfed/thm4.3")):
    s = st.max_step(r, {**Q, "tau": 8})
    e = st.evaluate(r, {**Q, "tau": 8, "eta": s.max_step})
    print(f"{r.id:28s} tau = 8: largest eta {s.max_step:.4g} ({s.binding}); bound there {e.value:.6g}")

# %% [markdown]
# The main text's first branch, η ≤ 1/(120L(τ + 2d_s)), is what the appendix prints *under a square root*,
# η ≤ 1/√(120L²(τ² + 2τd_s)); the proof (eq. (33)) agrees with the appendix at P = 1. At a real split
# (d_s ≈ 6×10⁵) the main text therefore allows a step hundreds of times smaller than its own appendix, and its
# bound at the largest step is correspondingly larger. Over τ:

# %%
tau = np.unique(np.geomspace(1, 1000, N // 4).round())
with style() as plt:
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    for colour, ls, r in zip(PALETTE, ("-", "--", ":"), st.editions(st.get("mu_splitfed/thm4.3"))):
        s = st.max_step(r, {**Q, "tau": tau})
        ax.plot(tau, s.max_step, color=colour, ls=ls, label=r.id)
        ax2.plot(tau, st.bound_value(r, {**Q, "tau": tau}, eta=s.max_step), color=colour, ls=ls, label=r.id)
    ax.set(xscale="log", yscale="log", xlabel="server steps per round τ", ylabel="largest feasible η",
           title="MU-SplitFed Theorem 4.3: its three editions")
    ax2.set(xscale="log", yscale="log", xlabel="server steps per round τ", ylabel="bound at T = 1000 (at that η)",
            title="d_c = 19,488, d_s = 634,378, M = 10")
    ax.legend()
    display(fig)
    plt.close(fig)
