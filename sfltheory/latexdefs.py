r"""What the papers' printed statements use but define elsewhere: data for :mod:`sfltheory.latexread`.

A statement prints a symbol the paper defines in another place (HERON-SFL's :math:`\Phi_c(\eta_c)`, Lemma 5's
:math:`\rho`), writes a quantity in the form of another lemma (MU-SplitFed Lemma D.2's client-``m`` copies of Lemma
C.2's norms), or a value the vocabulary names differently (:math:`f(\theta^t)-\mathbb E f(\theta^{t+1})` is the
difference of two optimality gaps). Each :class:`Reading` replaces the printed LaTeX by the same quantity written in
spellings the reader knows; ``where`` says where the seed prints it. These are readings of the seed, not corrections:
nothing here changes what a statement says.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """``printed`` (LaTeX, as a statement prints it) means ``means`` (LaTeX in spellings the reader knows).
    ``labels``: the results it applies to (empty: every result of the paper)."""

    printed: str
    means: str
    where: str
    labels: tuple[str, ...] = ()


HERON_D = r"(|\theta_c|+|\theta_a|)"
HERON_RHO = r"(1+\frac{d\kappa+d-2}{d+2})"

READINGS: dict[str, tuple[Reading, ...]] = {
    "heron_sfl": (
        Reading(r"\Phi_c(\eta_c)", r"(\eta_{c}^{2}(\frac{6hLdG_{c}^{2}}{N|\xi_{i}|}+\frac{18hL\sigma_{c}^{2}}{N})"
                r"+\eta_{c}(\frac{d^{2}L^{2}h\mu^{2}}{48|\xi_{i}|}+\frac{13hL^{2}\mu^{2}}{12}))",
                "001 line 399: Phi_c(eta_c) := eta_c^2(...) + eta_c(...)"),
        Reading(r"\Phi_c^{\prime}(\eta_c)", r"(\frac{\eta_{c}\mu^{2}L^{2}}{8}(d+3)^{3}+\eta_{c}^{2}L^{4}\mu^{2}d^{3}"
                r"+\eta_{c}^{3}L^{2}\rho^{2}+\eta_{c}^{2}L\rho\frac{1}{N}(\sigma^{2}+G_{s}^{2}))",
                "001 lines 563-564, (59): Phi'_c, with rho of line 518 for 1+(d kappa+d-2)/(d+2)"),
        Reading(r"\rho", HERON_RHO, r"001 line 518: \rho\triangleq 1+\frac{d\kappa+d-2}{d+2}"),
        Reading(r"|\xi_i|", "B", "001: B is the batch |xi_i| (heron_sfl/_common.py: B (= |xi_i|) -> batch)"),
        Reading("p", "B", "001 line 179: 'Let p be the data size of one local batch' (Table I; encoded as batch)",
                labels=("table1_comm", "table1_comm_cse_fsl", "table1_comm_sfl")),
        Reading("d", HERON_D, "001: d is never defined; heron_sfl/_common.py encodes it as d_c + d_aux"),
        Reading(r"\eta_{\min}", r"\min\{\frac{\eta_c}{4},\frac{\eta_s(2N-1)}{4}\}",
                r"001 line 568, (60): \eta_{\min}\triangleq\min\{\frac{\eta_{c}}{4},\frac{\eta_{s}(2N-1)}{4}\}",
                labels=("thm2",)),
        Reading(r"\varepsilon", r"\epsilon", "001 line 150, Remark 2: the accuracy epsilon", labels=("remark2",)),
        Reading(r"\sum_{i=1}^{N}G_{s}^{2}d_{c,i}^{t}", r"G_s^2\sum_i d_{c,i}^t",
                "001 line 494, (48): the constant G_s^2 taken out of the sum"),
        Reading(r"\sum_{i=1}^{N}d_{c,i}^{t}", r"\sum_i d_{c,i}^t", "001 line 485, (46): the drift summed over clients"),
        Reading(r"f(\theta_g^t)-\mathbb E[f(\theta_g^{t+1})]", r"(f(\theta_g^t)-f^*)-(\mathbb E f(\theta_g^{t+1})-f^*)",
                "001 line 494, (48): f^* added and subtracted (two optimality gaps)"),
    ),
    "mu_splitfed": (
        Reading(r"\mathbb E\|x_{s,m}^{t,i}-x_{s,m}^{t}\|^2", r"\mathbb E\|x_s^{t,i}-x_s^t\|^2",
                "000 Lemma D.2: client m's copy of Lemma C.2's drift", labels=("lemmaD.2",)),
        Reading(r"\mathbb E\|\nabla_{x_{s}}f_{\lambda}^{t}(x_{m}^{t,i})\|^2",
                r"\mathbb E\|\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2",
                "000 Lemma D.2: client m's copy of Lemma C.2's smoothed gradient", labels=("lemmaD.2",)),
        Reading(r"\sigma_L^2", r"\sigma_s^2", "000 Lemma C.4: sigma_L is never defined; (25), which its proof "
                "substitutes, has sigma_s^2 there (mu_splitfed/lemmaC_4.py, encoded so and recorded)",
                labels=("lemmaC.4",)),
        Reading(r"\eta_{s}^{t}", r"\eta_s", "000 Lemma D.3: the server step of round t (encoded constant)",
                labels=("lemmaD.3",)),
        Reading(r"\epsilon", r"\varepsilon", "000 line 302, Table 2: epsilon is the target accuracy of the column",
                labels=("tab2.sfl_v1", "tab2.sfl_v2", "tab2.mu_tau1", "tab2.mu", "tab2.mu_taud")),
    ),
    "cut_layer": (
        Reading(r"f(\theta^t)-\mathbb E[f(\theta^{t+1}_s)]",
                r"(f(\theta^t)-f(\theta^*))-(\mathbb E[f(\theta^{t+1}_s)]-f(\theta^*))",
                "003 Proposition 1's per-round bound: f(theta^*) added and subtracted (two optimality gaps)",
                labels=("prop1",)),
    ),
    "sfl_aux": (
        Reading(r"\Gamma'", r"4\mu_L^2L^2(K^2l+30L^2K^3l\mu_L^2)+\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)+30K^2\mu_L^2L^2",
                "004 Theorem 2's statement (the proof's last display uses it undefined)", labels=("thm2",)),
        Reading(r"\lambda_1", r"B\sum_{j=0}^{l-1}\frac{A^j-1}{A-1}", "004 Theorems 1, 2", labels=("thm2",)),
        Reading(r"\lambda_2", r"\frac{A^l-1}{A-1}", "004 Theorems 1, 2", labels=("thm2",)),
        Reading("B", r"8L^2\mu_L^2((K^2+5L^2K^3\mu_L^2)\sigma_L^2+(K^2+30L^2K^4\mu_L^2)\sigma_G^2)",
                "004 Theorems 1, 2", labels=("thm2",)),
        Reading("A", r"8L^2\mu_L^2(K^2+30L^2K^3\mu_L^2)+2", "004 Theorems 1, 2", labels=("thm2",)),
    ),
    "sl_noniid": (
        Reading(r"\sigma^4", r"(\sigma^2)^2", "002 Table 1: sigma^4 is (sigma^2)^2"),
        Reading(r"\epsilon", r"\epsilon", "002 Table 1: R_epsilon's epsilon is the target accuracy, also squared",
                labels=("tab1.fl_reps", "tab1.sl_reps")),
        Reading(r"\|\nabla f(\mathbf x^r)\|^2", r"\|\nabla f(x^t)\|^2",
                "002 Lemma 4: the gradient norm at the round's model x^r (as eq. (43) writes it)", labels=("lem4",)),
        Reading(r"\tilde\eta_{FL}", r"\tilde\eta", "002 Table 1: the effective learning rate of FL (encoded eta_tilde)",
                labels=("tab1.fl_eff", "tab1.sl_eff")),
        Reading(r"\tilde\eta_{SL}", r"\tilde\eta", "002 Table 1: the effective learning rate of SL (encoded eta_tilde)",
                labels=("tab1.fl_eff", "tab1.sl_eff")),
        Reading(r"\text{complete model}", r"\mathbf{x}",
                "002 line 363, Table 4: 'x, x_c are the sizes of the complete model parameters and the client-side "
                "model parameters'"),
    ),
}  # fmt: skip
