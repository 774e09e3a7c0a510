"""What a check records: one :class:`Leg` per step size, gathered in a :class:`Verification` per result.

Plain data with ``to_dict``/``from_dict`` (the report, the cache, a sweep's table and ``--json`` read them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, kw_only=True)
class Leg:
    """One run of an experiment at one step size: the series over T = 1..T_max and the verdict."""

    mode: str  # "admissible" or "practical"
    step: float
    applies: bool  # every statement hypothesis holds at this step (at T_max)
    failing: tuple[str, ...]  # the statement hypotheses that fail
    T: np.ndarray
    lhs: np.ndarray
    lhs_se: np.ndarray | None  # Monte Carlo standard error; None when exact
    bound: np.ndarray
    verdict: str  # "holds", "violated", "inconclusive", "void" (the bound is negative or not finite)
    first_violation: int | None
    tightness: float  # bound / lhs at T_max; NaN where not a finite ratio (JSON null; reports print n/a)
    slope_lhs: float  # d log lhs / d log T over the last three quarters of T
    slope_bound: float
    # the Monte-Carlo interval, simultaneous over T at ``confidence`` (None: exact); seeds behind the mean
    lhs_lo: np.ndarray | None = None
    lhs_hi: np.ndarray | None = None
    confidence: float | None = None
    seeds: int = 1

    def to_dict(self) -> dict[str, Any]:
        """The leg as JSON-ready data (arrays as lists), under the names the report and ``--json`` use."""
        return {
            "mode": self.mode,
            "step": self.step,
            "applies": self.applies,
            "failing_hypotheses": list(self.failing),
            "verdict": self.verdict,
            "first_violation_T": self.first_violation,
            "tightness_at_T": self.tightness,
            "decay_exponent_measured": self.slope_lhs,
            "decay_exponent_predicted": self.slope_bound,
            "T": self.T.tolist(),
            "measured": self.lhs.tolist(),
            "measured_se": None if self.lhs_se is None else self.lhs_se.tolist(),
            "predicted": self.bound.tolist(),
            "measured_lo": None if self.lhs_lo is None else self.lhs_lo.tolist(),
            "measured_hi": None if self.lhs_hi is None else self.lhs_hi.tolist(),
            "confidence": self.confidence,
            "seeds": self.seeds,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Leg:
        """The leg :meth:`to_dict` wrote (JSON null read back as NaN or an infinite value; older records without the
        interval as exact)."""

        def arr(x: Any) -> np.ndarray:
            return np.asarray([np.inf if v is None else v for v in x], dtype=float)

        def low(x: Any) -> np.ndarray:  # a lower end written as null is -inf (no interval)
            return np.asarray([-np.inf if v is None else v for v in x], dtype=float)

        return cls(
            mode=d["mode"], step=d["step"], applies=d["applies"], failing=tuple(d["failing_hypotheses"]),
            T=np.asarray(d["T"], dtype=int), lhs=arr(d["measured"]),
            lhs_se=None if d["measured_se"] is None else arr(d["measured_se"]), bound=arr(d["predicted"]),
            verdict=d["verdict"], first_violation=d["first_violation_T"],
            tightness=np.nan if d["tightness_at_T"] is None else d["tightness_at_T"],
            slope_lhs=np.nan if d["decay_exponent_measured"] is None else d["decay_exponent_measured"],
            slope_bound=np.nan if d["decay_exponent_predicted"] is None else d["decay_exponent_predicted"],
            lhs_lo=None if d.get("measured_lo") is None else low(d["measured_lo"]),
            lhs_hi=None if d.get("measured_hi") is None else arr(d["measured_hi"]),
            confidence=d.get("confidence"), seeds=d.get("seeds", 1),
        )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class TightestPoint:
    """One worst case: the leg (``mode``, ``step``), the clients M and rounds T, the paper's bound (sigma^2 = 0),
    the worst case and its kind, the deterministic quadratic's value (None at M other than the check's), the
    statement hypotheses that fail there, and the SDP's seconds."""

    mode: str
    step: float
    M: int
    T: int
    paper: float
    tightest: float
    kind: str
    measured: float | None
    failing: tuple[str, ...] = ()
    seconds: float = 0.0
    replayed: float | None = None  # where the bound is below an exact worst case: the trainer's value on the function

    @property
    def ratio(self) -> float:
        """paper / tightest (NaN where the worst case is 0)."""
        return self.paper / self.tightest if self.tightest > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**dataclasses.asdict(self), "failing": list(self.failing), "ratio": self.ratio}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TightestPoint:
        """What :meth:`to_dict` wrote."""
        kw: dict[str, Any] = {k: v for k, v in d.items() if k != "ratio"}
        return cls(**{**kw, "failing": tuple(kw.get("failing", ()))})


