"""The printed statements read in full (sfltheory.latexread): values from the seed texts, quoted."""

from __future__ import annotations

import sympy as sp

from sfltheory import lexicon
from sfltheory.latex import normal, rhs_segments, tag
from sfltheory.latexread import definitions, group_denominators, read, substitute
from sfltheory.registry import results
from sfltheory.vocabulary import symbol


def _read(rid: str) -> sp.Expr:
    r = next(x for x in results() if x.id == rid)
    st = read(r.statement, r.paper, r.label, r.lhs, r.notation, lexicon.all_params())
    assert st.exprs, st.reasons
    return st.exprs[0]


def test_placeholders_past_ten_are_letters() -> None:
    assert [tag(k) for k in (0, 9, 10, 35, 36)] == ["0", "9", "a", "z", "aa"]


def test_rhs_is_cut_at_top_level_relations_only() -> None:
    # 000 Lemma C.4: "\sum_{i=0}^{\tau-1}\mathbb{E}[...]\leq\frac{16\eta_{s}^{2}..." -- the = of i=0 is no relation
    segs = rhs_segments(r"\sum_{i=0}^{\tau-1}x\leq 2\eta")
    assert segs == [r" 2\eta"]


def test_expectation_brackets_and_bold_read_alike() -> None:
    # 000 Lemma C.2 prints \mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]; the notation writes \mathbb E\|...\|^2
    assert normal(r"\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]") == normal(
        r"\mathbb E\|\nabla_{x_s}f(x^t)\|^2"
    )
    # 001 (48): \bm{\theta}_{\text{g}}^{t} is theta_g^t
    assert normal(r"f(\bm{\theta}_{\text{g}}^{t})") == normal(r"f(\theta_g^t)")
    # 001 Lemma 2: 6\sigma^{2}_{c} is sigma_c^2
    assert normal(r"\sigma^{2}_{c}") == normal(r"\sigma_c^2")


def test_trailing_definition_substituted() -> None:
    # 002 Corollary 1: "... + \frac{4N\sigma^2}{\sqrt T},\quad T=NKR"
    head, defs = definitions(r"\frac{4N\sigma^2}{\sqrt T},\quad T=NKR")
    assert head == r"\frac{4N\sigma^2}{\sqrt T}"
    assert defs == [(normal("T"), normal("NKR"))]
    assert "N" in substitute(normal(r"\sqrt T"), defs)


def test_inline_denominator_takes_the_product() -> None:
    # 000 Table 2 prints O(K/M\epsilon^{2}); encoded K/(M eps^2)
    tok = group_denominators(["K", "/", "M", "E", "^", "{", "2", "}", "+", "1"])
    assert tok == ["K", "/", "(", "M", "E", "^", "{", "2", "}", ")", "+", "1"]


def test_sl_noniid_corollary_with_t_equal_nkr() -> None:
    # 002: "\frac{4L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}+..., T=NKR" with R the rounds (canonical T)
    e = _read("sl_noniid/cor1@explicit")
    F, L, M, K, T = (symbol(n) for n in ("F", "L", "M", "K", "T"))
    assert sp.simplify(e.coeff(F) - 4 * L / sp.sqrt(M * K * T)) == 0


def test_cor3_max() -> None:
    # 002 Corollary 3: "\frac{8L\max\{\sqrt{2B^2+1}/\eta_g,1\}F}{R}+..."
    e = _read("sl_noniid/cor3@explicit")
    assert e.has(sp.Max)


def test_cut_layer_per_round_bound() -> None:
    # 003 Prop. 1 per round: "+8KS(\eta^t)^2\frac{2\tau^2}{\tau}\sum_{k=1}^K\alpha_k^2\left(\sigma_k^2+\epsilon^2\right)"
    e = _read("cut_layer/prop1@round")
    M, L, K, eta, a2 = (symbol(n) for n in ("M", "L", "K", "eta", "sum_alpha2"))
    assert sp.simplify(e.expand().coeff(symbol("sigma2")) - 16 * M * L * K * eta**2 * a2) == 0


def test_heron_phi_definition() -> None:
    # 001 line 399: Phi_c(eta_c) := eta_c^2(6hLdG_c^2/(N|xi_i|) + 18hL sigma_c^2/N) + eta_c(...): in Theorem 1's
    # round bound (48), divided by eta_min; its sigma_c^2 coefficient is 18 h L eta_c^2 / (N eta_min)
    e = _read("heron_sfl/thm1@round")
    coeff = e.expand().coeff(symbol("sigma_c2"))
    K, L, M, eta_c, eta_s = (symbol(n) for n in ("K", "L", "M", "eta_c", "eta_s"))
    eta_min = sp.Min(eta_c * K / 4, eta_s * (2 * M - 1) / 4)
    assert sp.simplify(coeff - 18 * K * L * eta_c**2 / (M * eta_min)) == 0


def test_unreadable_value_is_a_real_reason() -> None:
    # 001 (61): "\frac{f(\bm{\theta}_{\text{g}}^{1})-f(\bm{\theta}_{\text{g}}^{T+1})}{\eta_{\min}T}" -- f(theta^{T+1})
    r = next(x for x in results() if x.id == "heron_sfl/thm2@sum")
    st = read(r.statement, r.paper, r.label, r.lhs, r.notation, lexicon.all_params())
    assert not st.exprs and "f(...)" in st.reasons[0]
