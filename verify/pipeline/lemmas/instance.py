r"""A lemma's exact instance: a quadratic with a diagonal Hessian, per-client shifts and isotropic Gaussian noise.

Client :math:`i` has :math:`f_i(x)=\tfrac12(x-b_i)^\top H(x-b_i)`, :math:`H=\operatorname{diag}(h)`, and draws
:math:`g_i(x)=H(x-b_i)+\xi`, :math:`\xi\sim\mathcal N(0,\tfrac{\sigma^2}{d}I_d)` -- the trainer's
:class:`~verify.problems.QuadraticProblem` exactly, so an instance is written as a ``--problem`` file that
``sfltheory train`` and ``sfltheory verify`` read (the lemma's own settings ride along under ``"lemma"``).

Its constants are exact, read the way each paper defines them (every client's L-smoothness: :math:`L=\max_j|h_j|`;
the per-client variance :math:`\mathbb E\|\xi\|^2=\sigma^2`; with :math:`\bar b=\sum_i\alpha_ib_i` the global
objective's minimiser, :math:`\nabla f_i-\nabla f=-H(b_i-\bar b)` does not depend on x, so the heterogeneity
constants are numbers: its maximum over clients, its mean, and SL's bounded dissimilarity with :math:`B^2=1`,
:math:`G^2=\tfrac1N\sum_i\|H(b_i-\bar b)\|^2`, which hold with equality in x).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.atomic import write_atomic
from sfltheory.errors import ParameterError

FORMAT = "sfltheory.lemma-instance/1"


@dataclass(frozen=True, kw_only=True, eq=False)
class Instance:
    """One quadratic instance and the lemma settings it is evaluated at (``settings``: the structural and step
    parameters under their canonical names, e.g. ``K``, ``M``, ``eta_l``, ``eta_g``)."""

    h: np.ndarray
    b: np.ndarray
    x0: np.ndarray
    sigma2: float
    weights: np.ndarray
    settings: dict[str, float] = field(default_factory=dict)
    one_sided: bool = False  # smoothness as an upper quadratic bound only: L = max h (else max |h|)
    y: np.ndarray | None = None  # the current point of a pointwise lemma (x_s^{t,i}); x0 is the round's start
    noise_law: str = "gaussian"  # or "rademacher": +-sigma/sqrt(d) per coordinate, ||xi||^2 = sigma^2 surely

    @property
    def d(self) -> int:
        """The dimension."""
        return len(self.h)

    @property
    def N(self) -> int:
        """The number of clients (rows of ``b``)."""
        return len(self.b)

    @property
    def noise(self) -> np.ndarray:
        """The coordinate variances of one draw: :math:`\\sigma^2/d` each (isotropic, as the trainer's problem)."""
        return np.full(self.d, self.sigma2 / self.d)

    @property
    def bbar(self) -> np.ndarray:
        """The minimiser of :math:`f=\\sum_i\\alpha_if_i`."""
        return np.asarray(self.weights @ self.b)

    def grad_f(self, x: np.ndarray) -> np.ndarray:
        """:math:`\\nabla f(x)`."""
        return np.asarray(self.h * (x - self.bbar))

    def f_gap(self, x: np.ndarray) -> float:
        """:math:`f(x)-f(\\bar b)`."""
        return float(0.5 * self.h @ (x - self.bbar) ** 2)

    def deviations2(self) -> np.ndarray:
        """:math:`\\|\\nabla f_i-\\nabla f\\|^2` per client (the same at every x)."""
        return np.asarray(np.sum((self.h * (self.b - self.bbar)) ** 2, axis=1))

    def constants(self) -> dict[str, float]:
        r"""The exact constants under canonical names (``eps2`` the maximum over clients, ``eps2[mean]`` the mean,
        ``B2`` and ``G2`` SL's dissimilarity, ``gradnorm2_f`` at ``x0`` and ``gradnorm2_Fk`` of client 0; for the
        pointwise zeroth-order lemmas ``drift_xs`` = :math:`\|y-x_0\|^2` and the gradients at both points)."""
        dev = self.deviations2()
        y = self.x0 if self.y is None else self.y  # on a quadratic the smoothed gradient is the gradient
        L = float(np.max(self.h) if self.one_sided else np.max(np.abs(self.h)))
        return {"L": L, "sigma2": self.sigma2, "eps2": float(dev.max()),
                "eps2[mean]": float(dev @ self.weights), "B2": 1.0, "G2": float(dev.mean()),
                "gradnorm2_f": float(np.sum(self.grad_f(self.x0) ** 2)),
                "gradnorm2_Fk": float(np.sum((self.h * (self.x0 - self.b[0])) ** 2)),
                "sum_alpha2": float(self.weights @ self.weights), "d": float(self.d), "d_s": float(self.d),
                "gradnorm2_xs": float(np.sum(self.grad_f(self.x0) ** 2)),
                "drift_xs": float(np.sum((y - self.x0) ** 2)),
                "gradnorm2_lam_xs": float(np.sum(self.grad_f(y) ** 2))}  # fmt: skip

    # -- the witness file --------------------------------------------------------------------------------------

    def to_dict(self, lemma: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``--problem`` file's object (QuadraticProblem's keys) with the lemma's settings under ``lemma``."""
        out: dict[str, Any] = {"kind": "quadratic", "H": self.h.tolist(), "shifts": self.b.tolist(),
                               "x0": self.x0.tolist(), "d_c": 1, "sigma2": self.sigma2, "noise": self.noise_law,
                               "lemma": {"format": FORMAT, "weights": self.weights.tolist(),
                                         "settings": dict(self.settings), "one_sided": self.one_sided,
                                         "y": None if self.y is None else self.y.tolist(),
                                         **(lemma or {})}}  # fmt: skip
        return out

    def save(self, path: str | Path, lemma: dict[str, Any] | None = None) -> Path:
        """Write the witness file atomically."""
        p = Path(path)
        write_atomic(p, json.dumps(self.to_dict(lemma), indent=1) + "\n")
        return p


def load(path: str | Path) -> tuple[Instance, dict[str, Any]]:
    """An instance and its ``lemma`` block from a witness file; a ParameterError naming ``--replay`` otherwise."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise ParameterError("--replay", f"{p} is not a readable JSON witness file ({e.__class__.__name__})") from None
    lemma = raw.get("lemma") if isinstance(raw, dict) else None
    if not isinstance(lemma, dict) or lemma.get("format") != FORMAT:
        raise ParameterError("--replay", f"{p} is not a {FORMAT} witness (a --problem file with a 'lemma' block)")
    try:
        h = np.asarray(raw["H"], dtype=float)
        inst = Instance(h=h, b=np.asarray(raw["shifts"], dtype=float), x0=np.asarray(raw["x0"], dtype=float),
                        sigma2=float(raw["sigma2"]), weights=np.asarray(lemma["weights"], dtype=float),
                        settings={k: float(v) for k, v in lemma["settings"].items()},
                        one_sided=bool(lemma.get("one_sided", False)),
                        y=None if lemma.get("y") is None else np.asarray(lemma["y"], dtype=float),
                        noise_law=str(raw.get("noise", "gaussian")))  # fmt: skip
    except (KeyError, TypeError, ValueError) as e:
        raise ParameterError("--replay", f"{p}: a field is missing or not numeric ({e})") from None
    if h.ndim != 1 or inst.b.ndim != 2 or inst.b.shape[1] != len(h) or inst.x0.shape != h.shape:
        raise ParameterError("--replay", f"{p}: H must be a diagonal (d,), shifts (N, d) and x0 (d,)")
    return inst, lemma
