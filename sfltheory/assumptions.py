"""Named assumptions shared between results.

A result lists the assumptions it uses; each assumption names the constants it introduces (canonical
names), so a reader sees which measured constant stands behind which hypothesis. Papers state the same
assumption with small differences (for every sample vs in expectation, per client vs global); those
variants are separate objects here because ``verify`` must measure them differently.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Assumption:
    key: str
    name: str
    statement: str  # LaTeX
    introduces: tuple[str, ...] = ()
    note: str = ""


SMOOTHNESS = Assumption(
    "smoothness",
    "L-smoothness",
    r"f \text{ is bounded below and } \|\nabla f(x)-\nabla f(y)\| \le L\|x-y\|\ \forall x,y",
    ("L",),
)
SMOOTHNESS_PER_CLIENT = Assumption(
    "smoothness_per_client",
    "L-smoothness of every local objective",
    r"\forall m:\ f_m \text{ is bounded below and } \|\nabla f_m(x)-\nabla f_m(y)\| \le L\|x-y\|",
    ("L",),
)
BOUNDED_VARIANCE = Assumption(
    "bounded_variance",
    "bounded variance (in expectation)",
    r"\mathbb{E}_\xi\|\nabla F(x;\xi)-\nabla f(x)\|^2 \le \sigma^2",
    ("sigma2",),
)
BOUNDED_VARIANCE_PER_PART_AS = Assumption(
    "bounded_variance_per_part_as",
    "bounded variance per part, for every sample",
    r"\forall \xi:\ \|\nabla_{x_c}F(x;\xi)-\nabla_{x_c}f(x)\|^2 \le \sigma_c^2,\ "
    r"\|\nabla_{x_s}F(x;\xi)-\nabla_{x_s}f(x)\|^2 \le \sigma_s^2",
    ("sigma_c2", "sigma_s2"),
    note="stated for every sample xi (an almost-sure bound), not in expectation",
)
BOUNDED_VARIANCE_PER_PART = Assumption(
    "bounded_variance_per_part",
    "bounded variance per part (in expectation)",
    r"\mathbb{E}_\xi\|\nabla_{x_c}F(x;\xi)-\nabla_{x_c}f(x)\|^2 \le \sigma_c^2,\ "
    r"\mathbb{E}_\xi\|\nabla_{x_s}F(x;\xi)-\nabla_{x_s}f(x)\|^2 \le \sigma_s^2",
    ("sigma_c2", "sigma_s2"),
)
BOUNDED_HETEROGENEITY = Assumption(
    "bounded_heterogeneity",
    "bounded heterogeneity",
    r"\forall m, x:\ \|\nabla f_m(x)-\nabla f(x)\|^2 \le \epsilon^2",
    ("eps2",),
)
BOUNDED_DISSIMILARITY = Assumption(
    "bounded_dissimilarity",
    "bounded dissimilarity",
    r"\frac{1}{M}\sum_m\|\nabla f_m(x)\|^2 \le B^2\|\nabla f(x)\|^2 + G^2",
    ("B2", "G2"),
)
BOUNDED_GRADIENTS_PER_PART = Assumption(
    "bounded_gradients_per_part",
    "bounded gradient norms per part",
    r"\|\nabla_{x_c}F\|^2 \le G_c^2,\ \|\nabla_{x_s}F\|^2 \le G_s^2",
    ("G_c2", "G_s2"),
)
BOUNDED_GRADIENT = Assumption(
    "bounded_gradient",
    "bounded gradient norm",
    r"\mathbb{E}\|\nabla F(x;\xi)\|^2 \le G^2",
    ("G2",),
)
EFFECTIVE_RANK = Assumption(
    "effective_rank",
    "low effective rank of the Hessian",
    r"\operatorname{tr}(H)/\|H\|_2 \le \kappa",
    ("kappa",),
)

ALL: tuple[Assumption, ...] = (
    SMOOTHNESS,
    SMOOTHNESS_PER_CLIENT,
    BOUNDED_VARIANCE,
    BOUNDED_VARIANCE_PER_PART_AS,
    BOUNDED_VARIANCE_PER_PART,
    BOUNDED_HETEROGENEITY,
    BOUNDED_DISSIMILARITY,
    BOUNDED_GRADIENTS_PER_PART,
    BOUNDED_GRADIENT,
    EFFECTIVE_RANK,
)
