"""Named assumptions shared between results.

A result lists the assumptions it uses; each assumption names the constants it introduces (canonical
names), so a reader sees which measured constant stands behind which hypothesis. Papers state the same
assumption with small differences (for every sample vs in expectation, per client vs global); those
variants are separate objects here because ``verify`` must measure them differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import variants as var


@dataclass(frozen=True, kw_only=True)
class Pick:
    """How one constant of an assumption is read from a measurement: the measured keys to try in order (the
    first present wins; keys joined by ``|`` take their maximum) and why that variant serves the assumption.
    Keys are built from :mod:`sfltheory.variants`, the names both halves share."""

    name: str
    keys: tuple[str, ...]
    why: str


@dataclass(frozen=True, kw_only=True)
class Assumption:
    """A named assumption. ``picks`` says which measured variant serves each constant it introduces;
    ``unmeasured`` says why none can (an assumption on the run rather than on the model and data, or one
    that no estimator in ``verify`` measures) -- one of the two is required when it introduces a constant."""

    key: str
    name: str
    statement: str  # LaTeX
    introduces: tuple[str, ...] = ()
    note: str = ""
    picks: tuple[Pick, ...] = ()
    unmeasured: str = ""


SMOOTHNESS = Assumption(
    key="smoothness",
    name="L-smoothness",
    statement=r"f \text{ is bounded below and } \|\nabla f(x)-\nabla f(y)\| \le L\|x-y\|\ \forall x,y",
    introduces=("L",),
    picks=(Pick(name="L", keys=("L",), why="top Hessian eigenvalue of f"),),
)
SMOOTHNESS_PER_CLIENT = Assumption(
    key="smoothness_per_client",
    name="L-smoothness of every local objective",
    statement=r"\forall m:\ f_m \text{ is bounded below and } \|\nabla f_m(x)-\nabla f_m(y)\| \le L\|x-y\|",
    introduces=("L",),
    picks=(
        Pick(
            name="L",
            keys=(var.key("L", var.CLIENTS), "L"),
            why="max over clients of the top eigenvalue of f_m (else that of f)",
        ),
    ),
)
BOUNDED_VARIANCE = Assumption(
    key="bounded_variance",
    name="bounded variance (in expectation)",
    statement=r"\mathbb{E}_\xi\|\nabla F(x;\xi)-\nabla f(x)\|^2 \le \sigma^2",
    introduces=("sigma2",),
    picks=(Pick(name="sigma2", keys=("sigma2",), why="in expectation: the mean over samples"),),
)
BOUNDED_VARIANCE_PER_PART_AS = Assumption(
    key="bounded_variance_per_part_as",
    name="bounded variance per part, for every sample",
    statement=r"\forall \xi:\ \|\nabla_{x_c}F(x;\xi)-\nabla_{x_c}f(x)\|^2 \le \sigma_c^2,\ "
    r"\|\nabla_{x_s}F(x;\xi)-\nabla_{x_s}f(x)\|^2 \le \sigma_s^2",
    introduces=("sigma_c2", "sigma_s2"),
    note="stated for every sample xi (an almost-sure bound), not in expectation",
    picks=(
        Pick(
            name="sigma_c2", keys=(var.key("sigma_c2", var.MAX),), why="stated for every sample: the max over samples"
        ),
        Pick(
            name="sigma_s2", keys=(var.key("sigma_s2", var.MAX),), why="stated for every sample: the max over samples"
        ),
    ),
)
BOUNDED_VARIANCE_PER_PART = Assumption(
    key="bounded_variance_per_part",
    name="bounded variance per part (in expectation)",
    statement=r"\mathbb{E}_\xi\|\nabla_{x_c}F(x;\xi)-\nabla_{x_c}f(x)\|^2 \le \sigma_c^2,\ "
    r"\mathbb{E}_\xi\|\nabla_{x_s}F(x;\xi)-\nabla_{x_s}f(x)\|^2 \le \sigma_s^2",
    introduces=("sigma_c2", "sigma_s2"),
    picks=(
        Pick(name="sigma_c2", keys=("sigma_c2",), why="in expectation: the mean over samples"),
        Pick(name="sigma_s2", keys=("sigma_s2",), why="in expectation: the mean over samples"),
    ),
)
BOUNDED_HETEROGENEITY = Assumption(
    key="bounded_heterogeneity",
    name="bounded heterogeneity",
    statement=r"\forall m, x:\ \|\nabla f_m(x)-\nabla f(x)\|^2 \le \epsilon^2",
    introduces=("eps2",),
    picks=(Pick(name="eps2", keys=("eps2",), why="for every client: the max over clients"),),
)
BOUNDED_DISSIMILARITY = Assumption(
    key="bounded_dissimilarity",
    name="bounded dissimilarity",
    statement=r"\frac{1}{M}\sum_m\|\nabla f_m(x)\|^2 \le B^2\|\nabla f(x)\|^2 + G^2",
    introduces=("B2", "G2"),
    picks=(
        Pick(name="B2", keys=("B2",), why="fitted over the measured points"),
        Pick(name="G2", keys=("G2",), why="fitted over the measured points"),
    ),
)
BOUNDED_GRADIENTS_PER_PART = Assumption(
    key="bounded_gradients_per_part",
    name="bounded gradient norms per part",
    statement=r"\|\nabla_{x_c}F\|^2 \le G_c^2,\ \|\nabla_{x_s}F\|^2 \le G_s^2",
    introduces=("G_c2", "G_s2"),
    picks=(
        Pick(name="G_c2", keys=("G_c2",), why="max over samples of the squared per-sample gradient norm"),
        Pick(name="G_s2", keys=("G_s2",), why="max over samples of the squared per-sample gradient norm"),
    ),
)
BOUNDED_GRADIENT = Assumption(
    key="bounded_gradient",
    name="bounded gradient norm",
    statement=r"\mathbb{E}\|\nabla F(x;\xi)\|^2 \le G^2",
    introduces=("G2",),
    picks=(Pick(name="G2", keys=(var.key("G2", var.GRADIENT),), why="mean over samples of the squared gradient norm"),),
)
EFFECTIVE_RANK = Assumption(
    key="effective_rank",
    name="low effective rank of the Hessian",
    statement=r"\operatorname{tr}(H)/\|H\|_2 \le \kappa",
    introduces=("kappa",),
    picks=(Pick(name="kappa", keys=(var.key("kappa", var.CLIENT), "kappa"), why="tr(H)/||H||_2 of the client part"),),
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