@dataclass(frozen=True, kw_only=True)
class Tightest:
    """The tightest bound of one result: what is bounded, the class in words, why each kind, the points; or the
    reason it is not computed (``reason``, with no points)."""

    quantity: str
    assumptions: str
    kinds: Mapping[str, str] = field(default_factory=dict)
    points: tuple[TightestPoint, ...] = ()
    note: str = ""
    reason: str = ""
    skipped: str = ""  # the points left out (an SDP above the size limit), in words
    refutations: tuple[Mapping[str, Any], ...] = ()  # verify.pep.replay.refutation_record of each bound refuted
    by_step: tuple[TightestPoint, ...] = ()  # at the last T, the admissible step scaled (mode "x0.5", "x2", ...)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"quantity": self.quantity, "assumptions": self.assumptions, "kinds": dict(self.kinds),
                "points": [p.to_dict() for p in self.points], "note": self.note, "reason": self.reason,
                "skipped": self.skipped, "refutations": [dict(r) for r in self.refutations],
                "by_step": [p.to_dict() for p in self.by_step]}  # fmt: skip

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Tightest:
        """What :meth:`to_dict` wrote."""
        return cls(quantity=d["quantity"], assumptions=d["assumptions"], kinds=d.get("kinds", {}),
                   points=tuple(TightestPoint.from_dict(p) for p in d["points"]), note=d.get("note", ""),
                   reason=d.get("reason", ""), skipped=d.get("skipped", ""),
                   refutations=tuple(d.get("refutations", ())),
                   by_step=tuple(TightestPoint.from_dict(p) for p in d.get("by_step", ())))  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Verification:
    """A result checked on an exact problem: the experiment, the constants used, and one :class:`Leg` per step."""

    result: str
    algorithm: str
    method: str  # "exact moments" or "Monte Carlo over N seeds"
    lhs: str
    note: str
    constants: dict[str, float]
    constant_notes: list[str]
    params: dict[str, Any]
    legs: tuple[Leg, ...] = field(default_factory=tuple)
    problem: str = "exact quadratic (constants exact)"
    constant_errors: dict[str, float] = field(default_factory=dict)  # standard error of a measured constant
    # the confidence of the Monte-Carlo verdicts (a simultaneous interval over T per leg); None: exact
    confidence: float | None = None
    tightest: Tightest | None = None  # the worst case over the result's function class (verify --tightest)

    @property
    def verdict(self) -> str:
        """The verdict at the admissible step (the claim as stated)."""
        return self.legs[0].verdict

    def to_dict(self) -> dict[str, Any]:
        """The verification as JSON-ready data, its legs with :meth:`Leg.to_dict` (``T`` left out of ``params``)."""
        return {
            "result": self.result,
            "algorithm": self.algorithm,
            "method": self.method,
            "lhs": self.lhs,
            "note": self.note,
            "constants": self.constants,
            "constant_notes": self.constant_notes,
            "params": {k: v for k, v in self.params.items() if k != "T"},
            "problem": self.problem,
            "constant_errors": self.constant_errors,
            "confidence": self.confidence,
            "verdict": self.verdict,
            "legs": [leg.to_dict() for leg in self.legs],
            **({"tightest": self.tightest.to_dict()} if self.tightest is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verification:
        """The verification :meth:`to_dict` wrote (fields added since default as before they existed)."""
        return cls(
            result=d["result"], algorithm=d["algorithm"], method=d["method"], lhs=d["lhs"], note=d["note"],
            constants=d["constants"], constant_notes=d["constant_notes"], params=d["params"],
            legs=tuple(Leg.from_dict(x) for x in d["legs"]),
            problem=d.get("problem", "exact quadratic (constants exact)"), constant_errors=d.get("constant_errors", {}),
            confidence=d.get("confidence"),
            tightest=Tightest.from_dict(d["tightest"]) if d.get("tightest") else None,
        )  # fmt: skip


__all__ = ["Leg", "Tightest", "TightestPoint", "Verification"]
